//! The stream's line reader: each complete line through the line classifier
//! the whole reply's stripping uses (reasoning, tool-call tags, a table's
//! rows), then which part of the reply it is in (prose, fences, the
//! document), which top-level block it belongs to, and the events it decides.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

use super::event::{CleanRow, Columns, Element, Event, StreamRow};
use crate::reply::classify::{Classifier, Withdraw};
use crate::reply::json::opens_json;
use crate::reply::layout::{indent_of, is_fence};
use crate::reply::strip::starts_document;
use crate::reply::{decode_reply_guided, Findings, Guide, Repair, RepairKind, ReplyOptions};
use crate::spec::header::{parse_header, HeaderParse};
use crate::spec::lex::{find_unquoted, is_row, trim_spaces};
use crate::spec::node::{Memo, Node};
use crate::typed::guide::TypeGuide;

/// What the current top-level block is, as far as events go.
#[derive(Debug)]
enum Block {
    /// Nothing to emit (a nested object, or a block the stream cannot decide).
    Opaque,
    /// A table: its header line and where it was, rows emitted as they end.
    /// `columns` where the header reads as it stands: a row of exactly its
    /// width is then kept as its text, as the whole-reply decoder would read it.
    Table {
        key: Cow<'static, str>,
        header: String,
        header_line: usize,
        /// The header's delimiter, which tells a row from a record.
        delim: char,
        columns: Option<Arc<Columns>>,
        /// Where the type found its fields among the columns, for the rows
        /// the stream reads (see `node::Memo`).
        memo: Memo,
        index: usize,
        /// Declared `[0]`: a table of no rows, if none follows.
        empty: bool,
    },
    /// A list: where its header was, and the lines of the item being written.
    List {
        key: Cow<'static, str>,
        header_line: usize,
        index: usize,
        item: Vec<(usize, String)>,
        item_indent: Option<usize>,
        /// Declared `[0]`: a list of no items, if none follows.
        empty: bool,
    },
}

#[derive(Debug, PartialEq)]
enum Phase {
    /// Before the document: fences and prose are skipped.
    Before,
    /// In the document; `fenced` if a fence opened it.
    Document { base: usize, fenced: bool },
    /// After the document (a closing fence), or a reply that is not TOON.
    After,
}

#[derive(Debug)]
pub(super) struct Reader {
    phase: Phase,
    block: Block,
    guide: TypeGuide,
    options: ReplyOptions,
    /// The 1-based line of the completion being read.
    line: usize,
    /// Whether the whole reply keeps a table row, as the type reads it.
    stream_row: ReadRow,
    /// What stripping takes out of each line (reasoning, tool-call tags),
    /// as the whole reply's stripping has it.
    lines: Classifier,
    /// Whether a `Field` or `Item` event came from the lines so far, which a
    /// `Withdrawn` event would void.
    emitted: bool,
}

/// [`Toon::__TOON.stream_row`](crate::Toon) of the stream's type.
pub(super) type ReadRow = fn(&str, &mut StreamRow<'_, '_>) -> Option<bool>;

impl Reader {
    /// A reader of the lines of a reply to a type `guide` describes.
    pub(super) fn new(guide: TypeGuide, options: ReplyOptions, stream_row: ReadRow) -> Self {
        Reader {
            phase: Phase::Before,
            block: Block::Opaque,
            guide,
            options,
            line: 0,
            stream_row,
            lines: Classifier::new(),
            emitted: false,
        }
    }

    pub(super) fn options_mut(&mut self) -> &mut ReplyOptions {
        &mut self.options
    }

    pub(super) fn options(&self) -> &ReplyOptions {
        &self.options
    }

    /// Inside the `<think>` block the reply opens with, as the whole reply
    /// strips it (its first significant line opened it, and it has not closed
    /// yet): a tag there opens no delimited block.
    pub(super) fn in_reasoning(&self) -> bool {
        self.lines.in_opening_reasoning()
    }

    /// `n` line breaks were passed without being read as lines (prose text).
    pub(super) fn skip_breaks(&mut self, n: usize) {
        self.line += n;
    }

    /// The next complete line of the completion.
    pub(super) fn line(&mut self, line: &str, events: &mut Vec<Event>) {
        self.line += 1;
        let classified = self.lines.line(line);
        if let Some(withdraw) = classified.withdraw {
            // All before it was reasoning.
            self.withdraw(events);
            if withdraw == Withdraw::Earlier {
                // It ended at an earlier `</think>` in the middle of a line:
                // what follows is for `finish` to read.
                self.phase = Phase::After;
                return;
            }
            self.phase = Phase::Before;
        }
        let text = &*classified.text;
        let from = events.len();
        self.read(text, events);
        // The events of the line carry its tags' repairs, as the whole reply reports them.
        for e in &mut events[from..] {
            for r in &classified.repairs {
                if r.kind == RepairKind::StrippedToolCall {
                    e.add_repair(r.clone());
                }
            }
        }
        self.emitted |= events[from..]
            .iter()
            .any(|e| !matches!(e, Event::Withdrawn));
    }

    /// The lines read so far were not the document: voids their events (if
    /// any came) and what was kept of them, and reads on as from the start.
    /// Tool-call wrappers stay open: the whole reply strips them before fences.
    fn withdraw(&mut self, events: &mut Vec<Event>) {
        if std::mem::take(&mut self.emitted) {
            events.push(Event::Withdrawn);
        }
        // An open list item is dropped with the rest, not emitted.
        self.block = Block::Opaque;
    }

    /// A line as stripping leaves it: where the document is, and its lines.
    fn read(&mut self, line: &str, events: &mut Vec<Event>) {
        match self.phase {
            Phase::After => {}
            Phase::Before => {
                let t = line.trim_start();
                if is_fence(t) {
                    self.phase = Phase::Document {
                        base: usize::MAX,
                        fenced: true,
                    };
                } else if opens_json(t.trim_end()) {
                    self.phase = Phase::After; // JSON: decided at `finish`
                } else if starts_document(line) || self.guide.starts_document(line) {
                    self.phase = Phase::Document {
                        base: indent_of(line),
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
            // Outside a fence, a fence opens the block the whole reply reads
            // if another closes it, what came before being prose; a lone
            // closing fence would end the document instead, but that only
            // the rest of the reply can show. The events so far are withdrawn
            // either way, since a block would void them.
            if !fenced {
                self.withdraw(events);
                self.phase = Phase::Document {
                    base: usize::MAX,
                    fenced: true,
                };
                return;
            }
            self.close_block(events);
            self.phase = Phase::After;
            return;
        }
        // The first line of a fenced block: JSON is decided at `finish`.
        if base == usize::MAX && opens_json(t) {
            self.phase = Phase::After;
            return;
        }
        let depth = indent_of(line);
        let base = if base == usize::MAX {
            self.phase = Phase::Document {
                base: depth,
                fenced,
            };
            depth
        } else {
            base
        };
        if depth <= base {
            self.close_block(events);
            self.top_level(trim_spaces(line), events);
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
                // A key the type does not have is left out of the final value:
                // its values have no events to stand.
                let Some(key) = self.guide.key(h.key.as_deref().unwrap_or_default()) else {
                    return;
                };
                let empty = h.length == 0 && self.guide.holds_list(&key);
                if h.fields.is_some() && h.rest.is_empty() && !h.keyed {
                    // Rows are read cell by cell under flat headers only; a
                    // row of nested field groups (`{from{x,y},label}`) or of
                    // more than 64 columns is read with its header as a document.
                    let columns = match (h.fields, h.duplicate_field) {
                        (Some(fields), None) if crate::spec::node::is_flat(&fields) => {
                            Some(Arc::new(Columns::new(fields, h.delim)))
                        }
                        _ => None,
                    };
                    self.block = Block::Table {
                        key,
                        header: content.to_owned(),
                        header_line: self.line,
                        delim: h.delim,
                        columns,
                        memo: Memo::new(),
                        index: 0,
                        empty,
                    };
                } else if h.fields.is_none() && h.rest.is_empty() {
                    self.block = Block::List {
                        key,
                        header_line: self.line,
                        index: 0,
                        item: Vec::new(),
                        item_indent: None,
                        empty,
                    };
                } else if h.fields.is_none() {
                    let at = self.line;
                    if let Some((Value::Array(items), repairs)) =
                        decode_doc(&self.guide, &self.options, content, &key, &[at])
                    {
                        for (index, value) in items.into_iter().enumerate() {
                            events.push(Event::Item {
                                key: key.clone(),
                                index,
                                element: Element::read(value, at, repairs.clone()),
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
                let text = crate::reply::key_text(trim_spaces(&content[..colon]));
                let Some(key) = self.guide.key(&text) else {
                    return;
                };
                let at = self.line;
                let read = decode_doc(&self.guide, &self.options, content, &key, &[at]);
                if let Some((value, repairs)) = read {
                    if !matches!(value, Value::Object(_) | Value::Array(_)) {
                        events.push(Event::Field {
                            key,
                            value,
                            repairs,
                        });
                    }
                }
            }
            HeaderParse::Malformed(_) => {}
        }
    }

    /// A line inside the current block.
    fn inner(&mut self, line: &str, depth: usize, events: &mut Vec<Event>) {
        let at = self.line;
        let mut decided = None;
        match &mut self.block {
            Block::Opaque => {}
            Block::Table { delim, .. } => {
                let content = trim_spaces(line);
                if !is_row(content, *delim) {
                    self.block = Block::Opaque; // records as key/value blocks: decided at `finish`
                    return;
                }
                self.row(content, events);
            }
            Block::List {
                item, item_indent, ..
            } => {
                let content = line.trim_start_matches(' ');
                let starts_item = content == "-" || content.starts_with("- ");
                match item_indent {
                    None if starts_item => *item_indent = Some(depth),
                    Some(first) if starts_item && depth == *first => {
                        decided = Some(std::mem::take(item));
                    }
                    Some(first) if depth > *first => {}
                    _ => {
                        self.block = Block::Opaque;
                        return;
                    }
                }
                item.push((at, line.to_owned()));
            }
        }
        if let Some(done) = decided {
            self.emit_item(done, events);
        }
    }

    /// A table row (told from a record as the decoder tells one): kept as its
    /// text where its header reads and its cells, read once, are exactly the
    /// header's width; else read with its header through the reply decoder.
    fn row(&mut self, content: &str, events: &mut Vec<Event>) {
        let Block::Table {
            key,
            header,
            header_line,
            columns,
            memo,
            index,
            ..
        } = &mut self.block
        else {
            return;
        };
        let at = self.line;
        let stream_row = self.stream_row;
        // One allocation of the header's width, and a cell more: a row one
        // cell wider is told from a clean row without growing.
        let mut cells = Vec::with_capacity(columns.as_ref().map_or(0, |c| c.width + 1));
        let mut decided = match columns {
            Some(columns) if columns.clean_cells(content, &mut cells) => {
                let element = Element::row(content, columns, at);
                let row = CleanRow {
                    fields: &columns.fields,
                    cells: &cells,
                    line: at,
                    delim: columns.delim,
                    memo,
                };
                let kept = stream_row(key, &mut StreamRow::new(&element, Some(row)));
                Some((element, kept))
            }
            _ => None,
        };
        if decided.is_none() {
            let doc = format!("{header}\n  {content}");
            decided = match decode_doc(&self.guide, &self.options, &doc, key, &[*header_line, at]) {
                // A row wider than its header is read with the type's fields
                // only where every row of the table is: the whole reply's to
                // decide, so this table's rows arrive with `finish`; so too
                // where this row alone is read as written, under a header the
                // type could complete (a later row may decide otherwise).
                Some((_, repairs))
                    if repairs.iter().any(|r| {
                        r.kind == RepairKind::CompletedHeader
                            || (r.kind == RepairKind::RejoinedCells && self.guide.may_widen(header))
                    }) =>
                {
                    self.block = Block::Opaque;
                    return;
                }
                Some((Value::Array(mut rows), repairs)) if rows.len() == 1 => {
                    let element = Element::read(rows.remove(0), at, repairs);
                    let kept = stream_row(key, &mut StreamRow::new(&element, None));
                    Some((element, kept))
                }
                _ => None,
            };
        }
        // A row the type cannot read is dropped from the whole reply: it has
        // no event and no index, so later rows keep the final value's indices.
        if let Some((element, kept)) = decided {
            if kept == Some(false) {
                return;
            }
            events.push(Event::Item {
                // The root table's key, most of a `Vec` reply's rows: no call.
                // The type's name for it: no allocation.
                key: key.clone(),
                index: *index,
                element,
            });
            *index += 1;
        }
    }

    /// The list item whose lines are `item`, as an event.
    fn emit_item(&mut self, item: Vec<(usize, String)>, events: &mut Vec<Event>) {
        let Block::List {
            key,
            header_line,
            index,
            item_indent: Some(shift),
            ..
        } = &self.block
        else {
            return;
        };
        let Some(&(first, _)) = item.first() else {
            return;
        };
        let shift = *shift;
        // The item's lines under its hyphen, each as deep past it as written;
        // where they step by a wider unit than the small document's two spaces
        // (a reply indented by four), in steps of two, so that the document
        // needs no re-levelling the whole reply does not report.
        let past = |l: &str| indent_of(l).saturating_sub(shift);
        let unit = item.iter().map(|(_, l)| past(l)).filter(|&d| d > 0).min();
        let step = match unit {
            Some(u) if u > 2 && item.iter().all(|(_, l)| past(l) % u == 0) => u,
            _ => 2,
        };
        let body: Vec<String> = item
            .iter()
            .map(|(_, l)| {
                let depth = past(l) / step * 2 + past(l) % step;
                format!("  {}{}", " ".repeat(depth), &l[indent_of(l)..])
            })
            .collect();
        // The root list has no key.
        let head = if key.is_empty() {
            String::new()
        } else {
            crate::spec::encode::encode_key(key)
        };
        let doc = format!("{head}[1]:\n{}", body.join("\n"));
        let mut lines = vec![*header_line];
        lines.extend(item.iter().map(|(n, _)| *n));
        let (key, at) = (key.clone(), *index);
        if let Some((Value::Array(mut items), repairs)) =
            decode_doc(&self.guide, &self.options, &doc, &key, &lines)
        {
            if items.len() == 1 {
                events.push(Event::Item {
                    key,
                    index: at,
                    element: Element::read(items.remove(0), first, repairs),
                });
                if let Block::List { index, .. } = &mut self.block {
                    *index += 1;
                }
            }
        }
    }

    pub(super) fn close_block(&mut self, events: &mut Vec<Event>) {
        if let Block::List { item, .. } = &mut self.block {
            let last = std::mem::take(item);
            let before = events.len();
            self.emit_item(last, events);
            self.emitted |= events.len() > before;
        }
        // A list declared empty, and left so, is decided: an empty array (for
        // a field of a list type only; the whole reply refuses it elsewhere).
        match std::mem::replace(&mut self.block, Block::Opaque) {
            Block::Table {
                key,
                index: 0,
                empty: true,
                ..
            }
            | Block::List {
                key,
                index: 0,
                empty: true,
                ..
            } => {
                events.push(Event::Field {
                    key,
                    value: Value::Array(Vec::new()),
                    repairs: Vec::new(),
                });
                self.emitted = true;
            }
            _ => {}
        }
    }
}

/// `doc` (a header and a line, or a line) read by the whole reply's decoder
/// with the type's guide: the value of `key` in it and its repairs, each on
/// its line of the completion (`lines`, by the document's line).
fn decode_doc(
    guide: &TypeGuide,
    options: &ReplyOptions,
    doc: &str,
    key: &str,
    lines: &[usize],
) -> Option<(Value, Vec<Repair>)> {
    let mut buf = String::new();
    let findings = &mut Findings::default();
    let decoded =
        decode_reply_guided(doc, &mut buf, Some(guide as &dyn Guide), options, findings).ok()?;
    let value = match decoded.value {
        Node::Object(mut map) if !key.is_empty() => map.shift_remove(key)?.node.into_value(),
        root if key.is_empty() => root.into_value(),
        _ => return None,
    };
    let repairs = decoded
        .repairs
        .into_iter()
        .filter(|r| r.kind != RepairKind::CorrectedLength)
        .map(|mut r| {
            // 0 is "no line"; the document has no line past `lines`.
            if r.line > 0 {
                debug_assert!(r.line <= lines.len(), "{r}");
                r.line = lines.get(r.line - 1).copied().unwrap_or(0);
            }
            r
        })
        .collect();
    Some((value, repairs))
}
