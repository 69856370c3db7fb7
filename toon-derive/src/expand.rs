//! Expand: thin impls that describe the type and call into `toon_core::__private`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Body, Container};

pub fn expand(c: &Container<'_>) -> TokenStream {
    let krate = c
        .attrs
        .krate
        .as_ref()
        .map_or_else(|| quote!(::toon_core), |p| quote!(#p));
    let ident = &c.input.ident;
    let name = ident.to_string();
    let doc = &c.doc;
    let mut generics = c.input.generics.clone();
    for param in generics.type_params_mut() {
        param.bounds.push(syn::parse_quote!(__toon::Toon));
    }
    let (impl_g, ty_g, where_g) = generics.split_for_impl();

    let body = match &c.body {
        Body::Struct(fields) => {
            let live: Vec<_> = fields.iter().filter(|f| !f.skip).collect();
            let shapes = live.iter().map(|f| {
                let (wire, doc, ty, default) = (&f.wire, &f.doc, f.ty, f.default);
                quote_spanned! {ty.span()=>
                    __toon::__private::FieldShape {
                        name: #wire,
                        doc: #doc,
                        shape: <#ty as __toon::Toon>::__shape_ref(),
                        optional: #default || <#ty as __toon::Toon>::__missing().is_some(),
                    }
                }
            });
            let to_value = live.iter().map(|f| {
                let (wire, id) = (&f.wire, f.ident);
                quote! { __map.insert(::std::string::String::from(#wire), __toon::Toon::__to_value(&self.#id)); }
            });
            let wires = live.iter().map(|f| &f.wire);
            let reads = fields.iter().map(|f| {
                let (id, wire, ty) = (f.ident, &f.wire, f.ty);
                if f.skip {
                    quote_spanned! {ty.span()=> #id: ::core::default::Default::default() }
                } else if f.default {
                    quote_spanned! {ty.span()=> #id: __cx.field_or_default::<#ty>(__map, #wire)? }
                } else {
                    quote_spanned! {ty.span()=> #id: __cx.field::<#ty>(__map, #wire)? }
                }
            });
            quote! {
                fn __shape() -> __toon::Shape {
                    __toon::Shape::Struct(__toon::__private::StructShape {
                        name: #name,
                        doc: #doc,
                        fields: ::std::vec![#(#shapes),*],
                    })
                }
                fn __to_value(&self) -> __toon::__private::Value {
                    let mut __map = __toon::__private::Map::new();
                    #(#to_value)*
                    __toon::__private::Value::Object(__map)
                }
                fn __from_value(
                    __value: &__toon::__private::Value,
                    __cx: &mut __toon::__private::Cx,
                ) -> ::core::result::Result<Self, __toon::ParseError> {
                    let __map = __cx.object(__value, #name)?;
                    __cx.ignore_unknown(__map, &[#(#wires),*]);
                    ::core::result::Result::Ok(Self { #(#reads),* })
                }
            }
        }
        Body::UnitEnum(variants) => {
            let wires: Vec<_> = variants.iter().map(|v| &v.wire).collect();
            let docs = variants.iter().map(|v| &v.doc);
            let idents: Vec<_> = variants.iter().map(|v| &v.ident).collect();
            let indices = 0..variants.len();
            quote! {
                fn __shape() -> __toon::Shape {
                    __toon::Shape::Enum(__toon::__private::EnumShape {
                        name: #name,
                        doc: #doc,
                        variants: ::std::vec![#((#wires, #docs)),*],
                    })
                }
                fn __to_value(&self) -> __toon::__private::Value {
                    __toon::__private::Value::String(::std::string::String::from(match self {
                        #(Self::#idents => #wires),*
                    }))
                }
                fn __from_value(
                    __value: &__toon::__private::Value,
                    __cx: &mut __toon::__private::Cx,
                ) -> ::core::result::Result<Self, __toon::ParseError> {
                    const __NAMES: &[&str] = &[#(#wires),*];
                    let __i = __cx.variant(__value, __NAMES)?;
                    #(if __i == #indices { return ::core::result::Result::Ok(Self::#idents); })*
                    ::core::result::Result::Err(__cx.error(__toon::ParseErrorKind::InvalidValue, "unknown variant"))
                }
            }
        }
    };

    quote! {
        const _: () = {
            use #krate as __toon;
            impl #impl_g __toon::Toon for #ident #ty_g #where_g {
                #body
                fn __shape_ref() -> __toon::Shape {
                    __toon::Shape::Named { name: #name, shape: <Self as __toon::Toon>::__shape }
                }
            }
        };
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
                fn __from_value(
                    _: &::toon_core::__private::Value,
                    _: &mut ::toon_core::__private::Cx,
                ) -> ::core::result::Result<Self, ::toon_core::ParseError> { ::core::unimplemented!() }
            }
        };
    }
}
