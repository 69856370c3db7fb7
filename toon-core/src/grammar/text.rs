//! The languages of single values: text (unquoted exactly where SPEC §7.2 lets it
//! stand, otherwise quoted with §7.1's escapes), numbers, whole numbers within a
//! range, and keys.

use super::ir::{alt, class, lit, of_length, opt, repeat, seq, Class, Expr};
use super::FRACTION_DIGITS;

/// Never in unquoted text: quotes, escapes, the colon, brackets, braces and the
/// delimiter (the document's comma, in field values as in cells). Control
/// characters are left out by [`Class::except`].
const STRUCTURAL: &str = "\"\\:[]{},";
pub(super) const DIGITS: &str = "0123456789";

/// Any character unquoted text may hold.
pub(super) fn any() -> Class {
    Class::except(STRUCTURAL)
}

/// Any such character but the space: a last character.
pub(super) fn solid_except(more: &str) -> Class {
    Class::except(&format!("{STRUCTURAL} {more}"))
}

/// What may follow once the text can no longer read as a number or a keyword:
/// anything, so long as it does not end in a space.
fn tail() -> Expr {
    opt(tail1())
}

/// As [`tail`], but at least one character.
fn tail1() -> Expr {
    seq([repeat(class(any()), 0, None), class(solid_except(""))])
}

/// How a prefix of unquoted text is finished: the text ends there, or a
/// character that no number or keyword continues with (a solid one, or a space,
/// which must not end the text) leaves numbers and keywords behind.
#[derive(Clone, Copy, PartialEq)]
enum Exit {
    End,
    Solid,
    Space,
}

impl Exit {
    /// The character that leaves, where none of `continuing` would go on.
    fn leave(self, continuing: &str) -> Option<Expr> {
        match self {
            Exit::End => None,
            Exit::Solid => Some(class(solid_except(continuing))),
            Exit::Space => Some(lit(" ")),
        }
    }

    /// The ways on from a state; `accepting`: ending here would make a number
    /// or a keyword, so the text may not end here.
    fn choose(self, ways: Vec<Option<Expr>>, accepting: bool) -> Option<Expr> {
        let ways: Vec<Expr> = ways.into_iter().flatten().collect();
        let may_end = self == Exit::End && !accepting;
        match (ways.is_empty(), may_end) {
            (true, true) => Some(lit("")),
            (true, false) => None,
            (false, true) => Some(opt(alt(ways))),
            (false, false) => Some(alt(ways)),
        }
    }
}

/// [`unquoted`] text of `min..=max` characters. Its loops are what GBNF
/// bounds (each to `max - 2`, a first and a last character outside them), so
/// text of at most two characters is written out word by word instead: there
/// the loops would have no room, and their first and last characters alone
/// would run to two.
pub(crate) fn unquoted_of(min: u32, max: u32, angle: bool) -> Expr {
    if max > 2 {
        return unquoted(angle);
    }
    let text = unquoted(angle);
    alt((min..=max).filter_map(|n| of_length(&text, n)))
}

/// Unquoted text, unbounded (the caller bounds it): not empty; no leading `-`,
/// `#` or space; no trailing space; and never a word the decoder would read as
/// something else: `true`, `false`, `null`, or a number (`42`, `+1`, `05`,
/// `1e-6`; §7.2's numeric-like pattern), which must be quoted to stay text.
///
/// Text that starts like a keyword or a number follows it until a character
/// breaks it, then anything may follow; or it ends where no keyword or number does.
/// With `angle`, text does not begin with `<` either (the TOON lines of a reply
/// with delimited fields, where the encoder quotes it).
pub(crate) fn unquoted(angle: bool) -> Expr {
    let first = if angle { "<" } else { "" };
    let plain = class(solid_except(&format!("-#+tfn{DIGITS}{first}")));
    let prefixes = |exit: Exit| {
        let words = ["true", "false", "null"];
        let mut ways: Vec<Expr> = ['t', 'f', 'n']
            .into_iter()
            .filter_map(|c| {
                let first = c.to_string();
                after_prefix(&first, &words, exit).map(|rest| seq([lit(first), rest]))
            })
            .collect();
        ways.extend(numberlike(exit));
        ways
    };
    let mut solid = vec![plain];
    solid.extend(prefixes(Exit::Solid));
    alt([
        seq([alt(solid), tail()]),
        seq([alt(prefixes(Exit::Space)), tail1()]),
        alt(prefixes(Exit::End)),
    ])
}

/// Whether `e` is unquoted text as [`unquoted`] builds it, and for which
/// `angle`: the language GBNF writes exactly within its bound (`within.rs`).
pub(crate) fn unquoted_angle(e: &Expr) -> Option<bool> {
    [false, true]
        .into_iter()
        .find(|&angle| *e == unquoted(angle))
}

/// The characters that go on from `prefix` along one of `words`, sorted, each once.
pub(super) fn next_chars(prefix: &str, words: &[&str]) -> Vec<char> {
    let mut next: Vec<char> = words
        .iter()
        .filter_map(|w| w.strip_prefix(prefix).and_then(|rest| rest.chars().next()))
        .collect();
    next.sort_unstable();
    next.dedup();
    next
}

/// After `prefix` (a prefix of some keyword): go on along a keyword, leave the
/// keywords behind, or end here unless `prefix` is a keyword.
fn after_prefix(prefix: &str, words: &[&str], exit: Exit) -> Option<Expr> {
    let next = next_chars(prefix, words);
    let mut ways: Vec<Option<Expr>> = next
        .iter()
        .map(|&c| {
            let longer = format!("{prefix}{c}");
            after_prefix(&longer, words, exit).map(|rest| seq([lit(c.to_string()), rest]))
        })
        .collect();
    ways.push(exit.leave(&next.iter().collect::<String>()));
    exit.choose(ways, words.contains(&prefix))
}

/// Prefixes of text that begins with a digit or `+` but is not numeric-like:
/// the number pattern (`[+-]?[0-9]+(.[0-9]+)?(e[+-]?[0-9]+)?`, any case of e)
/// until a character breaks it, or an end where a number cannot end (`+`, `1.`,
/// `2e`, `3e-`).
fn numberlike(exit: Exit) -> Option<Expr> {
    let digit = || class(Class::of(DIGITS));
    let digits = |min| repeat(digit(), min, None);
    let then = |first: Expr, rest: Option<Expr>| rest.map(|r| seq([first, r]));
    // After digits of an exponent, or of a sign's exponent: only a break.
    let exp_digits = then(digits(1), exit.choose(vec![exit.leave(DIGITS)], true));
    // After `e`, and after its sign.
    let signed = exit.choose(vec![exp_digits.clone(), exit.leave(DIGITS)], false);
    let exponent = exit.choose(
        vec![
            then(class(Class::of("+-")), signed),
            exp_digits,
            exit.leave(&format!("{DIGITS}+-")),
        ],
        false,
    );
    // After the digits of a fraction, and after the `.`.
    let fraction_digits = exit.choose(
        vec![
            then(class(Class::of("eE")), exponent.clone()),
            exit.leave(&format!("{DIGITS}eE")),
        ],
        true,
    );
    let fraction = exit.choose(
        vec![then(digits(1), fraction_digits), exit.leave(DIGITS)],
        false,
    );
    // After the first digit of the whole part.
    let whole = then(
        digits(0),
        exit.choose(
            vec![
                then(lit("."), fraction),
                then(class(Class::of("eE")), exponent),
                exit.leave(&format!("{DIGITS}.eE")),
            ],
            true,
        ),
    );
    let signed_whole = exit.choose(
        vec![then(digit(), whole.clone()), exit.leave(DIGITS)],
        false,
    );
    let ways: Vec<Expr> = [then(digit(), whole), then(lit("+"), signed_whole)]
        .into_iter()
        .flatten()
        .collect();
    (!ways.is_empty()).then(|| alt(ways))
}

/// A quoted string's characters as written, none escaped, any number (the
/// caller bounds them).
pub(crate) fn quoted_plain() -> Expr {
    seq([
        lit("\""),
        repeat(class(Class::except("\"\\")), 0, None),
        lit("\""),
    ])
}

/// A quoted string of `min..=max` characters, each literal or escaped as the
/// encoder escapes it (`\\`, `\"`, `\n`, `\r`, `\t`, `\u00XX` for other controls).
pub(crate) fn quoted(min: u32, max: u32) -> Expr {
    let char_ = alt([
        class(Class::except("\"\\")),
        seq([lit("\\"), class(Class::of("\"\\nrt"))]),
        seq([
            lit("\\u00"),
            class(Class::of("01")),
            class(Class {
                ranges: vec![('0', '9'), ('a', 'f'), ('A', 'F')],
                negated: false,
            }),
        ]),
    ]);
    seq([lit("\""), repeat(char_, min, Some(max)), lit("\"")])
}

/// A fraction of at most [`FRACTION_DIGITS`] digits, after its point.
fn fraction() -> Expr {
    seq([
        lit("."),
        repeat(class(Class::of(DIGITS)), 1, Some(FRACTION_DIGITS)),
    ])
}

/// A plain decimal as the encoder writes one: no leading zeros, at most 21
/// whole digits (the encoder switches to the exponent form at 1e21), and a
/// fraction of at most [`FRACTION_DIGITS`] digits.
fn plain_decimal() -> Expr {
    let digit = || class(Class::of(DIGITS));
    seq([
        alt([
            lit("0"),
            seq([class(Class::range('1', '9')), repeat(digit(), 0, Some(20))]),
        ]),
        opt(fraction()),
    ])
}

/// A number as TOON writes one, within the grammar's bounds: an optional sign
/// and a plain decimal. The exponent form, which the encoder writes only for
/// magnitudes below 1e-6 or from 1e21, is left out: a model that may write it
/// spends its tokens on digits no answer needs (`9.37508647706326E-14` for a
/// confidence), and the decoder still reads it where a server lets it through.
pub(crate) fn number() -> Expr {
    seq([opt(lit("-")), plain_decimal()])
}

/// The numbers from `lo` to `hi`, both whole and `0 <= lo < hi`: a whole part
/// below `hi` with a fraction of at most [`FRACTION_DIGITS`] digits, and `hi`
/// itself (with a fraction of zeros).
pub(crate) fn number_between(lo: u128, hi: u128) -> Expr {
    alt([
        seq([unsigned(lo, hi - 1), opt(fraction())]),
        seq([
            lit(hi.to_string()),
            opt(seq([lit("."), repeat(lit("0"), 1, Some(FRACTION_DIGITS))])),
        ]),
    ])
}

/// Every whole number from `min` to `max`, in decimal without leading zeros.
pub(crate) fn integer(min: i128, max: i128) -> Expr {
    let mut ways = Vec::new();
    if min < 0 {
        // The negative part, by magnitude: -1 .. -|min|, cut at max if max < 0.
        let low = if max < 0 { max.unsigned_abs() } else { 1 };
        ways.push(seq([lit("-"), unsigned(low, min.unsigned_abs())]));
    }
    if max >= 0 {
        ways.push(unsigned(min.max(0).unsigned_abs(), max.unsigned_abs()));
    }
    alt(ways)
}

/// `lo..=hi` as alternatives of digit patterns, one group per number of digits.
fn unsigned(lo: u128, hi: u128) -> Expr {
    let mut ways = Vec::new();
    let (mut from, mut width) = (lo, lo.to_string().len());
    while from <= hi {
        let top = 10u128
            .checked_pow(width as u32)
            .map_or(u128::MAX, |p| p - 1);
        let to = hi.min(top);
        ways.push(same_width(&from.to_string(), &to.to_string()));
        match to.checked_add(1) {
            Some(next) if to < hi => {
                from = next;
                width += 1;
            }
            _ => break,
        }
    }
    alt(ways)
}

/// The numbers from `a` to `b`, both of the same number of digits.
fn same_width(a: &str, b: &str) -> Expr {
    let digit = |d: u8| char::from(b'0' + d);
    let (a0, b0) = (a.as_bytes()[0] - b'0', b.as_bytes()[0] - b'0');
    let (ar, br) = (&a[1..], &b[1..]);
    if ar.is_empty() {
        return if a0 == b0 {
            lit(a)
        } else {
            class(Class::range(digit(a0), digit(b0)))
        };
    }
    if a0 == b0 {
        return seq([lit(digit(a0).to_string()), same_width(ar, br)]);
    }
    let rest = ar.len();
    let any_digits = || {
        repeat(
            class(Class::range('0', '9')),
            rest as u32,
            Some(rest as u32),
        )
    };
    let mut ways = Vec::new();
    let mut first_full = a0;
    if ar.bytes().any(|d| d != b'0') {
        ways.push(seq([
            lit(digit(a0).to_string()),
            same_width(ar, &"9".repeat(rest)),
        ]));
        first_full += 1;
    }
    let mut last_full = b0;
    let tail = if br.bytes().any(|d| d != b'9') {
        last_full -= 1;
        Some(seq([
            lit(digit(b0).to_string()),
            same_width(&"0".repeat(rest), br),
        ]))
    } else {
        None
    };
    if first_full <= last_full {
        let lead = if first_full == last_full {
            lit(digit(first_full).to_string())
        } else {
            class(Class::range(digit(first_full), digit(last_full)))
        };
        ways.push(seq([lead, any_digits()]));
    }
    ways.extend(tail);
    alt(ways)
}

/// A key as the encoder writes one (§7.3): bare if it matches
/// `[A-Za-z_][A-Za-z0-9_.]*`, else quoted; at most `max` characters.
pub(crate) fn free_key(max: u32) -> Expr {
    let bare = seq([
        class(Class {
            ranges: vec![('A', 'Z'), ('a', 'z'), ('_', '_')],
            negated: false,
        }),
        repeat(
            class(Class {
                ranges: vec![('A', 'Z'), ('a', 'z'), ('0', '9'), ('_', '_'), ('.', '.')],
                negated: false,
            }),
            0,
            Some(max.saturating_sub(1)),
        ),
    ]);
    alt([bare, quoted(0, max)])
}
