//! Parse and validate: the input as a small model of our own, or every error at its span.

use proc_macro2::Span;
use syn::{Data, DeriveInput, Fields, GenericArgument, PathArguments, Type};

use crate::attr::{self, Attrs};

pub struct Container<'a> {
    pub input: &'a DeriveInput,
    pub attrs: Attrs,
    pub doc: String,
    pub body: Body<'a>,
}

pub enum Body<'a> {
    Struct(Vec<Field<'a>>),
    UnitEnum(Vec<Variant>),
}

pub struct Field<'a> {
    pub ident: &'a syn::Ident,
    pub ty: &'a Type,
    pub wire: String,
    pub doc: String,
    pub default: bool,
    pub skip: bool,
}

pub struct Variant {
    pub ident: syn::Ident,
    pub wire: String,
    pub doc: String,
}

impl<'a> Container<'a> {
    /// Reads the input, collecting every error rather than stopping at the first.
    pub fn from_ast(input: &'a DeriveInput) -> Result<Self, syn::Error> {
        let mut errors = Vec::new();
        let attrs = attr::parse(&input.attrs, &mut errors);
        let doc = attr::docs(&input.attrs);
        let body = match &input.data {
            Data::Struct(s) => match &s.fields {
                Fields::Named(named) => Body::Struct(
                    named
                        .named
                        .iter()
                        .map(|f| {
                            let a = attr::parse(&f.attrs, &mut errors);
                            let ident = f.ident.as_ref().expect("named field");
                            check_type(&f.ty, &mut errors);
                            let name = ident.to_string();
                            let name = name.strip_prefix("r#").unwrap_or(&name);
                            Field {
                                ident,
                                ty: &f.ty,
                                wire: a
                                    .rename
                                    .clone()
                                    .or_else(|| attrs.rename_all.map(|r| r.apply(name, false)))
                                    .unwrap_or_else(|| name.to_owned()),
                                doc: attr::docs(&f.attrs),
                                default: a.default,
                                skip: a.skip,
                            }
                        })
                        .collect(),
                ),
                Fields::Unnamed(u) => {
                    errors.push(syn::Error::new_spanned(
                        u,
                        "#[derive(Toon)] needs named fields: a tuple struct has no keys to write; name its fields (`struct Answer { text: String }`)",
                    ));
                    Body::Struct(Vec::new())
                }
                Fields::Unit => {
                    errors.push(syn::Error::new_spanned(
                        &input.ident,
                        "#[derive(Toon)] on a unit struct has nothing to read; give it named fields",
                    ));
                    Body::Struct(Vec::new())
                }
            },
            Data::Enum(e) => {
                let mut variants = Vec::new();
                for v in &e.variants {
                    let a = attr::parse(&v.attrs, &mut errors);
                    match &v.fields {
                        Fields::Unit => {}
                        Fields::Unnamed(f) => errors.push(syn::Error::new_spanned(
                            f,
                            "#[derive(Toon)] does not support tuple variants; use a unit variant, or a struct variant with named fields",
                        )),
                        Fields::Named(f) => errors.push(syn::Error::new_spanned(
                            f,
                            "#[derive(Toon)] supports enums of unit variants only in this version; internally tagged struct variants (`#[toon(tag = \"kind\")]`) are not implemented yet",
                        )),
                    }
                    let name = v.ident.to_string();
                    variants.push(Variant {
                        ident: v.ident.clone(),
                        wire: a
                            .rename
                            .or_else(|| attrs.rename_all.map(|r| r.apply(&name, true)))
                            .unwrap_or(name),
                        doc: attr::docs(&v.attrs),
                    });
                }
                if e.variants.is_empty() {
                    errors.push(syn::Error::new_spanned(
                        &input.ident,
                        "#[derive(Toon)] on an enum with no variants: no value could be read; add variants",
                    ));
                }
                Body::UnitEnum(variants)
            }
            Data::Union(u) => {
                errors.push(syn::Error::new_spanned(
                    u.union_token,
                    "#[derive(Toon)] does not support unions; use a struct with named fields or an enum",
                ));
                Body::Struct(Vec::new())
            }
        };
        if let Some(lt) = input.generics.lifetimes().next() {
            errors.push(syn::Error::new_spanned(
                lt,
                "#[derive(Toon)] reads owned values; remove the lifetime and use owned types (`String`, not `&str`)",
            ));
        }
        let container = Container {
            input,
            attrs,
            doc,
            body,
        };
        container.validate(&mut errors);
        match errors.into_iter().reduce(|mut a, b| {
            a.combine(b);
            a
        }) {
            Some(e) => Err(e),
            None => Ok(container),
        }
    }

    /// Rules that span several items.
    fn validate(&self, errors: &mut Vec<syn::Error>) {
        let mut seen: Vec<&str> = Vec::new();
        let names: Vec<(&str, Span)> = match &self.body {
            Body::Struct(fields) => fields
                .iter()
                .filter(|f| !f.skip)
                .map(|f| (f.wire.as_str(), f.ident.span()))
                .collect(),
            Body::UnitEnum(vs) => vs
                .iter()
                .map(|v| (v.wire.as_str(), v.ident.span()))
                .collect(),
        };
        for (name, span) in names {
            if seen.contains(&name) {
                errors.push(syn::Error::new(
                    span,
                    format!("two fields or variants are written as `{name}`; rename one"),
                ));
            }
            seen.push(name);
        }
        if self.attrs.tag.is_some() {
            errors.push(syn::Error::new_spanned(
                &self.input.ident,
                "`#[toon(tag = ...)]` (internally tagged enums) is not implemented yet",
            ));
        }
    }
}

/// Refuses field types no model reply can fill: borrowed types, maps with non-text keys.
fn check_type(ty: &Type, errors: &mut Vec<syn::Error>) {
    match ty {
        Type::Reference(r) => errors.push(syn::Error::new_spanned(
            r,
            "#[derive(Toon)] reads owned values; a borrowed field cannot hold text from a reply. Use an owned type (`String` for `&str`)",
        )),
        Type::Path(p) => {
            if let Some(last) = p.path.segments.last() {
                let map = last.ident == "BTreeMap" || last.ident == "HashMap";
                if let PathArguments::AngleBracketed(args) = &last.arguments {
                    let types: Vec<&Type> = args
                        .args
                        .iter()
                        .filter_map(|a| match a {
                            GenericArgument::Type(t) => Some(t),
                            _ => None,
                        })
                        .collect();
                    if map {
                        if let Some(key) = types.first() {
                            let is_string = matches!(key, Type::Path(k) if k.path.is_ident("String"));
                            if !is_string {
                                errors.push(syn::Error::new_spanned(
                                    key,
                                    "map keys must be `String`: TOON keys are text. Use `BTreeMap<String, _>` and convert the keys after reading",
                                ));
                            }
                        }
                    }
                    for t in types {
                        check_type(t, errors);
                    }
                }
            }
        }
        Type::Tuple(t) if !t.elems.is_empty() => errors.push(syn::Error::new_spanned(
            t,
            "#[derive(Toon)] does not support tuple fields; use a struct with named fields",
        )),
        _ => {}
    }
}
