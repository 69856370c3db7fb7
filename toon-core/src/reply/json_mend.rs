//! The JSON a model writes when asked for JSON without a server's grammar,
//! mended where the mistake has one reading: trailing commas, `//` and `/* */`
//! comments, Python's `True`/`False`/`None`, single-quoted strings and keys,
//! unquoted keys, and raw line breaks inside strings. One pass over the text,
//! up to the end of the first JSON value; every other byte is copied as it is,
//! so every value survives byte for byte. What would need a guess (an unclosed
//! structure, a missing comma, a stray word) is left for serde_json to refuse.

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
    let bytes = text.as_bytes();
    let mut out = Mended {
        text: String::with_capacity(text.len() + 16),
        fixes: Vec::new(),
        lost_breaks: Vec::new(),
    };
    let mut stack: Vec<Container> = Vec::new();
    let mut copied = 0; // bytes of `text` before this are in `out.text`
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'"' => {
                out.text.push_str(&text[copied..i]);
                i = string(text, i, b'"', &mut out)?;
                copied = i;
                continue;
            }
            b'\'' => {
                out.text.push_str(&text[copied..i]);
                out.fixes
                    .push((RepairKind::SingleQuotes, i, "single-quoted string"));
                i = string(text, i, b'\'', &mut out)?;
                copied = i;
                continue;
            }
            b'/' if matches!(bytes.get(i + 1), Some(b'/' | b'*')) => {
                out.text.push_str(&text[copied..i]);
                out.fixes.push((RepairKind::StrippedComment, i, "comment"));
                let end = comment_end(bytes, i)?;
                // A line comment's own line break stays (it ends before it).
                let breaks = memchr::memchr_iter(b'\n', &bytes[i..end]).count();
                let at = out.text.len();
                out.lost_breaks.resize(out.lost_breaks.len() + breaks, at);
                i = end;
                copied = i;
                continue;
            }
            b',' => {
                // Only a comma after a value: in `[,]` it follows nothing, and
                // dropping it would read the model's list as an empty one.
                let before = text[copied..i]
                    .trim_end()
                    .bytes()
                    .last()
                    .or_else(|| out.text.trim_end().bytes().last());
                let after_value = !matches!(before, None | Some(b'[' | b'{' | b','));
                if after_value && matches!(significant(bytes, i + 1), Some((_, b'}' | b']'))) {
                    out.text.push_str(&text[copied..i]);
                    out.fixes.push((
                        RepairKind::TrailingComma,
                        i,
                        "comma before a closing bracket",
                    ));
                    copied = i + 1;
                }
                if let Some(Container::Object(key_next)) = stack.last_mut() {
                    *key_next = true;
                }
            }
            b'{' => stack.push(Container::Object(true)),
            b'[' => stack.push(Container::Array),
            b'}' | b']' => {
                stack.pop();
                if stack.is_empty() {
                    break; // the first value is whole: what follows is not ours to mend
                }
            }
            b':' => {
                if let Some(Container::Object(key_next)) = stack.last_mut() {
                    *key_next = false;
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' => {
                let end = i + bytes[i..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_' || **b == b'$')
                    .count();
                let word = &text[i..end];
                let at_key = stack.last() == Some(&Container::Object(true))
                    && matches!(significant(bytes, end), Some((_, b':')));
                let replacement = if at_key {
                    out.fixes.push((RepairKind::QuotedKey, i, "unquoted key"));
                    Some(format!("\"{word}\""))
                } else {
                    let literal = match word {
                        "True" => Some("true"),
                        "False" => Some("false"),
                        "None" => Some("null"),
                        _ => None,
                    };
                    literal.map(|l| {
                        out.fixes
                            .push((RepairKind::PythonLiteral, i, "Python literal"));
                        l.to_owned()
                    })
                };
                if let Some(r) = replacement {
                    out.text.push_str(&text[copied..i]);
                    out.text.push_str(&r);
                    copied = end;
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if out.fixes.is_empty() {
        return None;
    }
    out.text.push_str(&text[copied..]);
    Some(out)
}

/// Copies the string opening at `start` (quoted by `quote`) into `out` as a
/// JSON string; returns the offset after its closing quote, or `None` if it
/// never closes. Raw line breaks are escaped; in a single-quoted string `\'`
/// becomes `'` and `"` becomes `\"`, and every other escape stays as written.
fn string(text: &str, start: usize, quote: u8, out: &mut Mended) -> Option<usize> {
    let bytes = text.as_bytes();
    out.text.push('"');
    let mut copied = start + 1;
    let mut i = start + 1;
    loop {
        match *bytes.get(i)? {
            b'\\' => {
                if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                    out.text.push_str(&text[copied..i]);
                    out.text.push('\'');
                    copied = i + 2;
                }
                i += 2;
            }
            b if b == quote => {
                out.text.push_str(&text[copied..i]);
                out.text.push('"');
                return Some(i + 1);
            }
            b'"' => {
                out.text.push_str(&text[copied..i]);
                out.text.push_str("\\\"");
                i += 1;
                copied = i;
            }
            b'\n' | b'\r' => {
                out.text.push_str(&text[copied..i]);
                if bytes[i] == b'\n' {
                    // The escape's own two bytes are on the line before the break.
                    out.lost_breaks.push(out.text.len() + 2);
                    out.text.push_str("\\n");
                } else {
                    out.text.push_str("\\r");
                }
                out.fixes.push((
                    RepairKind::EscapedLineBreak,
                    i,
                    "line break inside a string",
                ));
                i += 1;
                copied = i;
            }
            _ => i += 1,
        }
    }
}

/// The offset after the comment opening at `start` (`//` to the end of its
/// line, keeping the line break; `/* */` whole), or `None` if a block comment
/// never closes.
fn comment_end(bytes: &[u8], start: usize) -> Option<usize> {
    let rest = &bytes[start + 2..];
    if bytes[start + 1] == b'/' {
        return Some(start + 2 + rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len()));
    }
    rest.windows(2)
        .position(|w| w == b"*/")
        .map(|p| start + 2 + p + 2)
}

/// The next byte that is neither white space nor inside a comment, with its offset.
fn significant(bytes: &[u8], mut i: usize) -> Option<(usize, u8)> {
    loop {
        match *bytes.get(i)? {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'/' if matches!(bytes.get(i + 1), Some(b'/' | b'*')) => i = comment_end(bytes, i)?,
            b => return Some((i, b)),
        }
    }
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
