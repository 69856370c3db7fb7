//! The JSON path: a reply that must be JSON (a JSON Schema's `response_format`,
//! JSON mode, a tool call's arguments), stripped of reasoning, fences and
//! prose as a TOON reply is, then decoded as a tree for the type's own reading
//! or, for a type that is not `Toon`, read by serde.

use std::borrow::Cow;

use serde::de::DeserializeOwned;

use super::error::Format;
use super::layout::is_blank;
use super::{
    json, settle_error, strip, too_long, Guided, ParseError, ParseErrorKind, Repair, Reply,
    ReplyOptions,
};
use crate::spec::header::{parse_header, HeaderParse};
use crate::spec::node::Node;

/// Reads a JSON reply into a type that is not [`Toon`](crate::Toon), with
/// serde: fences, reasoning blocks and surrounding prose are stripped, then
/// `serde_json` reads the first JSON value. A `Toon` type is read with its own
/// decoder instead, by [`from_json_reply`](crate::from_json_reply), under its
/// names and constraints; this reading knows only what serde knows, so a
/// rename written only in `#[toon(...)]` is not followed and no constraint is
/// checked.
///
/// JSON that does not parse is mended, and each mend reported, only where the
/// mistake has one reading: trailing commas, `//` and `/* */` comments, Python's
/// `True`/`False`/`None`, single-quoted strings and keys, unquoted keys, raw line
/// breaks inside strings (see [`RepairKind`](crate::RepairKind)); values survive
/// byte for byte. An unclosed structure, a missing comma or a stray word is refused.
///
/// With [`FinishReason::Length`](crate::FinishReason::Length) in `options`, a
/// JSON value left open is `Truncated`; with `Stop` it is the model's own
/// malformed JSON (`Syntax`), never called cut off. A missing field is
/// `MissingField`, a wrong value `InvalidValue`, each with the line of the
/// reply it stands on. An empty object (`{}`) where the type reads a struct
/// with fields is `MissingField` too, at any depth, though serde alone reads
/// it as each field missing: a model that said nothing of a struct has not
/// found that none of its fields applies (a map may be empty;
/// `#[serde(flatten)]` and untagged enums are not looked into).
///
/// ```
/// use toon_core::{reply::from_json_serde, FinishReason, ParseErrorKind, ReplyOptions};
/// #[derive(serde::Deserialize, Debug)]
/// struct Capital { country: String, capital: String }
///
/// let options = ReplyOptions::default();
/// let c = from_json_serde::<Capital>("```json\n{\"country\": \"France\", \"capital\": \"Paris\"}\n```", &options).unwrap();
/// assert_eq!(c.value.capital, "Paris");
/// let err = from_json_serde::<Capital>("{ \"country\": \"FRANCE\", \"capital\": \"Paris }", &options).unwrap_err();
/// assert_eq!(err.kind(), ParseErrorKind::Truncated);
/// let stop = ReplyOptions { finish_reason: FinishReason::Stop, ..Default::default() };
/// let err = from_json_serde::<Capital>("{\"capital\": \"Par", &stop).unwrap_err();
/// assert_eq!(err.kind(), ParseErrorKind::Syntax);
/// ```
///
/// # Errors
/// A [`ParseError`]: `EmptyCompletion`, `Truncated`, `Syntax` (not JSON),
/// `MissingField`, `InvalidValue`, or `LimitExceeded` past a limit.
pub fn from_json_serde<T: DeserializeOwned>(
    completion: &str,
    options: &ReplyOptions,
) -> Result<Reply<T>, ParseError> {
    // A closed JSON value is whole, so only a refusal has the finish reason to weigh.
    let read = || {
        let mut repairs = Vec::new();
        let lines = json_lines(completion, options, &mut repairs)?;
        let value = json::decode_json_as(completion, &lines, &mut repairs, options.max_depth)?;
        repairs.sort_by_key(|r| r.line);
        Ok(Reply { value, repairs })
    };
    read().map_err(|e| settle_error(e, completion, options, &|_| None).in_format(Format::Json))
}

/// A reply that must be JSON, decoded for a typed reading: the same stripping
/// and refusals as [`from_json_serde`], the value as a tree whose repairs
/// begin with `read_json` on the value's first line (the typed reading places
/// errors by path from it).
pub(crate) fn json_guided<'c>(
    completion: &str,
    options: &ReplyOptions,
) -> Result<Guided<'c>, ParseError> {
    let mut repairs = Vec::new();
    let lines = json_lines(completion, options, &mut repairs)?;
    let value = json::decode_json(completion, &lines, &mut repairs, options.max_depth)?;
    repairs.sort_by_key(|r| r.line);
    Ok(Guided {
        value: Node::from(value),
        repairs,
    })
}

/// The lines of a reply that must be JSON, stripped of what surrounds it;
/// refused if it is empty or what is left does not open a JSON value.
fn json_lines<'c>(
    completion: &'c str,
    options: &ReplyOptions,
    repairs: &mut Vec<Repair>,
) -> Result<Vec<Cow<'c, str>>, ParseError> {
    too_long(completion, options)?;
    if is_blank(completion) {
        return Err(ParseError::empty());
    }
    let lines = strip::strip(completion, repairs, None)?;
    let Some(first) = lines.iter().position(|l| !is_blank(l)) else {
        return Err(ParseError::empty());
    };
    // Only JSON is read here, so `[]` and `[5]` are arrays, never TOON
    // headers; `[2]: a,b` is one, not the array `[2]` and prose.
    let start = lines[first].trim();
    let toon_header = matches!(parse_header(start, 8), HeaderParse::Header(_));
    if !start.starts_with(['{', '[']) || toon_header {
        return Err(ParseError::new(
            ParseErrorKind::Syntax,
            Some(first + 1),
            format!(
                "expected a JSON value, but the reply starts with `{}`",
                crate::spec::lex::clip(lines[first].trim())
            ),
        ));
    }
    Ok(lines)
}
