//! The one scanner of JSON text the reply's JSON readers share: the depth
//! limit, the cut detection, the empty-object search and the keys of an
//! object (a key written twice found among them) each read a value through
//! it. It gives what stands outside strings and comments, each string's raw
//! text, and whether the text ends inside a string. (The mend rewrites text a
//! scanner only reads, and the path locator walks one path down; each keeps
//! its own reading.)

use std::collections::HashSet;

/// One piece of JSON text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Tok<'t> {
    /// `{` or `[`.
    Open(u8),
    /// `}` or `]`.
    Close(u8),
    /// A string's raw text between its quotes, escapes as written.
    Str(&'t str),
    Colon,
    Comma,
    /// Any other byte outside strings and comments but white space (of a
    /// number, a keyword, or a stray word).
    Other(u8),
}

/// The pieces of JSON text, each with its offset. A string runs from `"` to
/// the next `"` no backslash escapes; a `//` comment (but right after a
/// colon, as in `http://`) runs to its line's end, a `/* */` one to its
/// close, and either to the end of the text where it never ends.
pub(crate) struct Scan<'t> {
    text: &'t str,
    at: usize,
    previous: u8,
    in_string: bool,
}

impl<'t> Scan<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        Scan {
            text,
            at: 0,
            previous: b' ',
            in_string: false,
        }
    }

    /// Whether the text ended inside a string that never closed.
    pub(crate) fn in_string(&self) -> bool {
        self.in_string
    }
}

impl<'t> Iterator for Scan<'t> {
    type Item = (usize, Tok<'t>);

    fn next(&mut self) -> Option<(usize, Tok<'t>)> {
        let b = self.text.as_bytes();
        loop {
            let (at, c) = (self.at, *b.get(self.at)?);
            self.at += 1;
            let tok = match c {
                b'"' => {
                    let Some(end) = closing_quote(b, at + 1) else {
                        self.in_string = true;
                        self.at = b.len();
                        return None;
                    };
                    self.at = end + 1;
                    Tok::Str(&self.text[at + 1..end])
                }
                b'/' if self.previous != b':' && matches!(b.get(at + 1), Some(b'/' | b'*')) => {
                    let end = if b[at + 1] == b'/' {
                        memchr::memchr(b'\n', &b[at..]).map(|n| at + n + 1)
                    } else {
                        memchr::memmem::find(&b[at + 2..], b"*/").map(|n| at + 2 + n + 2)
                    };
                    self.at = end.unwrap_or(b.len());
                    self.previous = b' ';
                    continue;
                }
                b'{' | b'[' => Tok::Open(c),
                b'}' | b']' => Tok::Close(c),
                b':' => Tok::Colon,
                b',' => Tok::Comma,
                c if c.is_ascii_whitespace() => {
                    self.previous = c;
                    continue;
                }
                c => Tok::Other(c),
            };
            self.previous = c;
            return Some((at, tok));
        }
    }
}

/// The index of the quote that closes a string whose text starts at `from`.
fn closing_quote(b: &[u8], mut from: usize) -> Option<usize> {
    while let Some(n) = memchr::memchr2(b'"', b'\\', b.get(from..)?) {
        let p = from + n;
        if b[p] == b'"' {
            return Some(p);
        }
        from = p + 2; // a backslash escapes the next character
    }
    None
}

/// A key written twice in one object.
#[derive(Debug)]
pub(crate) struct Twice {
    pub key: String,
    /// The offset of the second.
    pub at: usize,
}

/// The keys of the JSON value `json` if it is an object (empty for any other
/// value), where no object in it writes a key twice.
pub(crate) fn keys(json: &str) -> Result<HashSet<String>, Twice> {
    // Each open object's keys and whether a key comes next; `None` for an array.
    let mut open: Vec<Option<(HashSet<String>, bool)>> = Vec::new();
    let mut root = HashSet::new();
    for (at, tok) in Scan::new(json) {
        match tok {
            Tok::Open(b'{') => open.push(Some((HashSet::new(), true))),
            Tok::Open(_) => open.push(None),
            Tok::Close(_) => {
                if let (Some(Some((keys, _))), true) = (open.pop(), open.is_empty()) {
                    root = keys;
                }
            }
            Tok::Comma => {
                if let Some(Some((_, key_next))) = open.last_mut() {
                    *key_next = true;
                }
            }
            Tok::Str(raw) => {
                let Some(Some((keys, key_next @ true))) = open.last_mut() else {
                    continue;
                };
                *key_next = false;
                let key = if raw.contains('\\') {
                    serde_json::from_str(&format!("\"{raw}\"")).unwrap_or_else(|_| raw.to_owned())
                } else {
                    raw.to_owned()
                };
                if !keys.insert(key.clone()) {
                    return Err(Twice { key, at });
                }
            }
            _ => {}
        }
    }
    Ok(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_comments_hide_what_they_hold() {
        let text = "{\"a\\\"}\": [1, // x]\n 2] /* } */, \"u\": \"http://x\"}";
        let toks: Vec<Tok<'_>> = Scan::new(text).map(|(_, t)| t).collect();
        assert_eq!(
            toks,
            [
                Tok::Open(b'{'),
                Tok::Str("a\\\"}"),
                Tok::Colon,
                Tok::Open(b'['),
                Tok::Other(b'1'),
                Tok::Comma,
                Tok::Other(b'2'),
                Tok::Close(b']'),
                Tok::Comma,
                Tok::Str("u"),
                Tok::Colon,
                Tok::Str("http://x"),
                Tok::Close(b'}'),
            ]
        );
        let mut open = Scan::new("{\"a\": \"cut");
        assert_eq!(open.by_ref().count(), 3);
        assert!(open.in_string());
    }

    #[test]
    fn a_key_twice_in_any_object_is_found() {
        let keys = keys("{\"b\": {\"c\": 1, \"d\": [{\"c\": 2}]}, \"a\": \"b\"}").unwrap();
        assert_eq!(keys, HashSet::from(["a".to_owned(), "b".to_owned()]));
        let twice = super::keys("{\"x\": [{\"k\": 1, \"k\": 2}]}").unwrap_err();
        assert_eq!((twice.key.as_str(), twice.at), ("k", 16));
        // Escaped, the same key.
        assert_eq!(
            super::keys("{\"k\": 1, \"\\u006b\": 2}").unwrap_err().key,
            "k"
        );
        assert!(super::keys("[1, 2]").unwrap().is_empty());
    }
}
