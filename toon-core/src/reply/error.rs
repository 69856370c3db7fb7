//! `ParseError`: why a model's reply could not be read, and where.

use std::fmt;

use crate::spec::error::DecodeError;
use crate::spec::node::At;

/// What an empty object where the type wants a struct with fields is told:
/// the model said nothing of the struct, which is not each field missing.
/// The whole reply `{}`:
pub(crate) const EMPTY_REPLY_OBJECT: &str = "the reply is an empty object, none of the type's fields is in it: an answer must use the keys the prompt shows";
/// An empty object inside the reply:
pub(crate) const EMPTY_OBJECT: &str = "the object is empty, none of the type's fields is in it: write its fields as the prompt shows, an optional one as null";

/// What kind of failure a [`ParseError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The reply is empty, or nothing is left once reasoning blocks, fences and
    /// prose are stripped. A model that said nothing never reads as "found nothing".
    EmptyCompletion,
    /// The reply was cut off, named only on evidence: the server's finish reason
    /// said `length` ([`ReplyOptions::finish_reason`](crate::ReplyOptions)), or,
    /// where it is unknown, the text ends inside a quoted string, an unclosed
    /// header, JSON value or reasoning block. The usual cause is the token limit
    /// (`max_tokens`). A short last row alone is not evidence: it is `Syntax` or
    /// `MissingField`, saying that the finish reason decides.
    Truncated,
    /// Lines disagree about depth so that no single indentation unit explains
    /// them; the decoder refuses to guess the structure.
    AmbiguousNesting,
    /// The reply is TOON (or JSON) that the repairs cannot make readable.
    Syntax,
    /// A field the type requires is missing.
    MissingField,
    /// The reply is longer or nests deeper than the decoder's limits
    /// ([`ReplyOptions`](crate::ReplyOptions), [`DecodeOptions::max_depth`](crate::spec::DecodeOptions::max_depth)).
    LimitExceeded,
    /// A value has the wrong type for its field (a word where a number belongs,
    /// an unknown enum value).
    InvalidValue,
    /// The value reads, but a check refused it: a field's constraint
    /// (`#[toon(range(..))]`, `length(..)`, `pattern = ".."`) or the caller's own
    /// ([`ToonOutputParser::validate`](crate::ToonOutputParser::validate)).
    /// A parse proves shape, not truth; the value is never clamped or dropped.
    Constraint,
}

impl ParseErrorKind {
    /// A short name, for logs and metrics.
    pub const fn as_str(self) -> &'static str {
        match self {
            ParseErrorKind::EmptyCompletion => "empty completion",
            ParseErrorKind::Truncated => "truncated",
            ParseErrorKind::AmbiguousNesting => "ambiguous nesting",
            ParseErrorKind::Syntax => "syntax",
            ParseErrorKind::MissingField => "missing field",
            ParseErrorKind::LimitExceeded => "limit exceeded",
            ParseErrorKind::InvalidValue => "invalid value",
            ParseErrorKind::Constraint => "constraint",
        }
    }
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a refusal is about, beyond its kind: what the finish reason is
/// weighed against when the error is settled (see `finish::settle_error`).
#[derive(Debug, Clone, PartialEq)]
enum Cause {
    /// No more than its words say.
    Plain,
    /// Something whole (two answers, a key written twice): no cut of the
    /// reply makes it, wherever it stands.
    Whole,
    /// The reply stops before its end: inside its reasoning (the answer never
    /// began) or not, and what failed there, for when the server says the
    /// reply was not cut.
    Cut { in_reasoning: bool, what: String },
}

/// What the caller is told beyond what the model is: how the finish reason
/// and the options were weighed, where the refusal is settled
/// (`finish::settle_error`). In the message, never in the retry turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Advice {
    /// A syntax error on the reply's last line, with no word from the server
    /// on how the reply ended: the model's slip or a cut.
    LastLine,
    /// A field missing from a reply that ends inside a table still short of
    /// the rows its header declares: cut off there, or the rest left out.
    ShortTable,
    /// The server says the reply ended normally (`finish_reason: stop`).
    NotCut,
    /// Every row of a table lacks the one column named.
    NoRowReads,
    /// A dropped row, refused as the caller asked
    /// ([`ReplyOptions::refuse_dropped_rows`](crate::ReplyOptions)).
    RefusedDrop,
    /// A dropped row short of cells on the reply's last line, with no word
    /// from the server on how the reply ended.
    ShortLastRow,
}

impl Advice {
    /// The words, with those that join them to what the message says.
    fn words(self) -> &'static str {
        match self {
            Advice::LastLine => "; it is the reply's last line: if the server stopped the reply at its token limit, it was cut off there (pass the server's finish_reason, ReplyOptions::finish_reason, to have it named so)",
            Advice::ShortTable => "; the reply ends inside a table short of the rows its header declares, so it was either cut off by the token limit or the model left the rest out: pass the server's finish_reason (ReplyOptions::finish_reason) to decide which",
            Advice::NotCut => "; the server says the reply ended normally (finish_reason: stop), so it was not cut off: the model wrote it this way",
            Advice::NoRowReads => "; the model left it out, and no row of the table can be read without it",
            Advice::RefusedDrop => "; dropping it would lose a record, and ReplyOptions::refuse_dropped_rows is set",
            Advice::ShortLastRow => ", and it is the reply's last line, short of cells: the reply was either cut off by the token limit or the model left a cell out; pass the server's finish_reason (ReplyOptions::finish_reason) to decide which",
        }
    }
}

/// The format a reply was asked for: what a refusal asks for again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// The type's TOON (a JSON reply is read too, as a fallback).
    Toon,
    /// One JSON value: a `response_format` reply or a tool call's arguments.
    Json,
}

impl Format {
    /// The format in the retry turn's words.
    fn words(self) -> &'static str {
        match self {
            Format::Toon => "TOON, exactly as the instructions show",
            Format::Json => "one JSON value, as the instructions describe",
        }
    }
}

/// A model reply that could not be read without guessing.
///
/// Its `Display` starts with `TOON_PARSE_FAILURE: ` (`JSON_PARSE_FAILURE: `
/// for a reply asked for as JSON) so that it is easy to find in logs, then
/// says where (line of the completion, or field path) and what to do.
///
/// ```
/// let err = toon_core::decode_reply("   \n").unwrap_err();
/// assert_eq!(err.kind(), toon_core::ParseErrorKind::EmptyCompletion);
/// assert_eq!(err.to_string(), "TOON_PARSE_FAILURE: empty model completion");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError(Box<Inner>);

// Boxed so that `Result<T, ParseError>` stays one pointer wide on the error side.
#[derive(Debug, Clone, PartialEq)]
struct Inner {
    kind: ParseErrorKind,
    line: Option<usize>,
    path: Option<String>,
    /// What went wrong, in the words the model's retry turn gives too.
    said: String,
    /// What the caller is told besides: in the message, not in the retry turn.
    advice: Option<Advice>,
    /// `said`, then `advice`.
    message: String,
    source: Option<DecodeError>,
    cause: Cause,
    /// The format the reply was to be in, for the retry turn and the
    /// `Display` prefix.
    format: Option<Format>,
    /// The 1-based column of the value the error is about, on its line.
    column: Option<usize>,
    /// Where that value stands on its line, until the reader that knows the
    /// text read turns it into a column (see [`ParseError::placed_in`]).
    spot: Spot,
}

/// A value's place on its line, travelling with the error, turned into a
/// column only when the error is returned. Not part of the error's identity:
/// two errors at the same line and column are equal.
#[derive(Clone, Copy, Default)]
struct Spot(At);

impl PartialEq for Spot {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl fmt::Debug for Spot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("_")
    }
}

impl ParseError {
    pub(crate) fn new(
        kind: ParseErrorKind,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        let said: String = message.into();
        ParseError(Box::new(Inner {
            kind,
            line,
            path: None,
            message: said.clone(),
            said,
            advice: None,
            source: None,
            cause: Cause::Plain,
            format: None,
            column: None,
            spot: Spot::default(),
        }))
    }

    /// `advice` to the caller after what the message says, which the
    /// model's retry turn leaves out.
    pub(crate) fn advise(mut self, advice: Advice) -> Self {
        self.0.advice = Some(advice);
        self.render();
        self
    }

    /// The message from its parts, after one changed.
    fn render(&mut self) {
        let inner = &mut *self.0;
        inner.message.clone_from(&inner.said);
        inner
            .message
            .push_str(inner.advice.map_or("", Advice::words));
    }

    /// A reply that stops mid-document; `what` is what failed there.
    pub(crate) fn truncated(
        line: Option<usize>,
        message: impl Into<String>,
        what: impl Into<String>,
    ) -> Self {
        ParseError::cut(line, message, false, what.into())
    }

    /// A reply that stops inside its reasoning, before its answer began.
    pub(crate) fn truncated_in_reasoning(
        line: Option<usize>,
        message: impl Into<String>,
        what: impl Into<String>,
    ) -> Self {
        ParseError::cut(line, message, true, what.into())
    }

    fn cut(
        line: Option<usize>,
        message: impl Into<String>,
        in_reasoning: bool,
        what: String,
    ) -> Self {
        let mut e = ParseError::new(ParseErrorKind::Truncated, line, message);
        e.0.cause = Cause::Cut { in_reasoning, what };
        e
    }

    /// What the error is about is whole: a cut of the reply cannot explain it,
    /// even on its last line (see [`Advice::LastLine`]).
    pub(crate) fn whole(mut self) -> Self {
        self.0.cause = Cause::Whole;
        self
    }

    /// Whether [`whole`](Self::whole) was said of it.
    pub(crate) fn is_whole(&self) -> bool {
        self.0.cause == Cause::Whole
    }

    /// The same failure read as the model's own doing, once the server has
    /// said that the reply ended normally (`finish_reason: stop`).
    pub(crate) fn not_cut(self) -> Self {
        let inner = *self.0;
        let what = match &inner.cause {
            Cause::Cut { what, .. } => what.clone(),
            _ => inner.message.clone(),
        };
        // What the server said is the caller's to know, not the model's.
        ParseError::reworded(inner, ParseErrorKind::Syntax, what).advise(Advice::NotCut)
    }

    /// The same failure in a reply the server says it cut off (`what` cut
    /// it, `todo` is what to do): `Truncated`, whatever it was, saying what
    /// did not read; on the reply's `last` line where it had none.
    pub(crate) fn cut_by_server(self, what: &str, todo: &str, last: usize) -> Self {
        let mut inner = *self.0;
        inner.line = inner.line.or(Some(last));
        let said = format!(
            "{what}, and what it wrote does not read ({}); {todo}",
            inner.message
        );
        ParseError::reworded(inner, ParseErrorKind::Truncated, said)
    }

    /// `inner` as a refusal of `kind` saying `said`, in the same place (line,
    /// column, field path) and from the same decoder error.
    fn reworded(inner: Inner, kind: ParseErrorKind, said: String) -> Self {
        ParseError(Box::new(Inner {
            kind,
            message: said.clone(),
            said,
            advice: None,
            cause: Cause::Plain,
            ..inner
        }))
    }

    pub(crate) fn empty() -> Self {
        ParseError::new(
            ParseErrorKind::EmptyCompletion,
            None,
            "empty model completion",
        )
    }

    /// An error at a field path, on the line its value stood on (if known).
    pub(crate) fn at_path(
        kind: ParseErrorKind,
        line: Option<usize>,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        let mut e = ParseError::new(kind, line, message);
        e.0.path = Some(path.into());
        e
    }

    /// The error's value is at this 1-based column of its line.
    pub(crate) fn at_column(mut self, column: Option<usize>) -> Self {
        self.0.column = column;
        self
    }

    /// Places an error that has no field path yet at `path`.
    pub(crate) fn or_at_path(mut self, path: Option<String>) -> Self {
        self.0.path = self.0.path.or(path);
        self
    }

    /// The error is about the value that stands there on the error's line.
    pub(crate) fn about(mut self, at: At) -> Self {
        self.0.spot = Spot(at);
        self
    }

    /// Turns the place of the value the error is about into its column on the
    /// error's line of `completion`, from that line of `read` (the completion,
    /// or the repaired text read in its place, which keeps the completion's
    /// lines), where that line is the completion's own or its end (a line the
    /// repairs shifted left). A line the repairs rewrote otherwise gets none.
    pub(crate) fn placed_in(mut self, completion: &str, read: &str) -> Self {
        let (Spot(at), Some(line)) = (std::mem::take(&mut self.0.spot), self.0.line) else {
            return self;
        };
        self.0.column = column_of(completion, read, line, at);
        self
    }

    /// Places an error that has no line yet on `line`.
    pub(crate) fn or_at_line(mut self, line: Option<usize>) -> Self {
        self.0.line = self.0.line.or(line);
        self
    }

    pub(crate) fn with_source(mut self, source: DecodeError) -> Self {
        self.0.source = Some(source);
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ParseErrorKind {
        self.0.kind
    }

    /// The 1-based column, in characters, where the error is on its
    /// [`line`](Self::line). For a value the type refuses (an enum value no
    /// variant has, text where a number belongs), where that value's text
    /// begins in the completion; `None` where the text does not show it (a
    /// missing field, a line the repairs rewrote, a value read from a stream's
    /// event). For a syntax error, the decoder's column in the text it read:
    /// the completion, or the completion as the repairs left it. In a JSON
    /// reply, where serde_json stopped reading (the end of the value it
    /// refused), on a line the reply shows as written; `None` once the JSON
    /// was mended.
    pub fn column(&self) -> Option<usize> {
        self.0
            .column
            .or_else(|| self.0.source.as_ref().map(DecodeError::column))
    }

    /// The 1-based line of the completion where the problem is, when it has one.
    pub fn line(&self) -> Option<usize> {
        self.0.line
    }

    /// The path of the field the problem is in (`violations[1].severity`), for typed decoding.
    pub fn path(&self) -> Option<&str> {
        self.0.path.as_deref()
    }

    /// The message, without the `TOON_PARSE_FAILURE: ` prefix or the location.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The spec decoder's error behind a syntax failure, if there is one.
    pub fn decode_error(&self) -> Option<&DecodeError> {
        self.0.source.as_ref()
    }

    /// The user turn that asks the model to answer again: what was wrong and
    /// where (line, field path, what it wrote, what is allowed), in a few lines,
    /// and to answer in the format it was asked for. For the next request, after
    /// the model's own reply (see [`ToonOutputParser::parse_with_retries`](crate::ToonOutputParser::parse_with_retries)).
    ///
    /// ```
    /// use toon_core::Toon;
    /// let err = <Vec<u8>>::from_toon("[2]: 7,lots").unwrap_err();
    /// let turn = err.retry_prompt();
    /// assert!(turn.starts_with("Your answer could not be used."), "{turn}");
    /// assert!(turn.contains("`[1]`: expected a whole number, found the text `lots`"), "{turn}");
    /// ```
    pub fn retry_prompt(&self) -> String {
        let mut place = Vec::new();
        if let Some(line) = self.0.line {
            place.push(format!("line {line}"));
        }
        if let Some(path) = &self.0.path {
            place.push(format!("`{path}`"));
        }
        let place = if place.is_empty() {
            String::new()
        } else {
            format!("At {}: ", place.join(", "))
        };
        // A sentence of its own when no place leads it in.
        let sentence = |said: &str| {
            let mut chars = said.chars();
            match chars.next() {
                Some(c) if place.is_empty() => format!("{}{}", c.to_uppercase(), chars.as_str()),
                _ => format!("{place}{said}"),
            }
        };
        let format = self
            .0
            .format
            .map_or("the format the instructions show", Format::words);
        // An answer that is not there, or was too long, has nothing to keep.
        let again = format!("Write the whole answer again, in {format}.");
        let (what, again) = match self.0.kind {
            ParseErrorKind::EmptyCompletion => ("You wrote no answer.".to_owned(), again),
            // Out of room while reasoning: the answer was never begun.
            ParseErrorKind::Truncated
                if matches!(self.0.cause, Cause::Cut { in_reasoning: true, .. }) =>
            {
                (
                    sentence("the reasoning never ended, so the answer never began. Reason briefly, close the reasoning, then write the answer."),
                    again,
                )
            }
            ParseErrorKind::Truncated => (
                sentence("the answer stops before its end. Give a shorter answer: fewer items, shorter texts."),
                again,
            ),
            ParseErrorKind::LimitExceeded => (
                sentence("the answer is far too long or too deeply nested. Give a short answer, nested no deeper than the format shows."),
                again,
            ),
            _ => {
                let said = self.0.said.trim_end_matches(['.', ';', ',', ' ']);
                (
                    format!("{}.", sentence(said)),
                    format!("Write the whole answer again, in {format}, with this fixed; keep everything else as it was."),
                )
            }
        };
        format!("Your answer could not be used. {what}\n{again}")
    }

    /// Adds `note` to what the message says, before its advice to the caller,
    /// so that the retry turn carries it too.
    pub(crate) fn also(mut self, note: &str) -> Self {
        let said = &mut self.0.said;
        let end = said.trim_end_matches(['.', ';', ' ']).len();
        said.insert_str(end, &format!("; {note}"));
        self.render();
        self
    }

    /// The format the reply was read in, for [`retry_prompt`](Self::retry_prompt).
    pub(crate) fn in_format(mut self, format: Format) -> Self {
        self.0.format = Some(format);
        self
    }
}

/// The 1-based column on `line` of `completion` of the value at `at` on that
/// line of `read`; see [`ParseError::placed_in`].
fn column_of(completion: &str, read: &str, line: usize, at: At) -> Option<usize> {
    let line_of = |text| {
        let l = crate::spec::lines::raw_lines(text).nth(line.checked_sub(1)?)?;
        Some(l.strip_suffix('\r').unwrap_or(l))
    };
    let read = line_of(read)?;
    let offset = match at {
        At::Unknown => return None,
        At::Byte(at) => at,
        // The cell as the decoder cut it from the row.
        At::Cell(i, delim) => {
            let indent = read.len() - read.trim_start_matches(' ').len();
            let content = read[indent..].trim_end_matches(' ');
            indent
                + crate::spec::lex::split_unquoted_spans(content, delim)
                    .nth(i)?
                    .0
        }
    };
    let own = line_of(completion)?;
    // The line as read is the completion's, or its end: the same text, shifted.
    let shift = own.len().checked_sub(read.len())?;
    if !own.ends_with(read) {
        return None;
    }
    own.get(..shift + offset)
        .map(|prefix| prefix.chars().count() + 1)
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0.format {
            Some(Format::Json) => "JSON_PARSE_FAILURE: ",
            _ => "TOON_PARSE_FAILURE: ",
        })?;
        if let Some(line) = self.0.line {
            write!(f, "line {line}")?;
            // A value's own column; a syntax error's is in its message already.
            if let Some(column) = self.0.column {
                write!(f, ", column {column}")?;
            }
        }
        match (&self.0.line, &self.0.path) {
            (Some(_), Some(path)) => write!(f, ", at `{path}`: ")?,
            (Some(_), None) => f.write_str(": ")?,
            (None, Some(path)) => write!(f, "at `{path}`: ")?,
            (None, None) => {}
        }
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for ParseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source.as_ref().map(|e| e as _)
    }
}
