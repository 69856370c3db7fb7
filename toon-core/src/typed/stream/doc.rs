//! A reply that is exactly the type's top-level fields as the whole reply
//! reads them with no stage acting and no repair: each line a scalar field or
//! a table header at the margin, or a row of that table, two spaces in, read
//! into its type as it ended. `finish` then builds the decoder's tree from
//! what the stream read (each value from its token, each table from the rows
//! read ahead) and reads it into the type as `from_toon` reads the tree the
//! decoder builds, instead of decoding the text again.

use std::ops::Range;
use std::sync::Arc;

use super::event::{Columns, RowSink};
use crate::lex::parse_value_token;
use crate::node::{Ahead, Node, Object, Placed, Table};
use crate::reply::{RepairKind, Reply, ReplyOptions};
use crate::typed::{Cx, Toon};

/// One top-level entry of such a reply, in the order of its lines.
#[derive(Debug)]
pub(super) enum Entry {
    /// `key: value` on `line`; `value`, the value's bytes in the completion.
    Field {
        line: usize,
        key: String,
        value: Range<usize>,
    },
    /// A table's header on `line`, declaring `count` rows of `columns`.
    Table {
        line: usize,
        key: String,
        count: usize,
        columns: Arc<Columns>,
    },
}

/// A table's rows as the stream read them ahead.
pub(super) struct TableRead<'a> {
    /// Its header's line and its first row's.
    pub header: usize,
    pub first: usize,
    /// Each row's bytes in the completion.
    pub rows: &'a [Range<usize>],
    /// Its rows' values, where every row of it was read: taken only once the
    /// whole reply is found to be of the form, so that one which is not
    /// leaves them to the decode `finish` runs instead.
    pub sink: Option<&'a mut RowSink>,
}

/// The reply of `entries` (see the module), whose tables' rows are `tables`,
/// in order, as `from_toon` reads it; `None` where anything differs from what
/// the decoder would build on `completion` (a key twice, a count the rows do
/// not make, a text some stage acts on), and where the reading refuses: the
/// whole reply decoder then reads the text, and says so as it says it.
pub(super) fn read<T: Toon>(
    entries: Vec<Entry>,
    mut tables: Vec<TableRead<'_>>,
    completion: &str,
    options: &ReplyOptions,
) -> Option<Reply<T>> {
    if entries.is_empty()
        || options.max_depth < 2
        || crate::reply::strip::needs_stripping(completion)
    {
        return None;
    }
    // The tree, built before any row is taken: a reply not of the form
    // leaves every row read ahead where it was.
    let mut map = Object::with_capacity(entries.len());
    let mut read = Vec::new();
    let mut at = 0;
    for entry in entries {
        let (key, placed) = match entry {
            Entry::Field { line, key, value } => {
                let token = parse_value_token(completion.get(value)?).ok()?;
                (key, Placed::new(line, Node::Scalar(token)))
            }
            Entry::Table {
                line,
                key,
                count,
                columns,
            } => {
                let t = tables.get(at)?;
                // Rows on the lines right after their header, as many as it says.
                if t.header != line
                    || t.rows.len() != count
                    || (count > 0 && (t.first != line + 1 || t.sink.is_none()))
                {
                    return None;
                }
                let mut table = Table::with_capacity(columns.fields.clone(), 0, 0);
                table.lines = (line + 1..line + 1 + count).collect();
                if count > 0 {
                    read.push(at);
                    table.ahead = Some(Ahead {
                        rows: t
                            .rows
                            .iter()
                            .map(|r| completion.get(r.clone()))
                            .collect::<Option<_>>()?,
                        delim: columns.delim,
                    });
                }
                at += 1;
                (key, Placed::new(line, Node::Table(Box::new(table))))
            }
        };
        // A key twice is refused by the specification.
        if map.insert(key, placed).is_some() {
            return None;
        }
    }
    if at != tables.len() {
        return None;
    }
    let mut values = Vec::with_capacity(read.len());
    for i in read {
        let t = &mut tables[i];
        values.push((t.first, t.sink.as_mut()?.take_rows()?));
    }
    let mut cx = Cx::new(Vec::new(), !options.refuse_dropped_rows);
    cx.read_ahead(values);
    let value = T::__from_node(Node::object(map), &mut cx).ok()?;
    // A typed repair (an enum's case, a quoted number) is reported as
    // `from_toon` reports it; a dropped row, which the stream keeps no
    // value of, is not met here, but would be `from_toon`'s to settle.
    let repairs = cx.into_repairs();
    if repairs.iter().any(|r| r.kind == RepairKind::DroppedRow) {
        return None;
    }
    Some(Reply { value, repairs })
}
