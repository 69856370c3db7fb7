//! The decoded document before it becomes a `serde_json::Value`: the same data
//! model, except that a tabular array keeps its rows as cells under one header.
//!
//! The untyped API turns a [`Node`] into a `Value`. The typed decoder reads it
//! directly, so a table row goes into a struct cell by cell, without the map and
//! the key strings a `Value` object would cost for every row. Unquoted text
//! borrows the reply until a type takes it, so a cell that a type only compares
//! (an enum's) is never copied; a reply the decoder had to rewrite is decoded
//! from its own text, and owns its strings.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::spec::header::Field;
pub use crate::spec::lex::Scalar;

/// A decoded value; see the module docs. Generated code receives it. `'t` is
/// the text it was read from, which unquoted strings borrow until a type takes them.
#[doc(hidden)]
#[derive(Debug)]
pub enum Node<'t> {
    /// A primitive: null, a boolean, a number or a string.
    Scalar(Scalar<'t>),
    /// Boxed, so that a node is small to move (a map is 72 bytes).
    Object(Box<Object<'t>>),
    Array(Vec<Placed<'t>>),
    /// A tabular array whose rows have not been assembled into objects.
    Table(Box<Table<'t>>),
    /// One row of a flat table, lent to the element type's decoder.
    Row(Row<'t>),
}

/// An object's entries, each with the line its value starts on.
pub(crate) type Object<'t> = IndexMap<String, Placed<'t>>;

/// A value and the line it starts on, so that an error or a typed repair knows
/// its line when it is made. 0 where the text gave no line (a JSON reply).
#[doc(hidden)]
#[derive(Debug)]
pub struct Placed<'t> {
    pub(crate) line: usize,
    /// Where on its line the value stands.
    pub(crate) at: At,
    pub(crate) node: Node<'t>,
}

/// Where a value stands on its line, as the decoder found it: what turns an
/// error about the value into a column, only once an error needs one.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) enum At {
    /// Not known (a JSON reply, a value built from several).
    #[default]
    Unknown,
    /// At this byte of the line.
    Byte(usize),
    /// The cell of this index of a table's row, cut by this delimiter.
    Cell(usize, char),
}

impl<'t> Placed<'t> {
    pub(crate) fn new(line: usize, node: Node<'t>) -> Self {
        Placed::at(line, At::Unknown, node)
    }

    pub(crate) fn at(line: usize, at: At, node: Node<'t>) -> Self {
        Placed { line, at, node }
    }

    fn into_owned<'b>(self) -> Placed<'b> {
        Placed::at(self.line, self.at, self.node.into_owned())
    }
}

/// The rows of a tabular array: each row's cells in header order, end to end.
#[doc(hidden)]
#[derive(Debug)]
pub struct Table<'t> {
    pub(crate) fields: Vec<Field>,
    /// The header's delimiter.
    pub(crate) delim: char,
    pub(crate) cells: Vec<Scalar<'t>>,
    /// Where each row's cells end in `cells`.
    pub(crate) ends: Vec<usize>,
    /// The line of each row.
    pub(crate) lines: Vec<usize>,
}

/// One row of a table whose header is flat (leaf fields only, none repeated, at
/// most 64), so a cell is found by its field's position.
#[doc(hidden)]
#[derive(Debug)]
pub struct Row<'t> {
    pub(crate) fields: &'t [Field],
    /// Fewer cells than fields only where a non-strict row was short.
    pub(crate) cells: &'t mut [Scalar<'t>],
    pub(crate) line: usize,
    /// The header's delimiter, which tells where a cell stands on the line.
    pub(crate) delim: char,
}

/// The columns a type has found in a table so far, kept from row to row (see
/// [`column_of`]): the `nth` field asked for, and its column.
pub(crate) type Memo = Vec<(&'static str, Option<usize>)>;

impl<'t> Table<'t> {
    pub(crate) fn with_capacity(
        fields: Vec<Field>,
        delim: char,
        rows: usize,
        cells: usize,
    ) -> Self {
        Table {
            fields,
            delim,
            cells: Vec::with_capacity(cells),
            ends: Vec::with_capacity(rows),
            lines: Vec::with_capacity(rows),
        }
    }

    /// The number of rows.
    pub(crate) fn len(&self) -> usize {
        self.lines.len()
    }

    /// Can rows be lent as [`Row`]s, cells found by field position?
    pub(crate) fn is_flat(&self) -> bool {
        is_flat(&self.fields)
    }

    /// Each row as an object, in order, with its line.
    pub(crate) fn into_rows<R: Record<'t>>(self) -> impl Iterator<Item = (usize, R)> + 't {
        let Table {
            fields,
            cells,
            ends,
            lines,
            ..
        } = self;
        let mut cells = cells.into_iter();
        let mut start = 0;
        ends.into_iter().zip(lines).map(move |(end, line)| {
            let mut row = cells.by_ref().take(end - start);
            start = end;
            let object = fill(&mut row, &fields, line);
            row.for_each(drop); // cells past the header's fields (non-strict)
            (line, object)
        })
    }
}

/// Can the rows under `fields` be lent as [`Row`]s, cells found by field
/// position? Leaf fields only, none repeated, at most 64.
pub(crate) fn is_flat(fields: &[Field]) -> bool {
    fields.len() <= 64
        && fields
            .iter()
            .enumerate()
            .all(|(i, f)| f.children.is_none() && !fields[..i].iter().any(|g| g.name == f.name))
}

impl<'t> Row<'t> {
    /// The row as an object.
    pub(crate) fn into_object(self) -> Object<'t> {
        let mut cells = self.cells.iter_mut().map(std::mem::take);
        fill(&mut cells, self.fields, self.line)
    }
}

/// The column of `key` among a row's `fields` that the row has a cell for
/// (`width` cells) and that is not in `taken` yet, the `nth` field asked for
/// (see [`column_of`]).
#[inline(always)]
pub(crate) fn open_column(
    fields: &[Field],
    width: usize,
    memo: &mut Memo,
    taken: u64,
    nth: usize,
    key: &'static str,
) -> Option<usize> {
    let i = column_of(fields, memo, nth, key)?;
    (i < width && taken & (1 << i) == 0).then_some(i)
}

/// The column of the field `key` among `fields`, the `nth` the type has asked
/// for in this row. Generated code asks for its fields in the same order in
/// every row, so after the first row each is found by comparing the key with
/// the one the memo holds at that place instead of searching the header.
#[inline(always)]
fn column_of(fields: &[Field], memo: &mut Memo, nth: usize, key: &'static str) -> Option<usize> {
    match memo.get(nth) {
        Some(&(k, col)) if k == key => col,
        _ => search_column(fields, memo, nth, key),
    }
}

/// [`column_of`] where the memo does not know the field: once a table, out
/// of the line of every cell read.
#[cold]
#[inline(never)]
fn search_column(
    fields: &[Field],
    memo: &mut Memo,
    nth: usize,
    key: &'static str,
) -> Option<usize> {
    let col = fields.iter().position(|f| f.name == key);
    memo.truncate(nth);
    if memo.len() == nth {
        memo.push((key, col));
    }
    col
}

/// An object assembled from a row's cells: of nodes for the typed decoder, of
/// JSON values for the untyped one (which would otherwise build both).
/// Every value of a row stands on the row's `line`.
pub(crate) trait Record<'t> {
    /// An empty record with room for `n` fields.
    fn with_capacity(n: usize) -> Self;
    fn leaf(&mut self, name: String, value: Scalar<'t>, line: usize);
    fn group(&mut self, name: String, group: Self, line: usize);
}

impl<'t> Record<'t> for Object<'t> {
    fn with_capacity(n: usize) -> Self {
        Object::with_capacity(n)
    }
    fn leaf(&mut self, name: String, value: Scalar<'t>, line: usize) {
        self.insert(name, Placed::new(line, Node::Scalar(value)));
    }
    fn group(&mut self, name: String, group: Self, line: usize) {
        self.insert(name, Placed::new(line, Node::object(group)));
    }
}

impl<'t> Record<'t> for Map<String, Value> {
    fn with_capacity(n: usize) -> Self {
        Map::with_capacity(n)
    }
    fn leaf(&mut self, name: String, value: Scalar<'t>, _: usize) {
        self.insert(name, value.into());
    }
    fn group(&mut self, name: String, group: Self, _: usize) {
        self.insert(name, Value::Object(group));
    }
}

/// Assigns cells to leaf fields depth-first; nested field groups become objects.
/// A leaf with no cell left is absent (the non-strict rule of §14.1), and a
/// repeated field keeps its last cell.
pub(crate) fn fill<'t, R: Record<'t>>(
    cells: &mut impl Iterator<Item = Scalar<'t>>,
    fields: &[Field],
    line: usize,
) -> R {
    let mut record = R::with_capacity(fields.len());
    for f in fields {
        match &f.children {
            Some(sub) => {
                let group = fill(cells, sub, line);
                record.group(f.name.clone(), group, line);
            }
            None => {
                if let Some(v) = cells.next() {
                    record.leaf(f.name.clone(), v.classified(), line);
                }
            }
        }
    }
    record
}

impl<'t> Node<'t> {
    /// An object node.
    pub(crate) fn object(map: Object<'t>) -> Self {
        Node::Object(Box::new(map))
    }

    /// The node with its text owned, no longer borrowing the reply.
    pub(crate) fn into_owned<'b>(self) -> Node<'b> {
        match self {
            Node::Scalar(s) => Node::Scalar(s.into_owned()),
            Node::Object(map) => {
                Node::object(map.into_iter().map(|(k, v)| (k, v.into_owned())).collect())
            }
            Node::Array(items) => Node::Array(items.into_iter().map(Placed::into_owned).collect()),
            Node::Table(t) => Node::Table(Box::new(Table {
                fields: t.fields,
                delim: t.delim,
                cells: t.cells.into_iter().map(Scalar::into_owned).collect(),
                ends: t.ends,
                lines: t.lines,
            })),
            Node::Row(r) => Node::object(r.into_object()).into_owned(),
        }
    }

    /// The node as a JSON value.
    pub fn into_value(self) -> Value {
        match self {
            Node::Scalar(s) => s.into(),
            Node::Object(map) => Value::Object(object_value(*map)),
            Node::Array(items) => {
                Value::Array(items.into_iter().map(|p| p.node.into_value()).collect())
            }
            Node::Table(t) => Value::Array(t.into_rows().map(|(_, r)| Value::Object(r)).collect()),
            Node::Row(r) => Value::Object(object_value(r.into_object())),
        }
    }

    /// A few words on what the node is, for messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            Node::Scalar(s) => s.describe(),
            Node::Object(_) | Node::Row(_) => "an object".into(),
            Node::Array(a) => format!("an array of {}", a.len()),
            Node::Table(t) => format!("an array of {}", t.len()),
        }
    }
}

fn object_value(map: Object<'_>) -> Map<String, Value> {
    map.into_iter()
        .map(|(k, v)| (k, v.node.into_value()))
        .collect()
}

impl<'t> From<Value> for Node<'t> {
    fn from(value: Value) -> Self {
        match value {
            Value::Object(map) => Node::object(
                map.into_iter()
                    .map(|(k, v)| (k, Placed::new(0, v.into())))
                    .collect(),
            ),
            Value::Array(items) => Node::Array(
                items
                    .into_iter()
                    .map(|v| Placed::new(0, v.into()))
                    .collect(),
            ),
            Value::Null => Node::Scalar(Scalar::Null),
            Value::Bool(b) => Node::Scalar(Scalar::Bool(b)),
            Value::Number(n) => Node::Scalar(Scalar::Number(n)),
            Value::String(s) => Node::Scalar(Scalar::String(s)),
        }
    }
}
