//! Array and keyed headers (§6): `key[N<delim?>]{fields}:` and `key[N:<delim?>]{fields}:`.

use crate::spec::error::DecodeErrorKind;
use crate::spec::lex::{find_unquoted, parse_quoted, parse_quoted_prefix, trim_spaces, LexError};

/// One entry of a header's field list, with its nested field group if it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Field {
    pub name: String,
    pub children: Option<Vec<Field>>,
}

impl Field {
    /// The number of cells a row spends on this field (1 for a leaf).
    pub fn leaf_count(fields: &[Field]) -> usize {
        fields
            .iter()
            .map(|f| f.children.as_deref().map_or(1, Field::leaf_count))
            .sum()
    }
}

/// A header that parsed.
#[derive(Debug, Clone)]
pub(crate) struct Header<'a> {
    /// The key before the brackets; `None` for a keyless (root or list-item) header.
    pub key: Option<String>,
    /// The declared `[N]`.
    pub length: usize,
    /// `[N:]`: an object in keyed tabular form.
    pub keyed: bool,
    pub delim: char,
    pub fields: Option<Vec<Field>>,
    /// A field name repeated within one field list: a strict-mode error, last-write-wins otherwise.
    pub duplicate_field: Option<String>,
    /// What follows the colon, spaces trimmed.
    pub rest: &'a str,
}

/// The outcome of reading a line as a header.
#[derive(Debug)]
pub(crate) enum HeaderParse<'a> {
    Header(Header<'a>),
    /// Not a header at all: no unquoted `[`, or a colon comes first.
    NotHeader,
    /// Shaped like a header but malformed: an error in strict mode; a
    /// non-strict decoder may read the line as a key-value line instead.
    Malformed(LexError),
}

fn malformed(
    kind: DecodeErrorKind,
    offset: usize,
    message: impl Into<String>,
) -> HeaderParse<'static> {
    HeaderParse::Malformed(LexError {
        kind,
        offset,
        message: message.into(),
    })
}

/// Reads `content` (a line without its indentation) as a header.
///
/// `max_depth` bounds the nesting of field groups, which would otherwise recurse
/// once per `{` in the line.
pub(crate) fn parse_header(content: &str, max_depth: usize) -> HeaderParse<'_> {
    let Some(bracket) = find_unquoted(content, |c| c == '[') else {
        return HeaderParse::NotHeader;
    };
    if find_unquoted(content, |c| c == ':').is_some_and(|colon| colon < bracket) {
        return HeaderParse::NotHeader;
    }
    let key_text = &content[..bracket];
    let key = if key_text.is_empty() {
        None
    } else if key_text.starts_with('"') {
        match parse_quoted(key_text) {
            Ok(k) => Some(k),
            Err(e) if e.kind == DecodeErrorKind::TextAfterQuote => {
                return malformed(
                    DecodeErrorKind::InvalidHeader,
                    e.offset,
                    "nothing may stand between a key and its `[`; remove the space",
                )
            }
            Err(e) => return HeaderParse::Malformed(e),
        }
    } else if let Some(ws) = key_text.find([' ', '\t']) {
        return malformed(
            DecodeErrorKind::InvalidHeader,
            ws,
            format!(
                "whitespace in `{}` before `[`; write the key and its `[N]` together, or quote a key that contains spaces",
                crate::spec::lex::clip(key_text)
            ),
        );
    } else {
        Some(key_text.to_owned())
    };

    // [N], [N:], [N|], [N:\t] ...
    let b = content.as_bytes();
    let mut i = bracket + 1;
    let len_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let digits = &content[len_start..i];
    if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
        let end = content[bracket..]
            .find(']')
            .map_or(content.len(), |e| bracket + e + 1);
        return malformed(
            DecodeErrorKind::InvalidHeader,
            bracket,
            format!(
                "`{}` is not a length; a header's brackets hold a whole number without leading zeros, like `[3]`",
                crate::spec::lex::clip(&content[bracket..end])
            ),
        );
    }
    // §6 sets no upper bound: a length past `usize` is a header all the same,
    // whose count no array can match (strict mode refuses it as a mismatch).
    let length = digits.parse::<usize>().unwrap_or(usize::MAX);
    let keyed = b.get(i) == Some(&b':');
    if keyed {
        i += 1;
    }
    let delim = match b.get(i) {
        Some(b'|') => {
            i += 1;
            '|'
        }
        Some(b'\t') => {
            i += 1;
            '\t'
        }
        _ => ',',
    };
    if b.get(i) != Some(&b']') {
        return malformed(
            DecodeErrorKind::InvalidHeader,
            i,
            "malformed brackets; a header is `[N]`, `[N|]`, `[N<TAB>]`, or `[N:]` for keyed rows",
        );
    }
    i += 1;

    let mut fields = None;
    let mut duplicate_field = None;
    if b.get(i) == Some(&b'{') {
        match parse_field_list(&content[i..], delim, max_depth) {
            Ok((list, used, dup)) => {
                fields = Some(list);
                duplicate_field = dup;
                i += used;
            }
            Err(mut e) => {
                e.offset += i;
                return HeaderParse::Malformed(e);
            }
        }
    }
    match b.get(i) {
        Some(b':') => {}
        None => {
            return malformed(
                DecodeErrorKind::MissingColon,
                i,
                "header has no colon; end it with `:`",
            )
        }
        Some(_) => {
            return malformed(
                DecodeErrorKind::InvalidHeader,
                i,
                format!(
                    "unexpected `{}` after the header's brackets; only a field list `{{...}}` and then `:` may follow",
                    crate::spec::lex::clip(&content[i..])
                ),
            )
        }
    }
    if keyed && fields.is_none() {
        return malformed(
            DecodeErrorKind::InvalidHeader,
            i,
            "a keyed header `[N:]` needs a field list, like `[2:]{a,b}:`",
        );
    }
    HeaderParse::Header(Header {
        key,
        length,
        keyed,
        delim,
        fields,
        duplicate_field,
        rest: trim_spaces(&content[i + 1..]),
    })
}

/// Parses `{a,b{c,d}}` at the start of `s`, returning the fields, the bytes used,
/// and the first name repeated within one list.
fn parse_field_list(
    s: &str,
    delim: char,
    depth_left: usize,
) -> Result<(Vec<Field>, usize, Option<String>), LexError> {
    let err = |kind, offset, message: String| LexError {
        kind,
        offset,
        message,
    };
    if depth_left == 0 {
        return Err(err(
            DecodeErrorKind::DepthLimit,
            0,
            "field groups nest deeper than the decoder's depth limit".into(),
        ));
    }
    let b = s.as_bytes();
    let mut i = 1; // past '{'
    let mut fields: Vec<Field> = Vec::new();
    let mut duplicate = None;
    // The names so far, for the first one written twice: a header may list
    // thousands of fields, so not a search of the list at each.
    let mut seen = std::collections::HashSet::new();
    loop {
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        let (name, name_end) = if b.get(i) == Some(&b'"') {
            let (n, used) = parse_quoted_prefix(&s[i..]).map_err(|mut e| {
                e.offset += i;
                e
            })?;
            (n, i + used)
        } else {
            // The marks are ASCII, so a byte search finds them (never inside a character).
            let end = b[i..]
                .iter()
                .position(|c| matches!(c, b'{' | b'}' | b',' | b'|' | b'\t'))
                .map_or(s.len(), |e| i + e);
            if let Some(&c) = b.get(end) {
                let c = char::from(c);
                if matches!(c, ',' | '|' | '\t') && c != delim {
                    return Err(err(
                        DecodeErrorKind::DelimiterMismatch,
                        end,
                        format!(
                            "the field list is split by `{}` but the brackets declare `{}`; use one delimiter in both",
                            c.escape_debug(),
                            delim.escape_debug()
                        ),
                    ));
                }
            }
            (trim_spaces(&s[i..end]).to_owned(), end)
        };
        if name.is_empty() && b.get(i) != Some(&b'"') {
            return Err(err(
                DecodeErrorKind::InvalidHeader,
                i,
                "empty field name in the field list; a field list names at least one field, like `{a,b}`".into(),
            ));
        }
        i = name_end;
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        let mut children = None;
        if b.get(i) == Some(&b'{') {
            let (sub, used, dup) =
                parse_field_list(&s[i..], delim, depth_left - 1).map_err(|mut e| {
                    e.offset += i;
                    e
                })?;
            duplicate = duplicate.or(dup);
            children = Some(sub);
            i += used;
        }
        if !seen.insert(name.clone()) && duplicate.is_none() {
            duplicate = Some(name.clone());
        }
        fields.push(Field { name, children });
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        match s[i..].chars().next() {
            Some('}') => return Ok((fields, i + 1, duplicate)),
            Some(c) if c == delim => i += c.len_utf8(),
            Some(c) if matches!(c, ',' | '|' | '\t') => {
                return Err(err(
                    DecodeErrorKind::DelimiterMismatch,
                    i,
                    format!(
                        "the field list is split by `{}` but the brackets declare `{}`; use one delimiter in both",
                        c.escape_debug(),
                        delim.escape_debug()
                    ),
                ))
            }
            Some(c) => {
                return Err(err(
                    DecodeErrorKind::InvalidHeader,
                    i,
                    format!("unexpected `{}` in the field list", c.escape_debug()),
                ))
            }
            None => {
                return Err(err(
                    DecodeErrorKind::InvalidHeader,
                    i,
                    "the field list has no closing `}`".into(),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(s: &str) -> Header<'_> {
        match parse_header(s, 64) {
            HeaderParse::Header(h) => h,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn reads_headers() {
        let h = header("orders[2]{id,customer{name,country},total}:");
        assert_eq!(h.key.as_deref(), Some("orders"));
        assert_eq!(h.length, 2);
        let fields = h.fields.unwrap();
        assert_eq!(Field::leaf_count(&fields), 4);
        assert_eq!(fields[1].children.as_ref().unwrap()[1].name, "country");

        let h = header("[3|]: a|b|c");
        assert_eq!((h.key, h.delim, h.rest), (None, '|', "a|b|c"));
        let h = header("users[2:]{age,city}:");
        assert!(h.keyed);
        assert_eq!(header("\"my-key\"[1]: x").key.as_deref(), Some("my-key"));
        assert_eq!(header("t[2]{a,a}:").duplicate_field.as_deref(), Some("a"));
    }

    #[test]
    fn tells_headers_from_other_lines() {
        assert!(matches!(
            parse_header("note: see [1]", 8),
            HeaderParse::NotHeader
        ));
        assert!(matches!(parse_header("plain", 8), HeaderParse::NotHeader));
        for bad in [
            "a[03]: x",
            "a[]: x",
            "a [2]: x",
            "a[2]x: y",
            "a[2:]: x",
            "a[2|]{x,y}:",
            "a[2]{}:",
            "a[2]",
        ] {
            assert!(
                matches!(parse_header(bad, 8), HeaderParse::Malformed(_)),
                "{bad}"
            );
        }
    }

    #[test]
    fn field_groups_are_depth_limited() {
        let deep = format!("a[1]{}{}:", "{x".repeat(100), "}".repeat(100));
        match parse_header(&deep, 10) {
            HeaderParse::Malformed(e) => assert_eq!(e.kind, DecodeErrorKind::DepthLimit),
            other => panic!("{other:?}"),
        }
    }
}
