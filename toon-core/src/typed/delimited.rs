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

use crate::encode::encode_with;
use crate::node::{Node, Placed, Scalar};
use crate::reply::{FinishReason, ParseError, ParseErrorKind};
use crate::shape::Shape;

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

/// The line breaks right inside a block's tags are not the text's.
pub(crate) fn trim_breaks(text: &str) -> &str {
    text.trim_matches(['\n', '\r'])
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

/// The completion with each delimited block blanked (its line breaks kept, so
/// every line keeps its number), and the blocks' texts. Blocks are cut in the
/// order they open, as a stream meets them: a tag inside an open block is that
/// block's text, whichever field it names. A tag in the reasoning the reply
/// opens with opens none.
pub(crate) fn split(
    completion: &str,
    names: &[&'static str],
    finish: FinishReason,
) -> Result<(String, Vec<Prose>), ParseError> {
    let mut toon = completion.to_owned();
    let mut prose = Vec::new();
    let mut unread = names.to_vec();
    // A block inside the reasoning the reply opens with is a draft, stripped
    // with it: blocks open from the line after the one it ends on, as a
    // stream meets them (it comes first, so cutting the blocks after it
    // leaves this offset where it is).
    let from = crate::reply::strip::opening_reasoning_end(completion).map_or(0, |end| {
        completion[end..]
            .find('\n')
            .map_or(completion.len(), |i| end + i + 1)
    });
    loop {
        let first = unread
            .iter()
            .enumerate()
            .filter_map(|(i, &name)| {
                opening(&toon[from..], name).map(|(start, body)| (i, from + start, from + body))
            })
            .min_by_key(|&(_, start, _)| start);
        let Some((i, line_start, body)) = first else {
            break;
        };
        let name = unread.remove(i);
        let close = format!("</{name}>");
        let Some(len) = toon[body..].find(&close) else {
            return Err(unclosed(completion, &toon[..line_start], name, finish));
        };
        let end = body + len;
        // A closing tag indented on a line of its own: its indentation is
        // the tag's, not the prose's.
        let text = &toon[body..end];
        let text = match text.rfind('\n') {
            Some(at) if text[at + 1..].trim_matches([' ', '\t']).is_empty() => &text[..at],
            _ => text,
        };
        prose.push(Prose {
            name,
            text: trim_breaks(text).to_owned(),
        });
        let breaks = "\n".repeat(toon[line_start..end].matches('\n').count());
        toon.replace_range(line_start..end + close.len(), &breaks);
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
fn unclosed(completion: &str, before: &str, name: &str, finish: FinishReason) -> ParseError {
    let line = before.matches('\n').count() + 1;
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
