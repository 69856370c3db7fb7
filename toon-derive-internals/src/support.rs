//! What both expansions need from a container: the path the generated code
//! reaches the runtime by, and the generics with each type parameter bounded by
//! the trait being derived.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Container;

impl Container<'_> {
    /// `::toon_core`, or the path given by `#[toon(crate = "...")]`.
    pub fn runtime_path(&self) -> TokenStream {
        runtime_path(self.attrs.krate.as_ref())
    }

    /// The input's generics, each type parameter bounded by `bound`.
    pub fn bounded_generics(&self, bound: &TokenStream) -> syn::Generics {
        let mut generics = self.input.generics.clone();
        for param in generics.type_params_mut() {
            param.bounds.push(syn::parse_quote!(#bound));
        }
        generics
    }
}

/// `::toon_core`, or the `crate = "..."` override.
pub fn runtime_path(krate: Option<&syn::Path>) -> TokenStream {
    krate.map_or_else(|| quote!(::toon_core), |p| quote!(#p))
}
