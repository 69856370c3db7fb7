//! The JSON a model writes when asked for JSON without a server's grammar,
//! mended where the mistake has one reading: trailing commas, `//` and `/* */`
//! comments, Python's `True`/`False`/`None`, single-quoted strings and keys,
//! unquoted keys, and raw line breaks inside strings. One pass over the text,
//! up to the end of the first JSON value; every other byte is copied as it is,
//! so every value survives byte for byte. What would need a guess (an unclosed
//! structure, a missing comma, a stray word) is left for serde_json to refuse.

use super::json_scan::{Scan, Tok};
use super::RepairKind;

/// The mended text, and what was mended where.
pub(crate) struct Mended {
    pub text: String,
    /// Each fix, with its byte offset in the original text.
    pub fixes: Vec<(RepairKind, usize, &'static str)>,
    /// Offsets in the mended text at which a line break of the reply is gone
    /// (escaped inside a string, or in a comment taken out): each moves the
    /// mended text's later lines up by one.
    lost_breaks: Vec<usize>,
}

impl Mended {
    /// The line of the original text that line `line` of the mended text, at
    /// `column`, came from.
    pub fn original_line(&self, line: usize, column: usize) -> usize {
        let offset: usize = self
            .text
            .split_inclusive('\n')
            .take(line.saturating_sub(1))
            .map(str::len)
            .sum::<usize>()
            + column.saturating_sub(1);
        line + self.lost_breaks.iter().filter(|&&b| b <= offset).count()
    }
}

/// Where a bare word stands.
#[derive(Clone, Copy, PartialEq)]
enum Container {
    /// In an object; `true` where a key comes next.
    Object(bool),
    Array,
}

/// The text mended, or `None` where nothing needed mending or a quote or
/// comment that would need mending is never closed.
pub(crate) fn mend(text: &str) -> Option<Mended> {
    let mut out = Mended {
        text: String::with_capacity(text.len() + 16),
        fixes: Vec::new(),
        lost_breaks: Vec::new(),
    };
    let mut stack: Vec<Container> = Vec::new();
    let mut copied = 0; // bytes of `text` before this are in `out.text`
                        // The last piece that is not a comment: a comma after nothing stays.
    let mut last = None;
    let mut scan = Scan::lenient(text);
    let mut whole = false;
    while let Some((at, tok)) = scan.next() {
        // What stands in place of this piece, from `at` to `scan.offset()`.
        let mut replace = |out: &mut Mended, with: &str| {
            out.text.push_str(&text[copied..at]);
            out.text.push_str(with);
            copied = scan.offset();
        };
        match tok {
            Tok::Single(raw) => {
                out.fixes
                    .push((RepairKind::SingleQuotes, at, "single-quoted string"));
                replace(&mut out, "");
                string(raw, at + 1, true, &mut out);
            }
            Tok::Str(raw) if raw.contains(['\n', '\r']) => {
                replace(&mut out, "");
                string(raw, at + 1, false, &mut out);
            }
            Tok::Comment(raw) => {
                if raw.starts_with("/*") && (raw.len() < 4 || !raw.ends_with("*/")) {
                    return None;
                }
                out.fixes.push((RepairKind::StrippedComment, at, "comment"));
                replace(&mut out, "");
                let at = out.text.len();
                let breaks = memchr::memchr_iter(b'\n', raw.as_bytes()).count();
                out.lost_breaks.resize(out.lost_breaks.len() + breaks, at);
                continue;
            }
            Tok::Comma => {
                // Only a comma after a value: in `[,]` it follows nothing, and
                // dropping it would read the model's list as an empty one.
                let after_value = !matches!(last, None | Some(Tok::Open(_) | Tok::Comma));
                if after_value && matches!(next(&scan), Some(Tok::Close(_))) {
                    out.fixes.push((
                        RepairKind::TrailingComma,
                        at,
                        "comma before a closing bracket",
                    ));
                    replace(&mut out, "");
                }
                if let Some(Container::Object(key_next)) = stack.last_mut() {
                    *key_next = true;
                }
            }
            Tok::Open(b'{') => stack.push(Container::Object(true)),
            Tok::Open(_) => stack.push(Container::Array),
            Tok::Close(_) => {
                stack.pop();
                if stack.is_empty() {
                    whole = true;
                    break; // the first value is whole: what follows is not ours to mend
                }
            }
            Tok::Colon => {
                if let Some(Container::Object(key_next)) = stack.last_mut() {
                    *key_next = false;
                }
            }
            Tok::Word(word) if bare(word) => {
                let at_key = stack.last() == Some(&Container::Object(true))
                    && next(&scan) == Some(Tok::Colon);
                if at_key {
                    out.fixes.push((RepairKind::QuotedKey, at, "unquoted key"));
                    replace(&mut out, &format!("\"{word}\""));
                } else if let Some(literal) = python_literal(word) {
                    out.fixes
                        .push((RepairKind::PythonLiteral, at, "Python literal"));
                    replace(&mut out, literal);
                }
            }
            Tok::Str(_) | Tok::Word(_) => {}
        }
        last = Some(tok);
    }
    if out.fixes.is_empty() || (!whole && scan.in_string()) {
        return None;
    }
    out.text.push_str(&text[copied..]);
    Some(out)
}

/// What comes next, past comments.
fn next<'t>(scan: &Scan<'t>) -> Option<Tok<'t>> {
    scan.clone()
        .map(|(_, tok)| tok)
        .find(|tok| !matches!(tok, Tok::Comment(_)))
}

/// A word that may be a key or a Python literal: a letter, `_` or `$`, then
/// those or digits.
fn bare(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

fn python_literal(word: &str) -> Option<&'static str> {
    match word {
        "True" => Some("true"),
        "False" => Some("false"),
        "None" => Some("null"),
        _ => None,
    }
}

/// Writes a string's raw text `raw` (at offset `from` of the reply) into
/// `out` as a JSON string's, in double quotes: raw line breaks escaped; from
/// a `single`-quoted one, `\'` as `'` and `"` as `\"`, every other escape
/// as written.
fn string(raw: &str, from: usize, single: bool, out: &mut Mended) {
    let bytes = raw.as_bytes();
    out.text.push('"');
    let (mut copied, mut i) = (0, 0);
    while i < bytes.len() {
        let (with, len) = match bytes[i] {
            b'\\' if single && bytes.get(i + 1) == Some(&b'\'') => ("'", 2),
            b'\\' => {
                i += 2;
                continue;
            }
            b'"' => ("\\\"", 1),
            b'\n' => ("\\n", 1),
            b'\r' => ("\\r", 1),
            _ => {
                i += 1;
                continue;
            }
        };
        out.text.push_str(&raw[copied..i]);
        if matches!(bytes[i], b'\n' | b'\r') {
            if bytes[i] == b'\n' {
                // The escape's own two bytes are on the line before the break.
                out.lost_breaks.push(out.text.len() + 2);
            }
            out.fixes.push((
                RepairKind::EscapedLineBreak,
                from + i,
                "line break inside a string",
            ));
        }
        out.text.push_str(with);
        i += len;
        copied = i;
    }
    out.text.push_str(&raw[copied..]);
    out.text.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mended(text: &str) -> String {
        mend(text).map_or_else(|| "(none)".to_owned(), |m| m.text)
    }

    #[test]
    fn each_mistake_is_mended_and_nothing_else_changes() {
        assert_eq!(
            mended(r#"{"a": 1, "b": [1, 2,],}"#),
            r#"{"a": 1, "b": [1, 2]}"#
        );
        assert_eq!(
            mended("{\"a\": 1, // the count\n \"b\": /* none */ null}"),
            "{\"a\": 1, \n \"b\":  null}"
        );
        assert_eq!(
            mended(r#"{"a": True, "b": [False, None]}"#),
            r#"{"a": true, "b": [false, null]}"#
        );
        assert_eq!(
            mended(r#"{'a': 'it\'s "x"', "b": 'c'}"#),
            r#"{"a": "it's \"x\"", "b": "c"}"#
        );
        assert_eq!(
            mended("{a: 1, b_2: {c$: 2}}"),
            r#"{"a": 1, "b_2": {"c$": 2}}"#
        );
        assert_eq!(mended("{\"a\": \"x\ny\"}"), "{\"a\": \"x\\ny\"}");
        // Text in strings is never read as a mistake.
        assert_eq!(mended(r#"{"a": "True, // x, 'y'", "b": 1}"#), "(none)");
    }

    #[test]
    fn what_needs_a_guess_is_left_alone() {
        // A stray word, a word as a value, an unclosed quote or comment.
        assert_eq!(mended(r#"{"a": yes}"#), "(none)");
        assert_eq!(mended("{'a': 'cut off"), "(none)");
        assert_eq!(mended("{\"a\": 1 /* never closed"), "(none)");
        // A word is mended whole or not at all, and `//` right after a colon
        // is a URL's, not a comment taking the rest of the line with it.
        assert_eq!(mended(r#"{"a": True-ish}"#), "(none)");
        assert_eq!(mended("{\"a\":// note\n 1}"), "{\"a\":\n 1}");
        assert_eq!(mended("{\"a\":/* none */ null}"), "{\"a\": null}");
        assert_eq!(
            mended(r#"{"u": http://x.org, "b": 1,}"#),
            r#"{"u": http://x.org, "b": 1}"#
        );
        // Prose after the first value is not mended (its apostrophe is no quote).
        assert_eq!(
            mended("{\"a\": 1,}\nThat's it, True."),
            "{\"a\": 1}\nThat's it, True."
        );
    }

    #[test]
    fn lines_of_the_mended_text_map_back() {
        let m = mend("{\"a\": \"x\ny\nz\",\n\"b\": tru}").unwrap();
        assert_eq!(m.text.lines().count(), 2);
        // `tru` is on line 2 of the mended text, line 4 of the reply.
        assert_eq!(m.original_line(2, 6), 4);
        assert_eq!(m.original_line(1, 1), 1);
    }
}
