//! Field constraints, `range(..)`, `length(..)` and `pattern = ".."`, read from
//! `#[toon]`, `#[schemars]` and `#[validate]` alike.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::LitStr;

/// `min = A, max = B` as written, with the key's span for the checks.
#[derive(Clone, Copy)]
pub struct Bounds<T> {
    pub min: Option<T>,
    pub max: Option<T>,
    pub span: Span,
}

impl<T: PartialEq> Bounds<T> {
    /// The same bounds, wherever each was written.
    pub fn same(&self, other: &Self) -> bool {
        (&self.min, &self.max) == (&other.min, &other.max)
    }
}

/// A field's constraints, as the generated code states them.
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
/// where `equal` is allowed), each bound read by `read`.
fn bounds<T: Copy>(
    meta: &ParseNestedMeta<'_>,
    equal: bool,
    borrowed: bool,
    read: impl Fn(&ParseNestedMeta<'_>) -> syn::Result<T>,
) -> syn::Result<Bounds<T>> {
    let (mut min, mut max) = (None, None);
    meta.parse_nested_meta(|m| {
        if borrowed && (m.path.is_ident("message") || m.path.is_ident("code")) {
            // validator's own error text: this derive's refusals say their own.
            let _: syn::Expr = m.value()?.parse()?;
        } else if m.path.is_ident("min") {
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
    Ok(Bounds { min, max, span })
}

/// `range(min = A, max = B)`; `borrowed`: in `#[validate]` or `#[schemars]`,
/// where validator's `message` and `code` are skipped.
pub fn range(meta: &ParseNestedMeta<'_>, borrowed: bool) -> syn::Result<Bounds<f64>> {
    bounds(meta, false, borrowed, number)
}

/// `length(min = A, max = B)` or `length(equal = N)`; `borrowed` as for [`range`].
pub fn length(meta: &ParseNestedMeta<'_>, borrowed: bool) -> syn::Result<Bounds<u32>> {
    bounds(meta, true, borrowed, |m| {
        m.value()?.parse::<syn::LitInt>()?.base10_parse()
    })
}

/// `pattern = "regex"`.
pub fn pattern(meta: &ParseNestedMeta<'_>) -> syn::Result<(String, Span)> {
    let lit: LitStr = meta.value()?.parse()?;
    Ok((lit.value(), lit.span()))
}

/// `regex(pattern = "...")`, schemars' and validator's spelling; validator's
/// `regex(path = ...)` names a value this derive cannot read, and is left to validator.
pub fn regex(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<(String, Span)>> {
    let mut out = None;
    meta.parse_nested_meta(|m| {
        if m.path.is_ident("pattern") {
            out = Some(pattern(&m)?);
        } else if m.input.peek(syn::Token![=]) {
            let _: syn::Expr = m.value()?.parse()?;
        }
        Ok(())
    })?;
    Ok(out)
}
