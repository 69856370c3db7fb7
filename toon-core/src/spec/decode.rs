//! The spec decoder: TOON text to `serde_json::Value`, exactly as SPEC v4.1 says.
//! What a reader built on it may forgive is asked of a [`Forgive`] at each
//! refusal; the reply pipeline's answers live with the pipeline (`reply::forgive`).

use serde_json::Value;

use crate::spec::error::{DecodeError, DecodeErrorKind};
use crate::spec::header::{parse_header, Field, Header, HeaderParse};
use crate::spec::lex::{
    find_unquoted, is_row, parse_quoted, parse_value_token, read_cells, split_unquoted,
    split_unquoted_spans, trim_spaces, LexError,
};
use crate::spec::lines::{split_lines, Line};
use crate::spec::node::{fill, At, Node, Object, Placed, Scalar, Table};
use crate::spec::options::DecodeOptions;

/// Decodes a TOON document into a JSON value.
///
/// This is the specification's decoder (TOON v4.1, see the crate docs for the
/// points where 4.1 differs from 4.0) and nothing more: it applies none of the
/// repairs of [`decode_reply`](crate::decode_reply). With `strict: true` (the
/// default) every check of §14 is enforced.
///
/// ```
/// use serde_json::json;
/// let doc = "users[2]{id,name}:\n  1,Ada\n  2,Bob";
/// let value = toon_core::decode(doc, &Default::default()).unwrap();
/// assert_eq!(value, json!({"users": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Bob"}]}));
/// ```
///
/// # Errors
/// A [`DecodeError`] with the line, column and kind of the first problem found.
pub fn decode(input: &str, options: &DecodeOptions) -> Result<Value, DecodeError> {
    decode_with(input, options, &mut Spec).map(Node::into_value)
}

/// What the specification refuses and a reader built on this decoder may
/// forgive instead, asked at the point of each such refusal; each answer
/// defaults to the specification's, which forgives nothing ([`Spec`]). The
/// reply pipeline's forgiveness, and the notes it keeps, live with the pipeline.
pub(crate) trait Forgive<'a> {
    /// A declared `[N]` that disagrees with the `actual` values, which end
    /// on line `last` (the header's own, for values inline): forgiven?
    fn count(&mut self, _line: usize, _declared: usize, _actual: usize, _last: usize) -> bool {
        false
    }
    /// A blank line between rows or items: forgiven?
    fn blank_line(&mut self, _line: usize) -> bool {
        false
    }
    /// A row under the table header `h` (standing at `depth`) whose cells
    /// are not as many as the header names: its cells read another way,
    /// written onto the end of `cells`, or `false` to leave it refused.
    fn mend_row(
        &mut self,
        _h: &Header<'a>,
        _depth: usize,
        _row: &Line<'a>,
        _cells: &mut Vec<Scalar<'a>>,
    ) -> bool {
        false
    }
    /// A row that cannot be read (`short`: fewer cells than the header names),
    /// not on the last line where it would be a cut, under the header on
    /// line `header`: dropped?
    fn malformed_row(
        &mut self,
        _line: usize,
        _header: usize,
        _reason: String,
        _short: bool,
    ) -> bool {
        false
    }
    /// `key: value` lines at `depth`, where the rows or items of an array
    /// belong: read from the cursor as records, or `None` to refuse them.
    fn records(
        &mut self,
        _cursor: &mut Cursor<'a>,
        _depth: usize,
        _fields: Option<&[Field]>,
        _declared: usize,
    ) -> Result<Option<Vec<Placed<'a>>>> {
        Ok(None)
    }
}

/// The specification: nothing is forgiven.
pub(crate) struct Spec;

impl<'a> Forgive<'a> for Spec {}

/// The decoder's place in the document's lines, which a forgiving reader
/// reads further from.
pub(crate) struct Cursor<'a> {
    lines: Vec<Line<'a>>,
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// The next line, not yet read.
    pub(crate) fn peek(&self) -> Option<Line<'a>> {
        self.lines.get(self.pos).copied()
    }

    /// Moves past the next line.
    pub(crate) fn advance(&mut self) {
        self.pos += 1;
    }
}

/// [`decode`] with what `forgive` forgives.
pub(crate) fn decode_with<'a>(
    input: &'a str,
    options: &DecodeOptions,
    forgive: &mut dyn Forgive<'a>,
) -> Result<Node<'a>, DecodeError> {
    let lines = split_lines(
        input,
        options.indent_size,
        options.strict,
        options.max_depth,
    )?;
    let mut p = Parser {
        c: Cursor { lines, pos: 0 },
        input_len: input.len(),
        room: 2 * input.len(),
        strict: options.strict,
        forgive,
        max_depth: options.max_depth,
        span: 0,
    };
    p.document()
}

struct Parser<'a, 'f> {
    c: Cursor<'a>,
    /// The input's length in bytes: a bound on how many cells it can hold.
    input_len: usize,
    /// Bytes left to reserve ahead of rows, for the whole document: twice the
    /// input's length, so that many headers each declaring many rows reserve
    /// no more between them than the input could fill.
    room: usize,
    strict: bool,
    forgive: &'f mut dyn Forgive<'a>,
    max_depth: usize,
    /// Greater than zero while inside an array's rows or items (a "header span",
    /// §12), where blank lines are strict-mode errors.
    span: usize,
}

pub(crate) type Result<T, E = DecodeError> = std::result::Result<T, E>;

impl<'a> Parser<'a, '_> {
    /// Takes the next line as part of the current scope, refusing a blank line
    /// before it when that blank line falls inside an array's span.
    fn claim(&mut self, line: &Line<'_>, in_span: bool) -> Result<()> {
        if self.strict && in_span {
            if let Some(blank) = line.blank_before() {
                if self.forgive.blank_line(blank) {
                    self.c.pos += 1;
                    return Ok(());
                }
                return Err(DecodeError::new(
                    DecodeErrorKind::BlankLineInArray,
                    blank,
                    1,
                    "blank line inside an array; remove it (rows and list items must be contiguous)",
                    "",
                ));
            }
        }
        self.c.pos += 1;
        Ok(())
    }

    fn document(&mut self) -> Result<Node<'a>> {
        let Some(first) = self.c.peek() else {
            return Ok(Node::object(Object::new()));
        };
        if first.depth() == 0 {
            match parse_header(first.content, self.max_depth) {
                HeaderParse::Header(h) if h.key.is_none() => {
                    self.c.pos += 1;
                    let value = self.array_body(&first, h, 0)?;
                    self.no_trailing_content()?;
                    return Ok(value);
                }
                // A lone line that is not a header reads as a primitive (`[test]`).
                HeaderParse::Malformed(e)
                    if self.strict
                        && (self.c.lines.len() > 1
                            || find_unquoted(first.content, |c| c == ':').is_some()) =>
                {
                    return Err(lex_error(&first, 0, first.content, e));
                }
                _ => {}
            }
            if first.content == "[]" {
                self.c.pos += 1;
                self.no_trailing_content()?;
                return Ok(Node::Array(Vec::new()));
            }
            if self.c.lines.len() == 1 && find_unquoted(first.content, |c| c == ':').is_none() {
                self.c.pos += 1;
                return parse_value_token(first.content)
                    .map(Node::Scalar)
                    .map_err(|e| lex_error(&first, 0, first.content, e));
            }
        }
        let mut map = Object::new();
        self.object_fields(0, &mut map)?;
        Ok(Node::object(map))
    }

    fn no_trailing_content(&self) -> Result<()> {
        match self.c.peek() {
            Some(line) if self.strict => Err(error_at(
                &line,
                0,
                DecodeErrorKind::UnexpectedLine,
                "content after the root array has ended; a document with a root array holds nothing else",
            )),
            _ => Ok(()),
        }
    }

    /// Reads the fields of an object whose fields stand at `depth`, into `map`.
    fn object_fields(&mut self, depth: usize, map: &mut Object<'a>) -> Result<()> {
        while let Some(line) = self.c.peek() {
            if line.depth() < depth {
                break;
            }
            if line.depth() > depth {
                if !self.strict {
                    self.c.pos += 1;
                    continue;
                }
                return Err(self.over_indented(&line, depth));
            }
            self.claim(&line, self.span > 0)?;
            let (key, value) = self.field(&line, line.content, depth)?;
            self.insert(map, &line, key, value)?;
        }
        Ok(())
    }

    /// The next line of a scope whose header stands at `depth`: a line at
    /// `depth + 1`, or `None` where the scope ends. Deeper lines are errors in
    /// strict mode and skipped otherwise.
    fn next_in_scope(&mut self, depth: usize) -> Result<Option<Line<'a>>> {
        while let Some(line) = self.c.peek() {
            if line.depth() <= depth {
                return Ok(None);
            }
            if line.depth() == depth + 1 {
                return Ok(Some(line));
            }
            if self.strict {
                return Err(self.over_indented(&line, depth + 1));
            }
            self.c.pos += 1;
        }
        Ok(None)
    }

    fn over_indented(&self, line: &Line<'_>, depth: usize) -> DecodeError {
        error_at(
            line,
            0,
            DecodeErrorKind::UnexpectedIndent,
            format!(
                "line is indented {} level(s) but only {} fit here; the line before it does not open a block this deep",
                line.depth(), depth
            ),
        )
    }

    fn insert(
        &self,
        map: &mut Object<'a>,
        line: &Line<'_>,
        key: String,
        value: Placed<'a>,
    ) -> Result<()> {
        if self.strict && map.contains_key(&key) {
            return Err(error_at(
                line,
                0,
                DecodeErrorKind::DuplicateKey,
                format!("key `{key}` appears twice in the same object"),
            ));
        }
        map.insert(key, value);
        Ok(())
    }

    /// Reads one field (`content` is the line, or what follows a list item's `- `)
    /// standing at `depth`; its nested content is at `depth + 1`.
    fn field(
        &mut self,
        line: &Line<'a>,
        content: &'a str,
        depth: usize,
    ) -> Result<(String, Placed<'a>)> {
        match parse_header(content, self.max_depth) {
            HeaderParse::Header(h) if h.key.is_some() => {
                let key = h.key.clone().unwrap_or_default();
                let value = self.array_body(line, h, depth)?;
                return Ok((key, Placed::new(line.number(), value)));
            }
            HeaderParse::Header(_) if self.strict => {
                return Err(error_at(
                    line,
                    end_at(line, content),
                    DecodeErrorKind::InvalidHeader,
                    "a header without a key is only allowed at the document root or after `- `; give it a key",
                ))
            }
            HeaderParse::Malformed(e) if self.strict => {
                return Err(lex_error(line, end_at(line, content), content, e))
            }
            _ => {}
        }
        let Some(colon) = find_unquoted(content, |c| c == ':') else {
            return Err(error_at(
                line,
                end_at(line, content),
                DecodeErrorKind::MissingColon,
                format!(
                    "expected `key: value` but `{}` has no colon",
                    crate::spec::lex::clip(content)
                ),
            ));
        };
        let key_token = trim_spaces(&content[..colon]);
        let key = key(line, end_at(line, content), key_token)?;
        let rest = trim_spaces(&content[colon + 1..]);
        let value = if rest.is_empty() {
            let mut map = Object::new();
            if self.c.peek().is_some_and(|next| next.depth() > depth) {
                self.object_fields(depth + 1, &mut map)?;
            }
            Node::object(map)
        } else if rest == "[]" {
            Node::Array(Vec::new())
        } else {
            let at = end_at(line, rest);
            let value = parse_value_token(rest).map_err(|e| lex_error(line, at, rest, e))?;
            let at = At::Byte(line.indent() + at);
            return Ok((key, Placed::at(line.number(), at, Node::Scalar(value))));
        };
        Ok((key, Placed::new(line.number(), value)))
    }

    /// The value a header introduces; the header stands at `depth`, its rows or items at `depth + 1`.
    fn array_body(&mut self, line: &Line<'a>, h: Header<'a>, depth: usize) -> Result<Node<'a>> {
        if depth >= self.max_depth {
            return Err(error_at(
                line,
                0,
                DecodeErrorKind::DepthLimit,
                format!(
                    "nesting deeper than the limit of {} (the max_depth option)",
                    self.max_depth
                ),
            ));
        }
        if let (Some(dup), true) = (&h.duplicate_field, self.strict) {
            return Err(error_at(
                line,
                0,
                DecodeErrorKind::InvalidHeader,
                format!("field `{dup}` appears twice in the header's field list"),
            ));
        }
        if let Some(fields) = &h.fields {
            if !h.rest.is_empty() && self.strict {
                return Err(error_at(
                    line,
                    end_at(line, h.rest),
                    DecodeErrorKind::InvalidHeader,
                    "a header with a field list ends at its colon; put the rows on the lines below it",
                ));
            }
            return if h.keyed {
                self.keyed_rows(line, &h, fields, depth)
            } else {
                self.rows(line, &h, fields, depth)
            };
        }
        if !h.rest.is_empty() {
            let mut values = Vec::new();
            // A value holding another separator (`a|b`, `a; b`) where the header
            // declares more values than it found: the model split the list by
            // something else, and one value in place of several is a guess.
            let mut split_otherwise = false;
            let rest_at = end_at(line, h.rest);
            for (start, end) in split_unquoted_spans(h.rest, h.delim) {
                let token = &h.rest[start..end];
                split_otherwise |= !token.trim_start().starts_with('"')
                    && token
                        .contains(|c: char| matches!(c, ',' | '|' | '\t' | ';') && c != h.delim);
                let value = parse_value_token(token)
                    .map_err(|e| lex_error(line, rest_at + start, token, e))?;
                let at = At::Byte(line.indent() + rest_at + start);
                values.push(Placed::at(line.number(), at, Node::Scalar(value)));
            }
            if split_otherwise && values.len() < h.length {
                return Err(self.count_error(line, &h, values.len(), "values"));
            }
            self.check_count(line, &h, values.len(), "values")?;
            return Ok(Node::Array(values));
        }
        self.list_items(line, &h, depth)
    }

    fn check_count(
        &mut self,
        line: &Line<'_>,
        h: &Header<'_>,
        actual: usize,
        what: &str,
    ) -> Result<()> {
        if h.length == actual || !self.strict {
            return Ok(());
        }
        // The values read are the lines before the cursor; inline ones stand
        // on the header's line.
        let last = self.c.pos.checked_sub(1).and_then(|i| self.c.lines.get(i));
        let last = last.map_or(0, Line::number).max(line.number());
        if self.forgive.count(line.number(), h.length, actual, last) {
            return Ok(());
        }
        Err(self.count_error(line, h, actual, what))
    }

    /// The error of a declared `[N]` that disagrees with the `actual` values.
    #[cold]
    fn count_error(
        &self,
        line: &Line<'_>,
        h: &Header<'_>,
        actual: usize,
        what: &str,
    ) -> DecodeError {
        // Point at the declared length: the digits after the line's first `[`.
        let at = line.content.find('[').map_or(0, |i| i + 1);
        let len_at = &line.content[at..];
        // As written: a length past `usize` is held as `usize::MAX`.
        let written = len_at
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .filter(|d| !d.is_empty())
            .map_or_else(|| h.length.to_string(), str::to_owned);
        error_at(
            line,
            at,
            DecodeErrorKind::LengthMismatch,
            format!(
                "header declares {written} {what} but has {actual}; make `[{written}]` match what follows"
            ),
        )
    }

    /// Rows of a tabular array (§9.3), kept as cells (see [`Table`]).
    fn rows(
        &mut self,
        line: &Line<'a>,
        h: &Header<'a>,
        fields: &[Field],
        depth: usize,
    ) -> Result<Node<'a>> {
        let width = Field::leaf_count(fields);
        let saved_span = self.span;
        // Room for the declared rows up front, bounded so that a hostile `[N]`
        // or a wide header over few rows reserves little: no more rows than
        // lines left, and cells for at most a sixteenth of the input's bytes
        // (a real row spends more than that on each cell); past that the
        // vector grows as rows come.
        // Every header's room comes out of one budget for the document.
        const ROW: usize = 2 * std::mem::size_of::<usize>();
        const CELL: usize = std::mem::size_of::<Scalar<'_>>();
        let rows = h
            .length
            .min(self.c.lines.len() - self.c.pos)
            .min(self.room / ROW);
        let cells = rows
            .saturating_mul(width)
            .min(self.input_len / 16)
            .min((self.room - rows * ROW) / CELL);
        self.room -= rows * ROW + cells * CELL;
        let mut table = Table::with_capacity(fields.to_vec(), h.delim, rows, cells);
        let mut records = None;
        let mut dropped = None;
        while let Some(row) = self.next_in_scope(depth)? {
            if !is_row(row.content, h.delim) {
                if table.len() == 0 {
                    records =
                        self.forgive
                            .records(&mut self.c, depth + 1, Some(fields), h.length)?;
                }
                break;
            }
            self.claim(&row, table.len() > 0 || saved_span > 0)?;
            self.span = saved_span + 1;
            match self.row_cells(&row, row.content, h.delim, width, &mut table.cells) {
                Ok(()) => {
                    table.ends.push(table.cells.len());
                    table.lines.push(row.number());
                }
                // A row of the wrong width may read another way the reader
                // knows (its type's columns): asked before it is dropped.
                Err(e)
                    if e.kind() == DecodeErrorKind::WidthMismatch
                        && self.forgive.mend_row(h, depth, &row, &mut table.cells) =>
                {
                    table.ends.push(table.cells.len());
                    table.lines.push(row.number());
                }
                // A quoted cell left open on the last line, or stopping inside
                // an escape, is a cut, not a bad row.
                Err(e)
                    if !(self.c.pos >= self.c.lines.len()
                        && (e.kind() == DecodeErrorKind::UnterminatedString
                            || (e.kind() == DecodeErrorKind::InvalidEscape
                                && crate::spec::lex::cut_in_escape(row.content))))
                        && self.forgive.malformed_row(
                            row.number(),
                            line.number(),
                            format!("`{}`: {}", crate::spec::lex::clip(row.content), e.message()),
                            e.kind() == DecodeErrorKind::WidthMismatch
                                && split_unquoted(row.content, h.delim).count() < width,
                        ) =>
                {
                    dropped.get_or_insert(e);
                }
                Err(e) => return Err(e),
            }
        }
        // The model wrote rows and none could be read: that is not "no rows".
        if let Some(e) = dropped.filter(|_| table.len() == 0 && records.is_none()) {
            return Err(e);
        }
        self.span = saved_span;
        let (count, node) = match records {
            Some(records) => (records.len(), Node::Array(records)),
            None => (table.len(), Node::Table(Box::new(table))),
        };
        self.check_count(line, h, count, "rows")?;
        Ok(node)
    }

    /// Reads one row's cells onto the end of `cells`, leaving `cells` as it was
    /// on error. Empty content is no cells (§9.5), not one empty cell. Cells are read before the width is checked, so a row cut inside
    /// a quoted cell is reported as the unterminated string it is.
    fn row_cells(
        &self,
        row: &Line<'_>,
        content: &'a str,
        delim: char,
        width: usize,
        cells: &mut Vec<Scalar<'a>>,
    ) -> Result<()> {
        let start = cells.len();
        read_cells(content, delim, cells).map_err(|((start, end), e)| {
            lex_error(row, end_at(row, content) + start, &content[start..end], e)
        })?;
        let found = cells.len() - start;
        if self.strict && found != width {
            cells.truncate(start);
            return Err(error_at(
                row,
                0,
                DecodeErrorKind::WidthMismatch,
                format!(
                    "row has {found} {} but the header names {width} {}; quote any cell that contains the delimiter",
                    if found == 1 { "cell" } else { "cells" },
                    if width == 1 { "field" } else { "fields" },
                ),
            ));
        }
        Ok(())
    }

    /// Entry rows of an object in keyed tabular form (§9.5).
    fn keyed_rows(
        &mut self,
        line: &Line<'a>,
        h: &Header<'a>,
        fields: &[Field],
        depth: usize,
    ) -> Result<Node<'a>> {
        let width = Field::leaf_count(fields);
        let saved_span = self.span;
        let mut map = Object::new();
        let mut count = 0;
        let mut cells = Vec::new();
        while let Some(row) = self.next_in_scope(depth)? {
            let Some(colon) = find_unquoted(row.content, |c| c == ':') else {
                if !self.strict {
                    self.c.pos += 1;
                    continue;
                }
                return Err(error_at(
                    &row,
                    0,
                    DecodeErrorKind::UnexpectedLine,
                    "a keyed row needs its key and a colon, like `alice: 30,Berlin`",
                ));
            };
            self.claim(&row, count > 0 || saved_span > 0)?;
            self.span = saved_span + 1;
            count += 1;
            let key = key(&row, 0, trim_spaces(&row.content[..colon]))?;
            let rest = trim_spaces(&row.content[colon + 1..]);
            cells.clear();
            self.row_cells(&row, rest, h.delim, width, &mut cells)?;
            let obj = fill(&mut cells.drain(..), fields, row.number());
            let obj = Placed::new(row.number(), Node::object(obj));
            self.insert(&mut map, &row, key, obj)?;
        }
        self.span = saved_span;
        self.check_count(line, h, count, "entries")?;
        Ok(Node::object(map))
    }

    /// Items of an array in list form (§9.2, §9.4, §10); the header stands at `depth`.
    fn list_items(&mut self, line: &Line<'a>, h: &Header<'a>, depth: usize) -> Result<Node<'a>> {
        let saved_span = self.span;
        let mut items = Vec::new();
        while let Some(item) = self.next_in_scope(depth)? {
            let rest = if item.content == "-" {
                None
            } else if let Some(r) = item.content.strip_prefix("- ") {
                Some(trim_spaces(r))
            } else {
                if items.is_empty() {
                    if let Some(records) =
                        self.forgive
                            .records(&mut self.c, depth + 1, None, h.length)?
                    {
                        items = records;
                        if !items.is_empty() {
                            break;
                        }
                    }
                }
                // §5.2: a line at item depth that is no item is an error in strict
                // and non-strict mode alike, never a line silently passed over.
                return Err(error_at(
                    &item,
                    0,
                    DecodeErrorKind::UnexpectedLine,
                    format!(
                        "`{}` stands among the list's items but is not one; start an item with `- `, or indent the line under the item it belongs to",
                        crate::spec::lex::clip(item.content)
                    ),
                ));
            };
            self.claim(&item, !items.is_empty() || saved_span > 0)?;
            self.span = saved_span + 1;
            let (value, at) = match rest {
                None => (Node::object(Object::new()), At::Unknown),
                Some(rest) => {
                    let at = At::Byte(item.indent() + end_at(&item, rest));
                    (self.list_item(&item, rest, depth + 1)?, at)
                }
            };
            items.push(Placed::at(item.number(), at, value));
        }
        self.span = saved_span;
        self.check_count(line, h, items.len(), "items")?;
        Ok(Node::Array(items))
    }

    /// One list item's value; the hyphen stands at `depth`.
    fn list_item(&mut self, line: &Line<'a>, rest: &'a str, depth: usize) -> Result<Node<'a>> {
        if rest == "[]" {
            return Ok(Node::Array(Vec::new()));
        }
        match parse_header(rest, self.max_depth) {
            HeaderParse::Header(h) if h.key.is_none() => {
                if h.fields.is_some() && self.strict {
                    return Err(error_at(
                        line,
                        end_at(line, rest),
                        DecodeErrorKind::InvalidHeader,
                        "a list item cannot hold a table without a key; use `- [N]:` with items below it, or give the table a key",
                    ));
                }
                return self.array_body(line, h, depth);
            }
            HeaderParse::Malformed(e)
                if self.strict && find_unquoted(rest, |c| c == ':').is_some() =>
            {
                return Err(lex_error(line, end_at(line, rest), rest, e));
            }
            _ => {}
        }
        if find_unquoted(rest, |c| c == ':').is_none() {
            return parse_value_token(rest)
                .map(Node::Scalar)
                .map_err(|e| lex_error(line, end_at(line, rest), rest, e));
        }
        // An object whose first field sits on the hyphen line, at depth + 1 for scope purposes.
        let mut map = Object::new();
        let (key, value) = self.field(line, rest, depth + 1)?;
        map.insert(key, value);
        self.object_fields(depth + 1, &mut map)?;
        Ok(Node::object(map))
    }
}

/// An error at byte `at` of `line`'s content, placed at its column.
pub(crate) fn error_at(
    line: &Line<'_>,
    at: usize,
    kind: DecodeErrorKind,
    msg: impl Into<String>,
) -> DecodeError {
    let before = line.content.get(..at).unwrap_or(line.content);
    let column = line.indent() + before.chars().count() + 1;
    DecodeError::new(kind, line.number(), column, msg, line.content)
}

/// Where `rest`, the end of `line`'s content (what follows a key, a list
/// item's `- ` or a header), begins in it.
pub(crate) fn end_at(line: &Line<'_>, rest: &str) -> usize {
    line.content.len().saturating_sub(rest.len())
}

/// The error of `token`, which begins at byte `at` of `line`'s content, at
/// its column.
pub(crate) fn lex_error(line: &Line<'_>, at: usize, token: &str, e: LexError) -> DecodeError {
    error_at(line, at + e.offset.min(token.len()), e.kind, e.message)
}

/// A key token as text, the token beginning at byte `at` of `line`'s
/// content: a quoted key unescaped, an unquoted one as written.
pub(crate) fn key(line: &Line<'_>, at: usize, token: &str) -> Result<String> {
    if token.starts_with('"') {
        parse_quoted(token).map_err(|e| lex_error(line, at, token, e))
    } else {
        Ok(token.to_owned())
    }
}
