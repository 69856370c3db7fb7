//! Expand: thin impls that describe the type and call into `toon_core::__private`,
//! one function for each kind of body.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use toon_derive_internals::ast::{Body, Container, Field, Fill, Variant};
use toon_derive_internals::attr::DefaultValue;
use toon_derive_internals::shape::{constraints_expr, shape_expr, stream_keys};

/// The entries of the readers' table that differ between bodies.
struct Body3 {
    /// The body of `to_value`, of `__this: &Self`.
    to_value: TokenStream,
    /// The body of `from_node`, of `__node` and `__cx`.
    from_node: TokenStream,
    /// Other entries of the table (`name: closure,`).
    extra: TokenStream,
}

pub fn expand(c: &Container<'_>) -> TokenStream {
    let krate = c.runtime_path();
    let ident = &c.input.ident;
    let generics = c.bounded_generics(&quote!(__toon::Toon));
    let (impl_g, ty_g, where_g) = generics.split_for_impl();
    let shape = shape_expr(c, &quote!(__toon::__private::by_toon));
    let Body3 {
        to_value,
        from_node,
        extra,
    } = match &c.body {
        Body::Struct(fields) => expand_struct(c, fields),
        Body::Newtype { member, ty } => expand_newtype(member, ty),
        Body::UnitEnum(variants) => expand_unit_enum(variants),
        Body::Tagged { tag, variants } => expand_tagged(c, tag, variants),
    };
    let partial = match (&c.attrs.partial, &c.body) {
        (Some(partial), Body::Struct(fields)) => crate::partial::expand(c, partial, fields),
        _ => quote!(),
    };
    quote! {
        #partial
        const _: () = {
            use #krate as __toon;
            #[automatically_derived]
            impl #impl_g __toon::Toon for #ident #ty_g #where_g {
                const __TOON: __toon::__private::Readers<Self> = __toon::__private::Readers {
                    #extra
                    ..__toon::__private::Readers::new(
                        || #shape,
                        |__this| { #to_value },
                        |__node, __cx| { #from_node },
                    )
                };
            }
        };
    }
}

/// A struct with named fields: an object, or a table row.
fn expand_struct(c: &Container<'_>, fields: &[Field<'_>]) -> Body3 {
    let name = c.input.ident.to_string();
    let inserts = inserts(fields, |id| quote!(&__this.#id));
    // #[serde(default)] on the struct: missing fields come from its own default value.
    let default = match &c.attrs.default.0 {
        DefaultValue::None => quote!(),
        DefaultValue::Trait => {
            quote!(let __default: Self = ::core::default::Default::default();)
        }
        DefaultValue::Path(path) => quote!(let __default: Self = #path();),
    };
    let read = read_fields(fields, quote!(Self));
    // Every key the struct reads, for a missing field's error to name the others.
    let keys = fields
        .iter()
        .filter(|f| !f.attrs.skip)
        .flat_map(|f| std::iter::once(&f.wire).chain(&f.attrs.aliases));
    let shape_ref = named_shape_ref(&name);
    let from_row = from_row(fields, &default);
    let stream_row = stream_row(fields.iter());
    Body3 {
        to_value: quote! {
            let mut __map = __toon::__private::Map::new();
            #inserts
            __toon::__private::Value::Object(__map)
        },
        from_node: quote! {
            #default
            let mut __fields = __cx.object_keyed(__node, #name, &[#(#keys),*])?;
            #read
        },
        extra: quote!(#shape_ref #from_row #stream_row),
    }
}

/// Which rows of the table at a key the whole reply keeps: the field of that
/// key decides, as its type reads the rows ([`stream_keys`]).
fn stream_row<'f>(fields: impl Iterator<Item = &'f Field<'f>>) -> TokenStream {
    let arms = stream_keys(fields.map(|f| (f, ()))).into_iter().map(|(f, (), keys)| {
        let ty = f.ty;
        quote_spanned! {ty.span()=> #(#keys)|* => <#ty as __toon::Toon>::__TOON.stream_row("", __row), }
    });
    let arms: Vec<TokenStream> = arms.collect();
    quote! {
        stream_row: |__key, __row| match __key {
            #(#arms)*
            _ => ::core::option::Option::None,
        },
    }
}

/// The one-pass row reader (`RowCells`): each field from its cell, `None` as
/// soon as a cell would need the full path. Not generated where a field has a
/// constraint to check or an alias to look up: those rows take the full path.
fn from_row(fields: &[Field<'_>], default: &TokenStream) -> TokenStream {
    if fields.iter().any(|f| {
        !f.attrs.skip
            && (!f.constraints.is_empty() || !f.inner.is_empty() || !f.attrs.aliases.is_empty())
    }) {
        return quote!();
    }
    let reads = fields.iter().map(|f| {
        let (id, wire, ty) = (f.ident, &f.wire, f.ty);
        if f.attrs.skip {
            let value = fill_value(f);
            quote_spanned! {ty.span()=> #id: #value }
        } else if f.has_default() {
            let value = fill_value(f);
            quote_spanned! {ty.span()=> #id: __row.cell_or::<#ty>(#wire, || #value)? }
        } else {
            quote_spanned! {ty.span()=> #id: __row.cell::<#ty>(#wire)? }
        }
    });
    // The same reads in the same order, each answered without building the field.
    let checks = fields.iter().filter(|f| !f.attrs.skip).map(|f| {
        let (wire, ty) = (&f.wire, f.ty);
        let check = quote_spanned! {ty.span()=>
            __toon::__private::CellCheck(
                <#ty as __toon::Toon>::__TOON.cell_reads,
                <#ty as __toon::Toon>::__TOON.token_reads,
            )
        };
        if f.has_default() {
            quote_spanned! {ty.span()=> __row.reads_or(#wire, #check) }
        } else {
            quote_spanned! {ty.span()=>
                __row.reads(#wire, #check, <#ty as __toon::Toon>::__TOON.optional())
            }
        }
    });
    quote! {
        row_reads: |__row| { #(#checks &&)* __row.whole() },
        from_row: |__row| {
            #default
            let __out = Self { #(#reads),* };
            __row.whole().then_some(__out)
        },
    }
}

/// A newtype (or a `transparent` struct): the inner value as it is.
fn expand_newtype(member: &syn::Member, ty: &syn::Type) -> Body3 {
    let wrap = match member {
        syn::Member::Named(name) => quote!(|__v| Self { #name: __v }),
        syn::Member::Unnamed(_) => quote!(Self),
    };
    Body3 {
        to_value: quote_spanned! {ty.span()=> <#ty as __toon::Toon>::__TOON.to_value(&__this.#member) },
        from_node: quote_spanned! {ty.span()=>
            <#ty as __toon::Toon>::__TOON.from_node(__node, __cx).map(#wrap)
        },
        extra: quote_spanned! {ty.span()=>
            shape_ref: || <#ty as __toon::Toon>::__TOON.shape_ref(),
            missing: || <#ty as __toon::Toon>::__TOON.missing().map(#wrap),
            stream_row: |__key, __row| <#ty as __toon::Toon>::__TOON.stream_row(__key, __row),
        },
    }
}

/// An enum of unit variants: one of the names.
fn expand_unit_enum(variants: &[Variant<'_>]) -> Body3 {
    let wires: Vec<_> = variants.iter().map(|v| &v.wire).collect();
    let idents: Vec<_> = variants.iter().map(|v| v.ident).collect();
    let aliases = variant_aliases(variants);
    let indices = 0..variants.len();
    Body3 {
        to_value: quote! {
            __toon::__private::Value::String(::std::string::String::from(match __this {
                #(Self::#idents => #wires),*
            }))
        },
        from_node: quote! {
            const __NAMES: &[&str] = &[#(#wires),*];
            match __cx.variant(&__node, __NAMES, #aliases)? {
                #(#indices => ::core::result::Result::Ok(Self::#idents),)*
                _ => ::core::unreachable!("Cx::variant returns an index into the names"),
            }
        },
        // A cell that is exactly a wire name; anything else (an alias, another
        // case) is the full path's to match and report.
        extra: quote! {
            from_cell: |__cell| {
                let __text: &str = match __cell {
                    __toon::__private::Scalar::Text(__s) => __s,
                    __toon::__private::Scalar::String(__s) => __s,
                    _ => return ::core::option::Option::None,
                };
                match __text {
                    #(#wires => ::core::option::Option::Some(Self::#idents),)*
                    _ => ::core::option::Option::None,
                }
            },
        },
    }
}

/// An internally tagged enum: an object whose tag key names the variant.
fn expand_tagged(c: &Container<'_>, tag: &str, variants: &[Variant<'_>]) -> Body3 {
    let name = c.input.ident.to_string();
    let wires: Vec<_> = variants.iter().map(|v| &v.wire).collect();
    let aliases = variant_aliases(variants);
    let arms_to = variants.iter().map(|v| {
        let (vid, wire) = (v.ident, &v.wire);
        let binds: Vec<_> = v.fields.iter().map(|f| f.ident).collect();
        let locals: Vec<_> = v
            .fields
            .iter()
            .map(|f| format_ident!("__f_{}", f.ident))
            .collect();
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
        let read = read_fields(&v.fields, quote!(Self::#vid));
        quote! { #i => { #read } }
    });
    Body3 {
        to_value: quote! {
            let mut __map = __toon::__private::Map::new();
            match __this { #(#arms_to)* }
            __toon::__private::Value::Object(__map)
        },
        from_node: quote! {
            let mut __fields = __cx.object(__node, #name)?;
            const __NAMES: &[&str] = &[#(#wires),*];
            match __cx.tag(&mut __fields, #tag, __NAMES, #aliases)? {
                #(#arms_from)*
                _ => ::core::unreachable!("Cx::tag returns an index into the names"),
            }
        },
        extra: {
            let shape_ref = named_shape_ref(&name);
            let stream_row = stream_row(variants.iter().flat_map(|v| &v.fields));
            quote!(#shape_ref #stream_row)
        },
    }
}

/// A struct or tagged enum is referred to by name, so recursive types work.
fn named_shape_ref(name: &str) -> TokenStream {
    quote! {
        shape_ref: || __toon::schema::Shape::Named {
            name: #name,
            id: ::core::any::type_name::<Self>(),
            shape: __toon::schema::Describe::of(<Self as __toon::Toon>::__TOON.shape),
        },
    }
}

/// `&[("old_name", index), ...]`: each variant alias and the variant it names.
fn variant_aliases(variants: &[Variant<'_>]) -> TokenStream {
    let pairs = variants
        .iter()
        .enumerate()
        .flat_map(|(i, v)| v.attrs.aliases.iter().map(move |a| quote!((#a, #i))));
    quote!(&[#(#pairs),*])
}

/// `__map.insert("wire", value)` for each live field; `access` spells the field's value.
fn inserts(fields: &[Field<'_>], access: impl Fn(&syn::Ident) -> TokenStream) -> TokenStream {
    let lines = fields.iter().filter(|f| !f.attrs.skip).map(|f| {
        let (wire, ty) = (&f.wire, f.ty);
        let value = access(f.ident);
        // Spanned at the field's type, so a missing `Toon` impl points at the field.
        quote_spanned! {ty.span()=>
            __map.insert(::std::string::String::from(#wire), <#ty as __toon::Toon>::__TOON.to_value(#value));
        }
    });
    quote!(#(#lines)*)
}

/// The value of a field the reply leaves out, as a closure's body.
fn fill_value(f: &Field<'_>) -> TokenStream {
    let id = f.ident;
    match &f.fill {
        Fill::Required | Fill::Trait => quote!(::core::default::Default::default()),
        Fill::Path(path) => quote!(#path()),
        Fill::Container => quote!(__default.#id),
    }
}

/// Takes each field out of the object or row, then reports what is left as unknown keys.
fn read_fields(fields: &[Field<'_>], ctor: TokenStream) -> TokenStream {
    let reads = fields.iter().map(|f| {
        let (id, wire, ty) = (f.ident, &f.wire, f.ty);
        let aliases = &f.attrs.aliases;
        if f.attrs.skip {
            let value = fill_value(f);
            return quote_spanned! {ty.span()=> #id: #value };
        }
        let read = match (f.has_default(), f.constraints.is_empty(), f.inner.is_empty()) {
            (true, true, true) => {
                let value = fill_value(f);
                quote_spanned! {ty.span()=> __cx.field_or::<#ty>(&mut __fields, #wire, &[#(#aliases),*], || #value)? }
            }
            // A default filled in is the type's, not the model's: only a
            // value read from the reply is checked.
            (true, false, true) => {
                let value = fill_value(f);
                let constraints = constraints_expr(&f.constraints);
                quote_spanned! {ty.span()=> __cx.field_or_checked::<#ty>(&mut __fields, #wire, &[#(#aliases),*], &#constraints, || #value)? }
            }
            (true, _, false) => {
                let value = fill_value(f);
                let constraints = constraints_expr(&f.constraints);
                let inner = constraints_expr(&f.inner);
                quote_spanned! {ty.span()=> __cx.field_or_items::<#ty>(&mut __fields, #wire, &[#(#aliases),*], (&#constraints, &#inner), || #value)? }
            }
            (false, true, true) => {
                quote_spanned! {ty.span()=> __cx.field::<#ty>(&mut __fields, #wire, &[#(#aliases),*])? }
            }
            (false, own, items) => {
                let check = (!own).then(|| {
                    let constraints = constraints_expr(&f.constraints);
                    quote_spanned! {ty.span()=> __cx.check(&__v, #wire, &#constraints)?; }
                });
                let check_items = (!items).then(|| {
                    let inner = constraints_expr(&f.inner);
                    quote_spanned! {ty.span()=> __cx.check_items(&__v, #wire, &#inner)?; }
                });
                quote_spanned! {ty.span()=> {
                    let __v: #ty = __cx.field::<#ty>(&mut __fields, #wire, &[#(#aliases),*])?;
                    #check
                    #check_items
                    __v
                } }
            }
        };
        quote! { #id: #read }
    });
    quote! {
        let __out = #ctor { #(#reads),* };
        __cx.ignore_unknown(__fields)?;
        ::core::result::Result::Ok(__out)
    }
}
