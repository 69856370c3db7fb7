//! The `#[toon(...)]` and `#[serde(...)]` keys both derives honour, and doc comments.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitStr, Path};

/// Case conventions for `rename_all`, as serde spells them.
#[derive(Clone, Copy)]
pub enum RenameAll {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameAll {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "lowercase" => RenameAll::Lower,
            "UPPERCASE" => RenameAll::Upper,
            "PascalCase" => RenameAll::Pascal,
            "camelCase" => RenameAll::Camel,
            "snake_case" => RenameAll::Snake,
            "SCREAMING_SNAKE_CASE" => RenameAll::ScreamingSnake,
            "kebab-case" => RenameAll::Kebab,
            "SCREAMING-KEBAB-CASE" => RenameAll::ScreamingKebab,
            _ => return None,
        })
    }

    /// Applies the convention to a field (snake_case) or variant (PascalCase) name.
    pub fn apply(self, name: &str, is_variant: bool) -> String {
        let words: Vec<String> = if is_variant {
            let mut words = Vec::new();
            let mut cur = String::new();
            for c in name.chars() {
                if c.is_uppercase() && !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
                cur.push(c);
            }
            words.push(cur);
            words.into_iter().map(|w| w.to_lowercase()).collect()
        } else {
            name.split('_').map(str::to_lowercase).collect()
        };
        let cap = |w: &String| {
            let mut c = w.chars();
            c.next().map_or(String::new(), |f| {
                f.to_uppercase().collect::<String>() + c.as_str()
            })
        };
        match self {
            RenameAll::Lower => words.concat(),
            RenameAll::Upper => words.concat().to_uppercase(),
            RenameAll::Pascal => words.iter().map(cap).collect(),
            RenameAll::Camel => words
                .iter()
                .enumerate()
                .map(|(i, w)| if i == 0 { w.clone() } else { cap(w) })
                .collect(),
            RenameAll::Snake => words.join("_"),
            RenameAll::ScreamingSnake => words.join("_").to_uppercase(),
            RenameAll::Kebab => words.join("-"),
            RenameAll::ScreamingKebab => words.join("-").to_uppercase(),
        }
    }
}

/// The keys found on one item (container, field or variant).
#[derive(Default)]
pub struct Attrs {
    pub rename: Option<String>,
    pub rename_all: Option<RenameAll>,
    pub default: bool,
    pub skip: bool,
    pub krate: Option<Path>,
    pub tag: Option<String>,
    pub max_len: Option<u32>,
    pub max_items: Option<u32>,
    /// `alias = "x"`, as often as given: other names the decoder reads.
    pub aliases: Vec<String>,
    /// `range(min = A, max = B)`, either bound optional.
    pub range: Option<(Option<f64>, Option<f64>, Span)>,
    /// `length(min = A, max = B)` or `length(equal = N)`.
    pub length: Option<(Option<u32>, Option<u32>, Span)>,
    /// `pattern = "regex"` (schemars and validator: `regex(pattern = "...")`).
    pub pattern: Option<(String, Span)>,
}

/// A number literal, maybe negative: `5`, `-1`, `0.5`.
fn number(meta: &ParseNestedMeta<'_>) -> syn::Result<f64> {
    let expr: syn::Expr = meta.value()?.parse()?;
    let (negative, lit) = match &expr {
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => (true, &**expr),
        other => (false, other),
    };
    let value = match lit {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<f64>()?,
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(f),
            ..
        }) => f.base10_parse::<f64>()?,
        _ => {
            return Err(syn::Error::new_spanned(
                &expr,
                "write the bound as a number literal (`max = 5`); a constant's value cannot be read here",
            ))
        }
    };
    Ok(if negative { -value } else { value })
}

/// `min = A, max = B` inside `range(..)` or `length(..)` (and `equal = N`
/// where `equal` is allowed), each bound read by `read`, with the key's span.
fn bounds<T: Copy>(
    meta: &ParseNestedMeta<'_>,
    equal: bool,
    read: impl Fn(&ParseNestedMeta<'_>) -> syn::Result<T>,
) -> syn::Result<(Option<T>, Option<T>, Span)> {
    let (mut min, mut max) = (None, None);
    meta.parse_nested_meta(|m| {
        if m.path.is_ident("min") {
            min = Some(read(&m)?);
        } else if m.path.is_ident("max") {
            max = Some(read(&m)?);
        } else if equal && m.path.is_ident("equal") {
            let n = read(&m)?;
            (min, max) = (Some(n), Some(n));
        } else {
            let keys = if equal {
                "`min`, `max` or `equal`"
            } else {
                "`min` and `max`"
            };
            return Err(m.error(format!("this takes {keys}")));
        }
        Ok(())
    })?;
    let span = meta
        .path
        .get_ident()
        .map_or_else(Span::call_site, |i| i.span());
    Ok((min, max, span))
}

/// `range(min = A, max = B)`.
fn range(meta: &ParseNestedMeta<'_>) -> syn::Result<(Option<f64>, Option<f64>, Span)> {
    bounds(meta, false, number)
}

/// `length(min = A, max = B)` or `length(equal = N)`.
fn length(meta: &ParseNestedMeta<'_>) -> syn::Result<(Option<u32>, Option<u32>, Span)> {
    bounds(meta, true, |m| {
        m.value()?.parse::<syn::LitInt>()?.base10_parse()
    })
}

/// `regex(pattern = "...")`, schemars' and validator's spelling; validator's
/// `regex(path = ...)` names a value this derive cannot read, and is left to validator.
fn regex(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<(String, Span)>> {
    let mut out = None;
    meta.parse_nested_meta(|m| {
        if m.path.is_ident("pattern") {
            let lit: LitStr = m.value()?.parse()?;
            out = Some((lit.value(), lit.span()));
        } else if m.input.peek(syn::Token![=]) {
            let _: syn::Expr = m.value()?.parse()?;
        }
        Ok(())
    })?;
    Ok(out)
}

/// Reads `#[toon(...)]` strictly (unknown or repeated keys are errors) and
/// `#[serde(...)]` leniently (serde's other keys are serde's business).
pub fn parse(attrs: &[Attribute], errors: &mut Vec<syn::Error>) -> Attrs {
    let mut out = Attrs::default();
    for attr in attrs {
        let ours = attr.path().is_ident("toon");
        // schemars' and validator's constraint keys, spelled as they spell them.
        let borrowed = attr.path().is_ident("schemars") || attr.path().is_ident("validate");
        if !ours && !borrowed && !attr.path().is_ident("serde") {
            continue;
        }
        if borrowed && !matches!(attr.meta, syn::Meta::List(_)) {
            continue; // a bare `#[validate]`: nothing of ours in it
        }
        let mut seen: Vec<String> = Vec::new();
        let result = attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            if ours && key != "alias" && seen.contains(&key) {
                return Err(meta.error(format!("duplicate `#[toon({key})]`; give it once")));
            }
            seen.push(key.clone());
            match key.as_str() {
                // #[toon(range(min = 0, max = 5))], #[toon(length(max = 80))], #[toon(pattern = "^R-\\d+$")]
                "range" if ours || borrowed => out.range = Some(range(&meta)?),
                "length" if ours || borrowed => out.length = Some(length(&meta)?),
                "pattern" if ours || borrowed => {
                    let lit: LitStr = meta.value()?.parse()?;
                    out.pattern = Some((lit.value(), lit.span()));
                }
                "regex" if ours || borrowed => {
                    if let Some(p) = regex(&meta)? {
                        out.pattern = Some(p);
                    }
                }
                _ if borrowed => skip_value(&meta)?,
                // #[toon(rename = "wire_name")]
                "rename" => out.rename = Some(meta.value()?.parse::<LitStr>()?.value()),
                // #[toon(rename_all = "camelCase")]
                "rename_all" => {
                    let lit: LitStr = meta.value()?.parse()?;
                    out.rename_all = Some(RenameAll::parse(&lit.value()).ok_or_else(|| {
                        syn::Error::new(
                            lit.span(),
                            "unknown `rename_all` case; use lowercase, UPPERCASE, PascalCase, camelCase, snake_case, SCREAMING_SNAKE_CASE, kebab-case or SCREAMING-KEBAB-CASE",
                        )
                    })?);
                }
                // #[toon(default)]
                "default" => {
                    if meta.input.peek(syn::Token![=]) {
                        let _: LitStr = meta.value()?.parse()?;
                        if ours {
                            return Err(meta.error("`#[toon(default = ...)]` is not supported; implement `Default` for the field's type and write `#[toon(default)]`"));
                        }
                    }
                    out.default = true;
                }
                // #[toon(skip)]
                "skip" => out.skip = true,
                // #[toon(alias = "old_name")], serde's spelling too
                "alias" => out.aliases.push(meta.value()?.parse::<LitStr>()?.value()),
                // #[toon(tag = "kind")]
                "tag" => out.tag = Some(meta.value()?.parse::<LitStr>()?.value()),
                // #[toon(max_len = 80)], #[toon(max_items = 5)]: the grammar's bounds.
                "max_len" | "max_items" if ours => {
                    let lit: syn::LitInt = meta.value()?.parse()?;
                    let n: u32 = lit.base10_parse()?;
                    if n == 0 {
                        return Err(syn::Error::new(
                            lit.span(),
                            format!("`{key} = 0` admits no value; give at least 1"),
                        ));
                    }
                    if key == "max_len" {
                        out.max_len = Some(n);
                    } else {
                        out.max_items = Some(n);
                    }
                }
                // #[toon(crate = "my_reexport::toon_core")]
                "crate" if ours => out.krate = Some(meta.value()?.parse::<LitStr>()?.parse()?),
                _ if ours => {
                    return Err(meta.error(format!(
                        "unknown attribute `#[toon({key})]`; the keys are rename, rename_all, default, skip, tag, crate, alias, range, length, pattern, max_len and max_items"
                    )))
                }
                // A serde key we do not read: skip its value, if any.
                _ => skip_value(&meta)?,
            }
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    out
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

/// Doc comment lines joined with newlines, one leading space stripped from each.
pub fn docs(attrs: &[Attribute]) -> String {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            {
                let v = s.value();
                lines.push(v.strip_prefix(' ').unwrap_or(&v).trim_end().to_owned());
            }
        }
    }
    lines.join("\n").trim().to_owned()
}
