//! Typed replies: the `Toon` trait, its implementations for the standard types,
//! and the parser that returns `T` itself.

mod constrain;
mod context;
mod delimited;
mod guide;
mod impls;
mod json;
pub(crate) mod measures;
mod parser;
pub(crate) mod partial;
pub(crate) mod readers;
mod row;
pub(crate) mod runtime;
mod stream;

use serde_json::Value;

use crate::shape::{Constraints, Shape};
pub use constrain::{ItemAt, Items, Measure, Measured};
pub use context::{Cx, Fields};
pub use json::from_json_reply;
pub use measures::{Attempt, Measures};
pub use parser::{Retried, RetryError, ToonOutputParser, Turn};
pub(crate) use parser::{Rounds, Said};
pub use partial::{Item, Partial, PartialStream, Streamed, Update};
pub(crate) use readers::to_value;
pub use readers::Readers;
pub use row::{CellCheck, RowCells};
pub use stream::{Element, Event, StreamRow, ToonEvents, ToonStream};

use crate::grammar::GrammarSyntax;
use crate::reply::{
    decode_reply_guided, json_guided, says_nothing, settle, Findings, Format, Guided,
};
use crate::reply::{
    ParseError, ParseErrorKind, Repair, RepairKind, Reply, ReplyOptions, EMPTY_REPLY_OBJECT,
};
use crate::spec::encode::encode;
use crate::spec::node::{Node, Scalar};

/// A type that a model's TOON reply is read into, and that describes itself to the model.
///
/// Derive it with `#[derive(Toon)]` on a struct with named fields, a newtype or
/// `transparent` struct, an enum of unit variants or an internally tagged enum
/// of struct variants; the standard types (`String`, `bool`, the integers up to
/// 64 bits and the floats, `Option`, `Vec`, `Box`, maps with `String` keys,
/// `serde_json::Value`) implement it already.
///
/// A `Toon` type owns everything it reads from a reply: the derive refuses
/// borrowed fields.
///
/// `__TOON` is what the derive generates; it is not part of the stable API.
/// Call the methods.
pub trait Toon: Sized {
    /// The type's description, its writer and readers, as the derive
    /// generates them; not part of the stable API.
    #[doc(hidden)]
    const __TOON: Readers<Self>;

    /// Reads a model's reply: the tolerant [`decode_reply`](crate::decode_reply),
    /// then the type, which forgives a quoted number or boolean and an enum value
    /// in the wrong case (each reported), ignores keys it does not have (reported),
    /// and names the path of a missing required field (`violations[1].severity`).
    ///
    /// Every repair applied, the server's finish reason, other limits and the
    /// caller's own check are [`ToonOutputParser`]'s:
    /// `ToonOutputParser::<T>::new().options(options).parse_with_report(reply)`.
    ///
    /// # Errors
    /// A [`ParseError`], as for `decode_reply`, or `MissingField` / `InvalidValue`
    /// with the field's path, or `Constraint` for a value outside its field's
    /// constraints.
    fn from_toon(completion: &str) -> Result<Self, ParseError> {
        read(completion, &ReplyOptions::default()).map(|r| r.value)
    }

    /// The value as a TOON document (for few-shot examples in prompts);
    /// `T::from_toon(&x.to_toon())` gives back `x`, except a float that is NaN
    /// or infinite (written `null`, as TOON has no such number) and a value
    /// written as no text at all (an empty struct or map: an empty reply is
    /// refused as a model that said nothing); `Some(None)` of an
    /// `Option<Option<T>>` is written `null` and read as `None`, as serde_json
    /// reads it. Delimited fields
    /// (`#[toon(delimited)]`) follow the TOON lines, each between its tags.
    fn to_toon(&self) -> String {
        let names = delimited::names(&Self::__TOON.shape());
        if names.is_empty() {
            let value = to_value(self);
            let text = encode(&value, &Default::default());
            // A reply that is one text may look like what a reply decoder
            // strips (a fence, a reasoning tag, only Unicode spaces): quoted,
            // it reads back as itself.
            return match value {
                Value::String(s) if String::from_toon(&text).as_ref() != Ok(&s) => {
                    crate::spec::encode::quote(&s)
                }
                _ => text,
            };
        }
        delimited::write(&names, to_value(self))
    }

    /// The skeleton of the type's TOON form: one line per key, every array shown
    /// by its header with `[N]` standing for its length.
    fn toon_header() -> String {
        crate::prompt::header(&Self::__TOON.shape(), std::any::type_name::<Self>())
    }

    /// The text for the system prompt: the skeleton with each field's doc comment
    /// as a `#` comment line, the allowed values of each enum, how to write an
    /// empty list, and the quoting rule.
    fn toon_prompt() -> String {
        crate::prompt::prompt(&Self::__TOON.shape(), std::any::type_name::<Self>())
    }

    /// The grammar of exactly the TOON that [`to_toon`](Toon::to_toon) writes for
    /// values of the type, every text and list bounded, for a server that
    /// constrains sampling to it ([`constrain_request`](crate::constrain_request)
    /// adds it to a request). A reply it admits is read by
    /// [`from_toon`](Toon::from_toon) with no repair, and is refused only for
    /// what a grammar does not hold: a text's minimum length and pattern in GBNF,
    /// a number range whose bounds are not whole and non-negative, a duplicate
    /// map key, a free-form value's constraints. What it holds and its bounds
    /// are listed on [`GrammarSyntax`](crate::GrammarSyntax).
    ///
    /// ```
    /// use toon_core::{GrammarSyntax, Toon};
    /// let gbnf = <Vec<u8>>::toon_grammar(GrammarSyntax::Gbnf);
    /// assert!(gbnf.starts_with("root ::= "));
    /// let lark = <Vec<u8>>::toon_grammar(GrammarSyntax::Lark);
    /// assert!(lark.starts_with("start: "));
    /// ```
    fn toon_grammar(syntax: GrammarSyntax) -> String {
        crate::grammar::toon_grammar(&Self::__TOON.shape(), syntax)
    }

    /// The most bytes any reply the type's grammar admits can take, in either
    /// syntax: every text, list, number and key at its bound, every character
    /// of a text at the most bytes it may take (four, for most text). A token
    /// is at least one byte, so a token limit of this many tokens always lets a
    /// constrained reply end where its grammar ends: it is never cut.
    /// [`constrain_request`](crate::constrain_request) sets the limit to the
    /// worst case of the server's syntax where the request has none, and
    /// refuses a smaller one. For one syntax, or with a reasoning block, see
    /// [`GrammarOptions::max_reply_bytes`](crate::grammar::GrammarOptions::max_reply_bytes).
    ///
    /// ```
    /// use toon_core::{GrammarSyntax, Toon};
    /// // `true` or `false`: five bytes at most.
    /// assert_eq!(bool::toon_max_reply_bytes(), 5);
    /// // At most 10 items (the default bound) of at most 200 characters each.
    /// assert!(Vec::<String>::toon_max_reply_bytes() > 10 * 200);
    /// ```
    fn toon_max_reply_bytes() -> usize {
        crate::grammar::max_reply_bytes(&Self::__TOON.shape())
    }
}

/// The line of `path` in the JSON value that begins on line `first` of `completion`.
fn json_line(completion: &str, first: usize, path: &str) -> Option<usize> {
    let line_start: usize = completion
        .split_inclusive('\n')
        .take(first.saturating_sub(1))
        .map(str::len)
        .sum();
    let from = line_start + completion.get(line_start..)?.find(['{', '['])?;
    crate::reply::line_of_path(completion, from, path)
}

/// The typed reading of a whole reply ([`ToonOutputParser::parse_with_report`]),
/// which a stream's `finish` runs too.
pub(crate) fn read<T: Toon>(
    completion: &str,
    options: &ReplyOptions,
) -> Result<Reply<T>, ParseError> {
    read_as(completion, options, Format::Toon)
}

/// The typed reading of a reply asked for in `format`: TOON (a JSON reply
/// read too), or JSON alone ([`from_json_reply`]). One reading either way:
/// the type's names, constraints, finish-reason rule and report.
pub(crate) fn read_as<T: Toon>(
    completion: &str,
    options: &ReplyOptions,
    format: Format,
) -> Result<Reply<T>, ParseError> {
    // The whole completion, prose fields included, before any work on it.
    refuse_size(completion.len(), options, format)?;
    let shape = T::__TOON.shape();
    // Delimited prose fields are cut out of a TOON reply first; the rest is
    // read as TOON. In JSON they are keys like any other.
    let prose_names = match format {
        Format::Toon => delimited::names(&shape),
        Format::Json => Vec::new(),
    };
    let (completion, mut prose) = if prose_names.is_empty() {
        (std::borrow::Cow::Borrowed(completion), Vec::new())
    } else {
        let (toon, prose) = delimited::split(completion, &prose_names, options.finish_reason)
            .map_err(|e| e.in_format(format))?;
        (std::borrow::Cow::Owned(toon), prose)
    };
    let completion = completion.as_ref();
    // The keys of a struct with fields: an answer that holds none is refused.
    let keys: Vec<&'static str> = match shape.resolve() {
        Shape::Struct(s) => s.fields.iter().map(|f| f.name).collect(),
        _ => Vec::new(),
    };
    let guide = guide::TypeGuide::new(shape);
    let mut findings = Findings::default();
    let mut read = || {
        let mut buf = String::new();
        // A reply of delimited blocks alone (a struct whose fields are all
        // delimited) said something: its blocks, on no TOON line.
        let mut decoded = if format == Format::Json {
            json_guided(completion, options)?
        } else if !prose.is_empty() && says_nothing(completion.lines()) {
            Guided {
                value: Node::Object(Box::default()),
                repairs: Vec::new(),
            }
        } else {
            decode_reply_guided(completion, &mut buf, Some(&guide), options, &mut findings)?
        };
        delimited::insert(&mut decoded.value, std::mem::take(&mut prose))?;
        // A JSON reply's values carry no lines: an error is placed by its path.
        let json_at = decoded
            .repairs
            .iter()
            .find(|r| r.kind == RepairKind::ReadJson)
            .map(|r| r.line);
        // An empty object (`{}`) said nothing: it is not an answer that each
        // of the type's fields is missing, even where each may be.
        if matches!(&decoded.value, Node::Object(map) if map.is_empty()) && !keys.is_empty() {
            return Err(ParseError::new(
                ParseErrorKind::MissingField,
                json_at.filter(|&line| line > 0),
                EMPTY_REPLY_OBJECT,
            ));
        }
        // A sentence where the fields should be (`I found no issues.`): say
        // what the answer is made of, in the words the prompt used.
        if let (Node::Scalar(s), false) = (&decoded.value, keys.is_empty()) {
            return Err(not_an_answer(s, &keys, completion));
        }
        // Every value carries its line, so errors and typed repairs are placed as they are made.
        let mut cx = Cx::new(decoded.repairs, !options.refuse_dropped_rows);
        let read = T::__TOON.from_node(decoded.value, &mut cx);
        // An error on its line and column, or by its path in a JSON reply.
        let place = |e: ParseError| {
            // The repaired text where there is one, else the completion.
            let read = if buf.is_empty() { completion } else { &buf };
            let e = e.placed_in(completion, read);
            match (json_at, e.line(), e.path()) {
                (Some(first), None, Some(path)) => {
                    let line = json_line(completion, first, path);
                    e.or_at_line(line)
                }
                _ => e,
            }
        };
        // Every value outside its constraints, each in its place.
        let outside = context::outside(cx.violations().into_iter().map(place).collect());
        let value = match (read, outside) {
            (Ok(value), None) => value,
            (Ok(_), Some(e)) => return Err(also_dropped(e, &cx, &findings)),
            (Err(e), outside) => {
                let mut e = place(e);
                if let Some(o) = outside {
                    e = e.also(&format!("also, {}", o.message()));
                }
                return Err(also_dropped(e, &cx, &findings));
            }
        };
        // Typed repairs of a JSON reply's values, placed by their path.
        if let Some(first) = json_at {
            cx.place(|path| json_line(completion, first, path), first);
        }
        let mut repairs = cx.into_repairs();
        // A row dropped for a missing cell says which, where only one column can be it.
        for r in repairs
            .iter_mut()
            .filter(|r| r.kind == RepairKind::DroppedRow)
        {
            r.detail = dropped_detail(r, &findings);
        }
        Ok(Reply { value, repairs })
    };
    let result = read();
    let settled = settle(result, completion, options, &findings)
        .map_err(|e| e.in_format(format))
        .map(|mut reply| {
            // A reply asked for as JSON is no fallback to report.
            if format == Format::Json {
                reply.repairs.retain(|r| r.kind != RepairKind::ReadJson);
            }
            reply
        });
    measures::trace_read(
        #[cfg(feature = "tracing")]
        &measures::type_label::<T>,
        #[cfg(not(feature = "tracing"))]
        &String::new,
        format,
        options.finish_reason,
        settled.as_ref().map(|r| r.repairs.as_slice()),
    );
    settled
}

/// A refusal that also names the rows of the type's tables dropped before
/// it: the retry turn asks for the whole answer again with the refusal fixed
/// and the rest kept, so the rows left out must be fixed too, or the next
/// reply drops them again. Not a table's rows where none of them reads (the
/// refusal is that table), nor rows of a table the type does not have.
#[cold]
fn also_dropped(e: ParseError, cx: &Cx, findings: &Findings) -> ParseError {
    let header_of = |line: usize| findings.dropped_header(line);
    let mut dropped: Vec<&Repair> = cx.dropped_rows(header_of).collect();
    dropped.sort_by_key(|r| r.line);
    let Some(first) = dropped.first() else {
        return e;
    };
    let detail = dropped_detail(first, findings);
    let note = match dropped.len() {
        1 => format!("the row on line {} was also left out: {detail}", first.line),
        n => {
            let lines: Vec<String> = dropped.iter().map(|r| r.line.to_string()).collect();
            format!(
                "the rows on lines {} and {} were also left out; line {}: {detail}",
                lines[..n - 1].join(", "),
                lines[n - 1],
                first.line
            )
        }
    };
    e.also(&note)
}

/// What a dropped row's repair says: which column it lacks, where only one can be it.
fn dropped_detail(r: &Repair, findings: &Findings) -> String {
    match findings.missing_cell(r.line) {
        Some(column) => format!("the row has no `{column}`: {}", r.detail),
        None => r.detail.clone(),
    }
}

/// A reply that is one value where a struct's fields should be.
#[cold]
fn not_an_answer(value: &Scalar<'_>, keys: &[&str], completion: &str) -> ParseError {
    let named: Vec<String> = keys.iter().take(5).map(|k| format!("`{k}`")).collect();
    let more = match keys.len() {
        n if n > 5 => format!(" and {} more", n - 5),
        _ => String::new(),
    };
    // Its line: where its first words stand in the completion.
    let line = value.as_str().and_then(|text| {
        let probe: String = text.chars().take(24).collect();
        let at = completion.find(probe.as_str())?;
        Some(completion[..at].matches('\n').count() + 1)
    });
    ParseError::new(
        ParseErrorKind::InvalidValue,
        line,
        format!(
            "the reply is {}, not the answer: write its fields ({}{more}) as the format shows, and nothing else",
            value.describe(),
            named.join(", ")
        ),
    )
}

/// Refuses a completion of `len` bytes over `max_bytes`, as [`read`] refuses it.
pub(crate) fn refuse_size(
    len: usize,
    options: &ReplyOptions,
    format: Format,
) -> Result<(), ParseError> {
    crate::reply::too_many_bytes(len, options).map_err(|e| e.in_format(format))
}
