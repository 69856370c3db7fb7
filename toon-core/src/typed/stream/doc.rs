//! A reply that is exactly the type's top-level fields as the whole reply
//! reads them with no stage acting and no repair: each line a scalar field or
//! a table header at the margin, or a row of that table, two spaces in, read
//! into its type as it ended. `finish` then builds the decoder's tree from
//! what the stream read (each value from its token, each table from the rows
//! read ahead) and reads it into the type as `from_toon` reads the tree the
//! decoder builds, instead of decoding the text again.

use std::ops::Range;
use std::sync::Arc;

use super::event::Columns;
use crate::lex::parse_value_token;
use crate::node::{Ahead, Node, Object, Placed, Table};
use crate::reply::ReplyOptions;
use crate::typed::{Cx, Rows, Toon};

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

/// A table's rows as the stream read them ahead: its header's line, its
/// first row's line, each row's bytes in the completion, and their values.
pub(super) type TableRead = (usize, usize, Vec<Range<usize>>, Option<Rows>);

/// The value of a reply of `entries` (see the module), whose tables' rows are
/// `tables`, in order; `None` where anything differs from what the decoder
/// would build on `completion` (a key twice, a count the rows do not make, a
/// text some stage acts on), or where the reading refuses or repairs: the
/// whole reply decoder then reads the text, and says so as it says it.
pub(super) fn read<T: Toon>(
    entries: Vec<Entry>,
    tables: Vec<TableRead>,
    completion: &str,
    options: &ReplyOptions,
) -> Option<T> {
    if entries.is_empty()
        || options.max_depth < 2
        || crate::reply::strip::needs_stripping(completion)
    {
        return None;
    }
    let mut map = Object::with_capacity(entries.len());
    let mut values = Vec::new();
    let mut tables = tables.into_iter();
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
                let (header, first, rows, read) = tables.next()?;
                // Rows on the lines right after their header, as many as it says.
                if header != line || rows.len() != count || (count > 0 && first != line + 1) {
                    return None;
                }
                let mut table = Table::with_capacity(columns.fields.clone(), 0, 0);
                table.lines = (line + 1..line + 1 + count).collect();
                if count > 0 {
                    values.push((first, read?));
                    table.ahead = Some(Ahead {
                        rows: rows
                            .into_iter()
                            .map(|r| completion.get(r))
                            .collect::<Option<_>>()?,
                        delim: columns.delim,
                    });
                }
                (key, Placed::new(line, Node::Table(Box::new(table))))
            }
        };
        // A key twice is refused by the specification.
        if map.insert(key, placed).is_some() {
            return None;
        }
    }
    if tables.next().is_some() {
        return None;
    }
    let mut cx = Cx::new(Vec::new(), !options.refuse_dropped_rows);
    cx.read_ahead(values);
    let value = T::__from_node(Node::object(map), &mut cx).ok()?;
    cx.into_repairs().is_empty().then_some(value)
}
