//! Tokens inside one line: quote-aware scanning, splitting on a delimiter,
//! quoted strings and their escapes, and the typing of unquoted values (§4, §7, §11).
//!
//! Every function works on a slice of the line it came from, so that errors can
//! point at a column; [`LexError::offset`] is a byte offset within the slice.

use serde_json::{Number, Value};

use crate::spec::error::DecodeErrorKind;

/// A problem inside a token, located by byte offset within the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LexError {
    pub kind: DecodeErrorKind,
    pub offset: usize,
    pub message: String,
}

impl LexError {
    fn new(kind: DecodeErrorKind, offset: usize, message: impl Into<String>) -> Self {
        LexError {
            kind,
            offset,
            message: message.into(),
        }
    }
}

/// Trims U+0020 only, never tabs or other whitespace (§12 token trimming).
pub(crate) fn trim_spaces(s: &str) -> &str {
    let b = s.as_bytes();
    let start = b.iter().position(|&c| c != b' ').unwrap_or(b.len());
    let end = b.iter().rposition(|&c| c != b' ').map_or(start, |i| i + 1);
    // Both ends are next to an ASCII space or at the ends of `s`: char boundaries.
    s.get(start..end).unwrap_or_default()
}

/// Byte index of the first character outside double quotes for which `pred` holds.
///
/// Inside quotes a backslash escapes the next character, so `"a\"b"` is one quoted run.
/// `pred` sees ASCII characters only (every delimiter and structural character
/// is ASCII), which lets the scan go byte by byte: in UTF-8 a byte below 0x80 is
/// always a whole character.
pub(crate) fn find_unquoted(s: &str, pred: impl Fn(char) -> bool) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'"' {
            i = after_quoted(b, i + 1)?;
        } else if c.is_ascii() && pred(char::from(c)) {
            return Some(i);
        } else {
            i += 1;
        }
    }
    None
}

/// Whether a line under a table header of `delim` is a row: no unquoted
/// colon before its first unquoted delimiter. A `key: value` line is a
/// record written as a block. The decoder and the stream tell rows so.
pub(crate) fn is_row(content: &str, delim: char) -> bool {
    let d = u8::try_from(delim).unwrap_or(b',');
    // Most lines decide it within their first cell, before any quote: a
    // plain loop there costs less than a search's setup.
    for &b in content.as_bytes() {
        match b {
            b':' => return false,
            b'"' => break,
            _ if b == d => return true,
            _ => {}
        }
    }
    !matches!(find_unquoted_byte(content, b':', d), Some(i) if content.as_bytes()[i] == b':')
}

/// [`find_unquoted`] for the ASCII bytes `x` or `y` (the same byte twice for
/// one), skipping ahead with `memchr`: the hot path of reading table rows.
pub(crate) fn find_unquoted_byte(s: &str, x: u8, y: u8) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(m) = memchr::memchr3(x, y, b'"', &b[i..]) {
        let j = i + m;
        if b[j] != b'"' {
            return Some(j);
        }
        i = after_quoted(b, j + 1)?;
    }
    None
}

/// The bytes of `s` outside quoted runs, each with its index: a quoted run
/// is given as its opening quote alone, and one that never closes ends them
/// (no later byte is outside quotes). JSON quotes and escapes as TOON does.
pub(crate) fn unquoted_bytes(s: &str) -> impl Iterator<Item = (usize, u8)> + '_ {
    let b = s.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        let (at, &c) = (i, b.get(i)?);
        i = match c {
            b'"' => after_quoted(b, i + 1).unwrap_or(b.len()),
            _ => i + 1,
        };
        Some((at, c))
    })
}

/// The index just past the quote closing a run that starts at `k`, or `None`
/// if the run never closes (so no later byte is outside quotes).
fn after_quoted(b: &[u8], mut k: usize) -> Option<usize> {
    while let Some(m) = memchr::memchr2(b'"', b'\\', b.get(k..)?) {
        let p = k + m;
        if b[p] == b'"' {
            return Some(p + 1);
        }
        k = p + 2; // a backslash escapes the next character
    }
    None
}

/// Does the line stop inside a `\u` escape, before its four hex digits?
pub(crate) fn cut_in_escape(line: &str) -> bool {
    let line = line.trim_end();
    line.rfind("\\u").is_some_and(|at| {
        let rest = &line[at + 2..];
        rest.len() < 4 && rest.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

/// Splits on unquoted occurrences of `delim` and trims spaces around each token (Appendix B.3).
///
/// An empty `s` gives one empty token; callers that treat "nothing" as zero
/// values check for that before splitting.
pub(crate) fn split_unquoted(s: &str, delim: char) -> impl Iterator<Item = &str> {
    split_unquoted_spans(s, delim).map(move |(start, end)| &s[start..end])
}

/// [`split_unquoted`] as the byte range of each piece in `s`.
pub(crate) fn split_unquoted_spans(
    s: &str,
    delim: char,
) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut from = Some(0);
    // Delimiters are ASCII (`,`, `|`, tab): the header parser accepts no other.
    let d = u8::try_from(delim).unwrap_or(b',');
    // Most rows quote nothing: then every delimiter splits, and one byte search finds each.
    let plain = memchr::memchr(b'"', s.as_bytes()).is_none();
    std::iter::from_fn(move || {
        let start = from?;
        let r = &s[start..];
        let next = if plain {
            memchr::memchr(d, r.as_bytes())
        } else {
            find_unquoted_byte(r, d, d)
        };
        let end = match next {
            Some(i) => {
                from = Some(start + i + delim.len_utf8());
                start + i
            }
            None => {
                from = None;
                s.len()
            }
        };
        Some(trimmed_span(s, start, end))
    })
}

/// The range `start..end` of `s` without the spaces at either end, as
/// [`trim_spaces`] cuts them.
fn trimmed_span(s: &str, start: usize, end: usize) -> (usize, usize) {
    let piece = &s.as_bytes()[start..end];
    let lead = piece.iter().position(|&c| c != b' ').unwrap_or(piece.len());
    let trail = piece
        .iter()
        .rposition(|&c| c != b' ')
        .map_or(lead, |i| i + 1);
    (start + lead, start + trail)
}

/// A row's cells in order, appended to `cells`: a quoted cell unescaped, any
/// other left a [`Scalar::Token`] for its reader to tell apart; empty content
/// is no cells (§9.5). On a token that does not read, `cells` is
/// left as it was and the token is returned with its error.
pub(crate) fn read_cells<'a>(
    content: &'a str,
    delim: char,
    cells: &mut Vec<Scalar<'a>>,
) -> Result<(), ((usize, usize), LexError)> {
    let b = content.as_bytes();
    // Looked for a quote only in a short row: a longer one is searched anyway.
    if delim.is_ascii() && b.len() <= 64 && memchr::memchr(b'"', b).is_none() {
        let d = delim as u8;
        // A short row that quotes nothing (most rows of short cells): every
        // delimiter splits and every token reads, so one plain pass over its
        // bytes finds the cells; a search per cell costs more on cells this
        // short. Longer rows take the search.
        if b.is_empty() {
            return Ok(());
        }
        let mut rest = content;
        while let Some(i) = rest.as_bytes().iter().position(|&c| c == d) {
            cells.push(Scalar::Token(trim_spaces(&rest[..i])));
            rest = &rest[i + 1..];
        }
        cells.push(Scalar::Token(trim_spaces(rest)));
        return Ok(());
    }
    let start = cells.len();
    let spans = split_unquoted_spans(content, delim).take_while(|_| !content.is_empty());
    for (from, to) in spans {
        let cell = &content[from..to];
        let read = if cell.starts_with('"') {
            parse_value_token(cell)
        } else {
            Ok(Scalar::Token(cell))
        };
        match read {
            Ok(value) => cells.push(value),
            Err(e) => {
                cells.truncate(start);
                return Err(((from, to), e));
            }
        }
    }
    Ok(())
}

/// Reads a quoted token that must span all of `token` (the §7.4 quoted-token boundary).
pub(crate) fn parse_quoted(token: &str) -> Result<String, LexError> {
    let (value, end) = parse_quoted_prefix(token)?;
    if end != token.len() {
        return Err(LexError::new(
            DecodeErrorKind::TextAfterQuote,
            end,
            format!(
                "text `{}` follows the closing quote; put it inside the quotes or remove it",
                clip(&token[end..])
            ),
        ));
    }
    Ok(value)
}

/// Reads the quoted string at the start of `s` (which starts with `"`), returning
/// the unescaped text and the byte index just past the closing quote.
pub(crate) fn parse_quoted_prefix(s: &str) -> Result<(String, usize), LexError> {
    debug_assert!(s.starts_with('"'));
    let mut out = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((out, i + 1)),
            '\\' => {
                let Some((_, e)) = chars.next() else {
                    break;
                };
                match e {
                    '\\' => out.push('\\'),
                    '"' => out.push('"'),
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    'u' => {
                        let hex: String = s[i + 2..].chars().take(4).collect();
                        let code = (hex.len() == 4 && hex.chars().all(|h| h.is_ascii_hexdigit()))
                            .then(|| u32::from_str_radix(&hex, 16).ok())
                            .flatten()
                            .ok_or_else(|| {
                                LexError::new(
                                    DecodeErrorKind::InvalidEscape,
                                    i,
                                    "`\\u` must be followed by exactly four hex digits",
                                )
                            })?;
                        let ch = char::from_u32(code).ok_or_else(|| {
                            LexError::new(
                                DecodeErrorKind::InvalidEscape,
                                i,
                                format!(
                                    "`\\u{hex}` is a lone surrogate, which is not text; write the character itself as UTF-8"
                                ),
                            )
                        })?;
                        out.push(ch);
                        for _ in 0..4 {
                            chars.next();
                        }
                    }
                    other => {
                        return Err(LexError::new(
                            DecodeErrorKind::InvalidEscape,
                            i,
                            format!(
                                "`\\{}` is not a TOON escape; the escapes are \\\\ \\\" \\n \\r \\t and \\uXXXX",
                                other.escape_debug()
                            ),
                        ))
                    }
                }
            }
            c if (c as u32) < 0x20 && c != '\t' => {
                return Err(LexError::new(
                    DecodeErrorKind::InvalidEscape,
                    i,
                    format!(
                        "raw control character U+{:04X} inside quotes; write it as an escape",
                        c as u32
                    ),
                ))
            }
            c => out.push(c),
        }
    }
    Err(LexError::new(
        DecodeErrorKind::UnterminatedString,
        0,
        "string has no closing quote before the end of the line",
    ))
}

/// Types one value token (§4): quoted string, `true`/`false`/`null`, number, or string.
pub(crate) fn parse_value_token(token: &str) -> Result<Scalar<'_>, LexError> {
    if token.starts_with('"') {
        return parse_quoted(token).map(Scalar::String);
    }
    Ok(value_token(token))
}

/// An unquoted value token as a typed reader takes it: told apart, except a
/// number written otherwise than as a plain integer (`3.2`, `1e3`), which
/// stays a [`Token`](Scalar::Token): its value is the number's, and its
/// spelling, which no number keeps (`3.20` is `3.2`), is the text a text
/// field reads. A plain integer's spelling is its value's.
pub(crate) fn value_token(token: &str) -> Scalar<'_> {
    match unquoted_token(token) {
        Scalar::Number(n) if !(n.is_i64() || n.is_u64()) => Scalar::Token(token),
        other => other,
    }
}

/// A token that is not quoted: a keyword, a number, or text; it always reads.
pub(crate) fn unquoted_token(token: &str) -> Scalar<'_> {
    match token {
        "true" => Scalar::Bool(true),
        "false" => Scalar::Bool(false),
        "null" => Scalar::Null,
        // Only a token starting with a digit or `-` can be a number (§4).
        _ => match token.as_bytes().first() {
            Some(b'0'..=b'9' | b'-') => {
                parse_number(token).map_or_else(|| Scalar::Text(token), Scalar::Number)
            }
            _ => Scalar::Text(token),
        },
    }
}

/// Decodes a token that matches §4's number grammar, or `None` if it does not.
///
/// Integers written as plain digits that fit `i64`/`u64` are exact integers
/// (so an integer is only ever the canonical spelling of its token); every
/// other number (`1.0`, `1e3`, `-0`) is the nearest `f64`, which a reader of
/// the JSON model folds to the integer it is ([`folded`]) while a text field
/// can tell it was not written as one. A token whose magnitude overflows or
/// underflows `f64` stays a string, losslessly (the documented out-of-range
/// policy).
pub(crate) fn parse_number(token: &str) -> Option<Number> {
    if let Some(i) = small_integer(token) {
        return Some(i.into());
    }
    let shape = number_shape(token, false)?;
    if shape.leading_zero {
        return None;
    }
    if !shape.fraction && !shape.exponent && token != "-0" {
        if let Ok(i) = token.parse::<i64>() {
            return Some(i.into());
        }
        if let Ok(u) = token.parse::<u64>() {
            return Some(u.into());
        }
    }
    let f: f64 = token.parse().ok()?;
    if !f.is_finite() {
        return None;
    }
    if f == 0.0 {
        let mantissa = token.split(['e', 'E']).next().unwrap_or(token);
        if mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
            return None; // underflow: keep the text rather than invent a zero
        }
    }
    Number::from_f64(f)
}

/// 2^53: below it every integer is an `f64`, and two integers are never one.
const EXACT_F64: f64 = 9_007_199_254_740_992.0;

/// A number of the JSON model: an integral float (`1.0`, `1e3`, `-0`) folded to
/// the integer it is, as §4 compares them.
pub(crate) fn folded(n: Number) -> Number {
    match n.as_f64() {
        Some(f) if n.is_f64() => float_number(f).unwrap_or(n),
        _ => n,
    }
}

/// A whole number's value, written as an integer or as an integral float
/// (`3.0` is 3); `None` for a fraction or a float from 2^53 on, whose `f64`
/// may be another number rounded (`123456789012345678.0` reads as ...680,
/// `999999999999999999.9` as `1e18`): such a number is read only in digits.
pub(crate) fn whole(n: &Number) -> Option<i128> {
    if let Some(i) = n.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Some(i128::from(u));
    }
    let f = n.as_f64()?;
    #[allow(clippy::cast_possible_truncation)]
    (f.fract() == 0.0 && f.abs() < EXACT_F64).then_some(f as i128)
}

/// The common number of a reply, an integer of at most 18 digits with no
/// leading zero, read in the one scan that checks it; `None` for anything else,
/// which [`parse_number`] reads the long way.
#[inline]
fn small_integer(token: &str) -> Option<i64> {
    let b = token.as_bytes();
    let (negative, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        _ => (false, b),
    };
    // `-0` is the float negative zero, not the integer 0 it folds to.
    if digits.is_empty()
        || digits.len() > 18
        || (digits.len() > 1 && digits[0] == b'0')
        || (negative && digits == b"0")
    {
        return None;
    }
    let mut v: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v * 10 + i64::from(d - b'0');
    }
    Some(if negative { -v } else { v })
}

/// A float as a JSON number, integral values within `i64` folded to integers;
/// `None` for NaN and the infinities.
fn float_number(f: f64) -> Option<Number> {
    if f.fract() == 0.0 && f.abs() < 9.2e18 {
        return Some((f as i64).into());
    }
    Number::from_f64(f)
}

/// A float as a JSON value: [`float_number`], or null where JSON has no number.
pub(crate) fn float_value(f: f64) -> Value {
    float_number(f).map_or(Value::Null, Value::Number)
}

pub(crate) struct NumberShape {
    pub fraction: bool,
    pub exponent: bool,
    pub leading_zero: bool,
}

/// Matches `/^[+-]?[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?$/i` (the sign `+` only when
/// `allow_plus`: the decoder refuses it, the encoder's quoting rule includes it).
pub(crate) fn number_shape(token: &str, allow_plus: bool) -> Option<NumberShape> {
    let b = token.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || (allow_plus && b[i] == b'+')) {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i == int_start {
        return None;
    }
    let leading_zero = i - int_start > 1 && b[int_start] == b'0';
    let mut fraction = false;
    if i < b.len() && b[i] == b'.' {
        let s = i + 1;
        i = s;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == s {
            return None;
        }
        fraction = true;
    }
    let mut exponent = false;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == s {
            return None;
        }
        exponent = true;
    }
    (i == b.len()).then_some(NumberShape {
        fraction,
        exponent,
        leading_zero,
    })
}

/// The first 40 characters of `s`, for messages.
pub(crate) fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if s.chars().nth(40).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unquoted_bytes_give_each_quoted_run_as_its_quote() {
        let seen = |s: &str| -> String {
            unquoted_bytes(s)
                .map(|(i, b)| {
                    assert_eq!(s.as_bytes()[i], b);
                    char::from(b)
                })
                .collect()
        };
        assert_eq!(seen(r#"{"a": "}", b: [1]}"#), r#"{": ", b: [1]}"#);
        assert_eq!(seen(r#"x "a\"b" y"#), r#"x " y"#);
        assert_eq!(seen(r#"[ "never closed ] ]"#), r#"[ ""#);
        assert_eq!(seen(""), "");
    }

    /// The quote rule stated plainly, character by character: the oracle the
    /// byte-level searches are checked against.
    fn reference(s: &str, pred: impl Fn(char) -> bool) -> Option<usize> {
        let (mut in_quotes, mut escaped) = (false, false);
        for (i, c) in s.char_indices() {
            if in_quotes {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    in_quotes = false;
                }
            } else if c == '"' {
                in_quotes = true;
            } else if pred(c) {
                return Some(i);
            }
        }
        None
    }

    #[test]
    fn byte_searches_agree_with_the_quote_rule() {
        // Every string of up to 6 characters over the characters that matter.
        let alphabet = ['a', ',', '"', '\\', ':', 'é'];
        let mut strings = vec![String::new()];
        for _ in 0..6 {
            let longer: Vec<String> = strings
                .iter()
                .filter(|s| s.chars().count() == strings.last().unwrap().chars().count())
                .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
                .collect();
            strings.extend(longer);
        }
        assert_eq!(strings.len(), (0..=6).map(|n| 6usize.pow(n)).sum::<usize>());
        for s in &strings {
            let comma = reference(s, |c| c == ',');
            let either = reference(s, |c| c == ':' || c == ',');
            assert_eq!(find_unquoted(s, |c| c == ','), comma, "{s:?}");
            assert_eq!(find_unquoted_byte(s, b',', b','), comma, "{s:?}");
            assert_eq!(find_unquoted(s, |c| c == ':' || c == ','), either, "{s:?}");
            assert_eq!(find_unquoted_byte(s, b':', b','), either, "{s:?}");
            // A row: no unquoted colon before the first unquoted delimiter.
            let row = !matches!(either, Some(i) if s.as_bytes()[i] == b':');
            assert_eq!(is_row(s, ','), row, "{s:?}");
        }
    }

    #[test]
    fn splits_only_outside_quotes() {
        assert_eq!(
            split_unquoted(r#"a, "b,c" ,"d\",e""#, ',').collect::<Vec<_>>(),
            vec!["a", r#""b,c""#, r#""d\",e""#]
        );
        assert_eq!(split_unquoted("", ',').collect::<Vec<_>>(), vec![""]);
        assert_eq!(
            split_unquoted("a||b", '|').collect::<Vec<_>>(),
            vec!["a", "", "b"]
        );
    }

    /// The one-scan integer reads exactly what the number grammar reads, and
    /// leaves everything else to it.
    #[test]
    fn small_integers_agree_with_the_number_grammar() {
        for token in [
            "0",
            "-0",
            "7",
            "-12",
            "255",
            "007",
            "-01",
            "123456789012345678",
            "-123456789012345678",
            "1234567890123456789",
            "9223372036854775808",
            "1.0",
            "1e3",
            "-",
            "",
            "12a",
            "+1",
            "1_0",
        ] {
            // `-0` is a float (negative zero) both ways.
            let long_way = number_shape(token, false)
                .filter(|s| !s.leading_zero && !s.fraction && !s.exponent && token != "-0")
                .and_then(|_| token.parse::<i64>().ok());
            let fast = small_integer(token);
            if let Some(i) = fast {
                assert_eq!(Some(i), long_way, "{token}");
            }
            // The fast path only takes what fits 18 digits; the long way reads the rest.
            if token.trim_start_matches('-').len() <= 18 {
                assert_eq!(fast, long_way, "{token}");
            }
        }
    }

    #[test]
    fn types_tokens() {
        assert_eq!(Value::from(parse_value_token("42").unwrap()), json!(42));
        assert_eq!(
            Value::from(parse_value_token("-1E+03").unwrap()),
            json!(-1000)
        );
        assert_eq!(
            Value::from(parse_value_token("1.5000").unwrap()),
            json!(1.5)
        );
        assert_eq!(Value::from(parse_value_token("-0").unwrap()), json!(0));
        assert_eq!(Value::from(parse_value_token("05").unwrap()), json!("05"));
        assert_eq!(Value::from(parse_value_token("0.5").unwrap()), json!(0.5));
        assert_eq!(Value::from(parse_value_token("+5").unwrap()), json!("+5"));
        assert_eq!(
            Value::from(parse_value_token("1e400").unwrap()),
            json!("1e400")
        );
        assert_eq!(
            Value::from(parse_value_token("1e-400").unwrap()),
            json!("1e-400")
        );
        assert_eq!(Value::from(parse_value_token("0e5").unwrap()), json!(0));
        assert_eq!(
            Value::from(parse_value_token("18446744073709551615").unwrap()),
            json!(18446744073709551615u64)
        );
        assert_eq!(
            Value::from(parse_value_token("\"true\"").unwrap()),
            json!("true")
        );
        assert_eq!(Value::from(parse_value_token("null").unwrap()), json!(null));
    }

    #[test]
    fn escapes() {
        assert_eq!(parse_quoted(r#""a\u00e9\n\t\\""#).unwrap(), "aé\n\t\\");
        let e = parse_quoted(r#""\uD800""#).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::InvalidEscape);
        assert!(e.message.contains("lone surrogate"));
        assert_eq!(
            parse_quoted(r#""\x""#).unwrap_err().kind,
            DecodeErrorKind::InvalidEscape
        );
        assert_eq!(
            parse_quoted(r#""\u12""#).unwrap_err().kind,
            DecodeErrorKind::InvalidEscape
        );
        assert_eq!(
            parse_quoted(r#""abc"#).unwrap_err().kind,
            DecodeErrorKind::UnterminatedString
        );
        let e = parse_quoted(r#""abc"x"#).unwrap_err();
        assert_eq!((e.kind, e.offset), (DecodeErrorKind::TextAfterQuote, 5));
    }
}

/// A primitive: `Value` without its object and array variants, so a table cell
/// takes 24 bytes rather than 72 (a 10,000-row table is 50,000 cells).
#[doc(hidden)]
#[derive(Debug, Clone, Default)]
pub enum Scalar<'t> {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    /// Unquoted text, borrowed from the reply: a type that only compares it
    /// (an enum) never copies it, and one that keeps it copies it once.
    Text(&'t str),
    /// A quoted string unescaped, or a string from a JSON reply.
    String(String),
    /// An unquoted table cell not yet told apart (a keyword, a number or
    /// text): a typed reader reads it as its field's type wants
    /// (the `from_token` of its type's `Toon::__TOON`), anything else tells it apart
    /// first ([`Scalar::classified`]). Only the cells of a table row are
    /// left so.
    Token(&'t str),
}

impl From<Scalar<'_>> for Value {
    fn from(scalar: Scalar<'_>) -> Self {
        match scalar.classified() {
            Scalar::Null => Value::Null,
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Number(n) => Value::Number(folded(n)),
            Scalar::Text(s) => Value::String(s.to_owned()),
            Scalar::String(s) => Value::String(s),
            Scalar::Token(_) => unreachable!("a classified scalar is no token"),
        }
    }
}

impl<'t> Scalar<'t> {
    /// The scalar told apart: a [`Token`](Scalar::Token) read as the value
    /// token it is, as [`read_cells`] would have read it; anything else as it is.
    #[inline]
    pub(crate) fn classified(self) -> Scalar<'t> {
        match self {
            Scalar::Token(token) => unquoted_token(token),
            other => other,
        }
    }

    /// The scalar told apart as a typed reader takes it: a number whose
    /// spelling its value does not keep stays a token ([`value_token`]).
    #[inline]
    pub(crate) fn for_reading(self) -> Scalar<'t> {
        match self {
            Scalar::Token(token) => value_token(token),
            other => other,
        }
    }

    /// The text, if the scalar is one.
    #[inline]
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Scalar::Text(s) => Some(s),
            Scalar::String(s) => Some(s),
            Scalar::Token(t) => matches!(unquoted_token(t), Scalar::Text(_)).then_some(*t),
            _ => None,
        }
    }

    /// The scalar with its text owned, no longer borrowing the reply.
    pub(crate) fn into_owned<'b>(self) -> Scalar<'b> {
        match self.classified() {
            Scalar::Null => Scalar::Null,
            Scalar::Bool(b) => Scalar::Bool(b),
            Scalar::Number(n) => Scalar::Number(n),
            Scalar::Text(s) => Scalar::String(s.to_owned()),
            Scalar::String(s) => Scalar::String(s),
            Scalar::Token(_) => unreachable!("a classified scalar is no token"),
        }
    }

    /// A few words on what the value is, for messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            Scalar::Null => "null".into(),
            Scalar::Bool(b) => format!("the boolean {b}"),
            Scalar::Number(n) => format!("the number {n}"),
            Scalar::Text(_) | Scalar::String(_) => {
                format!("the text `{}`", clip(self.as_str().unwrap_or_default()))
            }
            Scalar::Token(t) => unquoted_token(t).describe(),
        }
    }
}
