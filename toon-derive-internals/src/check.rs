//! Check: the rules that hold across the parsed model, one function each, every
//! error reported at its span.

use proc_macro2::Span;
use syn::{GenericArgument, PathArguments, Type};

use crate::ast::{Body, Container, Field};
use crate::constraint::Bounds;
use crate::ctxt::Ctxt;

/// Every rule: the variants and fields first, then the container's keys, then
/// the names across the whole type.
pub fn check(cx: &Ctxt, cont: &Container<'_>, derive: &str) {
    enum_has_variants(cx, cont, derive);
    struct_variants_are_tagged(cx, cont, derive);
    field_types(cx, cont, derive);
    constraints_fit_types(cx, cont, derive);
    delimited_fields_are_text(cx, cont);
    owned_values(cx, cont, derive);
    tag_on_enums(cx, cont);
    default_on_named_structs(cx, cont);
    rename_all_fields_on_enums(cx, cont);
    transparent_on_structs(cx, cont);
    wire_names_unique(cx, cont);
    tag_clashes_with_no_field(cx, cont);
    partial_on_structs(cx, cont);
}

/// `partial` generates a struct of the fields streamed so far and an enum
/// of their events, so it takes a struct with named fields whose names make
/// distinct variants; `stream(done)` says when one of those fields shows.
fn partial_on_structs(cx: &Ctxt, cont: &Container<'_>) {
    let Some(partial) = &cont.attrs.partial else {
        for f in all_fields(cont) {
            if let Some(span) = f.attrs.stream_done {
                cx.error_at(
                    span,
                    "`stream(done)` says when a field shows in the partial value, which `#[toon(partial)]` on the struct generates; add it there, or remove this",
                );
            }
        }
        return;
    };
    let Body::Struct(fields) = &cont.body else {
        cx.error_at(
            partial.span,
            "`partial` applies to a struct with named fields: the stream reads a reply's top-level fields as their lines end, and a newtype or an enum has none; stream the struct that holds it",
        );
        return;
    };
    let ident = &cont.input.ident;
    let name = partial
        .name
        .clone()
        .unwrap_or_else(|| quote::format_ident!("{ident}Partial"));
    let event = partial
        .event
        .clone()
        .unwrap_or_else(|| quote::format_ident!("{ident}Event"));
    if name == event || name == *ident || event == *ident {
        cx.error_at(
            partial.span,
            format!("the partial value and its events need names of their own, apart from each other and from `{ident}`: give `partial(name = \"..\", event = \"..\")` two others"),
        );
    }
    let mut seen: Vec<(String, &syn::Ident)> = Vec::new();
    for f in fields.iter().filter(|f| !f.attrs.skip) {
        let variant = crate::case::variant_of(f.ident);
        if variant == "Self" {
            cx.error_spanned_by(
                f.ident,
                format!("`{}` would name the event variant `Self`, a keyword; give the field another Rust name", f.ident),
            );
        }
        if let Some((_, first)) = seen.iter().find(|(v, _)| *v == variant) {
            cx.error_spanned_by(
                f.ident,
                format!(
                    "`{}` and `{first}` both name the event variant `{variant}` of `#[toon(partial)]`; give one of the fields another Rust name (`rename` changes only its key)",
                    f.ident
                ),
            );
        } else {
            seen.push((variant, f.ident));
        }
    }
}

/// Every field of the struct or of each variant, skipped ones included.
fn all_fields<'c, 'a>(cont: &'c Container<'a>) -> Vec<&'c Field<'a>> {
    match &cont.body {
        Body::Struct(fields) => fields.iter().collect(),
        Body::Newtype { .. } => Vec::new(),
        Body::UnitEnum(vs) | Body::Tagged { variants: vs, .. } => {
            vs.iter().flat_map(|v| &v.fields).collect()
        }
    }
}

/// A reply is text that outlives its parse: no borrowed lifetimes.
fn owned_values(cx: &Ctxt, cont: &Container<'_>, derive: &str) {
    if let Some(lt) = cont.input.generics.lifetimes().next() {
        cx.error_spanned_by(lt, format!(
            "#[derive({derive})] reads owned values; remove the lifetime and use owned types (`String`, not `&str`)"
        ));
    }
}

/// `tag` names a variant, so a struct has none.
fn tag_on_enums(cx: &Ctxt, cont: &Container<'_>) {
    if let Some((_, span)) = &cont.attrs.tag {
        if !matches!(cont.input.data, syn::Data::Enum(_)) {
            cx.error_at(*span, "`tag` applies to enums only");
        }
    }
}

/// A container's `default` fills missing fields from the struct's own default value.
fn default_on_named_structs(cx: &Ctxt, cont: &Container<'_>) {
    if let (false, Some(span)) = (cont.attrs.default.0.is_none(), cont.attrs.default.1) {
        if !matches!(cont.body, Body::Struct(_)) {
            cx.error_at(
                span,
                "`default` on the container fills missing fields of a struct with named fields; put it on a field instead",
            );
        }
    }
}

/// `rename_all_fields` renames the fields of an enum's struct variants.
fn rename_all_fields_on_enums(cx: &Ctxt, cont: &Container<'_>) {
    if let Some((_, span)) = cont.attrs.rename_all_fields {
        if !matches!(cont.input.data, syn::Data::Enum(_)) {
            cx.error_at(
                span,
                "`rename_all_fields` renames the fields of an enum's variants; on a struct, use `rename_all`",
            );
        }
    }
}

/// `transparent` reads a struct as its one field; an enum has no such field.
fn transparent_on_structs(cx: &Ctxt, cont: &Container<'_>) {
    if let Some(span) = cont.attrs.transparent {
        if !matches!(cont.input.data, syn::Data::Struct(_)) {
            cx.error_at(
                span,
                "`transparent` reads a struct as its one field; it does not apply to an enum",
            );
        }
    }
}

/// No variant, no value a reply could name.
fn enum_has_variants(cx: &Ctxt, cont: &Container<'_>, derive: &str) {
    if let syn::Data::Enum(e) = &cont.input.data {
        if e.variants.is_empty() {
            cx.error_spanned_by(&cont.input.ident, format!(
                "#[derive({derive})] on an enum with no variants: no value could be read; add variants"
            ));
        }
    }
}

/// A struct variant's fields need a key that says which variant they belong to.
fn struct_variants_are_tagged(cx: &Ctxt, cont: &Container<'_>, derive: &str) {
    let (Body::UnitEnum(variants), syn::Data::Enum(e)) = (&cont.body, &cont.input.data) else {
        return;
    };
    if cont.attrs.tagging_refused {
        return; // the refusal of `untagged` or `content` said it, with what to write
    }
    for (v, syn_v) in variants.iter().zip(&e.variants) {
        if v.is_struct {
            cx.error_spanned_by(&syn_v.fields, format!(
                "#[derive({derive})] needs `#[toon(tag = \"kind\")]` on an enum with struct variants, so the reply names the variant in a field"
            ));
        }
    }
}

/// Field types no model reply can fill: borrowed types, maps with non-text
/// keys, tuples.
fn field_types(cx: &Ctxt, cont: &Container<'_>, derive: &str) {
    if let Body::Newtype { ty, .. } = &cont.body {
        check_type(cx, ty, derive);
        read_types(cx, ty, derive);
        newtype_holds_no_itself(cx, cont, ty);
    }
    for f in all_fields(cont) {
        check_type(cx, f.ty, derive);
        if !f.attrs.skip {
            read_types(cx, f.ty, derive);
        }
    }
}

/// A newtype is written as its inner value, so one that holds itself
/// (`struct Tree(Vec<Tree>)`) would be described without end; a named field
/// gives the recursion a place to stop.
fn newtype_holds_no_itself(cx: &Ctxt, cont: &Container<'_>, ty: &Type) {
    let name = &cont.input.ident;
    if names(ty, name) {
        cx.error_spanned_by(
            ty,
            format!(
                "`{name}` is written as its one field, which holds `{name}` itself, so its shape has no end; give it a named field, not `transparent` (`struct {name} {{ items: .. }}`), so the recursion stops at a key"
            ),
        );
    }
}

/// Whether a type is the type `name` itself (a bare `name` or `Self`), or
/// holds it among its type arguments; `v1::Report` is another type.
fn names(ty: &Type, name: &syn::Ident) -> bool {
    match ty {
        Type::Path(p) => {
            let bare = p.qself.is_none() && p.path.segments.len() == 1;
            p.path.segments.iter().any(|seg| {
                (bare && (seg.ident == *name || seg.ident == "Self"))
                    || match &seg.arguments {
                        syn::PathArguments::AngleBracketed(a) => {
                            a.args.iter().any(|arg| match arg {
                                syn::GenericArgument::Type(t) => names(t, name),
                                _ => false,
                            })
                        }
                        _ => false,
                    }
            })
        }
        Type::Array(a) => names(&a.elem, name),
        Type::Slice(s) => names(&s.elem, name),
        Type::Reference(r) => names(&r.elem, name),
        Type::Paren(p) => names(&p.elem, name),
        Type::Group(g) => names(&g.elem, name),
        Type::Tuple(t) => t.elems.iter().any(|e| names(e, name)),
        _ => false,
    }
}

/// What a reply's value cannot be read into; a skipped field, never read, may
/// hold it.
fn read_types(cx: &Ctxt, ty: &Type, derive: &str) {
    let Type::Path(p) = ty else {
        return;
    };
    let Some(last) = p.path.segments.last() else {
        return;
    };
    if last.ident == "i128" || last.ident == "u128" {
        cx.error_spanned_by(p, format!(
            "#[derive({derive})] reads integers of up to 64 bits, the widest a JSON number is read as; use `i64` or `u64`, or `String` for a wider id"
        ));
    }
    for t in type_args(last) {
        read_types(cx, t, derive);
    }
}

fn check_type(cx: &Ctxt, ty: &Type, derive: &str) {
    match ty {
        Type::Reference(r) => cx.error_spanned_by(r, format!(
            "#[derive({derive})] reads owned values; a borrowed field cannot hold text from a reply. Use an owned type (`String` for `&str`)"
        )),
        Type::Path(p) => {
            let Some(last) = p.path.segments.last() else {
                return;
            };
            let types = type_args(last);
            if last.ident == "BTreeMap" || last.ident == "HashMap" {
                if let Some(key) = types.first() {
                    if !matches!(key, Type::Path(k) if k.path.is_ident("String")) {
                        cx.error_spanned_by(
                            key,
                            "map keys must be `String`: TOON and JSON keys are text. Use `BTreeMap<String, _>` and convert the keys after reading",
                        );
                    }
                }
            }
            for t in types {
                check_type(cx, t, derive);
            }
        }
        Type::Tuple(t) if !t.elems.is_empty() => cx.error_spanned_by(t, format!(
            "#[derive({derive})] does not support tuple fields; use a struct with named fields"
        )),
        _ => {}
    }
}

/// The type arguments of a path segment (`Vec<T>`'s `T`).
pub fn type_args(segment: &syn::PathSegment) -> Vec<&Type> {
    match &segment.arguments {
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// What a type is, as far as its name tells: the kind of value a constraint can bound.
pub enum Kind {
    Integer(i128, i128, &'static str),
    Float,
    Text,
    List,
    Other,
}

/// What a constraint can bound in a value of `ty`, through `Option` and `Box`.
pub fn kind_of(ty: &Type) -> Kind {
    let Type::Path(p) = ty else {
        return Kind::Other;
    };
    let Some(last) = p.path.segments.last() else {
        return Kind::Other;
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
        "Option" | "Box" => type_args(last).first().map_or(Kind::Other, |t| kind_of(t)),
        _ => Kind::Other,
    }
}

/// A field's `range`, `length` and `pattern`, each refused at its span where
/// it cannot hold: an empty range or length, a key the type cannot take, a
/// bound outside an integer type, a pattern that does not compile, and (for
/// `Toon`, whose grammar ties a count to its rows) a list's least length above
/// the grammar's most items.
fn constraints_fit_types(cx: &Ctxt, cont: &Container<'_>, derive: &str) {
    for f in all_fields(cont) {
        let a = &f.attrs;
        let toon = derive == "Toon" && !a.skip;
        fit(
            cx,
            kind_of(f.ty),
            a.range,
            a.length,
            a.pattern.as_ref(),
            toon,
            false,
        );
        if let Some(inner) = &a.inner {
            match item_of(f.ty) {
                Some(item) => fit(
                    cx,
                    kind_of(item),
                    inner.range,
                    inner.length,
                    inner.pattern.as_ref(),
                    toon,
                    true,
                ),
                None => cx.error_at(
                    inner.span,
                    "`inner` bounds each item of a list or each value of a map; this field holds neither",
                ),
            }
        }
    }
}

/// The type of a list's items or a map's values, through `Option` and `Box`.
pub fn item_of(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let args = type_args(last);
    match last.ident.to_string().as_str() {
        "Option" | "Box" => item_of(args.first()?),
        "Vec" | "VecDeque" | "BTreeSet" | "HashSet" => args.first().copied(),
        "BTreeMap" | "HashMap" => args.get(1).copied(),
        _ => None,
    }
}

/// One set of constraints (a field's, or its items' where `inner`) against
/// the kind of value they bound, each refused at its span where it cannot
/// hold: an empty range or length, a key the kind cannot take, a bound
/// outside an integer type, a pattern that does not compile, and (for
/// `Toon`, whose grammar ties a count to its rows) a list's least length
/// above the grammar's most items.
fn fit(
    cx: &Ctxt,
    kind: Kind,
    range: Option<Bounds<f64>>,
    length: Option<Bounds<u32>>,
    pattern: Option<&(String, Span)>,
    toon: bool,
    inner: bool,
) {
    if let Some(r) = range {
        refuse_empty(cx, "range", r.min, r.max, r.span);
        match kind {
            Kind::Text | Kind::List if inner => cx.error_at(
                r.span,
                "`range` bounds a number; for each item's text or list, bound its size with `length(min = .., max = ..)`",
            ),
            Kind::Text | Kind::List => cx.error_at(
                r.span,
                "`range` bounds a number; for text or a list, bound its size with `length(min = .., max = ..)`; for each number of a list, write `inner(range(..))`",
            ),
            Kind::Integer(lo, hi, name) => {
                for b in [r.min, r.max].into_iter().flatten() {
                    if b < lo as f64 || b > hi as f64 {
                        cx.error_at(r.span, format!("the bound {b} is outside {name} ({lo}..={hi}); no value of the field could meet it"));
                    }
                }
                if let (Some(min), Some(max)) = (r.min, r.max) {
                    if min <= max && min.ceil() > max.floor() {
                        cx.error_at(r.span, format!("`range(min = {min}, max = {max})` holds no whole number, so no value of {name} could meet it"));
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(l) = length {
        refuse_empty(cx, "length", l.min, l.max, l.span);
        if matches!(kind, Kind::Integer(..) | Kind::Float) {
            cx.error_at(
                l.span,
                "`length` bounds text (characters) or a list (items); for a number use `range(min = .., max = ..)`",
            );
        }
        // The grammar's bound is raised to a least length above it.
        let least = l.min.unwrap_or(0);
        let (largest, what, why) = match kind {
            Kind::List => (
                crate::attr::LARGEST_MAX_ITEMS,
                "items in a list",
                crate::attr::LARGEST_MAX_ITEMS_WHY,
            ),
            _ => (
                crate::attr::LARGEST_MAX_LEN,
                "characters of text",
                crate::attr::LARGEST_MAX_LEN_WHY,
            ),
        };
        if toon && least > largest {
            cx.error_at(
                l.span,
                format!("a least length of {least}: a grammar admits at most {largest} {what} ({why}); give a least length of {largest} or fewer"),
            );
        }
    }
    if let Some((pattern, span)) = pattern {
        if !matches!(kind, Kind::Text | Kind::Other) {
            cx.error_at(*span, "`pattern` applies to text (a `String` field)");
        }
        if let Err(e) = regex_lite::Regex::new(pattern) {
            cx.error_at(*span, format!("the pattern does not compile: {e}"));
        } else if let Some(why) = beyond_a_grammar(pattern) {
            cx.error_at(*span, format!("the pattern uses {why}, which a grammar cannot hold (llguidance refuses the grammar); write it without"));
        }
    }
}

/// What in a pattern a grammar's regular expressions cannot hold: inline
/// flags, word boundaries and anchors other than `^` and `$` at the ends of
/// the top-level alternatives (the grammar anchors each alternative itself).
fn beyond_a_grammar(pattern: &str) -> Option<&'static str> {
    let bytes = pattern.as_bytes();
    let (mut depth, mut class, mut i) = (0usize, false, 0);
    while i < bytes.len() {
        let c = bytes[i];
        // Where an alternative of the whole pattern begins or ends.
        let starts_way = i == 0 || (depth == 0 && bytes[i - 1] == b'|');
        let ends_way = i + 1 == bytes.len() || (depth == 0 && bytes[i + 1] == b'|');
        match c {
            b'\\' => {
                match bytes.get(i + 1) {
                    Some(b'b' | b'B' | b'<' | b'>') if !class => return Some("a word boundary"),
                    Some(b'A' | b'z') if !class => return Some("`\\A` or `\\z`"),
                    _ => {}
                }
                i += 1;
            }
            b'[' if !class => {
                class = true;
                // A `]` or `^]` right after the opening is a member.
                if bytes.get(i + 1) == Some(&b'^') {
                    i += 1;
                }
                if bytes.get(i + 1) == Some(&b']') {
                    i += 1;
                }
            }
            b']' if class => class = false,
            b'(' if !class => {
                if bytes.get(i + 1) == Some(&b'?') && bytes.get(i + 2) != Some(&b':') {
                    return Some("a group opened by `(?` other than `(?:` (inline flags such as `(?i)`, a named group)");
                }
                depth += 1;
            }
            b')' if !class => depth = depth.saturating_sub(1),
            b'^' | b'$' if !class => {
                let edge = if c == b'^' { starts_way } else { ends_way };
                if depth > 0 || !edge {
                    return Some(if c == b'^' {
                        "`^` inside the pattern"
                    } else {
                        "`$` inside the pattern"
                    });
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// A delimited field is prose between tags: a `String` of a struct, read and
/// written whole.
fn delimited_fields_are_text(cx: &Ctxt, cont: &Container<'_>) {
    let in_struct = matches!(cont.body, Body::Struct(_));
    for f in all_fields(cont) {
        let Some(span) = f.attrs.delimited else {
            continue;
        };
        if !in_struct {
            cx.error_at(
                span,
                "`delimited` applies to a field of a struct; a variant's fields are TOON lines",
            );
        } else if !matches!(f.ty, Type::Path(p) if p.path.is_ident("String")) {
            cx.error_at(span, "`delimited` takes a `String` field: the prose between the tags is text, as written");
        } else if f.attrs.skip {
            cx.error_at(
                span,
                "a skipped field is not written: `delimited` does not apply",
            );
        }
    }
}

/// `key(min = 5, max = 1)` holds no value.
fn refuse_empty<T: PartialOrd + std::fmt::Display>(
    cx: &Ctxt,
    key: &str,
    min: Option<T>,
    max: Option<T>,
    span: Span,
) {
    if let (Some(lo), Some(hi)) = (min, max) {
        if lo > hi {
            cx.error_at(
                span,
                format!("`{key}(min = {lo}, max = {hi})` holds no value: min must not exceed max"),
            );
        }
    }
}

/// No two keys of one object, or two variants, written alike.
fn wire_names_unique(cx: &Ctxt, cont: &Container<'_>) {
    let dupes = |names: Vec<(&str, Span)>| {
        let mut seen: Vec<&str> = Vec::new();
        for (name, span) in names {
            if seen.contains(&name) {
                cx.error_at(
                    span,
                    format!("two fields or variants are written as `{name}`; rename one"),
                );
            }
            seen.push(name);
        }
    };
    fn live<'f>(fields: &'f [Field<'_>]) -> Vec<(&'f str, Span)> {
        fields
            .iter()
            .filter(|f| !f.attrs.skip)
            .map(|f| (f.wire.as_str(), f.ident.span()))
            .collect()
    }
    match &cont.body {
        Body::Struct(fields) => dupes(live(fields)),
        Body::Newtype { .. } => {}
        Body::UnitEnum(vs) | Body::Tagged { variants: vs, .. } => {
            dupes(
                vs.iter()
                    .map(|v| (v.wire.as_str(), v.ident.span()))
                    .collect(),
            );
            for v in vs {
                dupes(live(&v.fields));
            }
        }
    }
}

/// A struct variant's field cannot reuse the key that names the variant.
fn tag_clashes_with_no_field(cx: &Ctxt, cont: &Container<'_>) {
    if let Body::Tagged { tag, variants } = &cont.body {
        for f in variants.iter().flat_map(|v| &v.fields) {
            if f.wire == *tag {
                cx.error_at(
                    f.ident.span(),
                    format!("field `{tag}` clashes with the enum's tag key; rename the field or the tag"),
                );
            }
        }
    }
}
