//! The longest reply a grammar admits, in bytes, as each syntax reads its
//! bounds: the worst case a token limit must hold for a reply never to be cut.

use std::collections::HashMap;

use super::ir::{Class, Expr, Grammar};
use super::render::one_lexeme;
use super::GrammarSyntax;

/// Where a language has no bound (an unbounded repetition outside a bounded
/// text); the builder writes none, and the tests hold it to that.
pub(crate) const UNBOUNDED: u64 = u64::MAX;

/// The most bytes of a word of `g`'s root, read as `syntax` writes it: GBNF
/// writes unquoted text within its bound as `within.rs` builds it, and bounds
/// each loop inside any other bounded text by the bound less two (a first and
/// a last character stand outside the loops, see `gbnf.rs`); Lark cuts a
/// terminal's language to its bound exactly, and reads a bound nested inside a
/// larger expression as GBNF does. A character counts as many bytes as the
/// longest its class holds (four where the class is "anything but").
pub(crate) fn max_bytes(g: &Grammar, syntax: GrammarSyntax) -> u64 {
    let mut walk = Walk {
        g,
        syntax,
        memo: HashMap::new(),
        open: Vec::new(),
    };
    walk.rule("root")
}

struct Walk<'g> {
    g: &'g Grammar,
    syntax: GrammarSyntax,
    memo: HashMap<&'g str, u64>,
    /// The rules being measured: one met again is a cycle, without bound.
    open: Vec<&'g str>,
}

impl<'g> Walk<'g> {
    fn rule(&mut self, name: &str) -> u64 {
        if let Some(&n) = self.memo.get(name) {
            return n;
        }
        let Some((name, body)) = self.g.rules.iter().find(|(n, _)| n == name) else {
            return UNBOUNDED;
        };
        if self.open.contains(&name.as_str()) {
            return UNBOUNDED;
        }
        self.open.push(name);
        let terminal = name != "root" && one_lexeme(body);
        let n = match body {
            // A Lark terminal's bound is an intersection: at most `max` characters.
            Expr::Bounded { inner, max, .. } if self.syntax == GrammarSyntax::Lark && terminal => {
                u64::from(*max).saturating_mul(char_bytes(inner))
            }
            _ => self.expr(body, None),
        };
        self.open.pop();
        self.memo.insert(name, n);
        n
    }

    /// `cap`: the bound GBNF gives an unbounded loop here.
    fn expr(&mut self, e: &Expr, cap: Option<u32>) -> u64 {
        match e {
            Expr::Lit(s) => s.len() as u64,
            Expr::Class(c) => class_bytes(c),
            Expr::Seq(items) => items
                .iter()
                .fold(0, |sum, i| sum.saturating_add(self.expr(i, cap))),
            Expr::Alt(items) => items.iter().map(|i| self.expr(i, cap)).max().unwrap_or(0),
            Expr::Repeat { inner, min, max } => {
                let times = match (max, cap) {
                    (Some(n), _) => *n,
                    (None, Some(cap)) => cap.max(*min).max(1),
                    (None, None) => return UNBOUNDED,
                };
                u64::from(times).saturating_mul(self.expr(inner, cap))
            }
            // Unquoted text as GBNF writes it (`within.rs`).
            Expr::Bounded { inner, max, .. } if *max >= 3 && self.syntax == GrammarSyntax::Gbnf => {
                match super::text::unquoted_angle(inner) {
                    Some(angle) => {
                        let (top, rules) = super::within::unquoted_within(*max, angle);
                        let mut g = Grammar::default();
                        g.reserve("root");
                        g.define("root", top);
                        for (name, body) in rules {
                            g.reserve(&name);
                            g.define(&name, body);
                        }
                        max_bytes(&g, GrammarSyntax::Gbnf)
                    }
                    None => self.expr(inner, Some(max.saturating_sub(2))),
                }
            }
            Expr::Bounded { inner, max, .. } => self.expr(inner, Some(max.saturating_sub(2))),
            Expr::Rule(name) => self.rule(name),
        }
    }
}

/// The most bytes one character of a class takes in UTF-8.
fn class_bytes(c: &Class) -> u64 {
    if c.negated {
        return 4;
    }
    c.ranges
        .iter()
        .map(|(_, to)| to.len_utf8() as u64)
        .max()
        .unwrap_or(0)
}

/// The most bytes one character of an expression without rules takes.
fn char_bytes(e: &Expr) -> u64 {
    match e {
        Expr::Lit(s) => s.chars().map(|c| c.len_utf8() as u64).max().unwrap_or(0),
        Expr::Class(c) => class_bytes(c),
        Expr::Seq(items) | Expr::Alt(items) => items.iter().map(char_bytes).max().unwrap_or(0),
        Expr::Repeat { inner, .. } | Expr::Bounded { inner, .. } => char_bytes(inner),
        Expr::Rule(_) => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::super::ir::{class, lit, repeat, seq, Class, Expr, Grammar};
    use super::*;

    fn grammar(root: Expr) -> Grammar {
        let mut g = Grammar::default();
        g.reserve("root");
        g.define("root", root);
        g
    }

    #[test]
    fn literals_sequences_and_counted_repetitions_add_up() {
        let g = grammar(seq([
            lit("ab"),
            repeat(class(Class::of("xyz")), 0, Some(5)),
            lit("é"),
        ]));
        for syntax in [GrammarSyntax::Gbnf, GrammarSyntax::Lark] {
            assert_eq!(max_bytes(&g, syntax), 2 + 5 + 2);
        }
    }

    #[test]
    fn a_bounded_text_counts_its_bound_as_each_syntax_reads_it() {
        // A terminal of at most 10 characters, any of which may take four bytes.
        let mut g = grammar(seq([lit("k: "), Expr::Rule("text".into())]));
        g.reserve("text");
        g.define(
            "text",
            Expr::Bounded {
                inner: Box::new(seq([
                    class(Class::except("")),
                    repeat(class(Class::except("")), 0, None),
                    class(Class::except("")),
                ])),
                min: 1,
                max: 10,
                pattern: None,
            },
        );
        assert_eq!(max_bytes(&g, GrammarSyntax::Lark), 3 + 10 * 4);
        // GBNF: a first and a last character around a loop of at most 8.
        assert_eq!(max_bytes(&g, GrammarSyntax::Gbnf), 3 + 10 * 4);
    }

    #[test]
    fn an_unbounded_loop_or_a_cycle_has_no_bound() {
        let g = grammar(repeat(lit("a"), 0, None));
        assert_eq!(max_bytes(&g, GrammarSyntax::Gbnf), UNBOUNDED);
        let mut g = grammar(Expr::Rule("again".into()));
        g.reserve("again");
        g.define("again", seq([lit("a"), Expr::Rule("again".into())]));
        assert_eq!(max_bytes(&g, GrammarSyntax::Lark), UNBOUNDED);
    }
}
