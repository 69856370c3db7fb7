//! The grammar as data: expressions over characters and named rules, built once
//! from a shape and written out in either syntax (`render.rs`).

use std::collections::HashMap;

/// A set of characters: the listed ranges, or every character but them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Class {
    pub ranges: Vec<(char, char)>,
    pub negated: bool,
}

impl Class {
    /// These characters (runs such as `0123456789` written as one range).
    pub fn of(chars: &str) -> Class {
        Class {
            ranges: runs(chars),
            negated: false,
        }
    }

    /// Every character but these, and never a control character or a line break.
    pub fn except(chars: &str) -> Class {
        let mut ranges = vec![('\0', '\u{1f}')];
        ranges.extend(runs(chars));
        Class {
            ranges,
            negated: true,
        }
    }

    /// A range such as `0-9`.
    pub fn range(from: char, to: char) -> Class {
        Class {
            ranges: vec![(from, to)],
            negated: false,
        }
    }
}

/// The characters, sorted, as ranges of consecutive ones.
fn runs(chars: &str) -> Vec<(char, char)> {
    let mut sorted: Vec<char> = chars.chars().collect();
    sorted.sort_unstable();
    sorted.dedup();
    let mut out: Vec<(char, char)> = Vec::new();
    for c in sorted {
        match out.last_mut() {
            Some((_, to)) if u32::from(*to) + 1 == u32::from(c) => *to = c,
            _ => out.push((c, c)),
        }
    }
    out
}

/// An expression of the grammar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Expr {
    /// This text, exactly.
    Lit(String),
    /// One character of the class.
    Class(Class),
    /// Each in turn.
    Seq(Vec<Expr>),
    /// One of them.
    Alt(Vec<Expr>),
    /// `min` to `max` times; `max: None` is unbounded (only inside [`Expr::Bounded`]).
    Repeat {
        inner: Box<Expr>,
        min: u32,
        max: Option<u32>,
    },
    /// A regular language cut to `min..=max` characters and, where given, to
    /// a pattern's matches: Lark says so exactly (intersections); GBNF, which
    /// has none, bounds each repetition inside by `max` and holds neither `min`
    /// nor the pattern.
    Bounded {
        inner: Box<Expr>,
        min: u32,
        max: u32,
        pattern: Option<String>,
    },
    /// The rule of that name.
    Rule(String),
}

pub(crate) fn lit(s: impl Into<String>) -> Expr {
    Expr::Lit(s.into())
}

pub(crate) fn class(c: Class) -> Expr {
    Expr::Class(c)
}

/// A sequence, with adjacent literals merged and empty literals dropped.
pub(crate) fn seq(items: impl IntoIterator<Item = Expr>) -> Expr {
    let mut out: Vec<Expr> = Vec::new();
    for item in items {
        let parts = match item {
            Expr::Seq(inner) => inner,
            other => vec![other],
        };
        for part in parts {
            match (out.last_mut(), part) {
                (_, Expr::Lit(s)) if s.is_empty() => {}
                (Some(Expr::Lit(prev)), Expr::Lit(s)) => prev.push_str(&s),
                (_, part) => out.push(part),
            }
        }
    }
    match out.len() {
        0 => lit(""),
        1 => out.pop().expect("one item"),
        _ => Expr::Seq(out),
    }
}

/// One of the alternatives (a single one stands for itself).
pub(crate) fn alt(items: impl IntoIterator<Item = Expr>) -> Expr {
    let mut out: Vec<Expr> = Vec::new();
    for item in items {
        match item {
            Expr::Alt(inner) => out.extend(inner),
            other => out.push(other),
        }
    }
    if out.len() == 1 {
        out.pop().expect("one item")
    } else {
        Expr::Alt(out)
    }
}

/// `min..=max` repetitions; exactly one is the item itself, none is the empty text.
pub(crate) fn repeat(inner: Expr, min: u32, max: Option<u32>) -> Expr {
    match (min, max) {
        (_, Some(0)) => lit(""),
        (1, Some(1)) => inner,
        _ => Expr::Repeat {
            inner: Box::new(inner),
            min,
            max,
        },
    }
}

/// Zero or one.
pub(crate) fn opt(inner: Expr) -> Expr {
    repeat(inner, 0, Some(1))
}

/// The words of `e` of exactly `n` characters as a language of their own
/// (the empty text is `lit("")`), or `None` where `e` has none; for a few
/// characters only, as it writes out every way of splitting them. `e` holds no
/// rule.
pub(crate) fn of_length(e: &Expr, n: u32) -> Option<Expr> {
    let ways = |parts: Vec<Option<Expr>>| {
        let parts: Vec<Expr> = parts.into_iter().flatten().collect();
        (!parts.is_empty()).then(|| alt(parts))
    };
    match e {
        Expr::Lit(s) => (s.chars().count() == n as usize).then(|| e.clone()),
        Expr::Class(_) => (n == 1).then(|| e.clone()),
        Expr::Alt(items) => ways(items.iter().map(|i| of_length(i, n)).collect()),
        Expr::Seq(items) => match items.split_first() {
            None => (n == 0).then(|| lit("")),
            Some((first, rest)) => {
                let rest = Expr::Seq(rest.to_vec());
                ways(
                    (0..=n)
                        .map(|i| Some(seq([of_length(first, i)?, of_length(&rest, n - i)?])))
                        .collect(),
                )
            }
        },
        Expr::Repeat { inner, min, max } => {
            // An item that may be empty fills the least count at no length.
            let min = if of_length(inner, 0).is_some() {
                0
            } else {
                *min
            };
            if n == 0 {
                return (min == 0).then(|| lit(""));
            }
            if *max == Some(0) {
                return None;
            }
            // One more item of 1..=n characters, then the rest of the repetition.
            let more = Expr::Repeat {
                inner: inner.clone(),
                min: min.saturating_sub(1),
                max: max.map(|m| m - 1),
            };
            ways(
                (1..=n)
                    .map(|i| Some(seq([of_length(inner, i)?, of_length(&more, n - i)?])))
                    .collect(),
            )
        }
        Expr::Bounded {
            inner, min, max, ..
        } => (*min..=*max)
            .contains(&n)
            .then(|| of_length(inner, n))
            .flatten(),
        Expr::Rule(_) => None,
    }
}

/// Named rules in the order they were first asked for; `root` first.
#[derive(Debug, Default)]
pub(crate) struct Grammar {
    pub rules: Vec<(String, Expr)>,
    index: HashMap<String, usize>,
}

impl Grammar {
    /// Reserves `name`; false if it is taken (defined, or being defined), so a
    /// rule may refer to itself while it is built.
    pub fn reserve(&mut self, name: &str) -> bool {
        if self.index.contains_key(name) {
            return false;
        }
        self.index.insert(name.to_owned(), self.rules.len());
        self.rules.push((name.to_owned(), lit("")));
        true
    }

    /// Gives the reserved rule `name` its body.
    pub fn define(&mut self, name: &str, body: Expr) {
        let at = self.index[name];
        self.rules[at].1 = body;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The words of an expression of literals, sequences and alternatives.
    fn words(e: &Expr) -> BTreeSet<String> {
        match e {
            Expr::Lit(s) => BTreeSet::from([s.clone()]),
            Expr::Alt(items) => items.iter().flat_map(words).collect(),
            Expr::Seq(items) => items
                .iter()
                .fold(BTreeSet::from([String::new()]), |acc, i| {
                    let next = words(i);
                    acc.iter()
                        .flat_map(|a| next.iter().map(move |b| format!("{a}{b}")))
                        .collect()
                }),
            other => panic!("not written out: {other:?}"),
        }
    }

    fn of(e: &Expr, n: u32) -> Option<BTreeSet<String>> {
        of_length(e, n).map(|e| words(&e))
    }

    #[test]
    fn the_words_of_one_length_are_written_out() {
        let set = |w: &[&str]| Some(w.iter().map(|s| (*s).to_owned()).collect());
        let e = seq([lit("a"), repeat(alt([lit("b"), lit("cd")]), 0, Some(2))]);
        assert_eq!(of(&e, 1), set(&["a"]));
        assert_eq!(of(&e, 3), set(&["abb", "acd"]));
        assert_eq!(of(&e, 5), set(&["acdcd"]));
        assert_eq!(of(&e, 6), None);
        // Items that may be empty fill a repetition's least count at no length.
        let e = repeat(opt(lit("x")), 2, None);
        assert_eq!(of(&e, 0), set(&[""]));
        assert_eq!(of(&e, 1), set(&["x"]));
        assert_eq!(of(&e, 3), set(&["xxx"]));
        let e = repeat(alt([lit(""), lit("ab")]), 1, Some(3));
        assert_eq!(of(&e, 0), set(&[""]));
        assert_eq!(of(&e, 4), set(&["abab"]));
        assert_eq!(of(&e, 8), None);
    }
}
