//! The one scanner of JSON text the reply's JSON readers share: the depth
//! limit, the cut detection, the keys of an object (a key written twice found
//! among them), the mend and the path locator each read a value through it.
//! It gives what stands outside strings, each string's raw text, words and
//! comments, and whether the text ends inside a string.

use std::borrow::Cow;
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
    /// The same between single quotes, read so only by [`Scan::lenient`].
    Single(&'t str),
    Colon,
    Comma,
    /// A run of any other bytes but white space: a number, a keyword, a bare
    /// key or a stray word.
    Word(&'t str),
    /// A comment, as written: `//` to its line's end (not its line break),
    /// `/*` to its `*/` or to the end of the text.
    Comment(&'t str),
}

/// The pieces of JSON text, each with its offset. A string runs from `"` to
/// the next `"` no backslash escapes; a `//` comment (but right after a
/// colon and followed by no space, as in `http://`) runs to its line's end, a
/// `/* */` one to its close, and either to the end of the text where it never
/// ends.
#[derive(Clone)]
pub(crate) struct Scan<'t> {
    text: &'t str,
    at: usize,
    previous: u8,
    in_string: bool,
    single_quotes: bool,
}

impl<'t> Scan<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        Scan {
            text,
            at: 0,
            previous: b' ',
            in_string: false,
            single_quotes: false,
        }
    }

    /// A scan of `text` from byte `at` on.
    pub(crate) fn at(text: &'t str, at: usize) -> Self {
        Scan {
            at,
            ..Scan::new(text)
        }
    }

    /// A scan that reads `'...'` as a string too, as the mend does: elsewhere
    /// an apostrophe is prose's (`That's it.`).
    pub(crate) fn lenient(text: &'t str) -> Self {
        Scan {
            single_quotes: true,
            ..Scan::new(text)
        }
    }

    /// Whether the text ended inside a string that never closed.
    pub(crate) fn in_string(&self) -> bool {
        self.in_string
    }

    /// Where the scan stands: the offset after the last piece.
    pub(crate) fn offset(&self) -> usize {
        self.at
    }

    /// A comment starts at `at`: `/*`, or `//` but where it follows a colon
    /// and goes on with no space, as in an unquoted `http://host`.
    fn comment_at(&self, at: usize) -> bool {
        let b = self.text.as_bytes();
        match b.get(at + 1) {
            Some(b'*') => b[at] == b'/',
            Some(b'/') => {
                let url = self.previous == b':'
                    && b.get(at + 2).is_some_and(|c| !c.is_ascii_whitespace());
                b[at] == b'/' && !url
            }
            _ => false,
        }
    }
}

impl<'t> Iterator for Scan<'t> {
    type Item = (usize, Tok<'t>);

    fn next(&mut self) -> Option<(usize, Tok<'t>)> {
        let b = self.text.as_bytes();
        let (at, c) = loop {
            let c = *b.get(self.at)?;
            if !c.is_ascii_whitespace() {
                break (self.at, c);
            }
            self.previous = c;
            self.at += 1;
        };
        self.at += 1;
        let tok = match c {
            b'"' | b'\'' if c == b'"' || self.single_quotes => {
                let Some(end) = closing_quote(b, at + 1, c) else {
                    self.in_string = true;
                    self.at = b.len();
                    return None;
                };
                self.at = end + 1;
                let raw = &self.text[at + 1..end];
                if c == b'"' {
                    Tok::Str(raw)
                } else {
                    Tok::Single(raw)
                }
            }
            b'/' if self.comment_at(at) => {
                let end = if b[at + 1] == b'/' {
                    memchr::memchr(b'\n', &b[at..]).map(|n| at + n)
                } else {
                    memchr::memmem::find(&b[at + 2..], b"*/").map(|n| at + 2 + n + 2)
                };
                self.at = end.unwrap_or(b.len());
                self.previous = b' ';
                return Some((at, Tok::Comment(&self.text[at..self.at])));
            }
            b'{' | b'[' => Tok::Open(c),
            b'}' | b']' => Tok::Close(c),
            b':' => Tok::Colon,
            b',' => Tok::Comma,
            _ => {
                let quote = |c: u8| c == b'"' || (c == b'\'' && self.single_quotes);
                while let Some(&c) = b.get(self.at) {
                    let ends = c.is_ascii_whitespace()
                        || matches!(c, b'{' | b'}' | b'[' | b']' | b':' | b',')
                        || quote(c)
                        || (c == b'/' && matches!(b.get(self.at + 1), Some(b'/' | b'*')));
                    if ends {
                        break;
                    }
                    self.at += 1;
                }
                Tok::Word(&self.text[at..self.at])
            }
        };
        self.previous = b[self.at - 1];
        Some((at, tok))
    }
}

/// The index of the `quote` that closes a string whose text starts at `from`.
fn closing_quote(b: &[u8], mut from: usize, quote: u8) -> Option<usize> {
    while let Some(n) = memchr::memchr2(quote, b'\\', b.get(from..)?) {
        let p = from + n;
        if b[p] == quote {
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
    let mut open: Vec<Option<(Seen<'_>, bool)>> = Vec::new();
    let mut root = HashSet::new();
    for (at, tok) in Scan::new(json) {
        match tok {
            Tok::Open(b'{') => open.push(Some((Seen::default(), true))),
            Tok::Open(_) => open.push(None),
            Tok::Close(_) => {
                if let (Some(Some((keys, _))), true) = (open.pop(), open.is_empty()) {
                    root = keys.into_owned();
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
                    let unescaped = serde_json::from_str(&format!("\"{raw}\""));
                    Cow::Owned(unescaped.unwrap_or_else(|_| raw.to_owned()))
                } else {
                    Cow::Borrowed(raw)
                };
                if let Some(key) = keys.insert(key) {
                    return Err(Twice {
                        key: key.into_owned(),
                        at,
                    });
                }
            }
            _ => {}
        }
    }
    Ok(root)
}

/// The keys of one object so far: a list while it is short, as most are,
/// a set once it is long, so that an object of many keys costs no more than
/// a pass over them.
#[derive(Default)]
struct Seen<'t> {
    few: Vec<Cow<'t, str>>,
    many: HashSet<Cow<'t, str>>,
}

impl<'t> Seen<'t> {
    /// Adds `key`; gives it back if the object has it already.
    fn insert(&mut self, key: Cow<'t, str>) -> Option<Cow<'t, str>> {
        const FEW: usize = 16;
        if self.many.is_empty() {
            if self.few.contains(&key) {
                return Some(key);
            }
            if self.few.len() < FEW {
                self.few.push(key);
                return None;
            }
            self.many.extend(self.few.drain(..));
        }
        if self.many.contains(&key) {
            return Some(key);
        }
        self.many.insert(key);
        None
    }

    fn into_owned(self) -> HashSet<String> {
        self.few
            .into_iter()
            .chain(self.many)
            .map(Cow::into_owned)
            .collect()
    }
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
                Tok::Word("1"),
                Tok::Comma,
                Tok::Comment("// x]"),
                Tok::Word("2"),
                Tok::Close(b']'),
                Tok::Comment("/* } */"),
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
    fn words_run_to_what_ends_them_and_single_quotes_read_only_when_asked() {
        fn toks(scan: Scan<'_>) -> Vec<(usize, Tok<'_>)> {
            scan.collect()
        }
        assert_eq!(
            toks(Scan::new("[-1.5e3,True]//c\n")),
            [
                (0, Tok::Open(b'[')),
                (1, Tok::Word("-1.5e3")),
                (7, Tok::Comma),
                (8, Tok::Word("True")),
                (12, Tok::Close(b']')),
                (13, Tok::Comment("//c")),
            ]
        );
        assert_eq!(
            toks(Scan::new("{'a': 1}")),
            [
                (0, Tok::Open(b'{')),
                (1, Tok::Word("'a'")),
                (4, Tok::Colon),
                (6, Tok::Word("1")),
                (7, Tok::Close(b'}')),
            ]
        );
        assert_eq!(
            toks(Scan::lenient("{'it\\'s': 1}"))[1],
            (1, Tok::Single("it\\'s"))
        );
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
