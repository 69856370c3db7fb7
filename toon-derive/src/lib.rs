//! `#[derive(Toon)]`: use it through `toon_core`, which re-exports it.
//!
//! The input is read and checked by `toon-derive-internals` (shared with
//! `#[derive(OutputSchema)]`), every error at its span; `expand` then writes
//! thin impls that describe the type and call into `toon_core::__private`.

mod expand;
mod partial;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};
use toon_derive_internals::fallback::fallback;
use toon_derive_internals::Derive;

/// Derives `toon_core::Toon` for a struct with named fields, a newtype struct
/// (or a one-field struct marked `transparent`), an enum of unit variants, or
/// an internally tagged enum (`#[toon(tag = "kind")]`).
#[proc_macro_derive(Toon, attributes(toon, serde, schemars, validate))]
pub fn derive_toon(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match toon_derive_internals::parse(&input, Derive::Toon) {
        Ok(container) => expand::expand(&container).into(),
        Err(errors) => fallback(&input, Derive::Toon, errors).into(),
    }
}
