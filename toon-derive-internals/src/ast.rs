//! Parse and validate: the input as a small model of our own, or every error at its span.

use proc_macro2::Span;
use syn::{Data, DeriveInput, Fields, GenericArgument, PathArguments, Type};

use crate::attr::{self, Attrs};

/// A type deriving one of our traits.
pub struct Container<'a> {
    pub input: &'a DeriveInput,
    pub attrs: Attrs,
    pub doc: String,
    pub body: Body<'a>,
}

/// The shapes the derives accept.
pub enum Body<'a> {
    /// `struct S { a: A, b: B }`
    Struct(Vec<Field<'a>>),
    /// `struct Id(String)`: written as the inner value.
    Newtype(&'a Type),
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
    /// The key on the wire.
    pub wire: String,
    pub doc: String,
    pub default: bool,
    pub skip: bool,
    /// `#[toon(max_len = N)]`: the grammar's bound on the field's text.
    pub max_len: Option<u32>,
    /// `#[toon(max_items = N)]`: the grammar's bound on the field's list.
    pub max_items: Option<u32>,
    /// Other names the decoder reads the field by (`alias`).
    pub aliases: Vec<String>,
    /// What its values must be (`range`, `length`, `pattern`).
    pub constraints: Constraints,
}

/// A field's constraints, checked against its type.
#[derive(Default, Clone)]
pub struct Constraints {
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub min_length: Option<u32>,
    pub max_length: Option<u32>,
    pub pattern: Option<String>,
}

impl Constraints {
    pub fn is_empty(&self) -> bool {
        self.min.is_none()
            && self.max.is_none()
            && self.min_length.is_none()
            && self.max_length.is_none()
            && self.pattern.is_none()
    }
}

pub struct Variant<'a> {
    pub ident: &'a syn::Ident,
    pub wire: String,
    /// Other names the decoder reads the variant by (`alias`).
    pub aliases: Vec<String>,
    pub doc: String,
    /// Named fields of a struct variant; empty for a unit variant.
    pub fields: Vec<Field<'a>>,
}

impl<'a> Container<'a> {
    /// Reads the input for the derive named `derive` (for messages), collecting
    /// every error rather than stopping at the first.
    pub fn from_ast(input: &'a DeriveInput, derive: &str) -> Result<Self, syn::Error> {
        let mut errors = Vec::new();
        let attrs = attr::parse(&input.attrs, &mut errors);
        let doc = attr::docs(&input.attrs);
        let err = |errors: &mut Vec<syn::Error>, tokens: &dyn quote::ToTokens, msg: String| {
            errors.push(syn::Error::new_spanned(tokens, msg));
        };
        let body = match &input.data {
            Data::Struct(s) => match &s.fields {
                Fields::Named(named) => {
                    Body::Struct(fields(&named.named, &attrs, derive, &mut errors))
                }
                Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                    let ty = &u.unnamed[0].ty;
                    check_type(ty, derive, &mut errors);
                    Body::Newtype(ty)
                }
                Fields::Unnamed(u) => {
                    err(&mut errors, u, format!(
                        "#[derive({derive})] does not support tuple structs of more than one field: their values have no keys; name the fields (`struct Point {{ x: f64, y: f64 }}`)"
                    ));
                    Body::Struct(Vec::new())
                }
                Fields::Unit => {
                    err(&mut errors, &input.ident, format!(
                        "#[derive({derive})] on a unit struct has nothing to read; give it named fields"
                    ));
                    Body::Struct(Vec::new())
                }
            },
            Data::Enum(e) => {
                if e.variants.is_empty() {
                    err(&mut errors, &input.ident, format!(
                        "#[derive({derive})] on an enum with no variants: no value could be read; add variants"
                    ));
                }
                let mut variants = Vec::new();
                for v in &e.variants {
                    let a = attr::parse(&v.attrs, &mut errors);
                    let name = v.ident.to_string();
                    let fields = match &v.fields {
                        Fields::Unit => Vec::new(),
                        Fields::Unnamed(f) => {
                            err(&mut errors, f, format!(
                                "#[derive({derive})] does not support tuple variants; use a struct variant with named fields (`{name} {{ value: T }}`)"
                            ));
                            Vec::new()
                        }
                        Fields::Named(f) => {
                            if attrs.tag.is_none() {
                                err(&mut errors, f, format!(
                                    "#[derive({derive})] needs `#[toon(tag = \"kind\")]` on an enum with struct variants, so the reply names the variant in a field"
                                ));
                            }
                            fields(&f.named, &Attrs::default(), derive, &mut errors)
                        }
                    };
                    variants.push(Variant {
                        ident: &v.ident,
                        aliases: a.aliases.clone(),
                        wire: a
                            .rename
                            .or_else(|| attrs.rename_all.map(|r| r.apply(&name, true)))
                            .unwrap_or(name),
                        doc: attr::docs(&v.attrs),
                        fields,
                    });
                }
                match &attrs.tag {
                    Some(tag) => Body::Tagged {
                        tag: tag.clone(),
                        variants,
                    },
                    None => Body::UnitEnum(variants),
                }
            }
            Data::Union(u) => {
                err(&mut errors, &u.union_token, format!(
                    "#[derive({derive})] does not support unions; use a struct with named fields or an enum"
                ));
                Body::Struct(Vec::new())
            }
        };
        if let Some(lt) = input.generics.lifetimes().next() {
            err(&mut errors, lt, format!(
                "#[derive({derive})] reads owned values; remove the lifetime and use owned types (`String`, not `&str`)"
            ));
        }
        if attrs.tag.is_some() && !matches!(input.data, Data::Enum(_)) {
            err(
                &mut errors,
                &input.ident,
                "`#[toon(tag = ...)]` applies to enums only".to_owned(),
            );
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

    /// Rules that span several items: no two keys or variant names alike, and
    /// no struct-variant field that reuses the tag's key.
    fn validate(&self, errors: &mut Vec<syn::Error>) {
        let dupes = |names: Vec<(&str, Span)>, errors: &mut Vec<syn::Error>| {
            let mut seen: Vec<&str> = Vec::new();
            for (name, span) in names {
                if seen.contains(&name) {
                    errors.push(syn::Error::new(
                        span,
                        format!("two fields or variants are written as `{name}`; rename one"),
                    ));
                }
                seen.push(name);
            }
        };
        fn live<'f>(fields: &'f [Field<'_>]) -> Vec<(&'f str, Span)> {
            fields
                .iter()
                .filter(|f| !f.skip)
                .map(|f| (f.wire.as_str(), f.ident.span()))
                .collect()
        }
        match &self.body {
            Body::Struct(fields) => dupes(live(fields), errors),
            Body::Newtype(_) => {}
            Body::UnitEnum(vs) => dupes(
                vs.iter()
                    .map(|v| (v.wire.as_str(), v.ident.span()))
                    .collect(),
                errors,
            ),
            Body::Tagged { tag, variants } => {
                dupes(
                    variants
                        .iter()
                        .map(|v| (v.wire.as_str(), v.ident.span()))
                        .collect(),
                    errors,
                );
                for v in variants {
                    dupes(live(&v.fields), errors);
                    for f in v.fields.iter().filter(|f| f.wire == *tag) {
                        errors.push(syn::Error::new(
                            f.ident.span(),
                            format!("field `{tag}` clashes with the enum's tag key; rename the field or the tag"),
                        ));
                    }
                }
            }
        }
    }
}

fn fields<'a>(
    named: &'a syn::punctuated::Punctuated<syn::Field, syn::Token![,]>,
    container: &Attrs,
    derive: &str,
    errors: &mut Vec<syn::Error>,
) -> Vec<Field<'a>> {
    named
        .iter()
        .map(|f| {
            let a = attr::parse(&f.attrs, errors);
            let ident = f.ident.as_ref().expect("named field");
            check_type(&f.ty, derive, errors);
            let name = ident.to_string();
            let name = name.strip_prefix("r#").unwrap_or(&name);
            Field {
                ident,
                ty: &f.ty,
                wire: a
                    .rename
                    .clone()
                    .or_else(|| container.rename_all.map(|r| r.apply(name, false)))
                    .unwrap_or_else(|| name.to_owned()),
                doc: attr::docs(&f.attrs),
                default: a.default || container.default,
                skip: a.skip,
                max_len: a.max_len,
                max_items: a.max_items,
                aliases: a.aliases.clone(),
                constraints: constraints(&a, &f.ty, errors),
            }
        })
        .collect()
}

/// What a type is, as far as its name tells: the kind of value a constraint can bound.
enum Kind {
    Integer(i128, i128, &'static str),
    Float,
    Text,
    List,
    Other,
}

fn kind_of(ty: &Type) -> Kind {
    let Type::Path(p) = ty else {
        return Kind::Other;
    };
    let Some(last) = p.path.segments.last() else {
        return Kind::Other;
    };
    let inner = || match &last.arguments {
        PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    };
    macro_rules! ints {
        ($($t:ident),*) => {
            match last.ident.to_string().as_str() {
                $(stringify!($t) => return Kind::Integer($t::MIN as i128, $t::MAX as i128, stringify!($t)),)*
                _ => {}
            }
        };
    }
    ints!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);
    match last.ident.to_string().as_str() {
        "f32" | "f64" => Kind::Float,
        "String" => Kind::Text,
        "Vec" | "VecDeque" | "BTreeMap" | "HashMap" | "BTreeSet" | "HashSet" => Kind::List,
        "Option" | "Box" => inner().map_or(Kind::Other, kind_of),
        _ => Kind::Other,
    }
}

/// The field's `range`, `length` and `pattern`, each refused at its span
/// where it cannot hold: an empty range or length, a key the type cannot
/// take, a bound outside an integer type, a pattern that does not compile.
fn constraints(a: &Attrs, ty: &Type, errors: &mut Vec<syn::Error>) -> Constraints {
    let kind = kind_of(ty);
    let mut out = Constraints::default();
    if let Some((min, max, span)) = a.range {
        refuse_empty("range", min, max, span, errors);
        match kind {
            Kind::Text | Kind::List => errors.push(syn::Error::new(
                span,
                "`range` bounds a number; for text or a list, bound its size with `length(min = .., max = ..)`",
            )),
            Kind::Integer(lo, hi, name) => {
                for b in [min, max].into_iter().flatten() {
                    if b < lo as f64 || b > hi as f64 {
                        errors.push(syn::Error::new(span, format!("the bound {b} is outside {name} ({lo}..={hi}); no value of the field could meet it")));
                    }
                }
            }
            _ => {}
        }
        (out.min, out.max) = (min, max);
    }
    if let Some((min, max, span)) = a.length {
        refuse_empty("length", min, max, span, errors);
        if matches!(kind, Kind::Integer(..) | Kind::Float) {
            errors.push(syn::Error::new(
                span,
                "`length` bounds text (characters) or a list (items); for a number use `range(min = .., max = ..)`",
            ));
        }
        (out.min_length, out.max_length) = (min, max);
    }
    if let Some((pattern, span)) = &a.pattern {
        if !matches!(kind, Kind::Text | Kind::Other) {
            errors.push(syn::Error::new(
                *span,
                "`pattern` applies to text (a `String` field)",
            ));
        }
        if let Err(e) = regex_lite::Regex::new(pattern) {
            errors.push(syn::Error::new(
                *span,
                format!("the pattern does not compile: {e}"),
            ));
        }
        out.pattern = Some(pattern.clone());
    }
    out
}

/// `key(min = 5, max = 1)` holds no value.
fn refuse_empty<T: PartialOrd + std::fmt::Display>(
    key: &str,
    min: Option<T>,
    max: Option<T>,
    span: proc_macro2::Span,
    errors: &mut Vec<syn::Error>,
) {
    if let (Some(lo), Some(hi)) = (min, max) {
        if lo > hi {
            errors.push(syn::Error::new(
                span,
                format!("`{key}(min = {lo}, max = {hi})` holds no value: min must not exceed max"),
            ));
        }
    }
}

/// Refuses field types no model reply can fill: borrowed types, maps with
/// non-text keys, tuples.
fn check_type(ty: &Type, derive: &str, errors: &mut Vec<syn::Error>) {
    match ty {
        Type::Reference(r) => errors.push(syn::Error::new_spanned(
            r,
            format!("#[derive({derive})] reads owned values; a borrowed field cannot hold text from a reply. Use an owned type (`String` for `&str`)"),
        )),
        Type::Path(p) => {
            let Some(last) = p.path.segments.last() else {
                return;
            };
            let PathArguments::AngleBracketed(args) = &last.arguments else {
                return;
            };
            let types: Vec<&Type> = args
                .args
                .iter()
                .filter_map(|a| match a {
                    GenericArgument::Type(t) => Some(t),
                    _ => None,
                })
                .collect();
            if last.ident == "BTreeMap" || last.ident == "HashMap" {
                if let Some(key) = types.first() {
                    if !matches!(key, Type::Path(k) if k.path.is_ident("String")) {
                        errors.push(syn::Error::new_spanned(
                            key,
                            "map keys must be `String`: TOON and JSON keys are text. Use `BTreeMap<String, _>` and convert the keys after reading",
                        ));
                    }
                }
            }
            for t in types {
                check_type(t, derive, errors);
            }
        }
        Type::Tuple(t) if !t.elems.is_empty() => errors.push(syn::Error::new_spanned(
            t,
            format!("#[derive({derive})] does not support tuple fields; use a struct with named fields"),
        )),
        _ => {}
    }
}
