//! The attributes of each place a key can stand: the container, a field, a
//! variant. `#[toon(..)]` is read strictly (an unknown, repeated or misplaced
//! key is an error at its span); `#[serde(..)]` keys are sorted into those we
//! follow, those that do not change what serde reads (accepted), and those
//! that would make serde read another shape than the model is shown (refused,
//! with what to write instead); `#[schemars(..)]` and `#[validate(..)]` lend
//! their constraint keys.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitStr, Path};

use crate::case::RenameRule;
use crate::constraint::{self, Bounds};
use crate::ctxt::Ctxt;

/// Where an attribute stands.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Place {
    Container,
    Field,
    Variant,
}

impl Place {
    fn describe(self) -> &'static str {
        match self {
            Place::Container => "the struct or enum itself",
            Place::Field => "a field",
            Place::Variant => "a variant",
        }
    }

    /// The `#[toon(..)]` keys read here.
    fn toon_keys(self) -> &'static [&'static str] {
        match self {
            Place::Container => &[
                "rename_all",
                "rename_all_fields",
                "default",
                "tag",
                "crate",
                "transparent",
                "partial",
            ],
            Place::Field => &[
                "rename",
                "alias",
                "default",
                "skip",
                "range",
                "length",
                "pattern",
                "regex",
                "max_len",
                "max_items",
                "delimited",
                "stream",
            ],
            Place::Variant => &["rename", "alias", "rename_all"],
        }
    }
}

/// Whose attribute it is.
#[derive(Clone, Copy, PartialEq)]
enum Family {
    Toon,
    Serde,
    /// `#[schemars(..)]` and `#[validate(..)]`: only their constraint keys are ours.
    Borrowed,
}

/// How a missing value is filled: `default`, or `default = "path::to::fn"`.
#[derive(Clone, Default)]
pub enum DefaultValue {
    #[default]
    None,
    /// `Default::default()`.
    Trait,
    /// A function of no arguments.
    Path(syn::ExprPath),
}

impl DefaultValue {
    pub fn is_none(&self) -> bool {
        matches!(self, DefaultValue::None)
    }
}

/// Keys on the struct or enum itself.
#[derive(Default)]
pub struct ContainerAttrs {
    pub rename_all: Option<RenameRule>,
    /// `rename_all_fields`: the case of every struct variant's fields.
    pub rename_all_fields: Option<(RenameRule, Span)>,
    pub default: (DefaultValue, Option<Span>),
    pub tag: Option<(String, Span)>,
    pub krate: Option<Path>,
    /// `transparent`: a one-field struct read as its field.
    pub transparent: Option<Span>,
    /// `#[serde(untagged)]` or `#[serde(content = "..")]`, refused with what
    /// to write instead: how the variants are told apart is then that one
    /// mistake, not also each struct variant's want of a tag.
    pub tagging_refused: bool,
    /// `partial`, or `partial(name = "..", event = "..")`: the streamed
    /// partial value and typed events are generated.
    pub partial: Option<PartialAttr>,
}

/// `#[toon(partial)]`: where it was written, and the names given the
/// generated types (`{Type}Partial` and `{Type}Event` where not given).
pub struct PartialAttr {
    pub span: Span,
    pub name: Option<syn::Ident>,
    pub event: Option<syn::Ident>,
}

/// Keys on a field.
#[derive(Default)]
pub struct FieldAttrs {
    pub rename: Option<String>,
    /// Other names the decoder reads the field by.
    pub aliases: Vec<String>,
    pub default: DefaultValue,
    pub skip: bool,
    /// The grammar's bounds: `max_len = N` (text), `max_items = N` (lists).
    pub max_len: Option<u32>,
    pub max_items: Option<u32>,
    /// `delimited`: written after the TOON lines between `<key>` and `</key>`.
    pub delimited: Option<Span>,
    pub range: Option<Bounds<f64>>,
    pub length: Option<Bounds<u32>>,
    pub pattern: Option<(String, Span)>,
    /// `inner(range(..), length(..), pattern = "..")`: each item's (of a list)
    /// or each value's (of a map), in schemars 1.x's spelling.
    pub inner: Option<Inner>,
    /// `stream(done)`: the partial value shows the field only once complete.
    pub stream_done: Option<Span>,
}

/// The constraints of each item of a list or value of a map, and where `inner` was written.
pub struct Inner {
    pub range: Option<Bounds<f64>>,
    pub length: Option<Bounds<u32>>,
    pub pattern: Option<(String, Span)>,
    pub span: Span,
}

/// Keys on a variant.
#[derive(Default)]
pub struct VariantAttrs {
    pub rename: Option<String>,
    pub aliases: Vec<String>,
    /// The case of a struct variant's fields.
    pub rename_all: Option<RenameRule>,
}

/// Why a serde key that changes what serde reads is refused here, and what to write instead.
fn refusal(place: Place, key: &str) -> Option<&'static str> {
    Some(match (place, key) {
        (Place::Container, "untagged") => "a reply that fits two variants would be read by guessing. Name the variant in a field with `#[serde(tag = \"kind\")]`",
        (Place::Container, "content") => "adjacent tagging puts the variant's fields under a key of their own; remove `content`, and they are read beside the tag (internally tagged)",
        (Place::Container, "from" | "try_from") => "serde reads another type here, while the derive would describe this one's fields to the model. Derive the traits on that type, read the reply as it, and convert (`Raw::from_toon(reply).map(Self::from)`)",
        (Place::Container, "remote") => "the derive would describe the stand-in type, not the one serde reads; derive on a type of your own and convert",
        (Place::Container, "field_identifier" | "variant_identifier") => "a reply names a variant through a unit enum or a tagged enum",
        (Place::Field, "flatten") => "serde would read the inner fields at this level, while the prompt, the schema and the decoder would show a nested block. Write the inner fields in this struct, or drop `flatten` so that serde nests them too",
        (Place::Field | Place::Variant, "with" | "deserialize_with") => "serde reads this through a function the derive cannot see, so the model would be shown another shape than serde reads. Give it the type the model writes (`i64` for seconds, `String` for a date) and convert after reading, or give it a newtype that implements the traits for its own wire form",
        (Place::Variant, "skip" | "skip_deserializing") => "a variant serde never reads would still be shown to the model; move it out of the enum the model fills in",
        (Place::Variant, "other") => "it reads any unknown tag as this variant, which would hide a value the model invented; leave it out and handle the refusal",
        (Place::Variant, "untagged") => "a reply that fits two variants would be read by guessing; give the variant a name the model writes",
        _ => return None,
    })
}

/// Runs `read` on each key of each of our attributes; what it does not take is
/// refused, accepted or, for `#[toon]`, reported as misplaced or unknown.
fn each_key(
    cx: &Ctxt,
    attrs: &[Attribute],
    place: Place,
    mut read: impl FnMut(Family, &str, &ParseNestedMeta<'_>) -> syn::Result<bool>,
) {
    for attr in attrs {
        let family = if attr.path().is_ident("toon") {
            Family::Toon
        } else if attr.path().is_ident("serde") {
            Family::Serde
        } else if attr.path().is_ident("schemars") || attr.path().is_ident("validate") {
            if !matches!(attr.meta, syn::Meta::List(_)) {
                continue; // a bare `#[validate]`: nothing of ours in it
            }
            Family::Borrowed
        } else {
            continue;
        };
        let mut seen: Vec<String> = Vec::new();
        let result = attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            if family == Family::Toon && key != "alias" && seen.contains(&key) {
                cx.syn_error(meta.error(format!("duplicate `#[toon({key})]`; give it once")));
                return skip_value(&meta);
            }
            seen.push(key.clone());
            if family == Family::Serde {
                if let Some(why) = refusal(place, &key) {
                    cx.syn_error(meta.error(format!("`#[serde({key})]` is not supported: {why}")));
                    return skip_value(&meta);
                }
            }
            if read(family, &key, &meta)? {
                return Ok(());
            }
            // Serde's other keys do not change what it reads from a reply
            // (`deny_unknown_fields`, `bound`, `into`, `skip_serializing_if`,
            // `serialize_with`, `borrow`, `getter`, a container's `rename`, ...),
            // or are not serde's at this place, which serde's derive reports.
            if family == Family::Toon {
                cx.syn_error(meta.error(misplaced_or_unknown(place, &key)));
            }
            skip_value(&meta)
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
}

/// `#[toon(tag)]` on a field belongs on the enum; a key known nowhere is listed against the place's keys.
fn misplaced_or_unknown(place: Place, key: &str) -> String {
    let homes: Vec<&str> = [Place::Container, Place::Field, Place::Variant]
        .into_iter()
        .filter(|p| *p != place && p.toon_keys().contains(&key))
        .map(Place::describe)
        .collect();
    if homes.is_empty() {
        format!(
            "unknown attribute `#[toon({key})]`; on {} the keys are {}",
            place.describe(),
            list(place.toon_keys())
        )
    } else {
        format!(
            "`#[toon({key})]` belongs on {}, not on {}",
            homes.join(" or "),
            place.describe()
        )
    }
}

fn list(keys: &[&str]) -> String {
    let (last, rest) = keys.split_last().expect("every place has keys");
    format!("{} and {last}", rest.join(", "))
}

/// Skips a key's value (`= expr` or `(...)`), if it has one.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _content;
        syn::parenthesized!(_content in meta.input);
        let _: proc_macro2::TokenStream = _content.parse()?;
    }
    Ok(())
}

/// A name in either of serde's forms, `= "x"` or `(serialize = "..", deserialize = "..")`:
/// the one serde deserializes, since that is what the model must write. `None`
/// where only `serialize` is given.
fn de_name(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<LitStr>> {
    if meta.input.peek(syn::Token![=]) {
        return Ok(Some(meta.value()?.parse()?));
    }
    let mut de = None;
    meta.parse_nested_meta(|m| {
        if m.path.is_ident("deserialize") {
            de = Some(m.value()?.parse()?);
        } else if m.path.is_ident("serialize") {
            let _: LitStr = m.value()?.parse()?;
        } else {
            return Err(m.error("this takes `serialize = \"..\"` and `deserialize = \"..\"`"));
        }
        Ok(())
    })?;
    Ok(de)
}

/// `rename_all` in either form, as a case convention.
fn de_rule(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<RenameRule>> {
    match de_name(meta)? {
        None => Ok(None),
        Some(lit) => RenameRule::from_serde_name(&lit.value())
            .map(Some)
            .ok_or_else(|| syn::Error::new(lit.span(), RenameRule::unknown_message())),
    }
}

/// `default`, or `default = "path::to::fn"`.
fn default(meta: &ParseNestedMeta<'_>) -> syn::Result<DefaultValue> {
    if !meta.input.peek(syn::Token![=]) {
        return Ok(DefaultValue::Trait);
    }
    let lit: LitStr = meta.value()?.parse()?;
    lit.parse().map(DefaultValue::Path).map_err(|_| {
        syn::Error::new(
            lit.span(),
            "write the function's path, `default = \"path::to::function\"`",
        )
    })
}

/// The largest bounds: `toon_core::grammar::LARGEST_MAX_ITEMS` and `LARGEST_MAX_LEN`,
/// whose docs say why.
pub(crate) const LARGEST_MAX_ITEMS: u32 = 1000;
/// Why a list's bound cannot be larger, for the refusals of `max_items` and `length(min)`.
pub(crate) const LARGEST_MAX_ITEMS_WHY: &str = "the grammar ties a list's count to its rows \
     with one alternative per count, and llguidance holds at most 2000 alternatives at once, \
     its `max_items_in_row`";
pub(crate) const LARGEST_MAX_LEN: u32 = 10_000;
/// Why a text's bound cannot be larger, for the refusals of `max_len` and `length(min)`.
pub(crate) const LARGEST_MAX_LEN_WHY: &str = "llguidance holds a text's bound exactly \
     by building lexer expressions as it reads, and under a larger bound it refused ordinary \
     text of 14,000 characters";

/// `max_len = N` or `max_items = N`, at least 1 and at most the largest.
fn grammar_bound(meta: &ParseNestedMeta<'_>, key: &str) -> syn::Result<u32> {
    let lit: syn::LitInt = meta.value()?.parse()?;
    let n: u32 = lit.base10_parse()?;
    if n == 0 {
        return Err(syn::Error::new(
            lit.span(),
            format!("`{key} = 0` admits no value; give at least 1"),
        ));
    }
    if key == "max_items" && n > LARGEST_MAX_ITEMS {
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "`max_items = {n}`: a grammar admits at most {LARGEST_MAX_ITEMS} items in a list \
                 ({LARGEST_MAX_ITEMS_WHY}); give {LARGEST_MAX_ITEMS} or fewer"
            ),
        ));
    }
    if key == "max_len" && n > LARGEST_MAX_LEN {
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "`max_len = {n}`: a grammar admits text of at most {LARGEST_MAX_LEN} characters \
                 ({LARGEST_MAX_LEN_WHY}); give {LARGEST_MAX_LEN} or fewer"
            ),
        ));
    }
    Ok(n)
}

/// `partial`, or `partial(name = "ReportSoFar", event = "ReportUpdate")`.
fn partial(meta: &ParseNestedMeta<'_>) -> syn::Result<PartialAttr> {
    let mut out = PartialAttr {
        span: key_span(meta),
        name: None,
        event: None,
    };
    if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|m| {
            let slot = if m.path.is_ident("name") {
                &mut out.name
            } else if m.path.is_ident("event") {
                &mut out.event
            } else {
                return Err(m.error("`partial` takes `name = \"..\"` and `event = \"..\"`, the generated types' names"));
            };
            let lit: LitStr = m.value()?.parse()?;
            *slot = Some(lit.parse().map_err(|_| {
                syn::Error::new(lit.span(), "give a type name, such as \"ReportSoFar\"")
            })?);
            Ok(())
        })?;
    }
    Ok(out)
}

fn key_span(meta: &ParseNestedMeta<'_>) -> Span {
    meta.path
        .get_ident()
        .map_or_else(Span::call_site, |i| i.span())
}

impl ContainerAttrs {
    pub fn from_attrs(cx: &Ctxt, attrs: &[Attribute]) -> Self {
        let tagging_refused = attrs
            .iter()
            .filter(|a| a.path().is_ident("serde"))
            .any(|a| {
                let mut found = false;
                let _ = a.parse_nested_meta(|meta| {
                    found |= meta.path.is_ident("untagged") || meta.path.is_ident("content");
                    skip_value(&meta)
                });
                found
            });
        let mut out = ContainerAttrs {
            tagging_refused,
            ..ContainerAttrs::default()
        };
        each_key(cx, attrs, Place::Container, |family, key, meta| {
            if family == Family::Borrowed {
                return Ok(false);
            }
            match key {
                // #[toon(rename_all = "camelCase")], or (serialize = "..", deserialize = "..")
                "rename_all" => {
                    if let Some(rule) = de_rule(meta)? {
                        out.rename_all = Some(rule);
                    }
                }
                // #[serde(rename_all_fields = "camelCase")]
                "rename_all_fields" => {
                    let span = key_span(meta);
                    if let Some(rule) = de_rule(meta)? {
                        out.rename_all_fields = Some((rule, span));
                    }
                }
                // #[toon(default)], #[serde(default = "Self::fallback")]
                "default" => out.default = (default(meta)?, Some(key_span(meta))),
                // #[toon(tag = "kind")]
                "tag" => {
                    let lit: LitStr = meta.value()?.parse()?;
                    out.tag = Some((lit.value(), lit.span()));
                }
                // #[toon(transparent)]
                "transparent" => out.transparent = Some(key_span(meta)),
                // #[toon(crate = "my_reexport::toon_core")]; serde's own `crate` names serde.
                "crate" if family == Family::Toon => {
                    out.krate = Some(meta.value()?.parse::<LitStr>()?.parse()?)
                }
                // #[toon(partial)], #[toon(partial(name = "SoFar", event = "Update"))]
                "partial" if family == Family::Toon => out.partial = Some(partial(meta)?),
                _ => return Ok(false),
            }
            Ok(true)
        });
        out
    }
}

/// Sets a constraint a field may have once: the same constraint again (as
/// `#[schemars]` and `#[validate]` often both give it) is taken once, another
/// one is refused, since one of the two would be silently dropped.
fn once<T>(
    slot: &mut Option<T>,
    value: T,
    same: impl Fn(&T, &T) -> bool,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<()> {
    match slot {
        Some(old) if !same(old, &value) => {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            Err(meta.error(format!(
                "another attribute gives this field a different `{key}`; give it once, since one of the two would be dropped"
            )))
        }
        _ => {
            *slot = Some(value);
            Ok(())
        }
    }
}

impl FieldAttrs {
    pub fn from_attrs(cx: &Ctxt, attrs: &[Attribute]) -> Self {
        let mut out = FieldAttrs::default();
        each_key(cx, attrs, Place::Field, |family, key, meta| {
            match key {
                // #[toon(range(min = 0, max = 5))], #[toon(length(max = 80))], #[toon(pattern = "^R-\\d+$")]
                "range" => {
                    let b = constraint::range(meta, family == Family::Borrowed)?;
                    once(&mut out.range, b, constraint::Bounds::same, meta)?;
                }
                "length" => {
                    let b = constraint::length(meta, family == Family::Borrowed)?;
                    once(&mut out.length, b, constraint::Bounds::same, meta)?;
                }
                "pattern" => {
                    let p = constraint::pattern(meta)?;
                    once(&mut out.pattern, p, |a, b| a.0 == b.0, meta)?;
                }
                "regex" => {
                    if let Some(p) = constraint::regex(meta)? {
                        once(&mut out.pattern, p, |a, b| a.0 == b.0, meta)?;
                    }
                }
                // #[toon(inner(range(min = 1)))], #[schemars(inner(length(max = 20)))]
                "inner" if family != Family::Serde => {
                    let borrowed = family == Family::Borrowed;
                    let inner = out.inner.get_or_insert(Inner {
                        range: None,
                        length: None,
                        pattern: None,
                        span: key_span(meta),
                    });
                    meta.parse_nested_meta(|m| {
                        let key = m
                            .path
                            .get_ident()
                            .map(ToString::to_string)
                            .unwrap_or_default();
                        match key.as_str() {
                            "range" => {
                                let b = constraint::range(&m, borrowed)?;
                                once(&mut inner.range, b, constraint::Bounds::same, &m)
                            }
                            "length" => {
                                let b = constraint::length(&m, borrowed)?;
                                once(&mut inner.length, b, constraint::Bounds::same, &m)
                            }
                            "pattern" => {
                                let p = constraint::pattern(&m)?;
                                once(&mut inner.pattern, p, |a, b| a.0 == b.0, &m)
                            }
                            "regex" => match constraint::regex(&m)? {
                                Some(p) => once(&mut inner.pattern, p, |a, b| a.0 == b.0, &m),
                                None => Ok(()),
                            },
                            // schemars' other keys for the items are schemars' own.
                            _ if borrowed => skip_value(&m),
                            _ => Err(m.error(
                                "`inner` takes `range`, `length` and `pattern`, each item's",
                            )),
                        }
                    })?;
                }
                _ if family == Family::Borrowed => return Ok(false),
                // #[toon(rename = "wire_name")], or (serialize = "..", deserialize = "..")
                "rename" => {
                    if let Some(lit) = de_name(meta)? {
                        out.rename = Some(lit.value());
                    }
                }
                // #[toon(alias = "old_name")], as often as needed
                "alias" => out.aliases.push(meta.value()?.parse::<LitStr>()?.value()),
                // #[toon(default)], #[serde(default = "default_retries")]
                "default" => out.default = default(meta)?,
                // #[toon(skip)]; serde's skip_deserializing leaves it unread too.
                "skip" => out.skip = true,
                "skip_deserializing" if family == Family::Serde => out.skip = true,
                // #[toon(max_len = 80)], #[toon(max_items = 5)]: the grammar's bounds.
                "max_len" if family == Family::Toon => {
                    out.max_len = Some(grammar_bound(meta, key)?)
                }
                "max_items" if family == Family::Toon => {
                    out.max_items = Some(grammar_bound(meta, key)?)
                }
                // #[toon(delimited)]: prose between `<answer>` and `</answer>`.
                "delimited" if family == Family::Toon => out.delimited = Some(key_span(meta)),
                // #[toon(stream(done))]: shown in the partial value once complete.
                "stream" if family == Family::Toon => {
                    let span = key_span(meta);
                    meta.parse_nested_meta(|m| {
                        if m.path.is_ident("done") {
                            out.stream_done = Some(span);
                            Ok(())
                        } else {
                            Err(m.error("`stream` takes `done`: the partial value shows the field only once it is complete"))
                        }
                    })?;
                    if out.stream_done.is_none() {
                        return Err(meta.error("write `stream(done)`: the partial value shows the field only once it is complete"));
                    }
                }
                _ => return Ok(false),
            }
            Ok(true)
        });
        out
    }
}

impl VariantAttrs {
    pub fn from_attrs(cx: &Ctxt, attrs: &[Attribute]) -> Self {
        let mut out = VariantAttrs::default();
        each_key(cx, attrs, Place::Variant, |family, key, meta| {
            if family == Family::Borrowed {
                return Ok(false);
            }
            match key {
                // #[toon(rename = "NOT_FOUND")], or (serialize = "..", deserialize = "..")
                "rename" => {
                    if let Some(lit) = de_name(meta)? {
                        out.rename = Some(lit.value());
                    }
                }
                // #[toon(alias = "missing")]
                "alias" => out.aliases.push(meta.value()?.parse::<LitStr>()?.value()),
                // #[toon(rename_all = "camelCase")]: the struct variant's fields
                "rename_all" => {
                    if let Some(rule) = de_rule(meta)? {
                        out.rename_all = Some(rule);
                    }
                }
                _ => return Ok(false),
            }
            Ok(true)
        });
        out
    }
}
