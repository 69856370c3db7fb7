//! The expression that describes a type as a `toon_core::schema::Shape`, shared by both
//! derives; `describe` is the module (`toon_core::__private::by_toon` or
//! `by_schema`) whose `shape_ref::<T>()` a field's type is asked for, by the
//! trait that derive implements.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::ast::{Body, Container, Field};

/// `__toon::__private::FieldShape { .. }` for each live field.
pub fn field_shapes<'a>(
    fields: &'a [Field<'a>],
    describe: &'a TokenStream,
) -> impl Iterator<Item = TokenStream> + 'a {
    fields.iter().filter(|f| !f.attrs.skip).map(move |f| {
        let (wire, doc, ty, default) = (&f.wire, &f.doc, f.ty, f.has_default());
        let max_len = option_u32(f.attrs.max_len);
        let max_items = option_u32(f.attrs.max_items);
        let delimited = f.attrs.delimited.is_some();
        let constraints = constraints_expr(&f.constraints);
        let inner = constraints_expr(&f.inner);
        quote_spanned! {ty.span()=>
            __toon::__private::FieldShape {
                name: #wire,
                doc: #doc,
                shape: #describe::shape_ref::<#ty>(),
                optional: #default || #describe::optional::<#ty>(),
                max_len: #max_len,
                max_items: #max_items,
                delimited: #delimited,
                constraints: #constraints,
                inner: #inner,
            }
        }
    })
}

/// `__toon::__private::Constraints::new(..)` for a field's constraints.
pub fn constraints_expr(c: &crate::constraint::Constraints) -> TokenStream {
    if c.is_empty() {
        return quote!(__toon::__private::Constraints::NONE);
    }
    let f = |v: Option<f64>| match v {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let (min, max) = (f(c.min), f(c.max));
    let (min_length, max_length) = (option_u32(c.min_length), option_u32(c.max_length));
    let pattern = match &c.pattern {
        Some(p) => quote!(::core::option::Option::Some(#p)),
        None => quote!(::core::option::Option::None),
    };
    quote!(__toon::__private::Constraints::new(#min, #max, #min_length, #max_length, #pattern))
}

fn option_u32(v: Option<u32>) -> TokenStream {
    match v {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    }
}

/// The expression of the type's `Shape`.
pub fn shape_expr(c: &Container<'_>, describe: &TokenStream) -> TokenStream {
    let name = c.input.ident.to_string();
    let doc = &c.doc;
    match &c.body {
        Body::Struct(fields) => {
            let fields = field_shapes(fields, describe);
            quote! {
                __toon::schema::Shape::Struct(__toon::__private::StructShape {
                    name: #name,
                    doc: #doc,
                    fields: ::std::vec![#(#fields),*],
                })
            }
        }
        Body::Newtype { ty, .. } => quote_spanned! {ty.span()=> #describe::shape::<#ty>() },
        Body::UnitEnum(variants) => {
            let wires = variants.iter().map(|v| &v.wire);
            let docs = variants.iter().map(|v| &v.doc);
            let aliases = variants.iter().flat_map(|v| &v.attrs.aliases);
            quote! {
                __toon::schema::Shape::Enum(__toon::__private::EnumShape {
                    name: #name,
                    doc: #doc,
                    variants: ::std::vec![#((#wires, #docs)),*],
                    aliases: ::std::vec![#(#aliases),*],
                })
            }
        }
        Body::Tagged { tag, variants } => {
            let variants = variants.iter().map(|v| {
                let (wire, vdoc) = (&v.wire, &v.doc);
                let fields = field_shapes(&v.fields, describe);
                quote! {
                    __toon::__private::VariantShape {
                        name: #wire,
                        doc: #vdoc,
                        fields: ::std::vec![#(#fields),*],
                    }
                }
            });
            quote! {
                __toon::schema::Shape::Tagged(__toon::__private::TaggedShape {
                    name: #name,
                    doc: #doc,
                    tag: #tag,
                    variants: ::std::vec![#(#variants),*],
                })
            }
        }
    }
}

/// The keys a stream asks about and the field that answers each: the field
/// of that key (its wire name or an alias) reads the table's rows. Across a
/// tagged enum's variants a key is answered only where every variant that
/// has it gives it the same type; elsewhere the stream cannot tell which
/// variant it is reading, and keeps every row. Each key is answered once: a
/// variant after the first adds none it shares. `T` rides along with its
/// field (where it stands, for a reader at run time).
pub fn stream_keys<'f, T>(
    fields: impl Iterator<Item = (&'f Field<'f>, T)>,
) -> Vec<(&'f Field<'f>, T, Vec<&'f String>)> {
    let fields: Vec<(&Field<'_>, T)> = fields.filter(|(f, _)| !f.attrs.skip).collect();
    let type_of = |f: &Field<'_>| f.ty.to_token_stream().to_string();
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for (i, (f, _)) in fields.iter().enumerate() {
        let keys: Vec<&String> = std::iter::once(&f.wire).chain(&f.attrs.aliases).collect();
        let same = keys.iter().all(|k| {
            fields
                .iter()
                .filter(|(g, _)| g.wire == **k || g.attrs.aliases.contains(k))
                .all(|(g, _)| type_of(g) == type_of(f))
        });
        let keys: Vec<&String> = keys
            .into_iter()
            .filter(|k| seen.insert(k.as_str()))
            .collect();
        if same && !keys.is_empty() {
            out.push((i, keys));
        }
    }
    let mut fields: Vec<Option<(&Field<'_>, T)>> = fields.into_iter().map(Some).collect();
    out.into_iter()
        .filter_map(|(i, keys)| fields[i].take().map(|(f, t)| (f, t, keys)))
        .collect()
}
