//! A second answer beside the first. Where a reply's answer is found (a
//! fenced block, a JSON value), another elsewhere in it (a second block of
//! data, JSON that reads, the type's keys) makes taking either a guess: the
//! reply is refused, never read as one answer and prose.

use std::borrow::Cow;

use serde_json::Value;

use super::layout::{is_blank, is_fence};
use super::Guide;
use crate::spec::header::{parse_header, HeaderParse};
use crate::spec::lex::trim_spaces;

/// What tells a line of the answer's keys: the type's guide, or the keys of
/// the JSON object found (a JSON path has no guide).
#[derive(Clone, Copy)]
pub(super) enum Keys<'a> {
    Guide(Option<&'a dyn Guide>),
    Json(&'a std::collections::HashSet<String>),
}

impl Keys<'_> {
    /// Does `content`, whose key ends at `key_ends`, begin with one of the keys?
    fn start(self, content: &str, key_ends: usize) -> bool {
        match self {
            Keys::Guide(guide) => guide.is_some_and(|g| g.starts_document(content)),
            Keys::Json(keys) => {
                let key = &content[..key_ends];
                let key = key
                    .strip_prefix('"')
                    .and_then(|k| k.strip_suffix('"'))
                    .unwrap_or(key);
                keys.contains(key)
            }
        }
    }
}

/// The first line of an answer among `side`, the lines on one side of the
/// answer found (a fenced block, a JSON value): another block of data (bare,
/// `toon` or `json`, with a line in it), a JSON object or array that reads
/// and ends its line (not `[1] Smith, 2020`, a citation), or a JSON object
/// with a key that follows prose on its line and ends it, a TOON array header
/// with a key and a length (`violations[2]{a,b}:`, `tags[2]: a,b`; prose has
/// no such line, and a type of any keys has its answers in it), or the first
/// of two lines of the type's keys (a name, then `:` or a header's `[`; one
/// alone is as likely a label, `goal: two tasks.`). Lines in blocks of other
/// languages (a ```` ```python ```` example) are not the reply's, but for two
/// lines of the type's keys at the block's margin (a ```` ```yaml ```` block
/// holding the answer again; a class's fields are indented). The side is joined once,
/// and each JSON attempt reads from its line on without copying; past eight
/// lines opening a bracket that read as no JSON, the rest are not tried (a
/// reply of many such lines would be read many times over). `blocks`: a
/// fenced block of data counts as an answer; where the fence stage has
/// already judged the fences (a stray one it left, after a JSON value), a
/// fence only opens or closes a block whose lines are not looked at.
pub(super) fn answer_beside(
    lines: &[Cow<'_, str>],
    side: std::ops::Range<usize>,
    keys: Keys<'_>,
    blocks: bool,
) -> Option<usize> {
    let joined = lines[side.clone()].join("\n");
    let (mut fenced, mut keyed, mut offset, mut tries) = (false, None, 0, 0);
    for i in side.clone() {
        let at = offset;
        offset += lines[i].len() + 1;
        if is_fence(&lines[i]) {
            let data = blocks
                && !fenced
                && holds_data(&lines[i])
                && (i + 1..side.end)
                    .take_while(|&j| !is_fence(&lines[j]))
                    .any(|j| !is_blank(&lines[j]));
            if data {
                return Some(i);
            }
            fenced = !fenced;
            continue;
        }
        let content = trim_spaces(&lines[i]);
        if content.is_empty() {
            continue;
        }
        // Inside a block of another language only the type's keys tell an
        // answer (a ```` ```yaml ```` block of them is one all the same).
        if !fenced && content.starts_with(['{', '[']) && tries < 8 {
            tries += 1;
            if whole_json_at(&joined[at..]) {
                return Some(i);
            }
        }
        // A JSON object after prose on its line (`Corrected: {"a": 2}`); an
        // array there is as likely a citation (`see [1]`).
        let lead = lines[i].len() - lines[i].trim_start().len();
        let opens = lines[i].match_indices('{').filter(|&(p, _)| p > lead);
        for (pos, _) in opens.take(if fenced { 0 } else { 8 - tries }) {
            tries += 1;
            if matches!(json_at(&joined[at + pos..]), Some(Value::Object(m)) if !m.is_empty()) {
                return Some(i);
            }
        }
        if !fenced && (content.ends_with(':') || content.contains("]:")) {
            if let HeaderParse::Header(h) = parse_header(content, 8) {
                if h.key.is_some() {
                    return Some(i);
                }
            }
        }
        let key_ends = content.find([' ', ':', '[', '{']).unwrap_or(content.len());
        // In a block of another language, a key at the block's own margin
        // (YAML's), not a field indented in a class (Python's).
        let keyed_line = content[key_ends..].starts_with([':', '['])
            && !(fenced && lines[i].starts_with([' ', '\t']))
            && keys.start(content, key_ends);
        if keyed_line {
            match keyed {
                Some(first) => return Some(first),
                None => keyed = Some(i),
            }
        }
    }
    None
}

/// Does the fence on `line` open a block of data: bare, `toon` or `json`?
pub(super) fn holds_data(line: &str) -> bool {
    let info = line.trim().trim_start_matches('`');
    info.is_empty() || info.eq_ignore_ascii_case("toon") || info.eq_ignore_ascii_case("json")
}

/// Does `text` open with a JSON value that reads and ends its line?
/// Read as a `Value`, whose reader stops at 128 levels: serde_json skips an
/// `IgnoredAny` without that limit, to the end of the text, so trying many
/// lines of open brackets would read the rest of the reply for each.
pub(super) fn whole_json_at(text: &str) -> bool {
    json_at(text).is_some()
}

/// The JSON value `text` opens with, if it reads and ends its line.
fn json_at(text: &str) -> Option<Value> {
    let text = text.trim_start();
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let value = values.next()?.ok()?;
    let rest = &text[values.byte_offset()..];
    is_blank(rest.split('\n').next().unwrap_or("")).then_some(value)
}
