//! On error: the errors, and a stub impl of the derived trait, so the real
//! errors are the only ones the user sees (no "trait not implemented" at every use).

use proc_macro2::TokenStream;
use quote::quote;
use syn::{DeriveInput, LitStr};

use crate::support::runtime_path;

/// The derives, and what each one's stub must define.
#[derive(Clone, Copy)]
pub enum Derive {
    Toon,
    OutputSchema,
}

impl Derive {
    /// The name in `#[derive(..)]`, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Derive::Toon => "Toon",
            Derive::OutputSchema => "OutputSchema",
        }
    }
}

/// `errors`, then `impl Trait for Input` with every required item unimplemented,
/// reached through `#[toon(crate = "...")]` where the input gives one.
pub fn fallback(input: &DeriveInput, derive: Derive, errors: syn::Error) -> TokenStream {
    let ident = &input.ident;
    let mut generics = input.generics.clone();
    if let Derive::Toon = derive {
        // `Toon` is `'static`: a stub for a type with a lifetime (itself
        // refused) must not add an error of its own.
        generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(Self: 'static));
    }
    let (impl_g, ty_g, where_g) = generics.split_for_impl();
    let errors = errors.to_compile_error();
    let krate = runtime_path(crate_override(input).as_ref());
    let items = match derive {
        Derive::Toon => quote! {
            const __TOON: __toon::__private::Readers<Self> = __toon::__private::Readers::new(
                || ::core::unimplemented!(),
                |_| ::core::unimplemented!(),
                |_, _| ::core::unimplemented!(),
            );
        },
        Derive::OutputSchema => quote! {
            fn __shape() -> __toon::schema::Shape { ::core::unimplemented!() }
        },
    };
    let name = syn::Ident::new(derive.name(), proc_macro2::Span::call_site());
    quote! {
        #errors
        const _: () = {
            use #krate as __toon;
            impl #impl_g __toon::#name for #ident #ty_g #where_g { #items }
        };
    }
}

/// `#[toon(crate = "...")]`, read leniently: the input may hold other errors.
fn crate_override(input: &DeriveInput) -> Option<syn::Path> {
    let mut out = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("toon")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                out = meta.value()?.parse::<LitStr>()?.parse().ok();
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                let _content;
                syn::parenthesized!(_content in meta.input);
                let _: TokenStream = _content.parse()?;
            }
            Ok(())
        });
    }
    out
}
