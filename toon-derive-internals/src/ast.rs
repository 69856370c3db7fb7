//! Parse: the input as a small model of our own (container, fields, variants,
//! with their attributes and spans). Shapes no reply can take are reported
//! here; rules that look across the model are in `check`.

use syn::{Data, DeriveInput, Fields, Type};

use crate::attr::{ContainerAttrs, DefaultValue, FieldAttrs, VariantAttrs};
use crate::case::RenameRule;
use crate::constraint::{Bounds, Constraints};
use crate::ctxt::Ctxt;
use crate::doc::Doc;

/// A type deriving one of our traits.
pub struct Container<'a> {
    pub input: &'a DeriveInput,
    pub attrs: ContainerAttrs,
    pub doc: Doc,
    pub body: Body<'a>,
}

/// The shapes the derives accept.
pub enum Body<'a> {
    /// `struct S { a: A, b: B }`
    Struct(Vec<Field<'a>>),
    /// `struct Id(String)`, or a one-field struct marked `transparent`: written as the inner value.
    Newtype { member: syn::Member, ty: &'a Type },
    /// `enum E { A, B }`: written as one of the names.
    UnitEnum(Vec<Variant<'a>>),
    /// `#[toon(tag = "kind")] enum E { A { x: X }, B }`: an object whose `kind` names the variant.
    Tagged {
        tag: String,
        variants: Vec<Variant<'a>>,
    },
}

pub struct Field<'a> {
    pub ident: &'a syn::Ident,
    pub ty: &'a Type,
    /// The key on the wire: what serde deserializes.
    pub wire: String,
    pub doc: Doc,
    pub attrs: FieldAttrs,
    /// How a missing key is filled.
    pub fill: Fill,
    /// What its values must be (`range`, `length`, `pattern`).
    pub constraints: Constraints,
    /// What each item of its list, or value of its map, must be (`inner(..)`).
    pub inner: Constraints,
}

/// How a field the reply leaves out (or a skipped one) gets its value.
#[derive(Clone)]
pub enum Fill {
    /// It must be there (unless its type has a missing value, as `Option` does).
    Required,
    /// `Default::default()`.
    Trait,
    /// `default = "path"`: calls the function.
    Path(syn::ExprPath),
    /// The container's `default`: the field of the container's default value.
    Container,
}

pub struct Variant<'a> {
    pub ident: &'a syn::Ident,
    pub wire: String,
    pub attrs: VariantAttrs,
    pub doc: Doc,
    /// Named fields of a struct variant; empty for a unit variant.
    pub fields: Vec<Field<'a>>,
    /// Whether the variant has named fields (`A {}` as well as `A { x: X }`).
    pub is_struct: bool,
}

impl<'a> Container<'a> {
    /// Reads the input for the derive named `derive` (for messages); errors go to `cx`.
    pub fn from_ast(cx: &Ctxt, input: &'a DeriveInput, derive: &str) -> Container<'a> {
        let attrs = ContainerAttrs::from_attrs(cx, &input.attrs);
        let body = match &input.data {
            Data::Struct(s) => struct_body(cx, input, &attrs, &s.fields, derive),
            Data::Enum(e) => {
                let variants: Vec<Variant<'a>> = e
                    .variants
                    .iter()
                    .map(|v| variant(cx, v, &attrs, derive))
                    .collect();
                match &attrs.tag {
                    Some((tag, _)) => Body::Tagged {
                        tag: tag.clone(),
                        variants,
                    },
                    None => Body::UnitEnum(variants),
                }
            }
            Data::Union(u) => {
                cx.error_spanned_by(u.union_token, format!(
                    "#[derive({derive})] does not support unions; use a struct with named fields or an enum"
                ));
                Body::Struct(Vec::new())
            }
        };
        Container {
            input,
            doc: Doc::from_attrs(&input.attrs),
            attrs,
            body,
        }
    }
}

fn struct_body<'a>(
    cx: &Ctxt,
    input: &'a DeriveInput,
    attrs: &ContainerAttrs,
    fields: &'a Fields,
    derive: &str,
) -> Body<'a> {
    if attrs.transparent.is_some() {
        // #[serde(transparent)]: the one field is the value, named or not.
        if fields.len() == 1 {
            let f = fields.iter().next().expect("one field");
            let member = f
                .ident
                .clone()
                .map_or_else(|| syn::Member::Unnamed(0.into()), syn::Member::Named);
            newtype_field_keys(cx, f);
            return Body::Newtype { member, ty: &f.ty };
        }
        cx.error_spanned_by(
            &input.ident,
            "`transparent` reads a struct as its one field; this struct has another number of fields",
        );
        return Body::Struct(Vec::new());
    }
    match fields {
        Fields::Named(named) => {
            let fill = match &attrs.default.0 {
                DefaultValue::None => Fill::Required,
                _ => Fill::Container,
            };
            Body::Struct(named_fields(cx, named, attrs.rename_all, fill))
        }
        Fields::Unnamed(u) if u.unnamed.len() == 1 => {
            newtype_field_keys(cx, &u.unnamed[0]);
            Body::Newtype {
                member: syn::Member::Unnamed(0.into()),
                ty: &u.unnamed[0].ty,
            }
        }
        Fields::Unnamed(u) => {
            cx.error_spanned_by(u, format!(
                "#[derive({derive})] does not support tuple structs of more than one field: their values have no keys; name the fields (`struct Point {{ x: f64, y: f64 }}`)"
            ));
            Body::Struct(Vec::new())
        }
        Fields::Unit => {
            cx.error_spanned_by(
                &input.ident,
                format!(
                "#[derive({derive})] on a unit struct has nothing to read; give it named fields"
            ),
            );
            Body::Struct(Vec::new())
        }
    }
}

fn variant<'a>(
    cx: &Ctxt,
    v: &'a syn::Variant,
    container: &ContainerAttrs,
    derive: &str,
) -> Variant<'a> {
    let attrs = VariantAttrs::from_attrs(cx, &v.attrs);
    let name = v.ident.to_string();
    // A raw identifier (`r#type`) is written without its `r#`, as serde writes it.
    let bare = name.strip_prefix("r#").unwrap_or(&name);
    let wire = attrs
        .rename
        .clone()
        .or_else(|| container.rename_all.map(|r| r.apply(bare, true)))
        .unwrap_or_else(|| bare.to_owned());
    let fields = match &v.fields {
        Fields::Unit => Vec::new(),
        Fields::Unnamed(f) => {
            cx.error_spanned_by(f, format!(
                "#[derive({derive})] does not support tuple variants; use a struct variant with named fields (`{name} {{ value: T }}`)"
            ));
            Vec::new()
        }
        Fields::Named(f) => {
            // A variant's own rename_all, else the container's rename_all_fields.
            let rule = attrs
                .rename_all
                .or(container.rename_all_fields.map(|(r, _)| r));
            named_fields(cx, f, rule, Fill::Required)
        }
    };
    Variant {
        ident: &v.ident,
        wire,
        doc: Doc::from_attrs(&v.attrs),
        is_struct: matches!(v.fields, Fields::Named(_)),
        attrs,
        fields,
    }
}

fn named_fields<'a>(
    cx: &Ctxt,
    named: &'a syn::FieldsNamed,
    rename_all: Option<RenameRule>,
    container_fill: Fill,
) -> Vec<Field<'a>> {
    named
        .named
        .iter()
        .map(|f| {
            let attrs = FieldAttrs::from_attrs(cx, &f.attrs);
            let ident = f.ident.as_ref().expect("named field");
            let name = ident.to_string();
            let name = name.strip_prefix("r#").unwrap_or(&name);
            let fill = match &attrs.default {
                DefaultValue::None => container_fill.clone(),
                DefaultValue::Trait => Fill::Trait,
                DefaultValue::Path(p) => Fill::Path(p.clone()),
            };
            Field {
                ident,
                ty: &f.ty,
                wire: attrs
                    .rename
                    .clone()
                    .or_else(|| rename_all.map(|r| r.apply(name, false)))
                    .unwrap_or_else(|| name.to_owned()),
                doc: Doc::from_attrs(&f.attrs),
                fill,
                constraints: constraints(&attrs),
                inner: inner_constraints(&attrs),
                attrs,
            }
        })
        .collect()
}

/// The field's constraints as written; `check` holds them against its type.
/// A newtype is read, described and bounded as its field's type: keys on
/// that field would be silently ignored, so they are refused (and an unknown
/// one reported as anywhere else).
fn newtype_field_keys(cx: &Ctxt, field: &syn::Field) {
    let a = FieldAttrs::from_attrs(cx, &field.attrs);
    let ours = field.attrs.iter().find(|attr| attr.path().is_ident("toon"));
    let constrained = a.range.is_some()
        || a.length.is_some()
        || a.pattern.is_some()
        || a.inner.is_some()
        || a.max_len.is_some()
        || a.max_items.is_some();
    if let Some(attr) = ours.filter(|_| constrained || a.delimited.is_some()) {
        cx.error_spanned_by(attr, NEWTYPE_FIELD_KEYS);
    } else if constrained {
        let attr = field
            .attrs
            .iter()
            .find(|attr| attr.path().is_ident("schemars") || attr.path().is_ident("validate"));
        match attr {
            Some(attr) => cx.error_spanned_by(attr, NEWTYPE_FIELD_KEYS),
            None => cx.error_spanned_by(&field.ty, NEWTYPE_FIELD_KEYS),
        }
    }
}

const NEWTYPE_FIELD_KEYS: &str = "a newtype is read as its field's type, so constraints and bounds on its field would not be read; put them on each field that holds the newtype (on a list of it, as `inner(..)`: `#[toon(inner(range(min = 1)))]`)";

fn constraints(a: &FieldAttrs) -> Constraints {
    constraints_of(a.range, a.length, a.pattern.as_ref())
}

/// What each item must be: the keys inside `inner(..)`.
fn inner_constraints(a: &FieldAttrs) -> Constraints {
    match &a.inner {
        Some(i) => constraints_of(i.range, i.length, i.pattern.as_ref()),
        None => Constraints::default(),
    }
}

fn constraints_of(
    range: Option<Bounds<f64>>,
    length: Option<Bounds<u32>>,
    pattern: Option<&(String, proc_macro2::Span)>,
) -> Constraints {
    let mut out = Constraints::default();
    if let Some(r) = range {
        (out.min, out.max) = (r.min, r.max);
    }
    if let Some(l) = length {
        (out.min_length, out.max_length) = (l.min, l.max);
    }
    out.pattern = pattern.map(|(p, _)| p.clone());
    out
}

impl Field<'_> {
    /// May the reply leave the key out?
    pub fn has_default(&self) -> bool {
        !matches!(self.fill, Fill::Required)
    }
}
