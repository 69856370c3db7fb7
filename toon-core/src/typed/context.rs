//! The typed decoder's state while it walks a decoded value: the field path, for
//! errors, and the repairs so far.

use std::collections::HashMap;

use indexmap::IndexMap;

use super::Toon;
use crate::decode::line_of;
use crate::node::{Memo, Node, Row, Scalar, Table};
use crate::{ParseError, ParseErrorKind, Repair, RepairKind};

/// Walks a decoded value into a Rust value. Generated code calls it; its
/// methods are not part of the public API.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct Cx {
    path: Vec<Segment>,
    /// The columns found in the table being read (see [`Row::column`]).
    memo: Memo,
    /// The texts of the `Key` segments in `path`, in order.
    keys: Vec<String>,
    repairs: Vec<Repair>,
    /// Typed repairs not yet placed on a line: (index in `repairs`, path).
    unplaced: Vec<(usize, String)>,
}

/// One step of the path. `Copy`, so entering and leaving a field (on the hot
/// path, once per cell) is a push and a pop with nothing to drop.
#[derive(Debug, Clone, Copy)]
enum Segment {
    /// A struct field: its name is a literal of the generated code, so no allocation.
    Field(&'static str),
    /// A map entry's or unknown field's key: its text is `Cx::keys[n]`.
    Key(usize),
    Index(usize),
}

impl Cx {
    pub(crate) fn new(repairs: Vec<Repair>) -> Self {
        Cx {
            path: Vec::new(),
            memo: Memo::new(),
            keys: Vec::new(),
            repairs,
            unplaced: Vec::new(),
        }
    }

    pub(crate) fn has_unplaced(&self) -> bool {
        !self.unplaced.is_empty()
    }

    /// Gives each typed repair the line its value stood on.
    pub(crate) fn place(&mut self, lines: &HashMap<String, usize>) {
        for (i, path) in self.unplaced.drain(..) {
            if let Some(line) = line_of(lines, &path) {
                self.repairs[i].line = line;
            }
        }
    }

    pub(crate) fn into_repairs(mut self) -> Vec<Repair> {
        self.repairs.sort_by_key(|r| r.line);
        self.repairs
    }

    fn enter_key(&mut self, key: String) {
        self.path.push(Segment::Key(self.keys.len()));
        self.keys.push(key);
    }

    fn leave_key(&mut self) {
        self.path.pop();
        self.keys.pop();
    }

    /// The path so far: `violations[1].severity`.
    pub fn path(&self) -> String {
        let mut out = String::new();
        for seg in &self.path {
            let name = match *seg {
                Segment::Field(k) => k,
                Segment::Key(n) => self.keys[n].as_str(),
                Segment::Index(i) => {
                    out.push_str(&format!("[{i}]"));
                    continue;
                }
            };
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(name);
        }
        if out.is_empty() {
            out.push_str("(root)");
        }
        out
    }

    /// An error at the current path.
    pub fn error(&self, kind: ParseErrorKind, message: impl Into<String>) -> ParseError {
        ParseError::at_path(kind, self.path(), message)
    }

    /// Records a typed repair at the current path.
    pub fn repair(&mut self, kind: RepairKind, detail: impl std::fmt::Display) {
        let path = self.path();
        self.unplaced.push((self.repairs.len(), path.clone()));
        self.repairs
            .push(Repair::new(kind, 0, format!("{path}: {detail}")));
    }

    /// The node as a struct's fields, or an error naming the type that wanted one.
    #[inline]
    pub fn object<'t>(&self, node: Node<'t>, type_name: &str) -> Result<Fields<'t>, ParseError> {
        match node {
            Node::Object(map) => Ok(Fields(Source::Map(*map))),
            Node::Row(row) => Ok(Fields(Source::Row {
                row,
                taken: 0,
                asked: 0,
            })),
            other => Err(self.error(
                ParseErrorKind::InvalidValue,
                format!(
                    "expected {type_name} (an object with its fields), found {}",
                    other.describe()
                ),
            )),
        }
    }

    /// Reports the fields left once the type has taken its own: the model wrote
    /// them, the type has no place for them.
    #[inline]
    pub fn ignore_unknown(&mut self, fields: Fields<'_>) {
        let keys: Vec<String> = match fields.0 {
            Source::Map(map) => map.into_keys().collect(),
            Source::Row { row, taken, .. } => (0..row.cells.len().min(row.fields.len()))
                .filter(|i| taken & (1 << i) == 0)
                .map(|i| row.fields[i].name.clone())
                .collect(),
        };
        for key in keys {
            self.enter_key(key);
            self.repair(RepairKind::IgnoredKey, "key the type does not have");
            self.leave_key();
        }
    }

    /// Takes the field `key`; a missing key is an error unless the type has a
    /// value for "missing" (`Option`).
    pub fn field<T: Toon>(
        &mut self,
        fields: &mut Fields<'_>,
        key: &'static str,
    ) -> Result<T, ParseError> {
        self.path.push(Segment::Field(key));
        let out = match fields.take(key, &mut self.memo) {
            Some(v) => T::__from_node(v, self),
            None => T::__missing().ok_or_else(|| {
                self.error(
                    ParseErrorKind::MissingField,
                    format!("required field `{key}` is missing from the reply"),
                )
            }),
        };
        self.path.pop();
        out
    }

    /// Takes the field `key`, or `T::default()` when it is missing (`#[serde(default)]`).
    pub fn field_or_default<T: Toon + Default>(
        &mut self,
        fields: &mut Fields<'_>,
        key: &'static str,
    ) -> Result<T, ParseError> {
        if fields.contains(key, &mut self.memo) {
            self.field(fields, key)
        } else {
            Ok(T::default())
        }
    }

    /// Reads element `index` of an array.
    pub(crate) fn element<T: Toon>(
        &mut self,
        node: Node<'_>,
        index: usize,
    ) -> Result<T, ParseError> {
        self.path.push(Segment::Index(index));
        let out = T::__from_node(node, self);
        self.path.pop();
        out
    }

    /// Reads the rows of a table: each lent to `T` as a [`Row`] when the header
    /// is flat, so no row is assembled into an object.
    pub(crate) fn rows<T: Toon>(&mut self, table: Table<'_>) -> Result<Vec<T>, ParseError> {
        if !table.is_flat() {
            return table
                .into_rows()
                .enumerate()
                .map(|(i, row)| self.element(Node::object(row), i))
                .collect();
        }
        let Table {
            fields,
            cells,
            ends,
        } = table;
        // A row lends its cells for as long as they may borrow the text, so
        // the rows are split off the cells one by one.
        let mut cells: Vec<Scalar<'_>> = cells;
        let mut rest = cells.as_mut_slice();
        let mut out = Vec::with_capacity(ends.len());
        let outer = std::mem::take(&mut self.memo);
        let mut start = 0;
        for (i, &end) in ends.iter().enumerate() {
            let (cells, tail) = std::mem::take(&mut rest).split_at_mut(end - start);
            rest = tail;
            start = end;
            let row = Row {
                fields: &fields,
                cells,
            };
            match self.element(Node::Row(row), i) {
                Ok(value) => out.push(value),
                Err(e) => {
                    self.memo = outer;
                    return Err(e);
                }
            }
        }
        self.memo = outer;
        Ok(out)
    }

    /// Reads entry `key` of a map.
    pub(crate) fn entry<T: Toon>(&mut self, node: Node<'_>, key: &str) -> Result<T, ParseError> {
        self.enter_key(key.to_owned());
        let out = T::__from_node(node, self);
        self.leave_key();
        out
    }

    /// Takes the tag of an internally tagged enum out of `map` and matches it to a variant.
    pub fn tag(
        &mut self,
        fields: &mut Fields<'_>,
        tag: &'static str,
        names: &[&str],
    ) -> Result<usize, ParseError> {
        self.path.push(Segment::Field(tag));
        let out = match fields.take(tag, &mut self.memo) {
            Some(v) => self.variant(&v, names),
            None => Err(self.error(
                ParseErrorKind::MissingField,
                format!(
                    "the tag `{tag}` is missing; it names which form this is: {}",
                    names.join(", ")
                ),
            )),
        };
        self.path.pop();
        out
    }

    /// Matches a unit-enum value against the variants' wire names, forgiving letter case (reported).
    #[inline]
    pub fn variant(&mut self, node: &Node<'_>, names: &[&str]) -> Result<usize, ParseError> {
        let Some(text) = (match node {
            Node::Scalar(s) => s.as_str(),
            _ => None,
        }) else {
            return Err(self.error(
                ParseErrorKind::InvalidValue,
                format!(
                    "expected one of {}, found {}",
                    names.join(", "),
                    node.describe()
                ),
            ));
        };
        if let Some(i) = names.iter().position(|n| *n == text) {
            return Ok(i);
        }
        let folded: Vec<usize> = (0..names.len())
            .filter(|&i| names[i].eq_ignore_ascii_case(text))
            .collect();
        if let [i] = folded[..] {
            self.repair(
                RepairKind::EnumCase,
                format!("`{text}` read as `{}`", names[i]),
            );
            return Ok(i);
        }
        Err(self.error(
            ParseErrorKind::InvalidValue,
            format!("`{text}` is not one of {}", names.join(", ")),
        ))
    }
}

/// The fields of a struct being read: an object's entries, or a table row's
/// cells found by the header's field names.
#[doc(hidden)]
#[derive(Debug)]
pub struct Fields<'t>(Source<'t>);

#[derive(Debug)]
enum Source<'t> {
    Map(IndexMap<String, Node<'t>>),
    /// `taken`: a bit per column already read; `asked`: how many fields the
    /// type has taken so far (see [`Row::column`]).
    Row {
        row: Row<'t>,
        taken: u64,
        asked: usize,
    },
}

impl<'t> Fields<'t> {
    /// The column of `key` in a row, if the row has a cell for it not yet read.
    #[inline]
    fn column(
        row: &Row<'_>,
        memo: &mut Memo,
        taken: u64,
        asked: usize,
        key: &'static str,
    ) -> Option<usize> {
        let i = row.column(memo, asked, key)?;
        (i < row.cells.len() && taken & (1 << i) == 0).then_some(i)
    }

    #[inline]
    fn take(&mut self, key: &'static str, memo: &mut Memo) -> Option<Node<'t>> {
        match &mut self.0 {
            // `shift_remove` keeps the order of what is left, for the report.
            Source::Map(map) => map.shift_remove(key),
            Source::Row { row, taken, asked } => {
                let i = Self::column(row, memo, *taken, *asked, key);
                *asked += 1;
                *taken |= 1 << i?;
                Some(Node::Scalar(std::mem::take(&mut row.cells[i?])))
            }
        }
    }

    #[inline]
    fn contains(&self, key: &'static str, memo: &mut Memo) -> bool {
        match &self.0 {
            Source::Map(map) => map.contains_key(key),
            Source::Row { row, taken, asked } => {
                Self::column(row, memo, *taken, *asked, key).is_some()
            }
        }
    }
}
