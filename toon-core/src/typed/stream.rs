//! Streaming replies: typed records as the model writes them.
//!
//! TOON is line-oriented, so a row is complete when its line ends. The stream
//! decoder is fed the completion in chunks of any size, split anywhere (inside a
//! line, a quoted string or an escape; chunks are `&str`, as a server's SSE deltas
//! are, so never inside a character), and yields an [`Event`] as soon as a value
//! is decided:
//!
//! - a top-level scalar field, when its line ends;
//! - each row of a top-level table, when its line ends (the root array of a
//!   `Vec<T>` reply streams as the array of key `""`);
//! - each item of a top-level list, when the next item (or the next top-level
//!   line) begins, since until then more of the item may follow;
//! - every element of a top-level inline array (`tags[3]: a,b,c`), when its line ends.
//!
//! Reasoning blocks, an opening fence and leading prose are skipped as they
//! stream. Each event is decoded by the same code as the whole reply (the header
//! and that one line, through the same repairs), so a successful
//! [`finish`](ToonStream::finish) never contradicts an event: the final value
//! holds every emitted record, in order. Repairs that need the whole reply
//! (a count, trailing prose, the indentation unit) are decided at `finish`. A
//! block the stream cannot decide line by line (records written as `key: value`
//! blocks, a header completed from the type, a JSON reply) yields no events; its
//! values arrive with `finish`. If `finish` refuses the reply, the events were
//! provisional: nothing was lost, but nothing should be acted on as final.
//!
//! Memory: [`ToonStream`] keeps the text it has been fed, so that `finish`
//! returns exactly what [`Toon::from_toon_with_report`] returns on the whole
//! text. [`ToonEvents`] is the same decoder without `finish`: it drops each line
//! once its events are decided, so its memory is bounded by the longest line and
//! the record being built, however long the completion.

use std::marker::PhantomData;

use serde_json::Value;

use super::guide::TypeGuide;
use super::{Cx, Toon};
use crate::header::{parse_header, Field, HeaderParse};
use crate::lex::{find_unquoted, read_cells, trim_spaces};
use crate::node::{fill, Node};
use crate::reply::json::opens_json;
use crate::reply::strip::{is_fence, starts_document, untag, THINK_CLOSE, THINK_OPEN};
use crate::reply::{decode_reply_guided, Findings, Guide, ReplyOptions};
use crate::reply::{ParseError, Reply};

/// A value the stream has decided.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// A top-level field with a scalar value, complete.
    Field {
        /// The field's key.
        key: String,
        /// Its value.
        value: Value,
    },
    /// Text of a delimited prose field (`#[toon(delimited)]`), as it arrives:
    /// the deltas of one field, joined, are its final value.
    Text {
        /// The field's key.
        key: String,
        /// The text since the previous event of this field.
        delta: String,
    },
    /// One element of a top-level array: a table row, a list item or an inline value.
    Item {
        /// The array's key; empty for the document's root array (`[2]{id,name}:`,
        /// the reply of a `Vec<T>`).
        key: String,
        /// The element's position in the array, from 0.
        index: usize,
        /// Its value.
        value: Value,
    },
}

impl Event {
    /// The event's value read as `E` (an element type such as `Violation`), with
    /// the typed decoder's forgiveness (quoted numbers, enum case).
    ///
    /// # Errors
    /// As [`Toon::from_toon`] for a value of the wrong shape.
    pub fn decode<E: Toon>(&self) -> Result<E, ParseError> {
        let value = match self {
            Event::Field { value, .. } | Event::Item { value, .. } => value.clone(),
            Event::Text { delta, .. } => Value::String(delta.clone()),
        };
        E::__from_node(Node::from(value), &mut Cx::default())
    }
}

/// What the current top-level block is, as far as events go.
#[derive(Debug)]
enum Block {
    /// Nothing to emit (a nested object, or a block the stream cannot decide).
    Opaque,
    /// A table: its header line, rows emitted as they end. `fields` where the
    /// header reads as it stands: a row of exactly its width is then read
    /// straight from its cells, as the whole-reply decoder reads it.
    Table {
        key: String,
        header: String,
        fields: Option<(Vec<Field>, char)>,
        index: usize,
    },
    /// A list: the lines of the item being written.
    List {
        key: String,
        index: usize,
        item: Vec<String>,
        item_indent: Option<usize>,
    },
}

#[derive(Debug, PartialEq)]
enum Phase {
    /// Before the document: reasoning, fences and prose are skipped.
    Before,
    /// Inside a `<think>` block.
    Thinking,
    /// In the document; `fenced` if a fence opened it.
    Document { base: usize, fenced: bool },
    /// After the document (a closing fence), or a reply that is not TOON.
    After,
}

/// A stream decoder for replies of type `T`.
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use toon_core::{Toon, ToonStream, StreamEvent};
///
/// #[derive(Debug, PartialEq, Toon)]
/// struct Row { id: u32, name: String }
/// #[derive(Debug, PartialEq, Toon)]
/// struct Reply { rows: Vec<Row> }
///
/// let mut stream = ToonStream::<Reply>::new();
/// assert!(stream.push("rows[2]{id,na").is_empty());
/// let events = stream.push("me}:\n  1,Ada\n  2,B");
/// assert_eq!(events.len(), 1); // the first row, the moment its line ended
/// assert_eq!(events[0].decode::<Row>().unwrap(), Row { id: 1, name: "Ada".into() });
/// assert_eq!(stream.end().len(), 1); // the last row: its line ended with the stream
/// let reply = stream.finish().unwrap();
/// assert_eq!(reply.value.rows[1].name, "B");
/// # }
/// ```
#[derive(Debug)]
pub struct ToonStream<T> {
    text: String,
    /// Bytes of `text` already read as complete lines.
    scanned: usize,
    /// Bytes of `text` already searched for a line break, so that a line
    /// arriving in many chunks is searched once, not once per chunk.
    searched: usize,
    phase: Phase,
    block: Block,
    guide: TypeGuide,
    options: ReplyOptions,
    /// Keep the text for `finish`; an events-only stream drops decided lines.
    keep_text: bool,
    /// The root's delimited prose fields, and the block being streamed.
    prose_names: Vec<&'static str>,
    prose: Option<ProseBlock>,
    _type: PhantomData<fn() -> T>,
}

/// A delimited block being streamed.
#[derive(Debug)]
struct ProseBlock {
    key: &'static str,
    /// Whether any text was emitted (the line breaks after the opening tag are not text).
    started: bool,
    /// Line breaks held back: text only if more text follows before the closing tag.
    held: String,
}

impl<T: Toon> Default for ToonStream<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Toon> ToonStream<T> {
    /// A stream with the default limits.
    pub fn new() -> Self {
        Self::with_options(ReplyOptions::default())
    }

    /// A stream with other limits (they apply at [`finish`](Self::finish)).
    pub fn with_options(options: ReplyOptions) -> Self {
        ToonStream {
            text: String::new(),
            scanned: 0,
            searched: 0,
            phase: Phase::Before,
            block: Block::Opaque,
            guide: TypeGuide::new(T::__shape()),
            options,
            keep_text: true,
            prose_names: super::delimited::names(&T::__shape()),
            prose: None,
            _type: PhantomData,
        }
    }

    /// Feeds the next chunk; returns the events it decided.
    pub fn push(&mut self, chunk: &str) -> Vec<Event> {
        self.text.push_str(chunk);
        // Nothing is decided before a line ends, unless prose blocks stream.
        if self.prose_names.is_empty() && !chunk.as_bytes().contains(&b'\n') {
            return Vec::new();
        }
        let mut events = Vec::new();
        loop {
            if self.prose.is_some() {
                if self.prose_text(&mut events) {
                    continue;
                }
                break;
            }
            if self.prose_opens(&mut events) {
                continue;
            }
            let from = self.searched.max(self.scanned);
            let Some(end) = memchr::memchr(b'\n', &self.text.as_bytes()[from..]) else {
                self.searched = self.text.len();
                break;
            };
            let line_end = from + end;
            let line = self.text[self.scanned..line_end]
                .trim_end_matches('\r')
                .to_owned();
            self.scanned = line_end + 1;
            self.line(&line, &mut events);
        }
        if !self.keep_text {
            self.text.drain(..self.scanned);
            self.searched = self.searched.saturating_sub(self.scanned);
            self.scanned = 0;
        }
        events
    }

    /// The stream has ended: decides the last line (which had no newline) and the
    /// list item still open, and returns their events. Call it before
    /// [`finish`](Self::finish) when every record must arrive as an event.
    pub fn end(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        if self.scanned < self.text.len() {
            let line = self.text[self.scanned..].trim_end_matches('\r').to_owned();
            self.scanned = self.text.len();
            self.line(&line, &mut events);
        }
        self.close_block(&mut events);
        events
    }

    /// The whole reply: exactly what [`Toon::from_toon_with_report`] returns on
    /// everything pushed.
    ///
    /// # Errors
    /// As [`Toon::from_toon`].
    pub fn finish(self) -> Result<Reply<T>, ParseError> {
        T::from_toon_with_options(&self.text, &self.options)
    }

    /// [`finish`](Self::finish), told how the server said the reply ended (its
    /// `finish_reason` comes with the stream's last event): as
    /// [`ReplyOptions::finish_reason`].
    ///
    /// # Errors
    /// As [`Toon::from_toon_with_options`].
    pub fn finish_with(
        mut self,
        finish_reason: crate::FinishReason,
    ) -> Result<Reply<T>, ParseError> {
        self.options.finish_reason = finish_reason;
        self.finish()
    }

    /// A delimited field's opening tag at the start of the next line: the
    /// block opens, and its text streams from right after the tag.
    fn prose_opens(&mut self, events: &mut Vec<Event>) -> bool {
        if matches!(self.phase, Phase::Thinking | Phase::After) || self.prose_names.is_empty() {
            return false;
        }
        // Only the next line: the lines after it are not read yet.
        let rest = &self.text[self.scanned..];
        let first = rest.find('\n').map_or(rest, |end| &rest[..end]);
        let Some((key, body)) = self
            .prose_names
            .iter()
            .find_map(|name| super::delimited::opening(first, name).map(|(_, body)| (*name, body)))
        else {
            return false;
        };
        self.close_block(events);
        self.block = Block::Opaque;
        self.scanned += body;
        self.prose = Some(ProseBlock {
            key,
            started: false,
            held: String::new(),
        });
        true
    }

    /// Emits the open block's text that has arrived; `true` once its closing tag came.
    fn prose_text(&mut self, events: &mut Vec<Event>) -> bool {
        let Some(block) = &mut self.prose else {
            return false;
        };
        let close = format!("</{}>", block.key);
        let rest = &self.text[self.scanned..];
        let (body, closed) = match rest.find(&close) {
            Some(at) => (&rest[..at], true),
            // Hold back what may be the start of the closing tag.
            None => {
                let keep = (1..close.len().min(rest.len() + 1))
                    .rev()
                    .find(|&n| rest.ends_with(&close[..n]))
                    .unwrap_or(0);
                (&rest[..rest.len() - keep], false)
            }
        };
        let mut delta = std::mem::take(&mut block.held);
        delta.push_str(if block.started {
            body
        } else {
            body.trim_start_matches(['\n', '\r'])
        });
        // Line breaks at the end are text only if text follows them.
        let text_len = delta.trim_end_matches(['\n', '\r']).len();
        if !closed {
            block.held = delta[text_len..].to_owned();
        }
        delta.truncate(text_len);
        if !delta.is_empty() {
            block.started = true;
            events.push(Event::Text {
                key: block.key.to_owned(),
                delta,
            });
        }
        self.scanned += body.len();
        if closed {
            self.scanned += close.len();
            self.prose = None;
        }
        closed
    }

    fn line(&mut self, line: &str, events: &mut Vec<Event>) {
        // The same tool-call tags the whole-reply stripper removes.
        let tags = untag(line);
        if !tags.is_empty() {
            let mut bare = line.to_owned();
            for tag in tags {
                bare = bare.replacen(tag, "", 1);
            }
            return self.line(&bare, events);
        }
        match self.phase {
            Phase::After => {}
            Phase::Thinking => {
                if let Some(at) = line.find(THINK_CLOSE) {
                    self.phase = Phase::Before;
                    self.line(&line[at + THINK_CLOSE.len()..], events);
                }
            }
            Phase::Before => {
                let t = line.trim_start();
                if let Some(rest) = t.strip_prefix(THINK_OPEN) {
                    self.phase = Phase::Thinking;
                    self.line(rest, events);
                } else if is_fence(t) {
                    self.phase = Phase::Document {
                        base: usize::MAX,
                        fenced: true,
                    };
                } else if opens_json(t.trim_end()) {
                    self.phase = Phase::After; // JSON: decided at `finish`
                } else if starts_document(line) || self.guide.starts_document(line) {
                    self.phase = Phase::Document {
                        base: indent(line),
                        fenced: false,
                    };
                    self.document_line(line, events);
                }
            }
            Phase::Document { .. } => self.document_line(line, events),
        }
    }

    fn document_line(&mut self, line: &str, events: &mut Vec<Event>) {
        let Phase::Document { base, fenced } = self.phase else {
            return;
        };
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            return;
        }
        if is_fence(t) {
            self.close_block(events);
            self.phase = Phase::After;
            return;
        }
        let base = if base == usize::MAX {
            let b = indent(line);
            self.phase = Phase::Document { base: b, fenced };
            b
        } else {
            base
        };
        let depth = indent(line);
        if depth <= base {
            self.close_block(events);
            self.top_level(trim_spaces(line.trim_start()), events);
        } else {
            self.inner(line, depth, events);
        }
    }

    /// A line at the document's margin: a field, or a header opening a block.
    fn top_level(&mut self, content: &str, events: &mut Vec<Event>) {
        self.block = Block::Opaque;
        match parse_header(content, 8) {
            HeaderParse::Header(h) => {
                // A root array (a keyless header) streams as the array of key "".
                let key = h.key.clone().unwrap_or_default();
                if h.fields.is_some() && h.rest.is_empty() && !h.keyed {
                    let fields = match (h.fields, h.duplicate_field) {
                        (Some(fields), None) => Some((fields, h.delim)),
                        _ => None,
                    };
                    self.block = Block::Table {
                        key,
                        header: content.to_owned(),
                        fields,
                        index: 0,
                    };
                } else if h.fields.is_none() && h.rest.is_empty() {
                    self.block = Block::List {
                        key,
                        index: 0,
                        item: Vec::new(),
                        item_indent: None,
                    };
                } else if h.fields.is_none() {
                    if let Some(Value::Array(items)) = self.decode_one(content, &key) {
                        for (index, value) in items.into_iter().enumerate() {
                            events.push(Event::Item {
                                key: key.clone(),
                                index,
                                value,
                            });
                        }
                    }
                }
            }
            HeaderParse::NotHeader => {
                let Some(colon) = find_unquoted(content, |c| c == ':') else {
                    return;
                };
                if trim_spaces(&content[colon + 1..]).is_empty() {
                    return; // a nested object: decided at `finish`
                }
                let key = crate::reply::key_text(trim_spaces(&content[..colon]));
                if let Some(value) = self.decode_one(content, &key) {
                    if !matches!(value, Value::Object(_) | Value::Array(_)) {
                        events.push(Event::Field { key, value });
                    }
                }
            }
            HeaderParse::Malformed(_) => {}
        }
    }

    /// A line inside the current block.
    fn inner(&mut self, line: &str, depth: usize, events: &mut Vec<Event>) {
        let mut decided = None;
        match &mut self.block {
            Block::Opaque => {}
            Block::Table {
                key,
                header,
                fields,
                index,
            } => {
                let content = trim_spaces(line.trim_start());
                let is_row = match (
                    find_unquoted(content, |c| c == ':'),
                    find_unquoted(content, |c| matches!(c, ',' | '|' | '\t')),
                ) {
                    (None, _) => true,
                    (Some(c), Some(d)) => d < c,
                    (Some(_), None) => false,
                };
                if !is_row {
                    self.block = Block::Opaque; // records as key/value blocks: decided at `finish`
                    return;
                }
                let (key, at) = (key.clone(), *index);
                // A row that reads as it stands is read from its cells; any other
                // goes through the reply decoder's repairs, with its header.
                let value = match fields.as_ref().and_then(|(f, d)| clean_row(f, *d, content)) {
                    Some(row) => Some(row),
                    None => {
                        let doc = format!("{header}\n  {content}");
                        match decode_doc(&self.guide, &self.options, &doc, &key) {
                            Some(Value::Array(mut rows)) if rows.len() == 1 => Some(rows.remove(0)),
                            _ => None,
                        }
                    }
                };
                if let Some(value) = value {
                    events.push(Event::Item {
                        key,
                        index: at,
                        value,
                    });
                    if let Block::Table { index, .. } = &mut self.block {
                        *index += 1;
                    }
                }
            }
            Block::List {
                item, item_indent, ..
            } => {
                let content = line.trim_start();
                let starts_item = content == "-" || content.starts_with("- ");
                match item_indent {
                    None if starts_item => *item_indent = Some(depth),
                    Some(at) if starts_item && depth == *at => decided = Some(std::mem::take(item)),
                    Some(at) if depth > *at => {}
                    _ => {
                        self.block = Block::Opaque;
                        return;
                    }
                }
                item.push(line.to_owned());
            }
        }
        if let Some(done) = decided {
            self.emit_item(done, events);
        }
    }

    /// The list item whose lines are `item`, as an event.
    fn emit_item(&mut self, item: Vec<String>, events: &mut Vec<Event>) {
        let Block::List {
            key,
            index,
            item_indent: Some(at),
            ..
        } = &mut self.block
        else {
            return;
        };
        if item.is_empty() {
            return;
        }
        let shift = *at;
        let body: Vec<String> = item
            .iter()
            .map(|l| format!("  {}", &l[shift.min(indent(l))..]))
            .collect();
        // The root list has no key.
        let head = if key.is_empty() {
            String::new()
        } else {
            crate::encode::encode_key(key)
        };
        let doc = format!("{head}[1]:\n{}", body.join("\n"));
        let key = key.clone();
        if let Some(Value::Array(mut items)) = decode_doc(&self.guide, &self.options, &doc, &key) {
            if items.len() == 1 {
                events.push(Event::Item {
                    key,
                    index: *index,
                    value: items.remove(0),
                });
                *index += 1;
            }
        }
    }

    fn close_block(&mut self, events: &mut Vec<Event>) {
        if let Block::List { item, .. } = &mut self.block {
            let last = std::mem::take(item);
            self.emit_item(last, events);
        }
        self.block = Block::Opaque;
    }

    fn decode_one(&self, line: &str, key: &str) -> Option<Value> {
        decode_doc(&self.guide, &self.options, line, key)
    }
}

/// Decodes a small document through the reply decoder (with the type's guide)
/// and returns the value at `key` (the root array itself for key "").
fn decode_doc(guide: &TypeGuide, options: &ReplyOptions, doc: &str, key: &str) -> Option<Value> {
    let mut buf = String::new();
    let findings = &mut Findings::default();
    let decoded = decode_reply_guided(doc, &mut buf, Some(guide), options, findings).ok()?;
    match decoded.value {
        Node::Object(mut map) if !key.is_empty() => {
            map.shift_remove(key).map(|p| p.node.into_value())
        }
        root if key.is_empty() => Some(root.into_value()),
        _ => None,
    }
}

/// A row of exactly the header's width whose every cell reads as it stands, as
/// the object the whole-reply decoder makes of it; `None` for any other row.
fn clean_row(fields: &[Field], delim: char, content: &str) -> Option<Value> {
    let mut cells = Vec::new();
    read_cells(content, delim, &mut cells).ok()?;
    if cells.is_empty() || cells.len() != Field::leaf_count(fields) {
        return None;
    }
    Some(Value::Object(fill(&mut cells.into_iter(), fields, 0)))
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The stream decoder without [`finish`](ToonStream::finish), for consumers that
/// act on each event and never need the whole value: it drops every line once its
/// events are decided, so memory stays bounded by the longest line and the record
/// being built, however long the completion runs.
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use toon_core::{Toon, ToonEvents};
///
/// #[derive(Debug, PartialEq, Toon)]
/// struct Row { id: u32 }
/// #[derive(Debug, Toon)]
/// struct Reply { rows: Vec<Row> }
///
/// let mut events = ToonEvents::<Reply>::new();
/// let mut seen = 0;
/// events.push("rows[1000]{id}:\n");
/// for i in 0..1000 {
///     seen += events.push(&format!("  {i}\n")).len(); // each row, as its line ends
/// }
/// assert_eq!(seen, 1000);
/// # }
/// ```
#[derive(Debug)]
pub struct ToonEvents<T>(ToonStream<T>);

impl<T: Toon> Default for ToonEvents<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Toon> ToonEvents<T> {
    /// An events-only stream.
    pub fn new() -> Self {
        let mut stream = ToonStream::new();
        stream.keep_text = false;
        ToonEvents(stream)
    }

    /// Feeds the next chunk; returns the events it decided.
    pub fn push(&mut self, chunk: &str) -> Vec<Event> {
        self.0.push(chunk)
    }

    /// The stream has ended: decides the last line and the list item still open.
    pub fn end(&mut self) -> Vec<Event> {
        self.0.end()
    }
}
