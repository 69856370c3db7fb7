//! The JSON path: a reply that must be JSON (a JSON Schema's `response_format`,
//! JSON mode, a tool call's arguments), read into any `serde` type after the
//! same stripping of reasoning, fences and prose as a TOON reply.

use serde::de::DeserializeOwned;

use super::layout::is_blank;
use super::{
    json, settle_error, strip, too_long, ParseError, ParseErrorKind, Repair, ReplyOptions,
};

/// Reads a JSON reply into any `serde` type: fences, reasoning blocks and
/// surrounding prose are stripped, then `serde_json` reads the first JSON value.
///
/// JSON that does not parse is mended, and each mend reported, only where the
/// mistake has one reading: trailing commas, `//` and `/* */` comments, Python's
/// `True`/`False`/`None`, single-quoted strings and keys, unquoted keys, raw line
/// breaks inside strings (see [`RepairKind`](crate::RepairKind)); values survive
/// byte for byte. An unclosed structure, a missing comma or a stray word is refused.
///
/// serde reads the keys serde's attributes name: a rename written only in
/// `#[toon(...)]` is not one of them (write it as `#[serde(...)]`, which the
/// derives follow too, or read a `Toon` type with `T::from_toon`).
///
/// A reply cut off at the token limit is [`Truncated`](crate::ParseErrorKind::Truncated),
/// by name; a missing field is `MissingField`, a wrong value `InvalidValue`,
/// each with the line of the reply it stands on. An empty object (`{}`) where
/// the type reads a struct with fields is `MissingField` too, at any depth,
/// though serde alone reads it as each field missing: a model that said
/// nothing of a struct has not found that none of its fields applies (a map
/// may be empty; `#[serde(flatten)]` and untagged enums are not looked into).
///
/// ```
/// #[derive(serde::Deserialize, Debug)]
/// struct Capital { country: String, capital: String }
///
/// let c: Capital = toon_core::from_json_reply("```json\n{\"country\": \"France\", \"capital\": \"Paris\"}\n```").unwrap();
/// assert_eq!(c.capital, "Paris");
/// let err = toon_core::from_json_reply::<Capital>("{ \"country\": \"FRANCE\", \"capital\": \"Paris }").unwrap_err();
/// assert_eq!(err.kind(), toon_core::ParseErrorKind::Truncated);
/// ```
///
/// # Errors
/// A [`ParseError`]: `EmptyCompletion`, `Truncated`, `Syntax` (not JSON), `MissingField` or `InvalidValue`.
pub fn from_json_reply<T: DeserializeOwned>(completion: &str) -> Result<T, ParseError> {
    from_json_reply_with_report(completion).map(|(v, _)| v)
}

/// [`from_json_reply`], also returning what was stripped around the JSON.
///
/// # Errors
/// As [`from_json_reply`].
pub fn from_json_reply_with_report<T: DeserializeOwned>(
    completion: &str,
) -> Result<(T, Vec<Repair>), ParseError> {
    from_json_reply_with_options(completion, &ReplyOptions::default())
}

/// [`from_json_reply_with_options`] with the caller's own check, run after
/// decoding, as [`ToonOutputParser::validate`](crate::ToonOutputParser::validate)
/// does on the TOON path: its `Err` is a [`Constraint`](crate::ParseErrorKind::Constraint)
/// refusal carrying the message.
///
/// ```
/// use toon_core::{reply::from_json_reply_with_check, ParseErrorKind, ReplyOptions};
/// let sent = 6;
/// let check = |ids: &Vec<u32>| match ids.iter().find(|&&i| i as usize > sent) {
///     Some(i) => Err(format!("source {i} does not exist; cite 1 to {sent}")),
///     None => Ok(()),
/// };
/// let err = from_json_reply_with_check("[2, 7]", &ReplyOptions::default(), check).unwrap_err();
/// assert_eq!(err.kind(), ParseErrorKind::Constraint);
/// assert!(err.retry_prompt().contains("one JSON value"));
/// ```
///
/// # Errors
/// As [`from_json_reply_with_options`], and `Constraint` when the check refuses.
pub fn from_json_reply_with_check<T: DeserializeOwned>(
    completion: &str,
    options: &ReplyOptions,
    check: impl FnOnce(&T) -> Result<(), String>,
) -> Result<(T, Vec<Repair>), ParseError> {
    let (value, repairs) = from_json_reply_with_options(completion, options)?;
    check(&value).map_err(|why| {
        ParseError::new(
            ParseErrorKind::Constraint,
            None,
            format!("the value reads but is not valid here: {why}"),
        )
        .in_format(JSON_FORMAT)
    })?;
    Ok((value, repairs))
}

/// [`from_json_reply_with_report`] with the server's finish reason and limits
/// ([`ReplyOptions`]): with [`FinishReason::Length`](crate::FinishReason::Length)
/// a JSON value left open is `Truncated`; with `Stop` it is the model's own
/// malformed JSON (`Syntax`), never called cut off.
///
/// ```
/// use toon_core::{reply::from_json_reply_with_options, FinishReason, ParseErrorKind, ReplyOptions};
/// #[derive(Debug, serde::Deserialize)]
/// struct Capital { capital: String }
/// let stop = ReplyOptions { finish_reason: FinishReason::Stop, ..Default::default() };
/// let err = from_json_reply_with_options::<Capital>("{\"capital\": \"Par", &stop).unwrap_err();
/// assert_eq!(err.kind(), ParseErrorKind::Syntax);
/// ```
///
/// # Errors
/// As [`from_json_reply`], and `LimitExceeded` past a limit.
pub fn from_json_reply_with_options<T: DeserializeOwned>(
    completion: &str,
    options: &ReplyOptions,
) -> Result<(T, Vec<Repair>), ParseError> {
    // A closed JSON value is whole, so only a refusal has the finish reason to weigh.
    decode_json_reply(completion, options)
        .map_err(|e| settle_error(e, completion, options, &|_| None).in_format(JSON_FORMAT))
}

/// The format a refused JSON reply is asked for again in: one value, which
/// may be an array as well as an object.
pub(super) const JSON_FORMAT: &str = "one JSON value, as the instructions describe";

/// The JSON-Schema path: a reply that must be JSON, read into any `serde` type
/// after the same stripping of reasoning, fences and prose.
fn decode_json_reply<T: DeserializeOwned>(
    completion: &str,
    options: &ReplyOptions,
) -> Result<(T, Vec<Repair>), ParseError> {
    too_long(completion, options)?;
    if is_blank(completion) {
        return Err(ParseError::empty());
    }
    let mut repairs = Vec::new();
    let lines = strip::strip(completion, &mut repairs, None)?;
    let Some(first) = lines.iter().position(|l| !is_blank(l)) else {
        return Err(ParseError::empty());
    };
    // Only JSON is read here, so `[]` and `[5]` are arrays, never TOON headers.
    if !lines[first].trim_start().starts_with(['{', '[']) {
        return Err(ParseError::new(
            ParseErrorKind::Syntax,
            Some(first + 1),
            format!(
                "expected a JSON value, but the reply starts with `{}`",
                crate::lex::clip(lines[first].trim())
            ),
        ));
    }
    let value = json::decode_json_as(completion, &lines, &mut repairs, options.max_depth)?;
    repairs.sort_by_key(|r| r.line);
    Ok((value, repairs))
}
