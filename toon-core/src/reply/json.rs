//! JSON replies: a model asked for TOON that falls back to JSON (same data
//! model, so it is read as JSON), and the JSON-Schema path's replies.

use crate::reply::layout::is_blank;
use std::borrow::Cow;
use std::collections::HashSet;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::beside::{answer_beside, whole_json_at, Keys};
use super::json_de::{self, read_first, Read, Refusal, Said};
use super::json_scan::{self, Scan, Tok, Twice};
use super::{
    json_mend, line_of_path, truncation_message, ParseError, ParseErrorKind, Repair, RepairKind,
};
use super::{EMPTY_OBJECT, EMPTY_REPLY_OBJECT};
use crate::spec::header::{parse_header, HeaderParse};

/// A reply whose first significant line opens a JSON object, or a JSON array
/// that is not a TOON root header (`[3]: a,b`).
pub(crate) fn looks_like_json(lines: &[Cow<'_, str>]) -> bool {
    let mut significant = lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty());
    significant.next().is_some_and(|first| {
        opens_json(first) || (one_number_array(first) && significant.next().is_none())
    })
}

/// `[5]`: alone in a reply, a JSON array of one number. A TOON header needs
/// its colon, so the reply reads only as JSON.
pub(crate) fn one_number_array(text: &str) -> bool {
    text.strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Does this line (trimmed) open a JSON value rather than a TOON document?
pub(crate) fn opens_json(line: &str) -> bool {
    line.starts_with('{') || (line.starts_with('[') && !is_toon_bracket(line))
}

/// `[3]: a,b`, `[2:]{..}:`, `[2|]`, or a header cut after its length (`[2:`):
/// a length and then `]`, `:`, `|`, a tab or nothing is TOON; `[2, 3]` is JSON.
/// So is the prompt's placeholder copied (`[N]{name,n}:`), which no JSON is.
pub(crate) fn is_toon_bracket(line: &str) -> bool {
    if line.trim_end() == "[]" || matches!(parse_header(line, 8), HeaderParse::Header(_)) {
        return true;
    }
    if let Some((inside, _)) = line[1..].split_once(']') {
        if super::layout::is_placeholder(inside.trim_end_matches(['|', '\t'])) {
            return true;
        }
    }
    let rest = &line[1..];
    let after = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    after.len() < rest.len() && (after.is_empty() || after.starts_with([']', ':', '|', '\t']))
}

/// Reads a TOON reply that is JSON instead; reported as `read_json`.
pub(crate) fn decode_json(
    completion: &str,
    lines: &[Cow<'_, str>],
    repairs: &mut Vec<Repair>,
    max_depth: usize,
) -> Result<Value, ParseError> {
    let first_line = lines.iter().position(|l| !is_blank(l)).map_or(1, |i| i + 1);
    // Reported first, so that on its line it comes before what was mended.
    repairs.push(Repair::new(
        RepairKind::ReadJson,
        first_line,
        "reply was JSON",
    ));
    decode_json_as(completion, lines, repairs, max_depth)
}

/// Reads the first JSON value in the text as `T`; prose after it is dropped and
/// reported. JSON that does not parse is mended where the mistake has one
/// reading (`json_mend`), each mend reported; where the mended text does not
/// read either, its error is reported at the reply's line, except that a reply
/// whose mended text ends early keeps its own error (a cut reply stays `Truncated`).
pub(crate) fn decode_json_as<T: DeserializeOwned>(
    completion: &str,
    lines: &[Cow<'_, str>],
    repairs: &mut Vec<Repair>,
    max_depth: usize,
) -> Result<T, ParseError> {
    // Trailing whitespace carries nothing in JSON; inside a string cut off by the
    // token limit it would read as a raw control character instead of the cut.
    let joined = lines.join("\n");
    let text = joined.trim_end();
    too_deep(text, max_depth)?;
    let error = match first_value::<T>(text) {
        Ok(Some(first)) => return answer(first, text, repairs, |line| line),
        Ok(None) => return Err(ParseError::empty()),
        Err(NotRead::Json(e)) => e,
        Err(twice_read) => return Err(twice(&twice_read, text, |line| line)),
    };
    // Only for an error: something stripped after the JSON's last line, so
    // the reply went on past it.
    let last = lines
        .iter()
        .rposition(|l| !is_blank(l))
        .map_or(0, |i| i + 1);
    let went_on = repairs.iter().any(|r| r.line > last);
    // serde_json's error at its line of the reply; a value refused or a
    // syntax error also at its column, where the line read is the
    // completion's as written, and a value refused at the field it is about.
    // A reply cut off or never closed has neither: it stops at the end,
    // whatever serde_json tripped on first.
    let refuse = |r: &Refusal, mended: Option<&json_mend::Mended>| {
        let (e, read) = (&r.json, mended.map_or(text, |m| m.text.as_str()));
        let line = mended.map_or(e.line(), |m| m.original_line(e.line(), e.column()));
        let refused = json_error(r, text, read, line, went_on);
        let value = matches!(
            refused.kind(),
            ParseErrorKind::InvalidValue | ParseErrorKind::MissingField
        );
        let syntax = refused.kind() == ParseErrorKind::Syntax
            && e.classify() == serde_json::error::Category::Syntax;
        let column = (mended.is_none() && (value || syntax))
            .then(|| column_in(completion, text, e))
            .flatten();
        let path = value.then(|| r.path.clone()).flatten();
        refused.at_column(column).or_at_path(path)
    };
    let Some(mended) = json_mend::mend(text) else {
        return Err(refuse(&error, None));
    };
    match first_value::<T>(&mended.text) {
        Ok(Some(first)) => {
            // The fixes come in the order of their offsets: one cursor counts
            // the lines before each, so many fixes cost one pass over the text.
            let (mut line, mut at) = (1, 0);
            for &(kind, offset, what) in &mended.fixes {
                line += text.as_bytes()[at..offset.max(at)]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
                at = offset.max(at);
                repairs.push(Repair::new(kind, line, what));
            }
            answer(first, &mended.text, repairs, |line| {
                mended.original_line(line, 1)
            })
        }
        // What the mended text says is wrong is what is left to say, except
        // that a cut reply is named by its own error.
        // A cut shows in the text as written: a mend (a `//` read as a
        // comment) may leave a bracket open that the model closed.
        Err(NotRead::Json(e)) if e.json.classify() != serde_json::error::Category::Eof => {
            Err(refuse(&e, Some(&mended)))
        }
        Err(twice_read @ NotRead::Twice(_)) => Err(twice(&twice_read, &mended.text, |line| {
            mended.original_line(line, 1)
        })),
        _ => Err(refuse(&error, None)),
    }
}

/// The first value read from `text` as the answer: what follows it is
/// prose, reported, or a second answer, refused; an empty object read as a
/// struct is refused. `in_reply` maps a line of `text` to the reply's.
fn answer<T>(
    first: First<T>,
    text: &str,
    repairs: &mut Vec<Repair>,
    in_reply: impl Fn(usize) -> usize,
) -> Result<T, ParseError> {
    let First {
        value,
        end,
        keys,
        empty,
    } = first;
    let before = repairs.len();
    prose_after(text, end, &keys, repairs).map_err(|line| second_value(in_reply(line)))?;
    // The prose's line, counted in the reply rather than the text read.
    for r in &mut repairs[before..] {
        r.line = in_reply(r.line);
    }
    said_nothing(empty, &text[..end], in_reply)?;
    Ok(value)
}

/// Refuses the JSON value `json` where its type read an empty object in it as
/// a struct with fields (`empty`, see [`Read::empty`]), at the object's line
/// in the reply (`in_reply` maps a line of `json` to it).
fn said_nothing(
    empty: Option<Option<String>>,
    json: &str,
    in_reply: impl Fn(usize) -> usize,
) -> Result<(), ParseError> {
    let Some(at) = empty else {
        return Ok(());
    };
    let from = json.len() - json.trim_start().len();
    Err(match at {
        None => {
            let line = in_reply(json[..from].matches('\n').count() + 1);
            ParseError::new(ParseErrorKind::MissingField, Some(line), EMPTY_REPLY_OBJECT)
        }
        Some(path) => {
            let line = line_of_path(json, from, &path).map(in_reply);
            ParseError::at_path(ParseErrorKind::MissingField, line, path, EMPTY_OBJECT)
        }
    })
}

/// The 1-based column, in characters, of serde_json's error `e` in `text`,
/// where its line is the completion's own line as written (not one a
/// wrapper was cut from).
#[cold]
fn column_in(completion: &str, text: &str, e: &serde_json::Error) -> Option<usize> {
    let (line, column) = (e.line(), e.column());
    let read = text.lines().nth(line.checked_sub(1)?)?;
    let own = crate::spec::lines::raw_lines(completion).nth(line - 1)?;
    if own.strip_suffix('\r').unwrap_or(own) != read {
        return None;
    }
    Some(read.get(..column.checked_sub(1)?)?.chars().count() + 1)
}

/// serde_json's words without the place it appends (` at line 1 column 5`):
/// the error carries its line and column itself.
fn words(e: &serde_json::Error) -> String {
    let said = e.to_string();
    let place = format!(" at line {} column {}", e.line(), e.column());
    match said.strip_suffix(&place) {
        Some(words) => words.to_owned(),
        None => said,
    }
}

/// The most levels serde_json reads (its recursion limit stops it at the
/// 128th with a syntax error): a JSON reply's own limit, under `max_depth`.
const JSON_DEPTH: usize = 127;

/// Refuses JSON nested deeper than `max_depth` (and than serde_json reads,
/// [`JSON_DEPTH`]) as TOON is refused, by the line of the bracket past it:
/// the limit is named, never serde_json's syntax error in its place.
fn too_deep(text: &str, max_depth: usize) -> Result<(), ParseError> {
    let max_depth = max_depth.min(JSON_DEPTH);
    let mut depth = 0usize;
    for (i, tok) in Scan::new(text) {
        match tok {
            Tok::Open(_) => {
                depth += 1;
                if depth > max_depth {
                    let line = text[..i].matches('\n').count() + 1;
                    return Err(ParseError::new(
                        ParseErrorKind::LimitExceeded,
                        Some(line),
                        format!("the JSON value nests deeper than the limit of {max_depth} (ReplyOptions::max_depth, and at most {JSON_DEPTH} levels in JSON); a reply this deep is usually a model looping"),
                    ));
                }
            }
            Tok::Close(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// The first JSON value in `text`, the offset after it and the keys of its
/// object, if it is one; `None` for no value.
/// A key written twice in any object of it is refused: a JSON object keeps the
/// last of two (`{"items": [..], "items": []}` would read as nothing found),
/// and which one the model meant is not known. One more pass over the value's
/// text finds it, whatever type the value is read into.
fn first_value<T: DeserializeOwned>(text: &str) -> Result<Option<First<T>>, NotRead> {
    let Some(Read { value, end, empty }) = read_first::<T>(text).map_err(NotRead::Json)? else {
        return Ok(None);
    };
    let keys = json_scan::keys(&text[..end]).map_err(NotRead::Twice)?;
    Ok(Some(First {
        value,
        end,
        keys,
        empty,
    }))
}

/// Why no JSON value was read.
#[derive(Debug)]
pub(crate) enum NotRead {
    /// The type's or serde_json's refusal.
    Json(Refusal),
    /// A key written twice in one object, at its offset in the text.
    Twice(Twice),
}

impl NotRead {
    /// What went wrong, in words, and the line and column it stands at in `text`.
    pub(crate) fn said(&self, text: &str) -> (String, usize, usize) {
        match self {
            NotRead::Json(r) => (words(&r.json), r.json.line(), r.json.column()),
            NotRead::Twice(t) => {
                let before = &text[..t.at];
                let line = before.matches('\n').count() + 1;
                let column = before[before.rfind('\n').map_or(0, |n| n + 1)..]
                    .chars()
                    .count()
                    + 1;
                (format!("duplicate key `{}`", t.key), line, column)
            }
        }
    }
}

/// `text` read as one JSON value, refused where any object in it writes a
/// key twice (which parsing into a `Value` would settle silently, the last
/// one kept).
pub(crate) fn unique_value(text: &str) -> Result<Value, NotRead> {
    match first_value::<Value>(text)? {
        Some(First { value, end, .. }) if text[end..].trim().is_empty() => Ok(value),
        // serde_json's own error for what follows the value, or for no value.
        _ => serde_json::from_str::<Value>(text).map_err(|json| {
            NotRead::Json(Refusal {
                json,
                said: Said::Json,
                path: None,
            })
        }),
    }
}

/// A key written twice: the JSON is whole, and which value is meant is not
/// known (`in_reply` maps a line of the text read to the reply's).
fn twice(not_read: &NotRead, text: &str, in_reply: impl Fn(usize) -> usize) -> ParseError {
    let (said, line, _) = not_read.said(text);
    ParseError::new(
        ParseErrorKind::Syntax,
        Some(in_reply(line)),
        format!("the JSON reply writes a key twice ({said}), and which value is meant is not known; write each key once"),
    )
    .whole()
}

/// What [`first_value`] finds.
struct First<T> {
    value: T,
    end: usize,
    /// The keys of the value's object (empty for any other value): a line
    /// beginning with two of them after it is the answer again.
    keys: HashSet<String>,
    empty: Option<Option<String>>,
}

/// Reports prose after the JSON value that ends at `end`.
/// A second answer after the first (another JSON value, right after it, after
/// prose on a line, or on a line of its own further on; two lines beginning
/// with the value's own keys, as TOON or YAML) is not prose: the line it
/// starts on, as the error. (A fenced block beside the JSON is the fence stage's to refuse; a
/// stray fence it left is no answer.)
fn prose_after(
    text: &str,
    end: usize,
    keys: &HashSet<String>,
    repairs: &mut Vec<Repair>,
) -> Result<(), usize> {
    let rest = &text[end..];
    if !is_blank(rest) {
        let end_line = text[..end].matches('\n').count() + 1;
        let after = end_line
            + rest[..rest.len() - rest.trim_start().len()]
                .matches('\n')
                .count();
        if rest.trim_start().starts_with(['{', '[']) && whole_json_at(rest) {
            return Err(after);
        }
        let lines: Vec<Cow<'_, str>> = rest.split('\n').map(Cow::Borrowed).collect();
        // The fences are the fence stage's: one left here is stray. The rest
        // of the value's own line is looked at too (`} Or: {"a": 2}`).
        if let Some(other) = answer_beside(&lines, 0..lines.len(), Keys::Json(keys), false) {
            return Err(end_line + other);
        }
        repairs.push(Repair::new(
            RepairKind::StrippedProse,
            after,
            "prose after the JSON value",
        ));
    }
    Ok(())
}

/// Two answers: which one is the answer is not known.
#[cold]
fn second_value(line: usize) -> ParseError {
    ParseError::new(
        ParseErrorKind::Syntax,
        Some(line),
        "a second answer follows the JSON value, and which one is the answer is not known; write one value",
    )
    .whole()
}

/// `serde_json`'s error in the reply decoder's terms, on `line` of the reply;
/// `went_on`: the reply goes on past the JSON's last line (a closing fence or
/// prose was stripped after it).
fn json_error(r: &Refusal, text: &str, read: &str, line: usize, went_on: bool) -> ParseError {
    use serde_json::error::Category;
    let e = &r.json;
    let said = words(e);
    // A reply that ends inside a string or an open bracket was cut off, whatever
    // serde_json tripped on first: servers whose grammar lets raw line breaks into
    // strings produce `{"capital": "Paris }` followed by lines of text until the
    // token limit, which serde_json reports as a control character.
    let open = ends_open(text);
    // Brackets left open and then a closing fence or a line of prose: the model
    // went on writing, so the value was not cut but left unclosed.
    if open == Open::Bracket && (went_on || ends_in_prose(text)) {
        return ParseError::new(
            ParseErrorKind::Syntax,
            Some(line),
            format!("the JSON value is never closed ({said}), and the reply goes on after it, so it was not cut off: close each bracket where its value ends"),
        );
    }
    let category = if open == Open::Closed {
        e.classify()
    } else {
        Category::Eof
    };
    let (kind, message) = match category {
        Category::Eof => {
            let units = json_units(text);
            let message = truncation_message(
                &units
                    .iter()
                    .map(|u| Cow::Borrowed(u.as_str()))
                    .collect::<Vec<_>>(),
                units.len() + 1,
                &format!("JSON ends early: {said}"),
            );
            return ParseError::truncated(
                Some(line),
                message,
                format!("the JSON value is never closed ({said})"),
            );
        }
        // A key written twice, as serde's derive reads it (for a type that
        // is not `Toon`): the JSON is whole, and which value is meant is not known.
        Category::Data if r.said == Said::Twice => {
            return ParseError::new(
                ParseErrorKind::Syntax,
                Some(line),
                format!("the JSON reply writes a key twice ({said}), and which value is meant is not known; write each key once"),
            )
            .whole();
        }
        Category::Data if r.said == Said::Missing => (
            ParseErrorKind::MissingField,
            format!("the JSON reply lacks a field the type requires: {said}"),
        ),
        Category::Data => (
            ParseErrorKind::InvalidValue,
            // serde's own words lead: `unknown variant `X`, expected one of ...`.
            format!(
                "{} {said}",
                match r.said {
                    Said::NoVariant => "a value in the JSON reply is none of the allowed ones:",
                    Said::UnknownKey => "the JSON reply has a key the type does not have:",
                    Said::NotAllowed => "a value in the JSON reply is not allowed:",
                    _ => "a value in the JSON reply has the wrong type:",
                }
            ),
        ),
        // serde_json reads a number past every type's range as a syntax
        // error; the JSON is whole, and the value is what is wrong.
        Category::Syntax if json_de::out_of_range(read, e.line(), e.column()) => (
            ParseErrorKind::InvalidValue,
            format!("a number in the JSON reply is outside what its field's type holds: {said}"),
        ),
        Category::Syntax | Category::Io => (
            ParseErrorKind::Syntax,
            format!("the reply is not valid JSON: {said}"),
        ),
    };
    ParseError::new(kind, Some(line), message)
}

/// What the text ends inside of.
#[derive(Debug, PartialEq, Eq)]
enum Open {
    Closed,
    String,
    Bracket,
}

/// A last line of prose outside any string (`Hope this helps!`): words, and
/// the end of a sentence, with nothing of JSON in it.
fn ends_in_prose(text: &str) -> bool {
    let Some(last) = text.lines().rev().find(|l| !l.trim().is_empty()) else {
        return false;
    };
    let last = last.trim();
    last.contains(' ')
        && last.ends_with(['.', '!', '?'])
        && last.starts_with(|c: char| c.is_alphabetic())
        && !last.contains(['"', ':', '{', '}', '[', ']', ','])
}

/// Does the text end inside a string or with a bracket still open? Read
/// leniently: raw control characters are taken as part of a string.
fn ends_open(text: &str) -> Open {
    // The brackets open, innermost last: a closing bracket that does not match
    // is the model's slip, written in full, not a cut.
    let mut open = Vec::new();
    let mut scan = Scan::new(text);
    for (_, tok) in scan.by_ref() {
        match tok {
            Tok::Open(b'{') => open.push(b'}'),
            Tok::Open(_) => open.push(b']'),
            // The first value closed; what follows is not a cut.
            Tok::Close(c) if open.pop() != Some(c) || open.is_empty() => return Open::Closed,
            _ => {}
        }
    }
    if scan.in_string() {
        Open::String
    } else if open.is_empty() {
        Open::Closed
    } else {
        Open::Bracket
    }
}

/// The JSON text cut into items (at each `}`), so a repetition loop inside one
/// long line can be recognised; the last, unfinished item is left out.
fn json_units(text: &str) -> Vec<String> {
    let mut units: Vec<String> = text
        .split('}')
        .map(|u| {
            u.trim_start_matches([',', ' ', '\n', ']'])
                .trim()
                .to_owned()
        })
        .collect();
    units.pop();
    units
}
