//! Delimited prose fields (`#[toon(delimited)]`): a text field of the reply's
//! root struct that the model writes after the TOON lines, between `<name>` and
//! `</name>`, in as many lines as it likes, with no quoting or escaping. Prose
//! then cannot break the document on a quote or a comma, and streams as it is
//! written.
//!
//! The text is taken verbatim between the tags, without the line breaks right
//! inside them; the rest of the reply is read as TOON. A block that is never
//! closed is `Truncated` by the rules of the rest of the reply (a reply the
//! server says it ended normally is a syntax error instead).

use serde_json::Value;

use crate::reply::{FinishReason, ParseError, ParseErrorKind};
use crate::shape::Shape;
use crate::spec::encode::encode_with;
use crate::spec::node::{Node, Placed, Scalar};

/// The delimited fields of `shape`, when it is a struct (the reply's root), in
/// declaration order.
pub(crate) fn names(shape: &Shape) -> Vec<&'static str> {
    match shape.resolve() {
        Shape::Struct(s) => s
            .fields
            .iter()
            .filter(|f| f.delimited)
            .map(|f| f.name)
            .collect(),
        _ => Vec::new(),
    }
}

/// The text of one field's block.
pub(crate) struct Prose {
    pub name: &'static str,
    pub text: String,
}

/// Where `<name>` opens a block in `text`: at the start of a line, the offset
/// of the line and the offset after the tag. An indented tag opens one only
/// alone on its line or closed on it: `  <body>x,1` is a table row whose
/// first cell begins with the tag.
pub(crate) fn opening(text: &str, name: &str) -> Option<(usize, usize)> {
    let tag = format!("<{name}>");
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_start_matches([' ', '\t']);
        if let Some(after) = content.strip_prefix(&tag) {
            let block = content.len() == line.len()
                || after.trim().is_empty()
                || after.contains(&format!("</{name}>"));
            if block {
                let at = start + (line.len() - content.len());
                return Some((start, at + tag.len()));
            }
        }
        start += line.len();
    }
    None
}

/// The one cutter of delimited blocks, for the whole reply ([`split`]) and
/// for the stream. Fed the text from its place on as the text grows, it finds
/// a block's opening tag at the start of a line and gives the block's text as
/// it arrives. Blocks are cut in the order they open: a tag inside an open
/// block is that block's text, whichever field it names. The line breaks
/// right inside the tags, and the indentation of a closing tag on its own
/// line, are not the text's.
#[derive(Debug)]
pub(crate) struct Cutter {
    /// The fields whose block has not opened, in declaration order.
    unread: Vec<&'static str>,
    open: Option<Open>,
    /// Where the line last found to open no block starts: it is not looked
    /// at again as it grows.
    checked: Option<usize>,
}

/// The block being cut.
#[derive(Debug)]
struct Open {
    name: &'static str,
    /// Whether any of its text came.
    started: bool,
    /// Line breaks, and spaces after them, held back: the text's only if
    /// more text follows before the closing tag.
    held: String,
}

/// What the text at the cutter's place is.
#[derive(Debug)]
pub(crate) enum Cut {
    /// A line that opens no block (or none yet: the rest of it may): the
    /// document's, once it ends.
    Line,
    /// A block opens: its line up to the end of its tag is `len` bytes.
    Opened { name: &'static str, len: usize },
    /// `len` bytes of the open block: its `text` (the closing tag, where it
    /// came, among those bytes but not in the text).
    Text {
        name: &'static str,
        text: String,
        len: usize,
        closed: bool,
    },
}

impl Cutter {
    pub(crate) fn new(names: Vec<&'static str>) -> Self {
        Cutter {
            unread: names,
            open: None,
            checked: None,
        }
    }

    /// Nothing is left to cut: no block open and none to open.
    pub(crate) fn idle(&self) -> bool {
        self.unread.is_empty() && self.open.is_none()
    }

    /// What `rest`, the text from the cutter's place (`at` bytes into the
    /// reply), is. A block opens only where `may_open` (not in the reasoning
    /// the reply opens with); `ended` once no more text will come.
    pub(crate) fn cut(&mut self, rest: &str, at: usize, may_open: bool, ended: bool) -> Cut {
        if let Some(open) = &mut self.open {
            let cut = open.text(rest);
            if matches!(cut, Cut::Text { closed: true, .. }) {
                self.open = None;
            }
            return cut;
        }
        if self.unread.is_empty() || !may_open || self.checked == Some(at) {
            return Cut::Line;
        }
        // Only this line: the lines after it are not read yet.
        let end = rest.find('\n');
        let first = end.map_or(rest, |end| &rest[..end]);
        let indented = first.starts_with([' ', '\t']);
        let found = self
            .unread
            .iter()
            .enumerate()
            .find_map(|(i, name)| opening(first, name).map(|(_, len)| (i, *name, len)));
        match found {
            // An indented tag opens a block only alone on its line or closed
            // on it: until the line ends, either may yet be so.
            Some(_) if indented && end.is_none() && !ended => Cut::Line,
            Some((i, name, len)) => {
                self.unread.remove(i);
                self.open = Some(Open {
                    name,
                    started: false,
                    held: String::new(),
                });
                Cut::Opened { name, len }
            }
            None => {
                let content = first.trim_start_matches([' ', '\t']);
                // Indented, a whole tag opens a block once closed on its line.
                let may_open = self.unread.iter().any(|name| {
                    tag_prefix(content, name)
                        || (indented && content.starts_with(&format!("<{name}>")))
                });
                if end.is_some() || !(content.is_empty() || may_open) {
                    self.checked = Some(at);
                }
                Cut::Line
            }
        }
    }
}

impl Open {
    /// The block's text in `rest`, up to its closing tag if it came. What
    /// may be the start of the closing tag is held back, unread.
    fn text(&mut self, rest: &str) -> Cut {
        let close = format!("</{}>", self.name);
        let (body, closed) = match rest.find(&close) {
            Some(at) => (&rest[..at], true),
            None => {
                let keep = (1..close.len().min(rest.len() + 1))
                    .rev()
                    .find(|&n| rest.ends_with(&close[..n]))
                    .unwrap_or(0);
                (&rest[..rest.len() - keep], false)
            }
        };
        let mut text = std::mem::take(&mut self.held);
        // Line breaks before any text are not the text's (text held back is).
        text.push_str(if self.started || !text.is_empty() {
            body
        } else {
            body.trim_start_matches(['\n', '\r'])
        });
        // Line breaks at the end are text only if text follows them, and so
        // are spaces after the last of them: they may be the indentation of
        // the closing tag.
        let spaced = text.trim_end_matches([' ', '\t']);
        let after_break = spaced.ends_with(['\n', '\r']) || (spaced.is_empty() && !self.started);
        let len = if after_break { spaced } else { text.as_str() }
            .trim_end_matches(['\n', '\r'])
            .len();
        if !closed {
            self.held = text[len..].to_owned();
        }
        text.truncate(len);
        self.started |= !text.is_empty();
        Cut::Text {
            name: self.name,
            text,
            len: body.len() + if closed { close.len() } else { 0 },
            closed,
        }
    }
}

/// Is `content` the start of `<name>`, so that more of the line may make it one?
fn tag_prefix(content: &str, name: &str) -> bool {
    let Some(rest) = content.strip_prefix('<') else {
        return false;
    };
    rest.len() <= name.len() + 1
        && rest
            .bytes()
            .zip(name.bytes().chain(std::iter::once(b'>')))
            .all(|(a, b)| a == b)
}

/// The completion with each delimited block blanked (its line breaks kept, so
/// every line keeps its number), and the blocks' texts, cut by [`Cutter`] fed
/// the whole reply. A tag in the reasoning the reply opens with opens none.
pub(crate) fn split(
    completion: &str,
    names: &[&'static str],
    finish: FinishReason,
) -> Result<(String, Vec<Prose>), ParseError> {
    // A block inside the reasoning the reply opens with is a draft, stripped
    // with it: blocks open from the line after the one it ends on, as a
    // stream meets them.
    let from = crate::reply::strip::opening_reasoning_end(completion).map_or(0, |end| {
        completion[end..]
            .find('\n')
            .map_or(completion.len(), |i| end + i + 1)
    });
    let mut cutter = Cutter::new(names.to_vec());
    let (mut toon, mut prose) = (String::with_capacity(completion.len()), Vec::new());
    let (mut at, mut opened_on) = (0, 0);
    while at < completion.len() {
        let rest = &completion[at..];
        match cutter.cut(rest, at, at >= from, true) {
            Cut::Line => {
                let end = rest.find('\n').map_or(rest.len(), |i| i + 1);
                toon.push_str(&rest[..end]);
                at += end;
            }
            Cut::Opened { name, len } => {
                prose.push(Prose {
                    name,
                    text: String::new(),
                });
                opened_on = at;
                at += len;
            }
            Cut::Text {
                name,
                text,
                len,
                closed,
            } => {
                if let Some(p) = prose.last_mut() {
                    p.text.push_str(&text);
                }
                let breaks = rest[..len].matches('\n').count();
                toon.push_str(&"\n".repeat(breaks));
                at += len;
                if !closed {
                    let line = completion[..opened_on].matches('\n').count() + 1;
                    return Err(unclosed(completion, line, name, finish));
                }
            }
        }
    }
    // A field's block opened again after its first: which is the answer is
    // not known (the first may be a draft in reasoning a chat template
    // opened, which shows only its `</think>`).
    for p in &prose {
        if let Some((start, _)) = opening(&toon[from..], p.name) {
            let line = toon[..from + start].matches('\n').count() + 1;
            return Err(ParseError::new(
                ParseErrorKind::Syntax,
                Some(line),
                format!(
                    "the `<{0}>` block is written twice, the second time on line {line}, and which one is the answer is not known; write `<{0}>` once",
                    p.name
                ),
            )
            .whole());
        }
    }
    Ok((toon, prose))
}

/// A block whose closing tag never came.
fn unclosed(completion: &str, line: usize, name: &str, finish: FinishReason) -> ParseError {
    let what = format!("the `<{name}>` block opened on line {line} is never closed");
    if finish == FinishReason::Stop {
        return ParseError::new(
            ParseErrorKind::Syntax,
            Some(line),
            format!("{what}; write `</{name}>` after its text"),
        );
    }
    ParseError::truncated(
        Some(completion.lines().count().max(1)),
        format!("the reply stops inside the `<{name}>` block: it was probably cut off by the token limit; raise max_tokens"),
        what,
    )
}

/// Puts each block's text into the root object the TOON lines decoded to.
pub(crate) fn insert(node: &mut Node<'_>, prose: Vec<Prose>) -> Result<(), ParseError> {
    let Node::Object(map) = node else {
        return Ok(()); // not a struct's object: the type refuses it as it stands
    };
    for p in prose {
        if map.contains_key(p.name) {
            return Err(ParseError::new(
                ParseErrorKind::InvalidValue,
                None,
                format!(
                    "`{0}` is written twice: as a TOON line and between `<{0}>` and `</{0}>`; write it once, between the tags",
                    p.name
                ),
            ));
        }
        let text = Node::Scalar(Scalar::String(p.text));
        map.insert(p.name.to_owned(), Placed::new(0, text));
    }
    Ok(())
}

/// `value` as TOON, each delimited field after the TOON lines between its tags.
pub(crate) fn write(names: &[&'static str], mut value: Value) -> String {
    let mut blocks = String::new();
    if let Value::Object(map) = &mut value {
        for name in names {
            if let Some(Value::String(text)) = map.shift_remove(*name) {
                blocks.push_str(&format!("\n<{name}>\n{text}\n</{name}>"));
            }
        }
    }
    // A text beginning with `<` is quoted, so no cell reads as a block's tag.
    let toon = encode_with(&value, &Default::default(), true);
    if toon.is_empty() {
        blocks.trim_start_matches('\n').to_owned()
    } else {
        toon + &blocks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_cut_out_with_their_lines_kept() {
        let reply =
            "found: true\n<answer>\nLine one, \"quoted\": yes.\n\n# not a comment\n</answer>\n";
        let (toon, prose) = split(reply, &["answer"], FinishReason::Unknown).unwrap();
        assert_eq!(toon, "found: true\n\n\n\n\n\n");
        assert_eq!(
            prose[0].text,
            "Line one, \"quoted\": yes.\n\n# not a comment"
        );
        // On one line, and indented.
        let (toon, prose) = split(
            "a: 1\n  <answer>Short.</answer>",
            &["answer"],
            FinishReason::Unknown,
        )
        .unwrap();
        assert_eq!(
            (toon.as_str(), prose[0].text.as_str()),
            ("a: 1\n", "Short.")
        );
    }

    #[test]
    fn an_unclosed_block_is_cut_or_a_mistake_by_the_finish_reason() {
        let reply = "a: 1\n<answer>\nThe text runs";
        let cut = split(reply, &["answer"], FinishReason::Unknown)
            .err()
            .unwrap();
        assert_eq!(
            (cut.kind(), cut.line()),
            (ParseErrorKind::Truncated, Some(3))
        );
        let stop = split(reply, &["answer"], FinishReason::Stop).err().unwrap();
        assert_eq!(
            (stop.kind(), stop.line()),
            (ParseErrorKind::Syntax, Some(2))
        );
    }
}
