//! Doc comments written by a macro, read as the compiler reads them:
//! `include_str!` of a file in the declarations' folder or below it (a path
//! that leaves it, or is absolute, is not read), and `concat!` of literals
//! (and of `include_str!`).

use std::path::Path;

use syn::punctuated::Punctuated;
use syn::{Expr, Lit, Token};

/// The text of a doc comment's macro part, where it can be read: `dir` is
/// the folder an `include_str!` path is read from (the declarations' own).
pub(crate) fn expand(expr: &Expr, dir: Option<&Path>) -> Option<String> {
    match expr {
        Expr::Lit(lit) => literal(&lit.lit),
        Expr::Macro(m) if m.mac.path.is_ident("include_str") => {
            let path: syn::LitStr = m.mac.parse_body().ok()?;
            let path = std::path::PathBuf::from(path.value());
            // Only below the folder: declarations a user wrote must not pull
            // any file of the machine into a prompt.
            let below = path.components().all(|c| {
                matches!(
                    c,
                    std::path::Component::Normal(_) | std::path::Component::CurDir
                )
            });
            if !below {
                return None;
            }
            std::fs::read_to_string(dir?.join(path)).ok()
        }
        Expr::Macro(m) if m.mac.path.is_ident("concat") => {
            let parts = m
                .mac
                .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
                .ok()?;
            parts.iter().map(|p| expand(p, dir)).collect()
        }
        _ => None,
    }
}

/// A literal as `concat!` writes it.
fn literal(lit: &Lit) -> Option<String> {
    Some(match lit {
        Lit::Str(s) => s.value(),
        Lit::Char(c) => c.value().to_string(),
        Lit::Int(i) => i.base10_digits().to_owned(),
        Lit::Float(f) => f.base10_digits().to_owned(),
        Lit::Bool(b) => b.value.to_string(),
        _ => return None,
    })
}
