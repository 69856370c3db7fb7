//! Unquoted text of at most `max` characters, exactly, for GBNF, which cannot
//! cut a language to a length: its loops can only be bounded one by one, and
//! text that begins like a number has several in a row (`2.1.0.0…`: the whole
//! digits, the fraction's, then anything), which bounded apart would run past
//! the bound. Here each step knows how many characters are left: the states of
//! [`text::unquoted`](super::text::unquoted) (a keyword's prefix, a number's
//! part) are rules indexed by the characters still allowed, and what follows
//! once the text has left numbers and keywords behind is one repetition,
//! bounded by what is left.
//!
//! A number-like beginning is followed exactly for [`NUMBER_PREFIX`]
//! characters, which keeps the rules to about 60 a bound; text that still
//! reads as a number's beginning past that (`1234567890123456789012345
//! apples`) goes on as before, each of its loops bounded apart by what was
//! left, so such text alone may run past the bound (the decoder refuses it).

use super::ir::{alt, class, lit, opt, repeat, seq, Class, Expr};
use super::text::{any, next_chars, solid_except, DIGITS};

/// How many characters a number-like beginning is followed for.
pub(crate) const NUMBER_PREFIX: u32 = 8;

/// Where text that began like a number stands: in a part of the number
/// pattern, which one more character continues or leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The digits of the whole part (text so far: a number).
    Whole,
    /// Just after the point (`1.`).
    Point,
    /// The fraction's digits (a number).
    Fraction,
    /// Just after the `e` (`2e`).
    Exponent,
    /// Just after the exponent's sign (`3e-`).
    Sign,
    /// The exponent's digits (a number).
    ExpDigits,
    /// Just after a leading `+`.
    Plus,
}

const PARTS: [Part; 7] = [
    Part::Whole,
    Part::Point,
    Part::Fraction,
    Part::Exponent,
    Part::Sign,
    Part::ExpDigits,
    Part::Plus,
];

impl Part {
    fn slug(self) -> &'static str {
        match self {
            Part::Whole => "whole",
            Part::Point => "point",
            Part::Fraction => "fraction",
            Part::Exponent => "e",
            Part::Sign => "sign",
            Part::ExpDigits => "exp",
            Part::Plus => "plus",
        }
    }

    /// Whether the text may end here: not where it would read as a number.
    fn may_end(self) -> bool {
        !matches!(self, Part::Whole | Part::Fraction | Part::ExpDigits)
    }

    /// The characters that go on within the number, and where each leads.
    fn steps(self) -> &'static [(&'static str, Part)] {
        match self {
            Part::Whole => &[
                (DIGITS, Part::Whole),
                (".", Part::Point),
                ("eE", Part::Exponent),
            ],
            Part::Point => &[(DIGITS, Part::Fraction)],
            Part::Fraction => &[(DIGITS, Part::Fraction), ("eE", Part::Exponent)],
            Part::Exponent => &[("+-", Part::Sign), (DIGITS, Part::ExpDigits)],
            Part::Sign | Part::ExpDigits => &[(DIGITS, Part::ExpDigits)],
            Part::Plus => &[(DIGITS, Part::Whole)],
        }
    }
}

/// The text of `max` characters at most (`max >= 3`): its top expression,
/// and the rules of the number's parts it refers to, each with its name
/// (which holds the bound).
pub(crate) fn unquoted_within(max: u32, angle: bool) -> (Expr, Vec<(String, Expr)>) {
    let w = Within {
        max,
        // The least count of characters left that a number's part is followed with.
        least: max.saturating_sub(1).saturating_sub(NUMBER_PREFIX),
    };
    let first = if angle { "<" } else { "" };
    let plain = class(solid_except(&format!("-#+tfn{DIGITS}{first}")));
    let left = max - 1;
    let mut ways = vec![seq([plain, rest_or_none(left)])];
    for c in ['t', 'f', 'n'] {
        if let Some(after) = keyword(&c.to_string(), left) {
            ways.push(seq([lit(c.to_string()), after]));
        }
    }
    for (chars, part) in [(DIGITS, Part::Whole), ("+", Part::Plus)] {
        if let Some(rule) = w.part(part, left) {
            ways.push(seq([class(Class::of(chars)), rule]));
        }
    }
    let top = alt(ways);
    let mut rules = Vec::new();
    for part in PARTS {
        for r in w.least..=left {
            if let Some(body) = w.body(part, r) {
                rules.push((w.name(part, r), body));
            }
        }
    }
    // The rests and loose forms referred to, each once, and those they refer to.
    let mut named = std::collections::BTreeSet::new();
    let mut work: Vec<String> = Vec::new();
    refs_in(&top, &mut work);
    for (_, body) in &rules {
        refs_in(body, &mut work);
    }
    while let Some(name) = work.pop() {
        if !named.insert(name.clone()) {
            continue;
        }
        if let Some(body) = shared_rule(&name) {
            refs_in(&body, &mut work);
            rules.push((name, body));
        }
    }
    (top, rules)
}

/// The shared rules (rests and loose forms) `e` refers to, by name.
fn refs_in(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Rule(name) if name.starts_with(REST) || name.starts_with(LOOSE) => {
            out.push(name.clone());
        }
        Expr::Seq(items) | Expr::Alt(items) => items.iter().for_each(|i| refs_in(i, out)),
        Expr::Repeat { inner, .. } | Expr::Bounded { inner, .. } => refs_in(inner, out),
        Expr::Rule(_) | Expr::Lit(_) | Expr::Class(_) => {}
    }
}

/// The body of a shared rule, from its name.
fn shared_rule(name: &str) -> Option<Expr> {
    if let Some(n) = name.strip_prefix(REST) {
        return n.parse().ok().map(rest_body);
    }
    let (slug, cap) = name.strip_prefix(LOOSE)?.rsplit_once('-')?;
    let part = PARTS.into_iter().find(|p| p.slug() == slug)?;
    loose_body(part, cap.parse().ok()?)
}

/// The name of a loose form, less its part and bound.
const LOOSE: &str = "unquoted-loose-";

/// The name of a rest of `n` characters, less the number.
const REST: &str = "unquoted-rest-";

/// The bound the rules of the number's parts are built for.
struct Within {
    max: u32,
    least: u32,
}

impl Within {
    fn name(&self, part: Part, left: u32) -> String {
        format!("unquoted{}-{}-{left}", self.max, part.slug())
    }

    /// The rule of `part` with `left` characters left, where it has a word;
    /// past the number-like beginning followed exactly, its loops bounded apart.
    fn part(&self, part: Part, left: u32) -> Option<Expr> {
        if left < self.least {
            return loose(part, left);
        }
        (part.may_end() || left >= 1).then(|| Expr::Rule(self.name(part, left)))
    }

    /// What may follow in `part` with `left` characters left.
    fn body(&self, part: Part, left: u32) -> Option<Expr> {
        let mut ways = Vec::new();
        let mut going_on = String::new();
        for &(chars, next) in part.steps() {
            going_on.push_str(chars);
            if let Some(rule) = left.checked_sub(1).and_then(|l| self.part(next, l)) {
                ways.push(seq([class(Class::of(chars)), rule]));
            }
        }
        ways.extend(leave(&going_on, left));
        ended(ways, part.may_end())
    }
}

/// What may follow in `part`, each loop bounded by `cap` apart (so the
/// whole may run past it): the form of a number-like beginning past
/// [`NUMBER_PREFIX`] characters.
fn loose(part: Part, cap: u32) -> Option<Expr> {
    // Empty only where it may not end and has no room.
    (part.may_end() || cap >= 1).then(|| Expr::Rule(format!("{LOOSE}{}-{cap}", part.slug())))
}

/// The body of [`loose`]'s rule.
fn loose_body(part: Part, cap: u32) -> Option<Expr> {
    let mut ways = Vec::new();
    let mut going_on = String::new();
    let mut own = None;
    for &(chars, next) in part.steps() {
        going_on.push_str(chars);
        if next == part {
            own = Some(chars);
        } else if cap >= 1 {
            if let Some(after) = loose(next, cap - 1) {
                ways.push(seq([class(Class::of(chars)), after]));
            }
        }
    }
    ways.extend(leave(&going_on, cap));
    let after = ended(ways, part.may_end())?;
    Some(match own {
        Some(chars) => seq([repeat(class(Class::of(chars)), 0, Some(cap)), after]),
        None => after,
    })
}

/// After `prefix` (a prefix of `true`, `false` or `null`) with `left`
/// characters left: on along a keyword, off it, or the end unless `prefix`
/// is one.
fn keyword(prefix: &str, left: u32) -> Option<Expr> {
    let words = ["true", "false", "null"];
    let next = next_chars(prefix, &words);
    let mut ways: Vec<Expr> = next
        .iter()
        .filter_map(|&c| {
            let after = keyword(&format!("{prefix}{c}"), left.checked_sub(1)?)?;
            Some(seq([lit(c.to_string()), after]))
        })
        .collect();
    let going_on: String = next.iter().collect();
    ways.extend(leave(&going_on, left));
    ended(ways, !words.contains(&prefix))
}

/// The ways off numbers and keywords with `left` characters left: a solid
/// character none of `going_on` (then anything or nothing), or a space (then
/// something, since text does not end in one).
fn leave(going_on: &str, left: u32) -> Vec<Expr> {
    let mut ways = Vec::new();
    if left >= 1 {
        ways.push(seq([class(solid_except(going_on)), rest_or_none(left - 1)]));
    }
    if left >= 2 {
        ways.push(seq([lit(" "), rest(left - 1)]));
    }
    ways
}

/// `ways`, or the end as well where `may_end`; `None` where there is neither.
fn ended(ways: Vec<Expr>, may_end: bool) -> Option<Expr> {
    match (ways.is_empty(), may_end) {
        (true, true) => Some(lit("")),
        (true, false) => None,
        (false, true) => Some(opt(alt(ways))),
        (false, false) => Some(alt(ways)),
    }
}

/// Anything of at most `left` characters that does not end in a space.
fn rest_or_none(left: u32) -> Expr {
    match left {
        0 => lit(""),
        l => opt(rest(l)),
    }
}

/// One to `left` characters, the last not a space: the rule of that name
/// (see [`rest_rule`]).
fn rest(left: u32) -> Expr {
    Expr::Rule(format!("{REST}{left}"))
}

/// The body of [`rest`]'s rule.
fn rest_body(left: u32) -> Expr {
    seq([
        repeat(class(any()), 0, Some(left.saturating_sub(1))),
        class(solid_except("")),
    ])
}
