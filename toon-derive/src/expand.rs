//! Expand: thin impls that describe the type and call into `toon_core::__private`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use toon_derive_internals::ast::{Body, Container, Field};
use toon_derive_internals::shape::{constraints_expr, shape_expr};

pub fn expand(c: &Container<'_>) -> TokenStream {
    let krate = c.runtime_path();
    let ident = &c.input.ident;
    let name = ident.to_string();
    let generics = c.bounded_generics(&quote!(__toon::Toon));
    let (impl_g, ty_g, where_g) = generics.split_for_impl();
    let shape = shape_expr(c, &quote!(__toon::Toon));

    let (to_value, from_node, extra) = match &c.body {
        Body::Struct(fields) => {
            let inserts = inserts(fields, |id| quote!(&self.#id));
            let read = read_fields_with(fields, quote!(Self));
            (
                quote! {
                    let mut __map = __toon::__private::Map::new();
                    #inserts
                    __toon::__private::Value::Object(__map)
                },
                quote! {
                    let mut __fields = __cx.object(__node, #name)?;
                    #read
                },
                quote! {
                    fn __shape_ref() -> __toon::Shape {
                        __toon::Shape::Named { name: #name, shape: <Self as __toon::Toon>::__shape }
                    }
                },
            )
        }
        Body::Newtype(ty) => (
            quote! { __toon::Toon::__to_value(&self.0) },
            quote_spanned! {ty.span()=> <#ty as __toon::Toon>::__from_node(__node, __cx).map(Self) },
            quote_spanned! {ty.span()=>
                fn __shape_ref() -> __toon::Shape { <#ty as __toon::Toon>::__shape_ref() }
                fn __missing() -> ::core::option::Option<Self> { <#ty as __toon::Toon>::__missing().map(Self) }
            },
        ),
        Body::UnitEnum(variants) => {
            let wires: Vec<_> = variants.iter().map(|v| &v.wire).collect();
            let idents: Vec<_> = variants.iter().map(|v| v.ident).collect();
            let aliases = variant_aliases(variants);
            let indices = 0..variants.len();
            (
                quote! {
                    __toon::__private::Value::String(::std::string::String::from(match self {
                        #(Self::#idents => #wires),*
                    }))
                },
                quote! {
                    const __NAMES: &[&str] = &[#(#wires),*];
                    match __cx.variant(&__node, __NAMES, #aliases)? {
                        #(#indices => ::core::result::Result::Ok(Self::#idents),)*
                        _ => ::core::unreachable!("Cx::variant returns an index into the names"),
                    }
                },
                quote!(),
            )
        }
        Body::Tagged { tag, variants } => {
            let wires: Vec<_> = variants.iter().map(|v| &v.wire).collect();
            let aliases = variant_aliases(variants);
            let arms_to = variants.iter().map(|v| {
                let (vid, wire) = (v.ident, &v.wire);
                let binds: Vec<_> = v.fields.iter().map(|f| f.ident).collect();
                let locals: Vec<_> = v.fields.iter().map(|f| format_ident!("__f_{}", f.ident)).collect();
                let inserts = inserts(&v.fields, |id| {
                    let local = format_ident!("__f_{}", id);
                    quote!(#local)
                });
                quote! {
                    Self::#vid { #(#binds: #locals,)* } => {
                        let _ = (#(&#locals,)*);
                        __map.insert(::std::string::String::from(#tag), __toon::__private::Value::String(::std::string::String::from(#wire)));
                        #inserts
                    }
                }
            });
            let arms_from = variants.iter().enumerate().map(|(i, v)| {
                let vid = v.ident;
                let read = read_fields_with(&v.fields, quote!(Self::#vid));
                quote! { #i => { #read } }
            });
            (
                quote! {
                    let mut __map = __toon::__private::Map::new();
                    match self { #(#arms_to)* }
                    __toon::__private::Value::Object(__map)
                },
                quote! {
                    let mut __fields = __cx.object(__node, #name)?;
                    const __NAMES: &[&str] = &[#(#wires),*];
                    match __cx.tag(&mut __fields, #tag, __NAMES, #aliases)? {
                        #(#arms_from)*
                        _ => ::core::unreachable!("Cx::tag returns an index into the names"),
                    }
                },
                quote! {
                    fn __shape_ref() -> __toon::Shape {
                        __toon::Shape::Named { name: #name, shape: <Self as __toon::Toon>::__shape }
                    }
                },
            )
        }
    };

    quote! {
        const _: () = {
            use #krate as __toon;
            #[automatically_derived]
            impl #impl_g __toon::Toon for #ident #ty_g #where_g {
                fn __shape() -> __toon::Shape { #shape }
                fn __to_value(&self) -> __toon::__private::Value { #to_value }
                fn __from_node(
                    __node: __toon::__private::Node<'_>,
                    __cx: &mut __toon::__private::Cx,
                ) -> ::core::result::Result<Self, __toon::ParseError> {
                    #from_node
                }
                #extra
            }
        };
    }
}

/// `&[("old_name", index), ...]`: each variant alias and the variant it names.
fn variant_aliases(variants: &[toon_derive_internals::ast::Variant<'_>]) -> TokenStream {
    let pairs = variants
        .iter()
        .enumerate()
        .flat_map(|(i, v)| v.aliases.iter().map(move |a| quote!((#a, #i))));
    quote!(&[#(#pairs),*])
}

/// `__map.insert("wire", value)` for each live field; `access` spells the field's value.
fn inserts(fields: &[Field<'_>], access: impl Fn(&syn::Ident) -> TokenStream) -> TokenStream {
    let lines = fields.iter().filter(|f| !f.skip).map(|f| {
        let (wire, ty) = (&f.wire, f.ty);
        let value = access(f.ident);
        // Spanned at the field's type, so a missing `Toon` impl points at the field.
        quote_spanned! {ty.span()=>
            __map.insert(::std::string::String::from(#wire), <#ty as __toon::Toon>::__to_value(#value));
        }
    });
    quote!(#(#lines)*)
}

/// Takes each field out of the object or row, then reports what is left as unknown keys.
fn read_fields_with(fields: &[Field<'_>], ctor: TokenStream) -> TokenStream {
    let reads = fields.iter().map(|f| {
        let (id, wire, ty) = (f.ident, &f.wire, f.ty);
        let aliases = &f.aliases;
        let read = if f.default {
            quote_spanned! {ty.span()=> __cx.field_or_default::<#ty>(&mut __fields, #wire, &[#(#aliases),*])? }
        } else {
            quote_spanned! {ty.span()=> __cx.field::<#ty>(&mut __fields, #wire, &[#(#aliases),*])? }
        };
        if f.skip {
            quote_spanned! {ty.span()=> #id: ::core::default::Default::default() }
        } else if f.constraints.is_empty() {
            quote! { #id: #read }
        } else {
            let constraints = constraints_expr(&f.constraints);
            quote_spanned! {ty.span()=> #id: {
                let __v: #ty = #read;
                __cx.check(&__v, #wire, &#constraints)?;
                __v
            } }
        }
    });
    quote! {
        let __out = #ctor { #(#reads),* };
        __cx.ignore_unknown(__fields);
        ::core::result::Result::Ok(__out)
    }
}

/// On error: the errors, and a stub impl so that the real error is the only one shown.
pub fn fallback(input: &syn::DeriveInput, errors: syn::Error) -> TokenStream {
    let ident = &input.ident;
    let (impl_g, ty_g, where_g) = input.generics.split_for_impl();
    let errors = errors.to_compile_error();
    quote! {
        #errors
        const _: () = {
            impl #impl_g ::toon_core::Toon for #ident #ty_g #where_g {
                fn __shape() -> ::toon_core::Shape { ::core::unimplemented!() }
                fn __to_value(&self) -> ::toon_core::__private::Value { ::core::unimplemented!() }
                fn __from_node(
                    _: ::toon_core::__private::Node<'_>,
                    _: &mut ::toon_core::__private::Cx,
                ) -> ::core::result::Result<Self, ::toon_core::ParseError> { ::core::unimplemented!() }
            }
        };
    }
}
