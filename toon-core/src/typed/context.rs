//! The typed decoder's state while it walks a decoded value: the field path, for
//! errors, and the repairs so far.

use super::constrain::{violation, ItemAt, Items, Measure, Measured};
use super::{Constraints, RowCells, Toon};
use crate::reply::{ParseError, ParseErrorKind, Repair, RepairKind, EMPTY_OBJECT};
use crate::spec::node::{open_column, At, Memo, Node, Object, Placed, Row, Scalar, Table};

/// Walks a decoded value into a Rust value. Generated code calls it; its
/// methods are not part of the public API.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct Cx {
    /// Each step with the line its value stands on (0: the enclosing value's).
    path: Vec<(Segment, usize)>,
    /// The line of the field taken last, for a check made right after it.
    last_line: usize,
    /// Where the value being read stands on its line.
    at: At,
    /// The columns found in the table being read (see `node::column_of`).
    memo: Memo,
    /// The texts of the `Key` segments in `path`, in order.
    keys: Vec<String>,
    repairs: Vec<Repair>,
    /// Drop (and report) a table row the type cannot read, rather than refuse.
    drop_rows: bool,
    /// Field patterns compiled so far.
    patterns: Vec<(&'static str, Option<regex_lite::Regex>)>,
    /// The header lines of the tables read so far, but one refused for
    /// having no row that reads: a row the decoder dropped under one of them
    /// was the type's to read.
    tables: Vec<usize>,
    /// Typed repairs made where no value on the path has a line (values read
    /// from a JSON reply): their index in `repairs` and their path, to be
    /// placed by [`place`](Self::place) once the reading is done.
    unplaced: Vec<(usize, String)>,
    /// Values outside their constraints, each refused at its path: the
    /// reading goes on, so that the refusal names every one.
    violations: Vec<ParseError>,
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

/// A value read from `node` with a context of its own: the value, or its
/// refusal, one that names every value outside its constraints.
pub(crate) fn read_alone<E: Toon>(node: Node<'_>) -> Result<E, ParseError> {
    let mut cx = Cx::default();
    let value = E::__TOON.from_node(node, &mut cx)?;
    match outside(cx.violations()) {
        Some(e) => Err(e),
        None => Ok(value),
    }
}

/// One refusal for the values outside their constraints: the one, or one
/// that names each with its place (the first's line and path lead it).
pub(crate) fn outside(mut violations: Vec<ParseError>) -> Option<ParseError> {
    match violations.len() {
        0 => None,
        1 => violations.pop(),
        n => {
            let each: Vec<String> = violations
                .iter()
                .map(|e| {
                    let place = match (e.path(), e.line()) {
                        (Some(path), Some(line)) => format!("`{path}` (line {line})"),
                        (Some(path), None) => format!("`{path}`"),
                        (None, Some(line)) => format!("line {line}"),
                        (None, None) => "a value".to_owned(),
                    };
                    format!("{place}: {}", e.message())
                })
                .collect();
            let first = &violations[0];
            Some(ParseError::new(
                ParseErrorKind::Constraint,
                first.line(),
                format!(
                    "{n} values are outside their constraints; {}",
                    each.join("; ")
                ),
            ))
        }
    }
}

impl Cx {
    pub(crate) fn new(repairs: Vec<Repair>, drop_rows: bool) -> Self {
        Cx {
            path: Vec::new(),
            last_line: 0,
            at: At::Unknown,
            memo: Memo::new(),
            keys: Vec::new(),
            repairs,
            drop_rows,
            patterns: Vec::new(),
            tables: Vec::new(),
            unplaced: Vec::new(),
            violations: Vec::new(),
        }
    }

    /// Checks a field's value against its constraints: outside them, the value
    /// is refused as `Constraint` at the field's path, never clamped or
    /// dropped. The refusal is kept and the reading goes on, so that the
    /// reply's refusal names every value outside its constraints
    /// ([`violations`](Self::violations)).
    pub fn check<T: Measure>(
        &mut self,
        value: &T,
        key: &'static str,
        constraints: &Constraints,
    ) -> Result<(), ParseError> {
        self.path.push((Segment::Field(key), self.last_line));
        self.check_here(value.measure(), constraints);
        self.path.pop();
        Ok(())
    }

    /// Checks each item of a field's list, or value of its map, against the
    /// field's `inner` constraints, as [`check`](Self::check) checks the
    /// field: each item outside them is refused at its own path
    /// (`scores[2]`, `limits.cpu`).
    pub fn check_items<C: Items>(
        &mut self,
        value: &C,
        key: &'static str,
        inner: &Constraints,
    ) -> Result<(), ParseError> {
        self.path.push((Segment::Field(key), self.last_line));
        value.each_item(&mut |at, measured| {
            match at {
                ItemAt::Index(i) => self.path.push((Segment::Index(i), 0)),
                ItemAt::Key(k) => self.enter_key(k.to_owned(), 0),
            }
            self.check_here(measured, inner);
            match at {
                ItemAt::Index(_) => {
                    self.path.pop();
                }
                ItemAt::Key(_) => self.leave_key(),
            }
        });
        self.path.pop();
        Ok(())
    }

    /// [`field_or_checked`](Self::field_or_checked) of a field whose items
    /// are constrained too: a value read from the reply is checked, and each
    /// of its items.
    pub fn field_or_items<T: Toon + Measure + Items>(
        &mut self,
        fields: &mut Fields<'_>,
        key: &'static str,
        aliases: &'static [&'static str],
        (constraints, inner): (&Constraints, &Constraints),
        missing: impl FnOnce() -> T,
    ) -> Result<T, ParseError> {
        if self.present(fields, key, aliases) {
            let value = self.field(fields, key, aliases)?;
            self.check(&value, key, constraints)?;
            self.check_items(&value, key, inner)?;
            Ok(value)
        } else {
            self.last_line = 0;
            Ok(missing())
        }
    }

    /// Keeps the refusal of a value measured as `measured` at the current
    /// path, where it breaks `constraints`.
    fn check_here(&mut self, measured: Measured<'_>, constraints: &Constraints) {
        let patterns = &mut self.patterns;
        let text = match measured {
            Measured::Text(t) => Some(t),
            _ => None,
        };
        let mut regex = |p: &'static str| -> Option<bool> {
            let at = match patterns.iter().position(|(q, _)| *q == p) {
                Some(at) => at,
                None => {
                    patterns.push((p, regex_lite::Regex::new(p).ok()));
                    patterns.len() - 1
                }
            };
            Some(patterns[at].1.as_ref()?.is_match(text?))
        };
        if let Some(why) = violation(&measured, constraints, &mut regex) {
            let e = self.error(ParseErrorKind::Constraint, why);
            self.violations.push(e);
        }
    }

    /// The values found outside their constraints, in the order read.
    pub(crate) fn violations(&mut self) -> Vec<ParseError> {
        std::mem::take(&mut self.violations)
    }

    /// The rows dropped so far, as `dropped_row` repairs: the type's own,
    /// and the decoder's under a header whose line `header_of` gives, where
    /// the type read that table.
    pub(crate) fn dropped_rows<'s>(
        &'s self,
        header_of: impl Fn(usize) -> Option<usize> + 's,
    ) -> impl Iterator<Item = &'s Repair> {
        // Read in the type's field order, not the reply's: sorted here, so
        // that each row's table is looked up, however many tables there are.
        let mut tables = self.tables.clone();
        tables.sort_unstable();
        self.repairs.iter().filter(move |r| {
            r.kind == RepairKind::DroppedRow
                && !matches!(header_of(r.line), Some(h) if tables.binary_search(&h).is_err())
        })
    }

    pub(crate) fn into_repairs(mut self) -> Vec<Repair> {
        self.repairs.sort_by_key(|r| r.line);
        self.repairs
    }

    fn enter_key(&mut self, key: String, line: usize) {
        self.path.push((Segment::Key(self.keys.len()), line));
        self.keys.push(key);
    }

    fn leave_key(&mut self) {
        self.path.pop();
        self.keys.pop();
    }

    /// The path so far: `violations[1].severity`.
    pub fn path(&self) -> String {
        let mut out = String::new();
        for (seg, _) in &self.path {
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

    /// The line of the innermost value on the path that has one.
    fn line(&self) -> Option<usize> {
        self.path.iter().rev().map(|s| s.1).find(|&l| l > 0)
    }

    /// An error at the current path, on its line.
    pub fn error(&self, kind: ParseErrorKind, message: impl Into<String>) -> ParseError {
        ParseError::at_path(kind, self.line(), self.path(), message)
    }

    /// An error at the current path about `node`, whose text, where the reply
    /// shows it as written, gives the error its column.
    pub fn error_about(
        &self,
        kind: ParseErrorKind,
        message: impl Into<String>,
        node: &Node<'_>,
    ) -> ParseError {
        let e = self.error(kind, message);
        match node {
            Node::Scalar(Scalar::Text(_)) => e.about(self.at),
            _ => e,
        }
    }

    /// Records a typed repair at the current path, on its line (where the
    /// value has none, [`place`](Self::place) finds it from the path).
    pub fn repair(&mut self, kind: RepairKind, detail: impl std::fmt::Display) {
        let line = self.line();
        let path = self.path();
        if line.is_none() {
            self.unplaced.push((self.repairs.len(), path.clone()));
        }
        self.repairs.push(Repair::new(
            kind,
            line.unwrap_or(0),
            format!("{path}: {detail}"),
        ));
    }

    /// Places the repairs made where no value had a line, by their path:
    /// `line_of` finds a path's line in the reply, else `fallback`.
    pub(crate) fn place(&mut self, line_of: impl Fn(&str) -> Option<usize>, fallback: usize) {
        for (at, path) in std::mem::take(&mut self.unplaced) {
            self.repairs[at].line = line_of(&path).unwrap_or(fallback);
        }
    }

    /// The node as a struct's fields, or an error naming the type that wanted one.
    #[inline]
    pub fn object<'t>(&self, node: Node<'t>, type_name: &str) -> Result<Fields<'t>, ParseError> {
        self.object_keyed(node, type_name, &[])
    }

    /// [`object`](Self::object) of a type that reads the keys `keys` (its
    /// fields' names and aliases): a missing field's error then names the
    /// keys the reply has that are none of them (a misspelt `titel`).
    #[inline]
    pub fn object_keyed<'t>(
        &self,
        node: Node<'t>,
        type_name: &str,
        keys: &'static [&'static str],
    ) -> Result<Fields<'t>, ParseError> {
        match node {
            Node::Object(map) => {
                let had = map.len();
                Ok(Fields(Source::Map(*map, had), keys))
            }
            Node::Row(row) => Ok(Fields(
                Source::Row {
                    row,
                    taken: 0,
                    asked: 0,
                },
                keys,
            )),
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
    /// them, the type has no place for them. An object of which the type took
    /// nothing at all (`Here are the settings:` read as a key) is not an answer
    /// in the type's shape, even where every field may be missing: refused.
    #[inline]
    pub fn ignore_unknown(&mut self, fields: Fields<'_>) -> Result<(), ParseError> {
        let keys: Vec<(String, usize)> = match fields.0 {
            Source::Map(map, had) if had > 0 && map.len() == had => {
                let (first, placed) = map.first().expect("a map of `had` > 0 entries");
                let line = placed.line;
                let names = some_of(map.keys().map(String::as_str), map.len());
                self.enter_key(first.clone(), line);
                let e = self.error(
                    ParseErrorKind::MissingField,
                    format!("none of the type's fields is in the reply, only {names}: an answer must use the keys the prompt shows"),
                );
                self.leave_key();
                return Err(e);
            }
            // An empty object where the type has fields (`opts:` with nothing
            // under it, a list item `{}`): it said nothing of them, which is
            // not each of them missing. `to_toon` writes every field, `null`
            // too, so no value of the type is written so.
            Source::Map(_, 0) if !fields.1.is_empty() => {
                return Err(self.error(ParseErrorKind::MissingField, EMPTY_OBJECT));
            }
            Source::Map(map, _) => map.into_iter().map(|(k, v)| (k, v.line)).collect(),
            // A table none of whose columns the type has, as the same
            // records written as list items would be.
            Source::Row { row, taken: 0, .. }
                if !row.cells.is_empty() && !row.fields.is_empty() =>
            {
                let names = some_of(row.fields.iter().map(|f| f.name.as_str()), row.fields.len());
                return Err(self.error(
                    ParseErrorKind::MissingField,
                    format!("none of the type's fields is a column of the table, only {names}: an answer must use the keys the prompt shows"),
                ));
            }
            Source::Row { row, taken, .. } => (0..row.cells.len().min(row.fields.len()))
                .filter(|i| taken & (1 << i) == 0)
                .map(|i| (row.fields[i].name.clone(), row.line))
                .collect(),
        };
        for (key, line) in keys {
            self.enter_key(key, line);
            self.repair(RepairKind::IgnoredKey, "key the type does not have");
            self.leave_key();
        }
        Ok(())
    }

    /// Takes the field `key` (or, failing that, one of its `aliases`); a
    /// missing key is an error unless the type has a value for "missing" (`Option`).
    pub fn field<T: Toon>(
        &mut self,
        fields: &mut Fields<'_>,
        key: &'static str,
        aliases: &'static [&'static str],
    ) -> Result<T, ParseError> {
        let taken = fields
            .take(key, &mut self.memo)
            .or_else(|| fields.take_alias(aliases));
        let line = taken.as_ref().map_or(0, |p| p.line);
        self.path.push((Segment::Field(key), line));
        let out = match taken {
            Some(v) => {
                let outer = std::mem::replace(&mut self.at, v.at);
                let out = T::__TOON.from_node(v.node, self);
                self.at = outer;
                out
            }
            None => T::__TOON.missing().ok_or_else(|| {
                // A table's header without the column: the rows are not to blame.
                if fields.column_missing(key) {
                    return self.error(ParseErrorKind::MissingField, format!("required field `{key}` is missing from the reply: the table's header has no column `{key}`; name it in the header and give every row a value for it"));
                }
                // Keys the type does not read: the likely misspellings, and
                // the first one's line, where the object gives none.
                let (strays, line) = fields.strays();
                self.error(
                    ParseErrorKind::MissingField,
                    format!("required field `{key}` is missing from the reply{strays}"),
                )
                .or_at_line(line)
            }),
        };
        self.path.pop();
        // Set after the value is read: its own fields set it too.
        self.last_line = line;
        out
    }

    /// Takes the field `key`, or `missing()` when the reply leaves it out
    /// (`#[serde(default)]`, `default = "path"`, or the struct's own default).
    pub fn field_or<T: Toon>(
        &mut self,
        fields: &mut Fields<'_>,
        key: &'static str,
        aliases: &'static [&'static str],
        missing: impl FnOnce() -> T,
    ) -> Result<T, ParseError> {
        if self.present(fields, key, aliases) {
            self.field(fields, key, aliases)
        } else {
            self.last_line = 0;
            Ok(missing())
        }
    }

    /// [`field_or`](Self::field_or) of a constrained field: a value read from
    /// the reply is checked, a default filled in is not (it is the type's
    /// choice, not the model's).
    pub fn field_or_checked<T: Toon + Measure>(
        &mut self,
        fields: &mut Fields<'_>,
        key: &'static str,
        aliases: &'static [&'static str],
        constraints: &Constraints,
        missing: impl FnOnce() -> T,
    ) -> Result<T, ParseError> {
        if self.present(fields, key, aliases) {
            let value = self.field(fields, key, aliases)?;
            self.check(&value, key, constraints)?;
            Ok(value)
        } else {
            self.last_line = 0;
            Ok(missing())
        }
    }

    /// Whether the reply has the field `key`, by its name or an alias.
    fn present(&mut self, fields: &Fields<'_>, key: &'static str, aliases: &[&str]) -> bool {
        fields.contains(key, &mut self.memo) || aliases.iter().any(|a| fields.has(a))
    }

    /// Reads element `index` of an array.
    pub(crate) fn element<T: Toon>(
        &mut self,
        item: Placed<'_>,
        index: usize,
    ) -> Result<T, ParseError> {
        let Placed { line, at, node } = item;
        self.path.push((Segment::Index(index), line));
        let outer = std::mem::replace(&mut self.at, at);
        let out = T::__TOON.from_node(node, self);
        self.at = outer;
        self.path.pop();
        out
    }

    /// Reads row `index` of a table (on the hot path: once per row). A row the type cannot read is dropped and
    /// reported (the seed's rule for malformed rows), unless rows may not be
    /// dropped; `first` keeps the first such error, for a table whose every row
    /// is dropped.
    #[inline]
    fn row<T: Toon>(
        &mut self,
        row: Placed<'_>,
        index: usize,
        out: &mut Vec<T>,
        first: &mut Option<ParseError>,
    ) -> Result<(), ParseError> {
        let line = row.line;
        match self.element(row, index) {
            Ok(value) => out.push(value),
            // A value outside its constraint is data, and refused: never dropped.
            Err(e) if self.drop_rows && e.kind() != ParseErrorKind::Constraint => {
                self.path.push((Segment::Index(index), line));
                let at = e.path().map(|p| format!("at `{p}`: ")).unwrap_or_default();
                self.repair(
                    RepairKind::DroppedRow,
                    format!("the row cannot be read ({at}{})", e.message()),
                );
                self.path.pop();
                first.get_or_insert(e);
            }
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// Reads the rows of a table: each lent to `T` as a [`Row`] when the header
    /// is flat, so no row is assembled into an object. A table whose every row
    /// had to be dropped is refused: the model wrote rows, and none could be read.
    pub(crate) fn rows<T: Toon>(&mut self, table: Table<'_>) -> Result<Vec<T>, ParseError> {
        // The header is on the line of the table's key.
        let (header, mark) = (self.line().unwrap_or(0), self.repairs.len());
        self.tables.push(header);
        let (out, first) = self.read_rows(table)?;
        match first {
            // Refused as a whole: its rows are the refusal, not rows left out.
            Some(e) if out.is_empty() => {
                self.tables.pop();
                self.repairs.truncate(mark);
                Err(e)
            }
            _ => Ok(out),
        }
    }

    /// The rows of a table the type could read, and the first error of a row it could not.
    fn read_rows<T: Toon>(
        &mut self,
        table: Table<'_>,
    ) -> Result<(Vec<T>, Option<ParseError>), ParseError> {
        let mut out = Vec::with_capacity(table.len());
        let mut first = None;
        if !table.is_flat() {
            for (i, (line, row)) in table.into_rows().enumerate() {
                let row = Placed::new(line, Node::object(row));
                self.row(row, i, &mut out, &mut first)?;
            }
            return Ok((out, first));
        }
        let Table {
            fields,
            delim,
            cells,
            ends,
            lines,
        } = table;
        // A row lends its cells for as long as they may borrow the text, so
        // the rows are split off the cells one by one.
        let mut cells: Vec<Scalar<'_>> = cells;
        let mut rest = cells.as_mut_slice();
        let outer = std::mem::take(&mut self.memo);
        let mut start = 0;
        for (i, &end) in ends.iter().enumerate() {
            let (cells, tail) = std::mem::take(&mut rest).split_at_mut(end - start);
            rest = tail;
            start = end;
            let line = lines[i];
            let row = Row {
                fields: &fields,
                cells,
                line,
                delim,
            };
            // One pass where the row reads as it stands; the full path otherwise.
            if let Some(value) = T::__TOON.from_row(&mut RowCells::new(&row, &mut self.memo)) {
                out.push(value);
                continue;
            }
            if let Err(e) = self.row(Placed::new(line, Node::Row(row)), i, &mut out, &mut first) {
                self.memo = outer;
                return Err(e);
            }
        }
        self.memo = outer;
        Ok((out, first))
    }

    /// A single value where a list is wanted, read as a one-item list (reported).
    /// Not a list written in brackets (`[a, b]`), which one item would misread,
    /// nor a value where the items are objects or lists, which no single value
    /// can be: both are refused at the list, not at an item it never had.
    pub(crate) fn lone_item<T: Toon>(&mut self, node: Node<'_>) -> Result<Vec<T>, ParseError> {
        let what = node.describe();
        if let Node::Scalar(s) = &node {
            // Written bare: a quoted `"[x]"` is the text it quotes.
            let bracketed = matches!(s, Scalar::Text(_) | Scalar::Token(_))
                && s.as_str()
                    .map(str::trim)
                    .is_some_and(|t| t.starts_with('[') && t.ends_with(']'));
            if bracketed {
                return Err(self.error_about(
                    ParseErrorKind::InvalidValue,
                    format!("expected a list, found {what}, a list written in brackets: write its length in the key's brackets and its items after the colon (`key[2]: a,b`), as the format shows"),
                    &node,
                ));
            }
            if !T::__TOON.shape().is_primitive() {
                return Err(self.error_about(
                    ParseErrorKind::InvalidValue,
                    format!("expected a list, found {what}, which cannot be one of its items: write the list as the format shows (an empty one as `key[0]:`)"),
                    &node,
                ));
            }
        }
        let item = self.element(Placed::new(0, node), 0)?;
        self.repair(
            RepairKind::WrappedInList,
            format!("{what} where a list belongs, read as a list of one"),
        );
        Ok(vec![item])
    }

    /// Reads entry `key` of a map.
    pub(crate) fn entry<T: Toon>(&mut self, entry: Placed<'_>, key: &str) -> Result<T, ParseError> {
        self.enter_key(key.to_owned(), entry.line);
        let outer = std::mem::replace(&mut self.at, entry.at);
        let out = T::__TOON.from_node(entry.node, self);
        self.at = outer;
        self.leave_key();
        out
    }

    /// Takes the tag of an internally tagged enum out of `map` and matches it to a variant.
    pub fn tag(
        &mut self,
        fields: &mut Fields<'_>,
        tag: &'static str,
        names: &[&str],
        aliases: &[(&str, usize)],
    ) -> Result<usize, ParseError> {
        let taken = fields.take(tag, &mut self.memo);
        self.path
            .push((Segment::Field(tag), taken.as_ref().map_or(0, |p| p.line)));
        let out = match taken {
            Some(v) => self.variant(&v.node, names, aliases),
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

    /// Matches a unit-enum value against the variants' wire names and their
    /// `aliases` (alias, variant), forgiving letter case and separators (reported).
    #[inline]
    pub fn variant(
        &mut self,
        node: &Node<'_>,
        names: &[&str],
        aliases: &[(&str, usize)],
    ) -> Result<usize, ParseError> {
        let Some(text) = (match node {
            Node::Scalar(s) => s.as_str(),
            _ => None,
        }) else {
            // A variant named `4`, `true` or `null`, written unquoted: the word
            // is the model's own (plain digits only), and it is the name.
            let word = match node {
                Node::Scalar(Scalar::Number(n)) if n.is_i64() || n.is_u64() => Some(n.to_string()),
                Node::Scalar(Scalar::Bool(b)) => Some(b.to_string()),
                Node::Scalar(Scalar::Null) => Some("null".to_owned()),
                _ => None,
            };
            let named = word.as_deref().and_then(|w| {
                names
                    .iter()
                    .position(|n| *n == w)
                    .or_else(|| aliases.iter().find(|(a, _)| *a == w).map(|&(_, i)| i))
            });
            if let (Some(i), Some(word)) = (named, &word) {
                self.repair(
                    RepairKind::UnquotedScalar,
                    format!("`{word}` read as the name `{}`", names[i]),
                );
                return Ok(i);
            }
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
        if let Some(&(_, i)) = aliases.iter().find(|(a, _)| *a == text) {
            return Ok(i);
        }
        if let Some(i) = loose_variant(names.iter().copied(), text) {
            self.repair(
                RepairKind::EnumCase,
                format!("`{text}` read as `{}`", names[i]),
            );
            return Ok(i);
        }
        Err(self.error_about(
            ParseErrorKind::InvalidValue,
            format!("`{text}` is not one of {}", names.join(", ")),
            node,
        ))
    }
}

/// The one variant `text` names once letter case and the separators `_`, `-`
/// and space are set aside (`how_to`, `How-To` and `HOW TO` for `HowTo`); none
/// if no variant or more than one does.
pub(crate) fn loose_variant<'n>(names: impl Iterator<Item = &'n str>, text: &str) -> Option<usize> {
    let fold = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, '_' | '-' | ' '))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = fold(text);
    let mut found = names
        .enumerate()
        .filter(|(_, n)| fold(n) == wanted)
        .map(|(i, _)| i);
    match (found.next(), found.next()) {
        (Some(i), None) => Some(i),
        _ => None,
    }
}

/// The first three of `count` keys, quoted, and whether there are more:
/// "`a`, `b`, `c` and more".
fn some_of<'k>(keys: impl Iterator<Item = &'k str>, count: usize) -> String {
    let named: Vec<String> = keys.take(3).map(|k| format!("`{k}`")).collect();
    let more = if count > 3 { " and more" } else { "" };
    format!("{}{more}", named.join(", "))
}

/// The fields of a struct being read: an object's entries, or a table row's
/// cells found by the header's field names.
#[doc(hidden)]
#[derive(Debug)]
pub struct Fields<'t>(Source<'t>, &'static [&'static str]);

#[derive(Debug)]
enum Source<'t> {
    /// The object's entries not yet taken, and how many it had.
    Map(Object<'t>, usize),
    /// `taken`: a bit per column already read; `asked`: how many fields the
    /// type has taken so far (see `node::column_of`).
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
        open_column(row.fields, row.cells.len(), memo, taken, asked, key)
    }

    #[inline]
    fn take(&mut self, key: &'static str, memo: &mut Memo) -> Option<Placed<'t>> {
        match &mut self.0 {
            // `shift_remove` keeps the order of what is left, for the report.
            Source::Map(map, _) => map.shift_remove(key),
            Source::Row { row, taken, asked } => {
                let i = Self::column(row, memo, *taken, *asked, key);
                *asked += 1;
                *taken |= 1 << i?;
                let cell = Node::Scalar(std::mem::take(&mut row.cells[i?]).for_reading());
                Some(Placed::at(row.line, At::Cell(i?, row.delim), cell))
            }
        }
    }

    /// Takes the first of `aliases` present (slow path: aliases are rare).
    fn take_alias(&mut self, aliases: &'static [&'static str]) -> Option<Placed<'t>> {
        let alias = aliases.iter().find(|a| self.has(a))?;
        match &mut self.0 {
            Source::Map(map, _) => map.shift_remove(*alias),
            Source::Row { row, taken, .. } => {
                let i = row.fields.iter().position(|f| f.name == *alias)?;
                *taken |= 1 << i;
                let cell = Node::Scalar(std::mem::take(&mut row.cells[i]).for_reading());
                Some(Placed::at(row.line, At::Cell(i, row.delim), cell))
            }
        }
    }

    /// Whether this is a table row whose header has no column `key`.
    #[cold]
    fn column_missing(&self, key: &str) -> bool {
        matches!(&self.0, Source::Row { row, .. } if !row.fields.iter().any(|f| f.name == key))
    }

    /// The keys the reply has here that the type does not read (where it
    /// said which it reads), as the end of a missing field's message.
    /// Also the line of the first such key, where the reply gives one.
    #[cold]
    fn strays(&self) -> (String, Option<usize>) {
        if self.1.is_empty() {
            return (String::new(), None);
        }
        let stray = |k: &(&str, usize)| !self.1.contains(&k.0);
        let found: Vec<(&str, usize)> = match &self.0 {
            Source::Map(map, _) => map
                .iter()
                .map(|(k, v)| (k.as_str(), v.line))
                .filter(stray)
                .collect(),
            Source::Row { row, taken, .. } => (0..row.fields.len().min(row.cells.len()))
                .filter(|i| taken & (1 << i) == 0)
                .map(|i| (row.fields[i].name.as_str(), 0))
                .filter(stray)
                .collect(),
        };
        let line = found.first().map(|k| k.1).filter(|&line| line > 0);
        let found: Vec<&str> = found.into_iter().map(|k| k.0).collect();
        let named = some_of(found.iter().copied(), found.len());
        let said = match found.len() {
            0 => String::new(),
            1 => format!(
                "; it has {named}, which is not a key of this type: write the keys the prompt shows"
            ),
            _ => format!(
                "; it has {named}, which are not keys of this type: write the keys the prompt shows"
            ),
        };
        (said, line)
    }

    /// Has a value under exactly this name, not yet taken.
    fn has(&self, name: &str) -> bool {
        match &self.0 {
            Source::Map(map, _) => map.contains_key(name),
            Source::Row { row, taken, .. } => row
                .fields
                .iter()
                .position(|f| f.name == name)
                .is_some_and(|i| i < row.cells.len() && taken & (1 << i) == 0),
        }
    }

    #[inline]
    fn contains(&self, key: &'static str, memo: &mut Memo) -> bool {
        match &self.0 {
            Source::Map(map, _) => map.contains_key(key),
            Source::Row { row, taken, asked } => {
                Self::column(row, memo, *taken, *asked, key).is_some()
            }
        }
    }
}
