//! What the stream yields: events, and the array elements they carry, kept as
//! the model wrote them until they are asked for.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};

use super::super::context::read_alone;
use super::super::{RowCells, Toon};
use crate::reply::{ParseError, ParseErrorKind, Repair};
use crate::spec::header::Field;
use crate::spec::lex::read_cells;
use crate::spec::node::{fill, Memo, Node, Row, Scalar};

/// A value the stream has decided.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// A top-level field with a scalar value, complete, or a list declared
    /// empty (`tags[0]:`) once the next line shows no element follows.
    Field {
        /// The field's key: the type's name for it (borrowed, so that an
        /// event costs no allocation for it), or the text's where the type
        /// names no fields (a map).
        key: Cow<'static, str>,
        /// Its value.
        value: Value,
        /// The repairs its line needed, on the completion's lines; empty for a
        /// line that was valid as written.
        repairs: Vec<Repair>,
    },
    /// Text of a delimited prose field (`#[toon(delimited)]`), as it arrives:
    /// the deltas of one field, joined, are its final value.
    Text {
        /// The field's key: the type's name for it (borrowed, so that an
        /// event costs no allocation for it), or the text's where the type
        /// names no fields (a map).
        key: Cow<'static, str>,
        /// The text since the previous event of this field.
        delta: String,
    },
    /// One element of a top-level array: a table row, a list item or an inline value.
    Item {
        /// The array's key; empty for the document's root array (`[2]{id,name}:`,
        /// the reply of a `Vec<T>`).
        key: Cow<'static, str>,
        /// The element's position in the array, from 0.
        index: usize,
        /// The element, read into a type with [`Element::decode`] (or
        /// [`Event::decode`]), or as JSON with [`Element::value`].
        element: Element,
    },
    /// Every `Field` and `Item` event before this one is withdrawn: the lines
    /// they came from turned out not to be the document. Reasoning that a
    /// `</think>` closes with no `<think>` in the reply (the chat template
    /// opened it), or prose before a fenced block (` ```toon `), reads like a
    /// document until the line that shows what it was. (A fence after the
    /// document's own events is withdrawn too: whether it closes the document
    /// or opens a block, only the rest of the reply shows.) Discard what those
    /// events gave; the document's events follow, its arrays from index 0.
    /// (`Text` events stand: a delimited block is the reply's wherever it is.)
    Withdrawn,
}

impl Event {
    /// The event's value read as `E` (an element type such as `Violation`), with
    /// the typed decoder's forgiveness (quoted numbers, enum case).
    ///
    /// # Errors
    /// As [`Toon::from_toon`] for a value of the wrong shape.
    pub fn decode<E: Toon>(&self) -> Result<E, ParseError> {
        match self {
            Event::Field { value, .. } => read_alone(Node::from(value.clone())),
            Event::Text { delta, .. } => read_alone(Node::from(Value::String(delta.clone()))),
            Event::Item { element, .. } => element.decode(),
            Event::Withdrawn => Err(ParseError::new(
                ParseErrorKind::InvalidValue,
                None,
                "a withdrawn event holds no value: it says to discard the events before it",
            )),
        }
    }
}

impl Event {
    /// A repair the event's line needed that its reading did not see.
    pub(crate) fn add_repair(&mut self, repair: Repair) {
        match self {
            Event::Field { repairs, .. } => repairs.push(repair),
            Event::Item { element, .. } => element.repairs.push(repair),
            Event::Text { .. } | Event::Withdrawn => {}
        }
    }
}

/// One element of a top-level array, as the stream read it.
///
/// A table row that reads as it stands is kept as its text and read only when
/// asked ([`decode`](Self::decode), [`value`](Self::value)), so a stream costs
/// little more than the text it is fed; any other element was read when its
/// lines ended, through the whole-reply decoder's repairs, which it carries.
#[derive(Debug, Clone)]
pub struct Element {
    body: Body,
    line: usize,
    repairs: Vec<Repair>,
}

#[derive(Debug, Clone)]
enum Body {
    /// A clean row: its cells' text, under its table's columns (each shared
    /// with the element's clones).
    Row(Arc<str>, Arc<Columns>),
    /// A value read through the reply decoder (boxed: most elements are
    /// rows, and an event small enough is moved without a call).
    Value(Box<Value>),
}

/// A table's columns, shared by the rows streamed under its header: flat
/// (`node::is_flat`), since a row is read cell by cell by field position.
#[derive(Debug)]
pub(crate) struct Columns {
    pub fields: Vec<Field>,
    pub delim: char,
    /// The cells a row of this table has.
    pub width: usize,
    /// Where a type found its fields among the columns, kept from row to row
    /// as the whole reply keeps it (see `node::Memo`).
    memo: Mutex<Memo>,
}

impl Columns {
    pub(crate) fn new(fields: Vec<Field>, delim: char) -> Self {
        Columns {
            width: Field::leaf_count(&fields),
            fields,
            delim,
            memo: Mutex::new(Memo::new()),
        }
    }

    /// Reads a row's cells into `cells` (emptied first); whether they read as
    /// they stand and are exactly the header's width, as a clean row's must.
    pub(crate) fn clean_cells<'t>(&self, text: &'t str, cells: &mut Vec<Scalar<'t>>) -> bool {
        cells.clear();
        read_cells(text, self.delim, cells).is_ok() && self.width > 0 && cells.len() == self.width
    }

    /// Lends the table's memo to `read`; a fresh one while another thread
    /// reads a row of the same table, so that reading never waits.
    fn with_memo<R>(&self, read: impl FnOnce(&mut Memo) -> R) -> R {
        match self.memo.try_lock() {
            Ok(mut memo) => read(&mut memo),
            Err(_) => read(&mut Memo::new()),
        }
    }
}

impl Element {
    /// A clean row, kept as its text.
    pub(crate) fn row(text: &str, columns: &Arc<Columns>, line: usize) -> Self {
        Element {
            body: Body::Row(text.into(), Arc::clone(columns)),
            line,
            repairs: Vec::new(),
        }
    }

    /// A value the reply decoder read, with the repairs it made.
    pub(crate) fn read(value: Value, line: usize, repairs: Vec<Repair>) -> Self {
        Element {
            body: Body::Value(Box::new(value)),
            line,
            repairs,
        }
    }

    /// The element read as `E` (an element type such as `Violation`), with the
    /// typed decoder's forgiveness (quoted numbers, enum case), as the whole
    /// reply reads it.
    ///
    /// # Errors
    /// As [`Toon::from_toon`] for a value of the wrong shape.
    pub fn decode<E: Toon>(&self) -> Result<E, ParseError> {
        match &self.body {
            Body::Row(text, columns) => lend_row(text, columns, self.line, |row| {
                // As the whole reply reads a row: in one pass where it can.
                let read =
                    columns.with_memo(|memo| E::__TOON.from_row(&mut RowCells::new(&row, memo)));
                if let Some(value) = read {
                    return Ok(value);
                }
                read_alone(Node::Row(row))
            }),
            Body::Value(value) => read_alone(Node::from((**value).clone())),
        }
    }

    /// The element as JSON, as the whole-reply decoder makes it (a row as the
    /// object of its header's fields).
    pub fn value(&self) -> Value {
        match &self.body {
            Body::Row(text, columns) => {
                let row: Map<String, Value> = fill(
                    &mut cells_of(text, columns).into_iter(),
                    &columns.fields,
                    self.line,
                );
                Value::Object(row)
            }
            Body::Value(value) => (**value).clone(),
        }
    }

    /// The 1-based line of the completion the element begins on.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The repairs the element's lines needed, on the completion's lines; empty
    /// for an element that was valid as written. A count is decided with the
    /// whole reply, at [`finish`](super::ToonStream::finish), not here.
    pub fn repairs(&self) -> &[Repair] {
        &self.repairs
    }
}

/// A table row as the stream hands it to its type's `Toon::__TOON.stream_row`:
/// the element, and its cells where they read as they stand. Generated code
/// passes it along to the element type.
#[doc(hidden)]
pub struct StreamRow<'r, 'c> {
    element: &'r Element,
    clean: Option<CleanRow<'r, 'c>>,
}

/// A clean row's cells, read once, under its table's fields, and the
/// stream's memo of where the type found its fields in that table.
pub(crate) struct CleanRow<'r, 'c> {
    pub fields: &'r [Field],
    pub cells: &'r [Scalar<'c>],
    pub line: usize,
    pub delim: char,
    pub memo: &'r mut Memo,
}

impl<'r, 'c> StreamRow<'r, 'c> {
    pub(crate) fn new(element: &'r Element, clean: Option<CleanRow<'r, 'c>>) -> Self {
        StreamRow { element, clean }
    }

    /// Does the whole reply keep the row, read as a `Vec<E>`'s? It drops a
    /// row `E` cannot read; a value outside its constraint refuses the reply
    /// instead (`Cx::rows`). A clean row is checked in one pass from its
    /// cells, without building the value, where it can be; otherwise it is
    /// read in full, from the same cells.
    pub(crate) fn read<E: Toon>(&mut self) -> bool {
        let read = match (self.clean.take(), &self.element.body) {
            (Some(clean), Body::Row(..)) => {
                let mut cells = RowCells::of(clean.fields, clean.cells, clean.memo);
                if E::__TOON.row_reads(&mut cells) {
                    return true;
                }
                // The full path takes cells from the row: it has its own.
                let row = Row {
                    fields: clean.fields,
                    cells: &mut clean.cells.to_vec(),
                    line: clean.line,
                    delim: clean.delim,
                };
                read_alone::<E>(Node::Row(row)).map(drop)
            }
            _ => self.element.decode::<E>().map(drop),
        };
        match read {
            Ok(()) => true,
            Err(e) => e.kind() == ParseErrorKind::Constraint,
        }
    }
}

/// Lends a clean row, its cells read as the whole-reply decoder reads them
/// (the row was checked to read as it stands when it was streamed), to `read`.
fn lend_row<R>(text: &str, columns: &Columns, line: usize, read: impl FnOnce(Row<'_>) -> R) -> R {
    let mut cells = cells_of(text, columns);
    read(Row {
        fields: &columns.fields,
        cells: &mut cells,
        line,
        delim: columns.delim,
    })
}

/// A clean row's cells.
fn cells_of<'t>(text: &'t str, columns: &Columns) -> Vec<Scalar<'t>> {
    let mut cells = Vec::with_capacity(columns.width);
    let _ = read_cells(text, columns.delim, &mut cells);
    cells
}

/// Two elements are equal when they hold the same value, begin on the same
/// line and needed the same repairs, however each is kept.
impl PartialEq for Element {
    fn eq(&self, other: &Self) -> bool {
        self.line == other.line && self.repairs == other.repairs && self.value() == other.value()
    }
}
