//! Doc comments, in every form a Rust user writes them: `///` and `#[doc = "..."]`
//! lines, and `#[doc = include_str!("...")]` or `#[doc = concat!(...)]`, whose text
//! only the compiler can produce.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// One item's doc comment.
#[derive(Clone, Default)]
pub struct Doc {
    parts: Vec<Part>,
}

#[derive(Clone)]
enum Part {
    /// A `///` line or `#[doc = "..."]`: one leading space stripped, trailing space trimmed.
    Line(String),
    /// `#[doc = include_str!(..)]`, `#[doc = concat!(..)]`: left for the compiler to expand.
    Macro(Expr),
}

impl Doc {
    /// The doc attributes of one item, in order.
    pub fn from_attrs(attrs: &[Attribute]) -> Doc {
        let parts = attrs
            .iter()
            .filter(|a| a.path().is_ident("doc"))
            .filter_map(|attr| match &attr.meta {
                Meta::NameValue(nv) => Some(match &nv.value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }) => {
                        let v = s.value();
                        Part::Line(v.strip_prefix(' ').unwrap_or(&v).trim_end().to_owned())
                    }
                    other => Part::Macro(other.clone()),
                }),
                _ => None,
            })
            .collect();
        Doc { parts }
    }

    /// The text, where every part is a literal (`None` if a macro must be expanded first).
    pub fn literal(&self) -> Option<String> {
        let mut lines = Vec::with_capacity(self.parts.len());
        for part in &self.parts {
            match part {
                Part::Line(l) => lines.push(l.as_str()),
                Part::Macro(_) => return None,
            }
        }
        Some(lines.join("\n").trim().to_owned())
    }
}

impl Doc {
    /// The text, each macro part's text given by `expand` (`None` where it
    /// cannot say), as the derive writes it: [`literal`](Self::literal)'s
    /// where every part is a literal, else what the compiler makes of the
    /// expression below (the parts joined by line breaks, trimmed of ASCII
    /// white space by `trim_doc`).
    pub fn text_with(&self, expand: impl Fn(&Expr) -> Option<String>) -> Option<String> {
        if let Some(text) = self.literal() {
            return Some(text);
        }
        let mut parts = Vec::with_capacity(self.parts.len());
        for part in &self.parts {
            parts.push(match part {
                Part::Line(l) => l.clone(),
                Part::Macro(e) => expand(e)?,
            });
        }
        let text = parts.join("\n");
        Some(
            text.trim_matches(|c: char| c.is_ascii_whitespace())
                .to_owned(),
        )
    }
}

/// A `&'static str` expression: a literal where the text is known here, else
/// `concat!` of the parts (the compiler expands `include_str!` inside it) trimmed
/// by the runtime's `const fn`, as rustdoc shows it.
impl ToTokens for Doc {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        if let Some(text) = self.literal() {
            text.to_tokens(tokens);
            return;
        }
        let parts = self.parts.iter().enumerate().map(|(i, part)| {
            let sep = if i == 0 { quote!() } else { quote!("\n",) };
            match part {
                Part::Line(l) => quote!(#sep #l,),
                Part::Macro(e) => quote!(#sep #e,),
            }
        });
        tokens.extend(quote!(__toon::__private::trim_doc(
            ::core::concat!(#(#parts)*)
        )));
    }
}
