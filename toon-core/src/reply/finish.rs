//! The last word on a decoded reply: what the server said about how it ended
//! (`finish_reason`), and the rows that were dropped on the way.
//!
//! Truncation is named only on evidence. The server's `length` is evidence
//! whatever the text looks like; its `stop` rules a cut out; without either,
//! only text that ends inside a quoted string, an unclosed header or an
//! unclosed JSON value shows a cut. A short last row alone is not evidence:
//! the model may have left a cell out.

use super::error::Advice;
use super::{Findings, ParseError, ParseErrorKind, RepairKind, Reply, ReplyOptions};

/// How the server said a completion ended: OpenAI's `finish_reason`, which
/// llama.cpp, vLLM and most other servers report the same way.
///
/// ```
/// use toon_core::FinishReason;
/// assert_eq!(FinishReason::from_openai("length"), FinishReason::Length);
/// assert_eq!(FinishReason::from_openai("stop"), FinishReason::Stop);
/// assert_eq!(FinishReason::from_openai("content_filter"), FinishReason::ContentFilter);
/// // llama-cpp-python says "tool_calls" for a call cut at max_tokens too.
/// assert_eq!(FinishReason::from_openai("tool_calls"), FinishReason::Unknown);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum FinishReason {
    /// The model ended the reply itself (`"stop"`): nothing was cut off.
    Stop,
    /// The token limit ended it (`"length"`): whatever the text shows, it may
    /// stop mid-value.
    Length,
    /// The server's content filter ended it (`"content_filter"`): part of
    /// the reply was left out, so it is read as cut off, as at the token limit.
    ContentFilter,
    /// Not known: only the text itself can show a cut.
    #[default]
    Unknown,
}

impl FinishReason {
    /// Reads OpenAI's `finish_reason` string; anything else is `Unknown`.
    /// `"tool_calls"` and `"function_call"` are `Unknown` too: llama-cpp-python's
    /// server reports them for a call cut off at `max_tokens` as well (seen in
    /// tests/replies/real/mechanisms/), so only the text can show a cut.
    pub fn from_openai(reason: &str) -> FinishReason {
        match reason {
            "stop" => FinishReason::Stop,
            "length" => FinishReason::Length,
            "content_filter" => FinishReason::ContentFilter,
            _ => FinishReason::Unknown,
        }
    }

    /// How a whole response ended: a chat completion's first choice's
    /// `finish_reason` (as [`from_openai`](Self::from_openai)), a Responses
    /// API response's `status` (`incomplete` for `max_output_tokens` is
    /// `Length`, for `content_filter` `ContentFilter`; `completed` is `Stop`),
    /// or an Anthropic message's `stop_reason` (`max_tokens` is `Length`).
    ///
    /// ```
    /// use serde_json::json;
    /// use toon_core::FinishReason;
    /// let cut = json!({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}, "output": []});
    /// assert_eq!(FinishReason::of_response(&cut), FinishReason::Length);
    /// let chat = json!({"choices": [{"finish_reason": "stop", "message": {"content": "a: 1"}}]});
    /// assert_eq!(FinishReason::of_response(&chat), FinishReason::Stop);
    /// ```
    pub fn of_response(response: &serde_json::Value) -> FinishReason {
        if let Some(reason) = response["choices"][0]["finish_reason"].as_str() {
            return FinishReason::from_openai(reason);
        }
        match response["status"].as_str() {
            Some("completed") => return FinishReason::Stop,
            Some("incomplete") => {
                return match response["incomplete_details"]["reason"].as_str() {
                    Some("max_output_tokens") => FinishReason::Length,
                    Some("content_filter") => FinishReason::ContentFilter,
                    _ => FinishReason::Unknown,
                }
            }
            _ => {}
        }
        match response["stop_reason"].as_str() {
            Some("max_tokens") => FinishReason::Length,
            Some("end_turn" | "stop_sequence" | "tool_use") => FinishReason::Stop,
            _ => FinishReason::Unknown,
        }
    }

    /// What cut the reply off, in words, and what to do about it; `None`
    /// where nothing did. The words name no field: the reason may have come
    /// from a chat completion's `finish_reason`, a Responses `status` or an
    /// Anthropic `stop_reason` (`of_response`).
    pub(crate) fn cut(self) -> Option<(&'static str, &'static str)> {
        match self {
            FinishReason::Length => Some((
                "the server stopped the reply at its token limit",
                "raise max_tokens or ask for fewer items",
            )),
            FinishReason::ContentFilter => Some((
                "the server's content filter stopped the reply, leaving part of it out",
                "ask again, or change what the filter flagged",
            )),
            _ => None,
        }
    }
}

/// Applies the finish reason and the dropped-row rules to a decoded reply,
/// with what the decoder found (`findings`): the lines of dropped rows with
/// fewer cells than their header, the one column a dropped row lacks where
/// the type knows it, and where each corrected count's values end.
pub(crate) fn settle<T>(
    result: Result<Reply<T>, ParseError>,
    completion: &str,
    options: &ReplyOptions,
    findings: &Findings,
) -> Result<Reply<T>, ParseError> {
    let short_rows = &findings.short_rows;
    let missing = &|line| findings.missing_cell(line);
    match (options.finish_reason, result) {
        (_, Err(e)) => Err(settle_error(e, completion, options, missing)),
        (finish, Ok(r))
            if finish.cut().is_some()
                && (!r.repairs.iter().any(|r| r.kind == RepairKind::ReadJson)
                    || super::json::one_number_array(completion.trim())) =>
        {
            // A closed JSON value is whole; TOON has no closing mark, so the
            // last value may have been cut anywhere and still read. A bare
            // `[5]` is also a TOON header cut before its colon.
            let (what, todo) = finish.cut().unwrap_or_default();
            Err(ParseError::new(
                ParseErrorKind::Truncated,
                Some(last_line(completion)),
                format!("{what}, so its last value may be cut short and the reply is not read as complete; {todo}"),
            ))
        }
        (FinishReason::Unknown, Ok(mut r)) => {
            may_be_cut(&mut r.repairs, completion, &findings.counts);
            dropped_rows(
                r,
                completion,
                FinishReason::Unknown,
                options,
                short_rows,
                missing,
            )
        }
        (finish, Ok(r)) => dropped_rows(r, completion, finish, options, short_rows, missing),
    }
}

/// A count corrected on a table or list that runs to the end of a reply
/// whose finish reason is unknown: the rows it lacks may have been cut off
/// (a cut inside the last unquoted cell leaves a row that reads), so the
/// repair says so instead of reading as a whole answer of fewer rows.
/// `counts` are where each corrected count's values end, as the decoder
/// read them: the reply runs to its end inside them where that is its last
/// line (a closing fence or prose after them is the reply's own end).
fn may_be_cut(repairs: &mut [super::Repair], completion: &str, counts: &[(usize, usize)]) {
    let mut corrected = repairs
        .iter_mut()
        .filter(|r| r.kind == RepairKind::CorrectedLength)
        .peekable();
    if corrected.peek().is_none() {
        return;
    }
    // The arrays that end on the reply's last line: one, and those it nests in.
    let last = last_line(completion);
    let ending: Vec<usize> = counts
        .iter()
        .filter(|&&(_, end)| end == last)
        .map(|&(header, _)| header)
        .collect();
    for r in corrected {
        if ending.contains(&r.line) {
            r.detail.push_str(
                "; the reply ends in it, so the rest may have been cut off: pass the server's finish_reason (ReplyOptions::finish_reason) to know",
            );
        }
    }
}

/// A refusal in the light of the finish reason: any refusal of a reply the
/// token limit ended is `Truncated`; a reply that ended normally is never
/// called cut off.
pub(crate) fn settle_error(
    e: ParseError,
    completion: &str,
    options: &ReplyOptions,
    missing: &dyn Fn(usize) -> Option<String>,
) -> ParseError {
    match options.finish_reason {
        _ if e.kind() == ParseErrorKind::LimitExceeded => e,
        finish if finish.cut().is_some() && e.kind() == ParseErrorKind::Truncated => e,
        finish if finish.cut().is_some() => {
            let (what, todo) = finish.cut().unwrap_or_default();
            e.cut_by_server(what, todo, last_line(completion))
        }
        FinishReason::Stop if e.kind() == ParseErrorKind::Truncated => e.not_cut(),
        // Every row of a table dropped, the first for a cell only one column can be missing from.
        _ if e.kind() == ParseErrorKind::Syntax && e.line().and_then(missing).is_some() => {
            let column = e.line().and_then(missing).unwrap_or_default();
            ParseError::new(
                ParseErrorKind::MissingField,
                e.line(),
                format!("the row has no `{column}`: every row of the table needs a value for it"),
            )
            .advise(Advice::NoRowReads)
        }
        // Fields missing after a table that declared more rows than the
        // reply holds, at its end: a cut as likely as a field left out.
        FinishReason::Unknown
            if e.kind() == ParseErrorKind::MissingField && ends_in_a_short_table(completion) =>
        {
            e.advise(Advice::ShortTable)
        }
        // A key written twice, or a second answer, is whole, on whatever
        // line: no cut makes one.
        FinishReason::Unknown
            if e.kind() == ParseErrorKind::Syntax
                && e.line() == Some(last_line(completion))
                && !e.is_whole() =>
        {
            e.advise(Advice::LastLine)
        }
        _ => e,
    }
}

/// A reply with dropped rows: reported and kept, unless the caller refuses any,
/// or the dropped row is the reply's last line and nothing says whether the
/// reply was cut there.
fn dropped_rows<T>(
    reply: Reply<T>,
    completion: &str,
    finish: FinishReason,
    options: &ReplyOptions,
    short_rows: &[usize],
    missing: &dyn Fn(usize) -> Option<String>,
) -> Result<Reply<T>, ParseError> {
    if !reply
        .repairs
        .iter()
        .any(|r| r.kind == RepairKind::DroppedRow)
    {
        return Ok(reply);
    }
    let last = last_line(completion);
    let cut_here = |line: usize| {
        finish == FinishReason::Unknown
            && line == last
            && (short_rows.contains(&line) || missing(line).is_some())
    };
    let Some(row) = reply
        .repairs
        .iter()
        .filter(|r| r.kind == RepairKind::DroppedRow)
        .find(|r| options.refuse_dropped_rows || cut_here(r.line))
    else {
        return Ok(reply);
    };
    let (kind, what) = match missing(row.line) {
        Some(column) => (
            ParseErrorKind::MissingField,
            format!("the row has no `{column}`"),
        ),
        None => (
            ParseErrorKind::Syntax,
            format!("the row cannot be read ({})", row.detail),
        ),
    };
    let advice = if options.refuse_dropped_rows {
        Advice::RefusedDrop
    } else {
        Advice::ShortLastRow
    };
    Err(ParseError::new(kind, Some(row.line), what).advise(advice))
}

/// Does the completion end on a row of a table that declares more rows
/// than it has (asked only of a refusal)?
#[cold]
fn ends_in_a_short_table(completion: &str) -> bool {
    let lines: Vec<std::borrow::Cow<'_, str>> =
        completion.lines().map(std::borrow::Cow::Borrowed).collect();
    lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .is_some_and(|last| super::classify::expecting_rows_at(&lines, last).is_some())
}

/// The 1-based number of the completion's last non-blank line (asked only
/// where a rule needs it, so a reply that reads costs no second look).
fn last_line(completion: &str) -> usize {
    let end = completion.trim_end().len();
    memchr::memchr_iter(b'\n', &completion.as_bytes()[..end]).count() + 1
}
