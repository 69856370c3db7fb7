//! The tolerant reply decoder: a model's completion to a JSON value, repairing a
//! fixed set of formatting mistakes and refusing what cannot be read without guessing.

mod beside;
pub(crate) mod classify;
mod error;
mod finish;
mod forgive;
pub(crate) mod json;
mod json_de;
mod json_locate;
mod json_mend;
mod json_path;
mod json_scan;
pub(crate) mod layout;
mod report;
pub(crate) mod strip;
mod tool_call;
mod wrapped;

use crate::reply::layout::is_blank;
use std::borrow::Cow;

use serde_json::Value;

pub(crate) use error::Format;
pub use error::{ParseError, ParseErrorKind};
pub(crate) use error::{EMPTY_OBJECT, EMPTY_REPLY_OBJECT};
pub use finish::FinishReason;
pub(crate) use finish::{settle, settle_error};
pub(crate) use json_locate::line_of_path;
pub use json_path::from_json_serde;
pub(crate) use json_path::json_guided;
pub use report::{Repair, RepairKind, Reply};
pub use wrapped::Wrapped;

use crate::spec::decode::{decode_with, Spec};
use crate::spec::error::{DecodeError, DecodeErrorKind};
use crate::spec::header::Field;
use crate::spec::node::Node;
use crate::spec::options::DecodeOptions;
pub(crate) use forgive::Mend;
use forgive::{Forgiving, Note};

/// How the reply decoders read a reply: limits, what the server said about how
/// the reply ended, and whether a dropped row refuses the reply. The defaults
/// suit model replies.
///
/// ```
/// use toon_core::{reply, FinishReason, ParseErrorKind, ReplyOptions};
/// // A reply the server cut at its token limit is never read as complete.
/// let cut = ReplyOptions { finish_reason: FinishReason::Length, ..Default::default() };
/// let err = reply::read("answer: Par", &cut).unwrap_err();
/// assert_eq!(err.kind(), ParseErrorKind::Truncated);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyOptions {
    /// The deepest nesting accepted (default 128); deeper is `LimitExceeded`.
    pub max_depth: usize,
    /// The longest reply accepted, in bytes (default 16 MiB), prose fields
    /// included; longer is `LimitExceeded`, refused before any work, so memory
    /// stays bounded (a `ToonStream` stops keeping the text past it).
    pub max_bytes: usize,
    /// How the server said the reply ended (default `Unknown`): `Length` makes
    /// any reply that does not read (other than one over a limit), and any TOON
    /// reply at all, `Truncated`;
    /// `Stop` means nothing is ever called `Truncated`; `Unknown` leaves it to
    /// what the text shows (an unclosed quoted string, header or JSON value).
    pub finish_reason: FinishReason,
    /// Refuse a reply with any dropped row (default false: a malformed row of a
    /// table is dropped and reported as `dropped_row`, the rest kept).
    pub refuse_dropped_rows: bool,
}

impl Default for ReplyOptions {
    fn default() -> Self {
        ReplyOptions {
            max_depth: 128,
            max_bytes: 16 << 20,
            finish_reason: FinishReason::Unknown,
            refuse_dropped_rows: false,
        }
    }
}

/// Decodes a model's reply into a JSON value, repairing what small models get wrong.
///
/// A reply that is already a valid TOON document decodes exactly as
/// [`decode`](crate::spec::decode) would, with no repair. Otherwise the reply
/// decoder strips what surrounds the document, repairs the mistakes listed on
/// [`RepairKind`], and reads a JSON reply as JSON. It never changes a value:
/// cell texts, numbers and keys survive byte for byte.
///
/// ```
/// use serde_json::json;
/// let reply = "Here is the result:\n```toon\nviolations[3]{category,severity}:\n    privacy,HIGH\n    safety,LOW\n```";
/// let value = toon_core::decode_reply(reply).unwrap();
/// assert_eq!(value, json!({"violations": [
///     {"category": "privacy", "severity": "HIGH"},
///     {"category": "safety", "severity": "LOW"},
/// ]}));
/// ```
///
/// # Errors
/// A [`ParseError`] whose [`kind`](ParseError::kind) says why: an empty reply
/// ([`EmptyCompletion`](ParseErrorKind::EmptyCompletion)), one cut off by the
/// token limit ([`Truncated`](ParseErrorKind::Truncated)), indentation that
/// admits more than one structure ([`AmbiguousNesting`](ParseErrorKind::AmbiguousNesting)),
/// a reply over the default limits ([`LimitExceeded`](ParseErrorKind::LimitExceeded)),
/// or anything else the repairs cannot mend ([`Syntax`](ParseErrorKind::Syntax)).
pub fn decode_reply(completion: &str) -> Result<Value, ParseError> {
    read(completion, &ReplyOptions::default()).map(|r| r.value)
}

/// [`decode_reply`] with the server's finish reason and limits
/// ([`ReplyOptions`]), also returning every repair applied and the line it
/// was on.
///
/// ```
/// use toon_core::{reply, ParseErrorKind, RepairKind, ReplyOptions};
/// let read = reply::read("tags[5]: a,b,c", &ReplyOptions::default()).unwrap();
/// assert_eq!(read.value["tags"].as_array().unwrap().len(), 3);
/// assert_eq!(read.repairs[0].kind, RepairKind::CorrectedLength);
/// assert_eq!(read.repairs[0].line, 1);
///
/// let tight = ReplyOptions { max_bytes: 8, ..Default::default() };
/// let err = reply::read("answer: far too long", &tight).unwrap_err();
/// assert_eq!(err.kind(), ParseErrorKind::LimitExceeded);
/// ```
///
/// # Errors
/// As [`decode_reply`], and `LimitExceeded` past a limit.
pub fn read(completion: &str, options: &ReplyOptions) -> Result<Reply<Value>, ParseError> {
    let mut findings = Findings::default();
    let mut buf = String::new();
    let result =
        decode_reply_guided(completion, &mut buf, None, options, &mut findings).map(|g| Reply {
            value: g.value.into_value(),
            repairs: g.repairs,
        });
    settle(result, completion, options, &findings)
}

/// A key token as text: a quoted key unescaped, an unquoted one as written.
pub(crate) fn key_text(token: &str) -> String {
    if token.starts_with('"') {
        crate::spec::lex::parse_quoted(token).unwrap_or_else(|_| token.to_owned())
    } else {
        token.to_owned()
    }
}

/// Refuses a reply over `max_bytes` before any work is done on it.
fn too_long(completion: &str, options: &ReplyOptions) -> Result<(), ParseError> {
    too_many_bytes(completion.len(), options)
}

/// Refuses a reply of `len` bytes over `max_bytes`: [`too_long`] for a reply
/// known only by its length (a stream that stopped keeping its text).
pub(crate) fn too_many_bytes(len: usize, options: &ReplyOptions) -> Result<(), ParseError> {
    if len <= options.max_bytes {
        return Ok(());
    }
    Err(ParseError::new(
        ParseErrorKind::LimitExceeded,
        None,
        format!(
            "the reply is {len} bytes, over the limit of {} (ReplyOptions::max_bytes); a reply this long is usually a model looping until its token limit",
            options.max_bytes
        ),
    ))
}

/// What the expected type adds to the reply decoder (the typed decoder's guide).
pub(crate) trait Guide {
    /// Does this line start the document (a known key, however malformed)? Lines
    /// before the first line that starts a document are prose.
    fn starts_document(&self, line: &str) -> bool;
    /// Text repairs run on the stripped lines of a TOON reply before the untyped
    /// ones.
    fn repair(&self, lines: &mut [Cow<'_, str>], repairs: &mut Vec<Repair>);
    /// How the type reads `row`, a row of the top-level table `key` whose
    /// cells are not as many as its header's `fields` name, where only one
    /// reading fits; asked by the decoder when it meets such a row.
    fn mend_row(&self, key: &str, fields: &[Field], delim: char, row: &str) -> Option<Mend>;
}

/// A decoded reply, each value placed on its line of the completion.
pub(crate) struct Guided<'c> {
    /// Borrows the completion where it was decoded as it stands.
    pub value: Node<'c>,
    pub repairs: Vec<Repair>,
}

/// What the reply decoder learns of the rows it dropped or mended and the
/// counts it corrected: the refusal or report that follows names a cut or a
/// missing cell by it. The missing cells are kept whether the decode
/// succeeds or not (its refusal may be such a row); the rest come with a
/// decode that succeeds.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    /// The lines of dropped rows that had fewer cells than their header.
    pub short_rows: Vec<usize>,
    /// Rows short of a required cell that only one column can be missing
    /// from, as the guide reads them: (line, that column). Each list is in
    /// the order the decoder met the lines.
    pub missing_cells: Vec<(usize, String)>,
    /// Every row the decoder dropped: (its line, its table's header line).
    pub dropped_rows: Vec<(usize, usize)>,
    /// Every count the decoder corrected: (its header's line, the line its
    /// values end on).
    pub counts: Vec<(usize, usize)>,
}

impl Findings {
    /// The required column the short row on `line` is missing, if only one can be.
    pub(crate) fn missing_cell(&self, line: usize) -> Option<String> {
        let at = by_line(&self.missing_cells, line)?;
        Some(self.missing_cells[at].1.clone())
    }

    /// The header line of the table whose row on `line` was dropped.
    pub(crate) fn dropped_header(&self, line: usize) -> Option<usize> {
        Some(self.dropped_rows[by_line(&self.dropped_rows, line)?].1)
    }
}

/// Where the finding about `line` is in `found`, which holds findings in
/// the order the decoder met their lines: looked up in time logarithmic in
/// them, as a reply may drop a row on every line.
fn by_line<T>(found: &[(usize, T)], line: usize) -> Option<usize> {
    found.binary_search_by_key(&line, |(l, _)| *l).ok()
}

/// Refuses a TOON line with a carriage return before its end. Shown, what
/// follows it stands on a line of its own (`a: x\rb: y` as two fields); read,
/// it is the line's own text (one value, the next key swallowed): two
/// readings. (A CR ending a line is its line break's, §12; in JSON, one
/// outside a string is white space, inside one it is refused as JSON.)
fn lone_return<'l>(
    completion: &str,
    mut lines: impl Iterator<Item = &'l str>,
) -> Result<(), ParseError> {
    // Most completions hold no carriage return but before a line feed: their
    // lines are looked at only where one stands elsewhere.
    let bytes = completion.as_bytes();
    let lone = |at: usize| bytes.get(at + 1).is_some_and(|&b| b != b'\n');
    if !memchr::memchr_iter(b'\r', bytes).any(lone) {
        return Ok(());
    }
    match lines.position(|l| l.strip_suffix('\r').unwrap_or(l).contains('\r')) {
        None => Ok(()),
        Some(i) => Err(ParseError::new(
            ParseErrorKind::Syntax,
            Some(i + 1),
            "a carriage return (\\r) stands inside the line, not at its end: shown, what follows it is a line of its own, read, it is this line's text, and which was meant is not known; end each line with a line feed (\\n)",
        )),
    }
}

/// Blank lines and comment lines only: nothing a document could hold.
pub(crate) fn says_nothing<'l>(mut lines: impl Iterator<Item = &'l str>) -> bool {
    lines.all(|l| is_blank(l) || l.trim_start_matches(' ').starts_with('#'))
}

/// The reply decoder, with an optional guide.
pub(crate) fn decode_reply_guided<'c>(
    completion: &'c str,
    buf: &'c mut String,
    guide: Option<&dyn Guide>,
    options: &ReplyOptions,
    findings: &mut Findings,
) -> Result<Guided<'c>, ParseError> {
    too_long(completion, options)?;
    let spec = DecodeOptions {
        max_depth: options.max_depth,
        ..DecodeOptions::default()
    };
    if says_nothing(completion.lines()) {
        // Blank, or only comment lines: the model said nothing (the spec decoder
        // would read `{}`, which is "found nothing").
        return Err(ParseError::empty());
    }
    // Repairs apply only where the text would otherwise fail. A reply wrapped in
    // reasoning, fences or prose is never a document as it stands, even when it
    // happens to parse (reasoning as a lone string, a preamble as a key).
    if !strip::needs_stripping(completion) {
        if let Ok(value) = decode_with(completion, &spec, &mut Spec) {
            lone_return(completion, crate::spec::lines::raw_lines(completion))?;
            return Ok(Guided {
                value,
                repairs: Vec::new(),
            });
        }
    }
    let mut repairs = Vec::new();
    let mut lines = strip::strip(completion, &mut repairs, guide)?;
    // What is left once the wrappers are gone: a fence or reasoning around
    // nothing but comments is a model that said nothing, too.
    if says_nothing(lines.iter().map(|l| &**l)) {
        return Err(ParseError::empty());
    }
    let json = json::looks_like_json(&lines);
    if !json {
        lone_return(completion, lines.iter().map(|l| &**l))?;
    }
    let value = if json {
        Node::from(json::decode_json(
            completion,
            &lines,
            &mut repairs,
            options.max_depth,
        )?)
    } else {
        let counted = layout::count_placeholders(&mut lines, &mut repairs);
        layout::hash_rows(&mut lines, &mut repairs);
        if let Some(guide) = guide {
            guide.repair(&mut lines, &mut repairs);
        }
        let d = decode_repaired(
            completion,
            lines,
            &mut repairs,
            &counted,
            &spec,
            buf,
            (guide, &mut findings.missing_cells),
        )?;
        for note in &d.notes {
            match *note {
                Note::DroppedRow {
                    line,
                    header,
                    short,
                    ..
                } => {
                    findings.dropped_rows.push((line, header));
                    if short {
                        findings.short_rows.push(line);
                    }
                }
                Note::Count { line, last, .. } => findings.counts.push((line, last)),
                _ => {}
            }
        }
        d.value
    };
    repairs.sort_by_key(|r| r.line);
    Ok(Guided { value, repairs })
}

/// The TOON repairs that need the text, then a lenient decode for the rest,
/// of the repaired text written once into `buf`, which what is decoded borrows.
fn decode_repaired<'b>(
    completion: &str,
    mut lines: Vec<Cow<'_, str>>,
    repairs: &mut Vec<Repair>,
    counted: &[usize],
    spec: &DecodeOptions,
    buf: &'b mut String,
    (guide, missing): (Option<&dyn Guide>, &mut Vec<(usize, String)>),
) -> Result<Decoded<'b>, ParseError> {
    let (shift, indent_size) = layout::relevel(&mut lines, repairs);
    layout::add_header_colons(&mut lines, repairs);
    join_into(buf, &lines);
    let text: &'b String = buf;
    let options = DecodeOptions {
        indent_size,
        ..spec.clone()
    };
    let first_try = forgiving(text, &options, guide, missing);
    let outcome = match first_try {
        Err(e) if is_indentation(&e) => {
            // No single unit explains the indentation; read each line's depth from
            // the lines around it instead, or refuse where a dedent matches no level.
            // The lines as re-levelled by the shift: each is read by the lines
            // around it, and the colons added stay added.
            let mut relevelled = lines;
            match layout::relevel_by_context(&mut relevelled, shift) {
                Err(line) => {
                    return Err(ambiguous(
                        line,
                        "a line steps back to an indentation no enclosing line has",
                    ))
                }
                Ok(moved) => {
                    layout::add_header_colons(&mut relevelled, &mut Vec::new());
                    let text = relevelled.join("\n");
                    // This text is the function's own: what is read from it owns its strings.
                    let outcome = forgiving(&text, spec, guide, missing).map(Decoded::into_owned);
                    if outcome.is_ok() {
                        repairs.retain(|r| r.kind != RepairKind::Reindented);
                        repairs.push(Repair::new(
                            RepairKind::Reindented,
                            moved,
                            "indentation read level by level from the lines around it",
                        ));
                    }
                    outcome.map_err(|e| (e, relevelled))
                }
            }
        }
        other => other.map_err(|e| (e, lines)),
    };
    match outcome {
        Ok(d) => {
            // A header that promised values and has none (the reply ended after
            // it, or the model wrote none): its count corrected would read
            // "found nothing". Refused once the rest reads, so that an error
            // further on (rows at the margin) is the one named.
            if let Some((line, declared)) = d.notes.iter().find_map(|n| match n {
                Note::Count {
                    line,
                    declared,
                    actual: 0,
                    ..
                } => Some((*line, *declared)),
                _ => None,
            }) {
                let declares = if counted.contains(&line) {
                    "the header's count is the prompt's placeholder".to_owned()
                } else {
                    format!("the header declares {declared} value(s)")
                };
                return Err(ParseError::new(
                    ParseErrorKind::Syntax,
                    Some(line),
                    format!("{declares} and none follow; write them under it, or declare `[0]` if there are none"),
                ));
            }
            // A placeholder's count is reported as the placeholder's repair.
            let notes = d
                .notes
                .iter()
                .filter(|n| !matches!(n, Note::Count { line, .. } if counted.contains(line)));
            repairs.extend(notes.cloned().map(note_to_repair));
            Ok(d)
        }
        Err((e, lines)) => Err(classify(e, &lines, completion)),
    }
}

/// A decode of the repaired text, and what it forgave.
struct Decoded<'a> {
    value: Node<'a>,
    notes: Vec<Note>,
}

impl Decoded<'_> {
    /// The decode with its text owned, no longer borrowing the input.
    fn into_owned<'b>(self) -> Decoded<'b> {
        Decoded {
            value: self.value.into_owned(),
            notes: self.notes,
        }
    }
}

/// The specification's decoder, forgiving what the pipeline forgives, the
/// rows of the wrong width mended where `guide` reads them one way. The rows
/// short of a cell only one column can be missing from go to `missing`,
/// whether the decode succeeds or not: its refusal may be such a row.
fn forgiving<'a>(
    text: &'a str,
    options: &DecodeOptions,
    guide: Option<&dyn Guide>,
    missing: &mut Vec<(usize, String)>,
) -> Result<Decoded<'a>, DecodeError> {
    let mut forgive = Forgiving::new(guide);
    let value = decode_with(text, options, &mut forgive);
    *missing = forgive.missing;
    Ok(Decoded {
        value: value?,
        notes: forgive.notes,
    })
}

/// The lines joined by line breaks, written into `buf` (its memory reused).
fn join_into(buf: &mut String, lines: &[Cow<'_, str>]) {
    buf.clear();
    buf.reserve(lines.iter().map(|l| l.len() + 1).sum());
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            buf.push('\n');
        }
        buf.push_str(line);
    }
}

fn is_indentation(e: &DecodeError) -> bool {
    matches!(
        e.kind(),
        DecodeErrorKind::Indentation | DecodeErrorKind::UnexpectedIndent
    )
}

fn ambiguous(line: usize, detail: &str) -> ParseError {
    ParseError::new(
        ParseErrorKind::AmbiguousNesting,
        Some(line),
        format!(
            "lines disagree about depth, so the structure cannot be read without guessing ({detail}); indent each level by the same number of spaces"
        ),
    )
}

fn note_to_repair(note: Note) -> Repair {
    match note {
        Note::Count {
            line,
            declared,
            actual,
            ..
        } => Repair::new(
            RepairKind::CorrectedLength,
            line,
            // A count past `usize` is held as `usize::MAX`: not what was written.
            if declared == usize::MAX {
                format!("declared a count of {declared} or more, more than any array holds, found {actual}")
            } else {
                format!("declared [{declared}], found {actual}")
            },
        ),
        Note::BlankLine { line } => Repair::new(
            RepairKind::DroppedBlankLine,
            line,
            "blank line between rows",
        ),
        Note::DroppedRow { line, reason, .. } => Repair::new(RepairKind::DroppedRow, line, reason),
        Note::Mended { line, kind, detail } => Repair::new(kind, line, detail),
        Note::RecordBlock { line, records } => Repair::new(
            RepairKind::RecordsToTable,
            line,
            format!("{records} record(s) written as key/value blocks"),
        ),
    }
}

/// Turns the spec decoder's error into the reply decoder's: a string or a
/// bracket left open on the last line of a reply means it was cut off; an
/// indentation problem left after re-levelling means the nesting is ambiguous.
fn classify(e: DecodeError, lines: &[Cow<'_, str>], completion: &str) -> ParseError {
    use DecodeErrorKind as K;
    let last = lines
        .iter()
        .rposition(|l| !is_blank(l))
        .map_or(0, |i| i + 1);
    // The last line of the reply as the model wrote it: a closing fence or
    // prose after the document shows the reply went on past the error.
    let reply_last = crate::spec::lines::raw_lines(completion)
        .enumerate()
        .filter(|(_, l)| !is_blank(l))
        .last()
        .map_or(0, |(i, _)| i + 1);
    let on_last_line = e.line() == last && last == reply_last;
    let open_bracket = on_last_line
        && lines
            .get(last.wrapping_sub(1))
            .is_some_and(|l| leaves_open(l));
    let kind = match e.kind() {
        // What the text itself shows to be cut: a quoted string or a header left
        // open on the last line. Anything else there may be the model's own
        // mistake; the finish reason decides (see `finish`).
        // A header that is whole but malformed (`tags[two]: a,b`) is the
        // model's; one cut before its end leaves a bracket open.
        // A bad escape is a cut only where the text stops inside it (`\u00`):
        // a closed `"Par\is"` is the model's own.
        K::UnterminatedString if on_last_line => ParseErrorKind::Truncated,
        K::InvalidEscape
            if on_last_line
                && lines
                    .get(last.wrapping_sub(1))
                    .is_some_and(|l| crate::spec::lex::cut_in_escape(l)) =>
        {
            ParseErrorKind::Truncated
        }
        _ if open_bracket => ParseErrorKind::Truncated,
        K::DepthLimit => ParseErrorKind::LimitExceeded,
        K::Indentation | K::UnexpectedIndent => {
            if let Some((row, cell)) = colon_in_row(lines, e.line()) {
                return ParseError::new(
                    ParseErrorKind::Syntax,
                    Some(e.line()),
                    format!("`{}` is a row with a colon in its first cell, which makes it read as a key: quote that cell (`\"{cell}\"`)", crate::spec::lex::clip(row)),
                )
                .with_source(e);
            }
            // A tab has no width to measure a depth by: the lines may well
            // agree. Told from the line itself, not from the decoder's words.
            let tabbed = lines
                .get(e.line().wrapping_sub(1))
                .is_some_and(|l| l.trim_start_matches(' ').starts_with('\t'));
            if tabbed {
                return ParseError::new(
                    ParseErrorKind::AmbiguousNesting,
                    Some(e.line()),
                    "the line is indented with a tab, which has no width to tell its depth by: indent each level by the same number of spaces",
                )
                .with_source(e);
            }
            return ambiguous(e.line(), e.message()).with_source(e);
        }
        _ => ParseErrorKind::Syntax,
    };
    let mut plain = format!("{} (column {})", e.message(), e.column());
    if e.kind() == K::MissingColon && under_its_header(lines, e.line()) {
        plain.push_str("; a table's rows are indented under its header, one level deeper");
    }
    match kind {
        ParseErrorKind::Truncated => ParseError::truncated(
            Some(e.line()),
            truncation_message(lines, e.line(), e.message()),
            plain,
        )
        .with_source(e),
        // A key written twice is whole: no cut of the reply writes one.
        _ if e.kind() == K::DuplicateKey => ParseError::new(kind, Some(e.line()), plain)
            .with_source(e)
            .whole(),
        _ => ParseError::new(kind, Some(e.line()), plain).with_source(e),
    }
}

/// Is the 1-based `line` a row written outside the table just above it, which
/// expects rows: no deeper than its header, or less deep than its last row?
fn under_its_header(lines: &[Cow<'_, str>], line: usize) -> bool {
    use crate::reply::layout::indent_of;
    let Some(row) = lines.get(line.wrapping_sub(1)) else {
        return false;
    };
    let Some(above) = (0..line - 1).rev().find(|&i| !is_blank(&lines[i])) else {
        return false;
    };
    let outside = if layout::table_header(&lines[above]).is_some() {
        indent_of(row) <= indent_of(&lines[above])
    } else {
        indent_of(row) < indent_of(&lines[above])
    };
    outside && classify::expecting_rows_at(lines, above).is_some()
}

/// The 1-based `line` and its first cell, if it is where a table expects a
/// row and reads as one but for an unquoted colon in that cell (`10:30,start`).
fn colon_in_row<'l>(lines: &'l [Cow<'_, str>], line: usize) -> Option<(&'l str, &'l str)> {
    let row = lines.get(line.wrapping_sub(1))?;
    let above = (0..line - 1).rev().find(|&i| !is_blank(&lines[i]))?;
    let (delim, _) = classify::expecting_rows_at(lines, above)?;
    let content = row.trim();
    let colon = crate::spec::lex::find_unquoted(content, |c| c == ':')?;
    let end = crate::spec::lex::find_unquoted(content, |c| c == delim).filter(|&d| colon < d)?;
    Some((content, content[..end].trim()))
}

/// A line that opens a bracket or brace outside quotes and never closes it: a
/// header cut before its end (`violations[2]{category,sev`).
fn leaves_open(line: &str) -> bool {
    let open = crate::spec::lex::unquoted_bytes(line).fold(0i32, |open, (_, b)| match b {
        b'[' | b'{' => open + 1,
        b']' | b'}' => open - 1,
        _ => open,
    });
    open > 0
}

/// The message for a reply cut off mid-document, naming a repetition loop when
/// the lines before the cut repeat one another.
pub(crate) fn truncation_message(lines: &[Cow<'_, str>], line: usize, detail: &str) -> String {
    let mut msg = format!(
        "the reply stops mid-document ({detail}); it was probably cut off by the token limit: raise max_tokens or ask for fewer items"
    );
    if let Some(repeated) = repetition(lines, line) {
        msg.push_str(&format!(
            ". The last lines repeat one another (`{}`): the model was looping until it ran out of tokens; bound the list in the prompt, lower the temperature or add a repetition penalty",
            crate::spec::lex::clip(repeated.trim())
        ));
    }
    msg
}

/// A line repeated among the last complete lines before `cut`, if the tail is a loop.
fn repetition<'a>(lines: &'a [Cow<'_, str>], cut: usize) -> Option<&'a str> {
    let complete: Vec<&str> = lines[..cut.saturating_sub(1).min(lines.len())]
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    let tail = &complete[complete.len().saturating_sub(9)..];
    if tail.len() < 3 {
        return None;
    }
    tail.iter()
        .find(|l| tail.iter().filter(|m| m == l).count() >= 3)
        .copied()
}
