//! The grammar written out in Lark (llguidance: OpenAI's custom tools, vLLM's
//! guidance backend), and what GBNF ([`super::gbnf`]) shares with it: binding
//! strength, repetition suffixes, character classes.

use std::fmt::Write;

use super::ir::{Class, Expr, Grammar};

/// Lark: `start: ...`; a rule whose body holds no other rule is a terminal (one
/// regular expression), so the lexer reads it in one piece.
pub(crate) fn lark(g: &Grammar) -> String {
    let terminal = |name: &str| {
        g.rules
            .iter()
            .any(|(n, body)| n == name && n != "root" && one_lexeme(body))
    };
    let mut out = String::new();
    for (name, body) in &g.rules {
        if terminal(name) {
            let regex = match body {
                // The exact bounds: the language, `min..=max` characters, the pattern.
                Expr::Bounded {
                    inner,
                    min,
                    max,
                    pattern,
                } => {
                    let mut t = format!(
                        "/{}/ & /(?s:.){{{min},{max}}}/",
                        regex(inner, None, Prec::Alt)
                    );
                    if let Some(p) = pattern {
                        t.push_str(&format!(" & /{}/", slashes_escaped(p)));
                    }
                    t
                }
                other => format!("/{}/", regex(other, None, Prec::Alt)),
            };
            let _ = writeln!(out, "{}: {regex}", lark_name(name, true));
        } else {
            let head = if name == "root" {
                "start".to_owned()
            } else {
                lark_name(name, false)
            };
            let _ = writeln!(out, "{head}: {}", lark_expr(body, &terminal, Prec::Alt));
        }
    }
    out
}

/// A pattern as the body of a Lark `/.../` literal: each `/` not already
/// escaped gets its backslash. An escape (`\/`, `\\`) is kept as it stands,
/// so a pattern written for a `/`-delimited language passes unchanged.
fn slashes_escaped(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push('\\');
                out.extend(chars.next());
            }
            '/' => out.push_str("\\/"),
            c => out.push(c),
        }
    }
    out
}

/// Binding strength: what an expression may stand inside without parentheses.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
pub(super) enum Prec {
    Alt,
    Seq,
    Atom,
}

pub(super) fn group(text: String, own: Prec, context: Prec, open: &str) -> String {
    if own < context {
        format!("{open}{text})")
    } else {
        text
    }
}

/// A sequence or alternation of rule-level expressions, each written by `each`
/// at the operator's precedence, grouped where its context binds tighter.
fn join(
    items: &[Expr],
    sep: &str,
    own: Prec,
    context: Prec,
    each: impl Fn(&Expr, Prec) -> String,
) -> String {
    let text = items
        .iter()
        .map(|i| each(i, own))
        .collect::<Vec<_>>()
        .join(sep);
    group(text, own, context, "(")
}

/// `{m,n}`, `?`, `*`, `+`; `cap` bounds an unbounded repetition (GBNF's reading of a bound).
pub(super) fn suffix(min: u32, max: Option<u32>, cap: Option<u32>) -> String {
    let max = match (max, cap) {
        (None, Some(cap)) => Some(cap.max(min).max(1)),
        (max, _) => max,
    };
    match (min, max) {
        (0, Some(1)) => "?".into(),
        (0, None) => "*".into(),
        (1, None) => "+".into(),
        (m, None) => format!("{{{m},}}"),
        (m, Some(n)) if m == n => format!("{{{m}}}"),
        (m, Some(n)) => format!("{{{m},{n}}}"),
    }
}

/// A character written so that GBNF's classes and Rust's regular expressions
/// both read it as itself: letters and digits bare, everything else as a hex
/// escape of fixed length. In GBNF that is `\u` and four digits: xgrammar
/// (vLLM) reads every hex digit after a `\x`, so `\x2C0` would be U+2C0 there
/// and `,` then `0` in llama.cpp.
fn class_char(c: char, out: &mut String, regex: bool) {
    if c.is_ascii_alphanumeric() {
        out.push(c);
    } else if regex && (c as u32) < 0x80 {
        let _ = write!(out, "\\x{:02X}", c as u32);
    } else if regex {
        let _ = write!(out, "\\x{{{:X}}}", c as u32);
    } else if (c as u32) <= 0xFFFF {
        let _ = write!(out, "\\u{:04X}", c as u32);
    } else {
        let _ = write!(out, "\\U{:08X}", c as u32);
    }
}

pub(super) fn class_body(c: &Class, regex: bool) -> String {
    let mut out = String::from(if c.negated { "[^" } else { "[" });
    for &(from, to) in &c.ranges {
        class_char(from, &mut out, regex);
        if to != from {
            out.push('-');
            class_char(to, &mut out, regex);
        }
    }
    out.push(']');
    out
}

/// A Rust regular expression (llguidance's dialect) for a regular expression.
fn regex(e: &Expr, cap: Option<u32>, context: Prec) -> String {
    match e {
        Expr::Lit(s) => {
            let mut out = String::new();
            for c in s.chars() {
                class_char(c, &mut out, true);
            }
            if s.chars().count() > 1 {
                group(out, Prec::Seq, context, "(?:")
            } else {
                out
            }
        }
        Expr::Class(c) => class_body(c, true),
        Expr::Seq(items) => {
            let text: String = items.iter().map(|i| regex(i, cap, Prec::Seq)).collect();
            group(text, Prec::Seq, context, "(?:")
        }
        Expr::Alt(items) => {
            let text = items
                .iter()
                .map(|i| regex(i, cap, Prec::Alt))
                .collect::<Vec<_>>()
                .join("|");
            group(text, Prec::Alt, context, "(?:")
        }
        Expr::Repeat { inner, min, max } => {
            format!(
                "{}{}",
                regex(inner, cap, Prec::Atom),
                suffix(*min, *max, cap)
            )
        }
        // Nested inside a larger terminal, a bound is read as in GBNF.
        Expr::Bounded { inner, max, .. } => regex(inner, Some(max.saturating_sub(2)), context),
        Expr::Rule(_) => unreachable!("a regular expression holds no rule"),
    }
}

fn lark_name(name: &str, terminal: bool) -> String {
    let name = name.replace('-', "_");
    if terminal {
        name.to_uppercase()
    } else {
        name
    }
}

/// Whether an expression may be one lexeme of llguidance's lexer. The lexer is
/// greedy and looks one byte ahead, so a lexeme must not run on past a point
/// where another reading ends: line breaks and keys stay lexemes of their own.
pub(super) fn one_lexeme(e: &Expr) -> bool {
    fn plain(e: &Expr) -> bool {
        match e {
            Expr::Lit(s) => !s.contains(['\n', ':']),
            Expr::Class(_) => true,
            Expr::Seq(v) | Expr::Alt(v) => v.iter().all(plain),
            Expr::Repeat { inner, .. } | Expr::Bounded { inner, .. } => plain(inner),
            Expr::Rule(_) => false,
        }
    }
    plain(e)
}

/// A literal as lexemes: each line break with the indentation after it on its
/// own, and a key's `: ` ending its lexeme, so `note: ` + `null` and `note: `
/// + a text are told apart where they part.
fn literal_lexemes(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            cur.push(c);
            while chars.peek() == Some(&' ') {
                cur.push(' ');
                chars.next();
            }
            out.push(std::mem::take(&mut cur));
            continue;
        }
        cur.push(c);
        if c == ' ' && cur.ends_with(": ") {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn lark_expr(e: &Expr, terminal: &dyn Fn(&str) -> bool, context: Prec) -> String {
    match e {
        Expr::Lit(s) => {
            let pieces: Vec<String> = literal_lexemes(s)
                .iter()
                .map(|p| serde_json::to_string(p).expect("a string serializes"))
                .collect();
            if pieces.is_empty() {
                return "\"\"".into();
            }
            let own = if pieces.len() > 1 {
                Prec::Seq
            } else {
                Prec::Atom
            };
            group(pieces.join(" "), own, context, "(")
        }
        Expr::Rule(name) => lark_name(name, terminal(name)),
        e if one_lexeme(e) => format!("/{}/", regex(e, None, Prec::Alt)),
        Expr::Seq(items) => join(items, " ", Prec::Seq, context, |i, p| {
            lark_expr(i, terminal, p)
        }),
        Expr::Alt(items) => join(items, " | ", Prec::Alt, context, |i, p| {
            lark_expr(i, terminal, p)
        }),
        Expr::Repeat { inner, min, max } => {
            format!(
                "{}{}",
                lark_expr(inner, terminal, Prec::Atom),
                suffix(*min, *max, None)
            )
        }
        Expr::Bounded { inner, .. } => lark_expr(inner, terminal, context),
        Expr::Class(_) => unreachable!("a class is one lexeme"),
    }
}
