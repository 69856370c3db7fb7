//! `#[derive(Toon)]`: use it through `toon_core`, which re-exports it.
//!
//! The derive parses the type into a small model (`ast`), validates it,
//! reporting every error at its span, and expands to thin impls (`expand`)
//! that describe the type and call into `toon_core::__private`.

mod ast;
mod attr;
mod expand;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Derives `toon_core::Toon` for a struct with named fields or an enum of unit variants.
#[proc_macro_derive(Toon, attributes(toon, serde))]
pub fn derive_toon(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match ast::Container::from_ast(&input) {
        Ok(container) => expand::expand(&container).into(),
        Err(errors) => expand::fallback(&input, errors).into(),
    }
}
