//! Text repairs only the expected type makes safe: it knows the top-level keys,
//! which of them are tables and with which columns, and which columns are text.
//! Each applies only to a line that would otherwise fail to decode.

use std::borrow::Cow;

use super::context::loose_variant;
use crate::reply::layout::{add_header_colon, indent_of, significant, significant_indent};
use crate::reply::{Guide, Mend};
use crate::reply::{Repair, RepairKind};
use crate::shape::{field_list, table_fields, FieldShape, Shape};
use crate::spec::header::{parse_header, Field, HeaderParse};
use crate::spec::lex::{
    find_unquoted, parse_number, split_unquoted, split_unquoted_spans, trim_spaces, whole,
};

/// The expected type, as the reply decoder's guide.
#[derive(Debug)]
pub(crate) struct TypeGuide {
    /// The root's fields, if the root is a struct (the only shape with top-level keys).
    fields: Vec<FieldShape>,
}

impl TypeGuide {
    pub(crate) fn new(shape: Shape) -> Self {
        let fields = match shape.into_resolved() {
            Shape::Struct(s) => s.fields,
            _ => Vec::new(),
        };
        TypeGuide { fields }
    }

    /// A top-level key as the stream's events name it, `None` where the root
    /// is a struct without a field of this name, whose key the whole reply
    /// ignores (`ignored_key`; a field read under an alias counts as one: it
    /// is not in the shape). Where the root is a struct, the field's own name,
    /// so that an event costs no allocation for its key; otherwise the text's
    /// (a `Vec`'s root array is `""`, any key of a map).
    pub(crate) fn key(&self, key: &str) -> Option<Cow<'static, str>> {
        if self.fields.is_empty() {
            return Some(match key {
                "" => Cow::Borrowed(""),
                _ => Cow::Owned(key.to_owned()),
            });
        }
        field(&self.fields, key).map(|f| Cow::Borrowed(f.name))
    }

    /// Whether the value of a top-level `key` is a list, so that a header
    /// declaring `[0]` and followed by nothing is an empty one: a field of a
    /// list type (through `Option`), or the root array of a `Vec` reply.
    pub(crate) fn holds_list(&self, key: &str) -> bool {
        if self.fields.is_empty() {
            return key.is_empty();
        }
        let list = |s: &Shape| matches!(s, Shape::List(_));
        field(&self.fields, key).is_some_and(|f| match &f.shape {
            Shape::Option(inner) => list(inner),
            other => list(other),
        })
    }

    /// Whether the whole reply may complete this table header from the type
    /// (`widen_header`): it names only the first of the type's columns, so
    /// whether a wider row is read as written or under the full header
    /// depends on every row of the table, not on one.
    pub(crate) fn may_widen(&self, header: &str) -> bool {
        let HeaderParse::Header(h) = parse_header(trim_spaces(header), 8) else {
            return false;
        };
        widened_columns(&self.fields, &h).is_some()
    }
}

impl Guide for TypeGuide {
    fn starts_document(&self, line: &str) -> bool {
        let content = trim_spaces(line);
        let key = &content[..content.find([' ', ':', '[', '{']).unwrap_or(content.len())];
        field(&self.fields, key).is_some()
    }

    fn repair(&self, lines: &mut [Cow<'_, str>], repairs: &mut Vec<Repair>) {
        apply(&self.fields, lines, repairs);
    }

    fn mend_row(&self, key: &str, fields: &[Field], delim: char, row: &str) -> Option<Mend> {
        mend_row(&self.fields, key, fields, delim, row)
    }
}

/// Applies the type-guided repairs to the top level of a reply's lines.
fn apply(fields: &[FieldShape], lines: &mut [Cow<'_, str>], repairs: &mut Vec<Repair>) {
    if fields.is_empty() {
        return;
    }
    let Some(base) = lines.iter().filter_map(|l| significant_indent(l)).min() else {
        return;
    };
    // Each line at the margin and the block under it, once.
    let mut i = 0;
    while i < lines.len() {
        if significant_indent(&lines[i]) != Some(base) {
            i += 1;
            continue;
        }
        let end = block_end(lines, i, base);
        add_key_colon(fields, &mut lines[i], base, i + 1, repairs);
        // Before the header is completed or widened, so the repairs compose.
        add_header_colon(&mut lines[i], i + 1, repairs);
        complete_header(fields, lines, i, end, base, repairs);
        widen_header(fields, lines, i, end, repairs);
        i = end;
    }
}

/// The index after the last line of the block under line `i` (lines deeper than `base`).
fn block_end(lines: &[Cow<'_, str>], i: usize, base: usize) -> usize {
    let mut end = i + 1;
    // Blank and comment lines run on with the block.
    let inside = |l: &str| match significant_indent(l) {
        Some(depth) => depth > base,
        None => true,
    };
    while end < lines.len() && inside(&lines[end]) {
        end += 1;
    }
    end
}

fn field<'f>(fields: &'f [FieldShape], name: &str) -> Option<&'f FieldShape> {
    fields.iter().find(|f| f.name == name)
}

/// `compliance_status NON_COMPLIANT` → `compliance_status: NON_COMPLIANT`, for a known key.
fn add_key_colon(
    fields: &[FieldShape],
    line: &mut Cow<'_, str>,
    base: usize,
    number: usize,
    repairs: &mut Vec<Repair>,
) {
    let content = trim_spaces(&line[base..]);
    if find_unquoted(content, |c| matches!(c, ':' | '[' | '{')).is_some() {
        return;
    }
    let (word, rest) = content.split_once(' ').unwrap_or((content, ""));
    let Some(f) = field(fields, word) else {
        return;
    };
    let rest = rest.trim_start_matches(' ');
    let fixed = if !rest.is_empty() && f.shape.is_primitive() {
        format!("{}{word}: {rest}", " ".repeat(base))
    } else if rest.is_empty() && !f.shape.is_primitive() {
        format!("{}{word}:", " ".repeat(base))
    } else {
        return;
    };
    repairs.push(Repair::new(
        RepairKind::AddedColon,
        number,
        format!("known key `{word}` had no colon"),
    ));
    *line = fixed.into();
}

/// The table or list field a header-like line names, with the model's own
/// field list if it wrote one, and whether it wrote `[N]`.
fn list_header<'f>(
    fields: &'f [FieldShape],
    content: &str,
) -> Option<(&'f FieldShape, Option<String>, bool)> {
    let key_end = content.find(['[', '{', ':']).unwrap_or(content.len());
    let f = field(fields, trim_spaces(&content[..key_end]))?;
    let Shape::List(_) = f.shape.resolve() else {
        return None;
    };
    let rest = &content[key_end..];
    let has_len = rest.starts_with('[');
    let after_len = if has_len {
        &rest[rest.find(']')? + 1..]
    } else {
        rest
    };
    let own_fields = after_len
        .starts_with('{')
        .then(|| after_len.find('}').map(|e| after_len[..=e].to_owned()))
        .flatten();
    Some((f, own_fields, has_len))
}

/// `violations:` or `violations{a,b}:` or `violations[2]:` over rows → a full header.
fn complete_header(
    fields: &[FieldShape],
    lines: &mut [Cow<'_, str>],
    i: usize,
    end: usize,
    base: usize,
    repairs: &mut Vec<Repair>,
) {
    let content = trim_spaces(&lines[i][base..]).to_owned();
    if matches!(parse_header(&content, 8), HeaderParse::Header(ref h) if h.fields.is_some() || !h.rest.is_empty())
    {
        return; // complete already, or an inline list
    }
    let Some((f, own_fields, has_len)) = list_header(fields, &content) else {
        return;
    };
    if !content.ends_with(':') {
        return;
    }
    let block: Vec<&str> = lines[i + 1..end]
        .iter()
        .filter(|l| significant(l))
        .map(|l| trim_spaces(l))
        .collect();
    let Some(first) = block.first() else {
        return;
    };
    let Shape::List(item) = f.shape.resolve() else {
        return;
    };
    let pad = " ".repeat(base);
    let key = crate::spec::encode::encode_key(f.name);
    let fixed = if first.starts_with("- ") || *first == "-" {
        if has_len {
            return;
        }
        let item_indent = lines[i + 1..end]
            .iter()
            .filter(|l| significant(l))
            .map(|l| indent_of(l))
            .min()
            .unwrap_or(0);
        let items = lines[i + 1..end]
            .iter()
            .filter(|l| {
                indent_of(l) == item_indent
                    && (trim_spaces(l).starts_with("- ") || trim_spaces(l) == "-")
            })
            .count();
        format!("{pad}{key}[{items}]:")
    } else {
        let Some(cols) = table_fields(&item) else {
            return;
        };
        let is_row = |l: &str| match (
            find_unquoted(l, |c| c == ':'),
            find_unquoted(l, |c| c == ','),
        ) {
            (None, _) => true,
            (Some(c), Some(d)) => d < c,
            _ => false,
        };
        if !block.iter().all(|l| is_row(l)) {
            return;
        }
        let list = own_fields.unwrap_or_else(|| field_list(&cols));
        format!("{pad}{key}[{}]{list}:", block.len())
    };
    repairs.push(Repair::new(
        RepairKind::CompletedHeader,
        i + 1,
        format!(
            "`{}` completed as `{}`",
            crate::spec::lex::clip(&content),
            fixed.trim()
        ),
    ));
    lines[i] = fixed.into();
}

/// How the type reads a row of a top-level table whose cells are not as many
/// as its header names, where that is safe: extra cells from an unquoted
/// delimiter rejoined into the one text column they can belong to (with two
/// candidate columns, two readings, the row is left to be dropped and
/// reported), a missing optional cell read as null; a row short of a required
/// cell is noted for the refusal that names it.
fn mend_row(
    fields: &[FieldShape],
    key: &str,
    header_fields: &[Field],
    delim: char,
    row: &str,
) -> Option<Mend> {
    if header_fields.iter().any(|f| f.children.is_some()) {
        return None;
    }
    let Shape::List(item) = field(fields, key)?.shape.resolve() else {
        return None;
    };
    let cols = table_fields(&item)?;
    // Each header column's shape; a column the type does not have accepts anything.
    let shapes: Vec<Shape> = header_fields
        .iter()
        .map(|f| field(&cols, &f.name).map_or(Shape::String, |c| c.shape.resolve()))
        .collect();
    let width = shapes.len();
    let row = row.trim_end_matches(' ');
    let spans: Vec<(usize, usize)> = split_unquoted_spans(row, delim).collect();
    let cells: Vec<&str> = spans.iter().map(|&(a, b)| &row[a..b]).collect();
    if cells.len() + 1 != width && cells.len() <= width {
        return None;
    }
    // Column `c` can be the one left out, or the one the extra cells belong
    // to, where the cells before it fit the columns before it and the cells
    // after it, shifted by the cells the row lacks or has over, fit the
    // columns after it. Each run is read once, from its end, so that a wide
    // row costs time linear in its cells.
    let at = |column: usize| column + cells.len() - width;
    let mut before = vec![true; width];
    for c in 1..width {
        before[c] = before[c - 1] && cell_fits(cells[c - 1], &shapes[c - 1]);
    }
    let mut after = vec![true; width];
    for c in (0..width.saturating_sub(1)).rev() {
        after[c] = after[c + 1] && cell_fits(cells[at(c + 1)], &shapes[c + 1]);
    }
    let around = |c: usize| before[c] && after[c];
    if cells.len() + 1 == width {
        // One cell short: only one column that can be missing is a reading,
        // not a guess.
        let column = only(width, around)?;
        return Some(if matches!(shapes[column], Shape::Option(_)) {
            Mend::Fill { column }
        } else {
            Mend::Missing { column }
        });
    }
    let extra = cells.len() - width;
    // Cells the model quoted, counted up to each: a quoted one is no piece of
    // a text the delimiter split.
    let mut quoted = vec![0; cells.len() + 1];
    for (i, cell) in cells.iter().enumerate() {
        quoted[i + 1] = quoted[i] + usize::from(cell.starts_with('"'));
    }
    let column = only(width, |t| {
        is_text(&shapes[t]) && quoted[t + extra + 1] == quoted[t] && around(t)
    })?;
    Some(Mend::Join {
        column,
        extra,
        span: (spans[column].0, spans[column + extra].1),
    })
}

/// The one column of `width` that `fits`, if exactly one does.
fn only(width: usize, fits: impl Fn(usize) -> bool) -> Option<usize> {
    let mut found = (0..width).filter(|&c| fits(c));
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// Do `cells` read as the `columns` with the extra cells joined into one text
/// column, every other cell fitting its own?
fn reads_joined(cells: &[&str], columns: &[Shape]) -> bool {
    let Some(extra) = cells.len().checked_sub(columns.len()) else {
        return false;
    };
    (0..columns.len()).any(|j| {
        matches!(columns[j], Shape::String)
            && cells[..j]
                .iter()
                .zip(&columns[..j])
                .all(|(c, s)| cell_fits(c, s))
            && cells[j + extra + 1..]
                .iter()
                .zip(&columns[j + 1..])
                .all(|(c, s)| cell_fits(c, s))
    })
}

/// The type's columns for a table header that names only the first of them
/// (unkeyed, comma-delimited, every column a single value): the header
/// `widen_header` may complete.
fn widened_columns(
    fields: &[FieldShape],
    h: &crate::spec::header::Header<'_>,
) -> Option<Vec<FieldShape>> {
    let (key, header_fields) = (h.key.as_ref()?, h.fields.as_ref()?);
    if h.keyed || h.delim != ',' || header_fields.iter().any(|f| f.children.is_some()) {
        return None;
    }
    let Shape::List(item) = field(fields, key)?.shape.resolve() else {
        return None;
    };
    let cols = table_fields(&item)?;
    let prefix = header_fields.len() < cols.len()
        && header_fields
            .iter()
            .zip(&cols)
            .all(|(h, c)| h.name == c.name)
        && cols.iter().all(|c| c.shape.is_primitive());
    prefix.then_some(cols)
}

/// A table header that names only the first of the type's columns over rows
/// that carry all of them: the field list is completed from the type.
fn widen_header(
    fields: &[FieldShape],
    lines: &mut [Cow<'_, str>],
    i: usize,
    end: usize,
    repairs: &mut Vec<Repair>,
) {
    let content = trim_spaces(&lines[i]).to_owned();
    let HeaderParse::Header(h) = parse_header(&content, 8) else {
        return;
    };
    let (Some(key), Some(header_fields), Some(cols)) =
        (&h.key, &h.fields, widened_columns(fields, &h))
    else {
        return;
    };
    let rows: Vec<Vec<&str>> = lines[i + 1..end]
        .iter()
        .filter(|l| significant(l))
        .map(|r| split_unquoted(trim_spaces(r), ',').collect())
        .collect();
    let shapes: Vec<Shape> = cols.iter().map(|c| c.shape.resolve()).collect();
    let all_full = !rows.is_empty()
        && rows.iter().all(|cells| {
            cells.len() == cols.len() && cells.iter().zip(&shapes).all(|(c, s)| cell_fits(c, s))
        });
    if !all_full {
        return;
    }
    // Where the columns left out may be absent and every row also reads under
    // the header as the model wrote it, a text column holding the extra cells
    // (`Users cannot log in, see ticket`), the rows have two readings: the
    // header is not completed.
    let named = header_fields.len();
    let as_written = cols[named..].iter().all(|c| c.optional)
        && rows
            .iter()
            .all(|cells| reads_joined(cells, &shapes[..named]));
    if as_written {
        return;
    }
    let fixed = format!(
        "{}{}[{}]{}:",
        &lines[i][..indent_of(&lines[i])],
        crate::spec::encode::encode_key(key),
        h.length,
        field_list(&cols)
    );
    repairs.push(Repair::new(
        RepairKind::CompletedHeader,
        i + 1,
        format!(
            "the header named {} of the {} columns its rows carry",
            header_fields.len(),
            cols.len()
        ),
    ));
    lines[i] = fixed.into();
}

fn is_text(shape: &Shape) -> bool {
    match shape {
        Shape::String => true,
        Shape::Option(inner) => is_text(&inner.resolve()),
        _ => false,
    }
}

/// Could this cell be a value of the column's type (as the typed decoder reads it)?
fn cell_fits(cell: &str, shape: &Shape) -> bool {
    let unquoted = cell
        .strip_prefix('"')
        .and_then(|c| c.strip_suffix('"'))
        .unwrap_or(cell);
    match shape {
        Shape::String => true,
        Shape::Bool => matches!(unquoted, "true" | "false"),
        Shape::Integer { .. } => parse_number(unquoted).is_some_and(|n| whole(&n).is_some()),
        Shape::Float { .. } => parse_number(unquoted).is_some(),
        // Every name the typed reader takes: a variant's, loosely, or an alias.
        Shape::Enum(e) => {
            loose_variant(e.variants.iter().map(|v| v.0), unquoted).is_some()
                || e.aliases.contains(&unquoted)
        }
        Shape::Option(inner) => cell == "null" || cell_fits(cell, &inner.resolve()),
        _ => false,
    }
}
