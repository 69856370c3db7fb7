//! The grammar written out in GBNF (llama.cpp, llama-cpp-python, vLLM's
//! xgrammar), within what llama.cpp's parser takes.
//!
//! llama.cpp expands a repetition `x{m,n}` into one rule per optional copy and
//! refuses a grammar (`MAX_REPETITION_THRESHOLD`, 2000) where a count is above
//! 2000, or where the rules made inside the repeated item (one per group and
//! per optional copy) times the count reach 2000; `x?` counts once, so a group
//! holding a few long repetitions is refused even when it is only optional.
//! So, as the text is written, the rules each item makes are counted as
//! llama.cpp counts them, or a few more (a rule named again counts again); an
//! item that would reach the limit, or is itself a repetition, becomes a rule of
//! its own (a reference counts as one), and a repetition of more than [`BLOCK`]
//! is written as repetitions of blocks, in a rule of its own. The language is
//! the same either way, and a grammar none of whose repetitions needs this is
//! written as before.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use super::ir::{Expr, Grammar};
use super::render::{class_body, group, suffix, Prec};

/// llama.cpp's `MAX_REPETITION_THRESHOLD`: the refused product of an item's rules and its count.
const LIMIT: u64 = 2000;
/// The longest repetition written as one `{m,n}`; a longer one is written in blocks of this many.
const BLOCK: u32 = 1000;

/// GBNF: `root ::= ...`, one rule a line; the rules made for long repetitions after them.
pub(crate) fn gbnf(g: &Grammar) -> String {
    let mut w = Writer::default();
    let mut out = String::new();
    for (name, body) in &g.rules {
        let text = w.expr(body, None, Prec::Alt).text;
        let _ = writeln!(out, "{name} ::= {text}");
    }
    for (name, body) in &w.made {
        let _ = writeln!(out, "{name} ::= {body}");
    }
    out
}

/// An expression written, and the rules llama.cpp's parser makes of it.
struct Written {
    text: String,
    rules: u64,
}

#[derive(Default)]
struct Writer {
    /// Rules made here, in order, and the name of each body (one rule a body).
    made: Vec<(String, String)>,
    names: HashMap<String, String>,
    /// The named rules made here so far (`within.rs`'s).
    defined: HashSet<String>,
}

impl Writer {
    fn expr(&mut self, e: &Expr, cap: Option<u32>, context: Prec) -> Written {
        match e {
            Expr::Lit(s) => plain(literal(s)),
            Expr::Class(c) => plain(class_body(c, false)),
            // A rule named here first is one more rule to llama.cpp's count.
            Expr::Rule(name) => Written {
                text: name.clone(),
                rules: 1,
            },
            Expr::Seq(items) => self.join(items, " ", Prec::Seq, cap, context),
            Expr::Alt(items) => self.join(items, " | ", Prec::Alt, cap, context),
            Expr::Repeat { inner, min, max } => self.repeat(inner, *min, *max, cap),
            // Two characters of every bounded language here stand outside its loops
            // (a first and a last character), so each loop may take `max - 2`.
            Expr::Bounded { inner, max, .. } => match super::text::unquoted_angle(inner) {
                // Unquoted text, exactly within its bound (`within.rs`).
                Some(angle) if *max >= 3 => {
                    let (top, rules) = super::within::unquoted_within(*max, angle);
                    for (name, body) in rules {
                        if self.defined.insert(name.clone()) {
                            let text = self.expr(&body, None, Prec::Alt).text;
                            self.made.push((name, text));
                        }
                    }
                    self.expr(&top, None, context)
                }
                _ => self.expr(inner, Some(max.saturating_sub(2)), context),
            },
        }
    }

    fn join(
        &mut self,
        items: &[Expr],
        sep: &str,
        own: Prec,
        cap: Option<u32>,
        context: Prec,
    ) -> Written {
        let parts: Vec<Written> = items.iter().map(|i| self.expr(i, cap, own)).collect();
        let rules = parts.iter().map(|p| p.rules).sum::<u64>() + u64::from(own < context);
        let text = parts.into_iter().map(|p| p.text).collect::<Vec<_>>();
        Written {
            text: group(text.join(sep), own, context, "("),
            rules,
        }
    }

    fn repeat(&mut self, inner: &Expr, min: u32, max: Option<u32>, cap: Option<u32>) -> Written {
        // GBNF's reading of a bound: an unbounded loop inside bounded text takes the cap.
        let max = match (max, cap) {
            (None, Some(cap)) => Some(cap.max(min).max(1)),
            (max, _) => max,
        };
        let count = match max {
            Some(n) if n > 0 => u64::from(n),
            _ => u64::from(min.max(1)),
        };
        let mut item = self.expr(inner, cap, Prec::Atom);
        let long = max.unwrap_or(min) > BLOCK || min > BLOCK;
        let group = !matches!(inner, Expr::Lit(_) | Expr::Class(_) | Expr::Rule(_));
        // A repetition of a repetition multiplies its counts: it gets a rule too.
        let nested = matches!(inner, Expr::Repeat { .. });
        if group && (nested || long || item.rules * count >= LIMIT) {
            let body = self.expr(inner, cap, Prec::Alt).text;
            item = self.reference(body);
        }
        if long {
            let body = blocks(&item.text, min, max);
            return self.reference(body);
        }
        let copies = match max {
            Some(n) => u64::from(n - min),
            None => 1,
        };
        Written {
            text: format!("{}{}", item.text, suffix(min, max, None)),
            rules: item.rules + copies,
        }
    }

    /// A reference to a rule with this body, made the first time it is asked
    /// for. It counts as one rule: it names the rule first (the rules made here
    /// are written last).
    fn reference(&mut self, body: String) -> Written {
        let name = match self.names.get(&body) {
            Some(name) => name.clone(),
            None => {
                let name = format!("repeat-{}", self.made.len() + 1);
                self.names.insert(body.clone(), name.clone());
                self.made.push((name.clone(), body));
                name
            }
        };
        Written {
            text: name,
            rules: 1,
        }
    }
}

fn plain(text: String) -> Written {
    Written { text, rules: 0 }
}

/// `x{min,max}` for a count above [`BLOCK`], `x` a terminal or a rule, as
/// repetitions of blocks of `x{BLOCK}`, each count read one way only.
fn blocks(x: &str, min: u32, max: Option<u32>) -> String {
    let block = format!("({x}{{{BLOCK}}})");
    // Exactly `n` copies.
    let exactly = |n: u32| {
        let whole = match n / BLOCK {
            0 => String::new(),
            1 => block.clone(),
            q => format!("{block}{{{q}}}"),
        };
        let rest = match n % BLOCK {
            0 => String::new(),
            1 => x.to_owned(),
            r => format!("{x}{{{r}}}"),
        };
        join_nonempty(&[whole, rest])
    };
    let fixed = exactly(min);
    // Alternatives are grouped only where something stands before them.
    let either = |a: String, b: String| {
        if fixed.is_empty() {
            format!("{a} | {b}")
        } else {
            format!("({a} | {b})")
        }
    };
    let rest = match max {
        None => format!("{x}*"),
        Some(max) => {
            // Up to `k` more: fewer than `q` whole blocks and any part of one, or `q`
            // whole blocks and at most `k % BLOCK`.
            let k = max - min;
            let (q, r) = (k / BLOCK, k % BLOCK);
            let up_to = |n: u32| match n {
                0 => String::new(),
                1 => format!("{x}?"),
                n => format!("{x}{{0,{n}}}"),
            };
            if q == 0 {
                up_to(r)
            } else {
                let fewer = match q - 1 {
                    0 => String::new(),
                    1 => format!("{block}?"),
                    n => format!("{block}{{0,{n}}}"),
                };
                let all = exactly(q * BLOCK);
                either(
                    join_nonempty(&[fewer, up_to(BLOCK - 1)]),
                    join_nonempty(&[all, up_to(r)]),
                )
            }
        }
    };
    join_nonempty(&[fixed, rest])
}

fn join_nonempty(parts: &[String]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A GBNF literal: `"`, `\` and line breaks escaped, other control characters
/// as `\u` and four digits (a `\x` escape followed by a hex digit is read as
/// one longer number by xgrammar, vLLM's reader, where llama.cpp reads two).
fn literal(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
