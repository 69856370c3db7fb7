//! The declarations in a text: each struct and enum item, found by walking
//! the tokens, every other item (`use`, functions, `impl` blocks) passed over.

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// The struct and enum items of `tokens`, those inside `mod` blocks too, each
/// as its own tokens (attributes included).
pub(crate) fn items(tokens: TokenStream) -> Vec<TokenStream> {
    let mut out = Vec::new();
    let mut item: Vec<TokenTree> = Vec::new();
    let mut tokens = tokens.into_iter().peekable();
    while let Some(tree) = tokens.next() {
        // An inner attribute (`#![allow(..)]`) belongs to no item.
        if matches!(&tree, TokenTree::Punct(p) if p.as_char() == '#')
            && item.is_empty()
            && matches!(tokens.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '!')
        {
            tokens.next();
            tokens.next();
            continue;
        }
        let ends = match &tree {
            TokenTree::Punct(p) => p.as_char() == ';',
            TokenTree::Group(g) => g.delimiter() == Delimiter::Brace,
            _ => false,
        };
        item.push(tree);
        if ends {
            take(std::mem::take(&mut item), &mut out);
        }
    }
    // An item left open at the end (`struct Id(String)` with no `;`): read,
    // so that its error is said.
    if !item.is_empty() {
        take(item, &mut out);
    }
    out
}

/// Keeps `item` if it is a struct or an enum; reads into a `mod` block.
fn take(item: Vec<TokenTree>, out: &mut Vec<TokenStream>) {
    let keyword = item.iter().find_map(|t| match t {
        TokenTree::Ident(i) => {
            let word = i.to_string();
            matches!(
                word.as_str(),
                "struct"
                    | "enum"
                    | "union"
                    | "mod"
                    | "fn"
                    | "impl"
                    | "trait"
                    | "use"
                    | "const"
                    | "static"
                    | "type"
                    | "macro_rules"
                    | "extern"
            )
            .then_some(word)
        }
        _ => None,
    });
    match keyword.as_deref() {
        Some("struct" | "enum" | "union") => out.push(item.into_iter().collect()),
        Some("mod") => {
            if let Some(TokenTree::Group(g)) = item.last() {
                if g.delimiter() == Delimiter::Brace {
                    out.extend(items(g.stream()));
                }
            }
        }
        _ => {}
    }
}
