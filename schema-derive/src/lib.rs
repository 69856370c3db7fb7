//! `#[derive(OutputSchema)]`: use it through `toon_core`, which re-exports it.
//!
//! The input is read and checked by `toon-derive-internals`, the same model
//! `#[derive(Toon)]` uses, so both derives agree on every key and wire name; the
//! expansion only describes the type, and `toon_core` builds the schema and the
//! declarations from that description.

use proc_macro::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{parse_macro_input, DeriveInput};
use toon_derive_internals::ast::{Body, Container};
use toon_derive_internals::fallback::fallback;
use toon_derive_internals::shape::shape_expr;
use toon_derive_internals::Derive;

/// Derives `toon_core::OutputSchema` for a struct with named fields, a newtype
/// struct (or a one-field struct marked `transparent`), an enum of unit
/// variants, or an internally tagged enum.
#[proc_macro_derive(OutputSchema, attributes(toon, serde, schemars, validate))]
pub fn derive_output_schema(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match toon_derive_internals::parse(&input, Derive::OutputSchema) {
        Ok(c) => expand(&c).into(),
        Err(errors) => fallback(&input, Derive::OutputSchema, errors).into(),
    }
}

fn expand(c: &Container<'_>) -> proc_macro2::TokenStream {
    let krate = c.runtime_path();
    let ident = &c.input.ident;
    let name = ident.to_string();
    let generics = c.bounded_generics(&quote!(__toon::OutputSchema));
    let (impl_g, ty_g, where_g) = generics.split_for_impl();
    let shape = shape_expr(c, &quote!(__toon::__private::by_schema));
    let reference = match &c.body {
        // A newtype is transparent: it refers to what its inner type refers to.
        Body::Newtype { ty, .. } => quote_spanned! {ty.span()=>
            fn __shape_ref() -> __toon::schema::Shape { <#ty as __toon::OutputSchema>::__shape_ref() }
            fn __optional() -> bool { <#ty as __toon::OutputSchema>::__optional() }
        },
        _ => quote! {
            fn __shape_ref() -> __toon::schema::Shape {
                __toon::schema::Shape::Named {
                    name: #name,
                    id: ::core::any::type_name::<Self>(),
                    shape: __toon::schema::Describe::of(<Self as __toon::OutputSchema>::__shape),
                }
            }
        },
    };
    quote! {
        const _: () = {
            use #krate as __toon;
            #[automatically_derived]
            impl #impl_g __toon::OutputSchema for #ident #ty_g #where_g {
                fn __shape() -> __toon::schema::Shape { #shape }
                #reference
            }
        };
    }
}
