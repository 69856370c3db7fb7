//! What the reply pipeline forgives the specification's decoder: a wrong
//! count, blank lines between rows, rows that cannot be read, and records
//! written as `key: value` blocks where rows or items belong. Each forgiven
//! refusal is kept as a [`Note`], which becomes the reply's repair.

use crate::decode::{key, lex_error, Cursor, Forgive, Result};
use crate::header::{parse_header, Field, HeaderParse};
use crate::lex::{find_unquoted, parse_value_token, trim_spaces};
use crate::node::{Node, Object, Placed};

/// Something forgiven, by the line it happened on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Note {
    Count {
        line: usize,
        declared: usize,
        actual: usize,
    },
    BlankLine {
        line: usize,
    },
    DroppedRow {
        line: usize,
        reason: String,
        /// Fewer cells than the header names: a cell left out, or a cut.
        short: bool,
    },
    RecordBlock {
        line: usize,
        records: usize,
    },
}

/// The reply pipeline's forgiveness: everything [`Forgive`] asks, each noted.
#[derive(Debug, Default)]
pub(crate) struct Forgiving {
    pub notes: Vec<Note>,
}

impl<'a> Forgive<'a> for Forgiving {
    fn count(&mut self, line: usize, declared: usize, actual: usize) -> bool {
        self.notes.push(Note::Count {
            line,
            declared,
            actual,
        });
        true
    }

    fn blank_line(&mut self, line: usize) -> bool {
        self.notes.push(Note::BlankLine { line });
        true
    }

    fn malformed_row(&mut self, line: usize, reason: String, short: bool) -> bool {
        self.notes.push(Note::DroppedRow {
            line,
            reason,
            short,
        });
        true
    }

    /// `key: value` lines at `depth` read as records, a new record starting
    /// where a key repeats or after a blank line (objects written as key/value
    /// blocks under an array header). Keys follow the header's field order
    /// where there is one.
    fn records(
        &mut self,
        cursor: &mut Cursor<'a>,
        depth: usize,
        fields: Option<&[Field]>,
    ) -> Result<Option<Vec<Placed<'a>>>> {
        let first_line = cursor.peek().map_or(0, |l| l.number());
        let mut records = Vec::new();
        let mut current = Object::new();
        // A record's values are placed on its first line, where the record is reported.
        let mut record_line = first_line;
        while let Some(line) = cursor.peek() {
            if line.depth() != depth {
                break;
            }
            let Some(colon) = find_unquoted(line.content, |c| c == ':') else {
                break;
            };
            let rest = trim_spaces(&line.content[colon + 1..]);
            if rest.is_empty() || !matches!(parse_header(line.content, 1), HeaderParse::NotHeader) {
                break; // nested values are not records of primitives
            }
            let key = key(&line, trim_spaces(&line.content[..colon]))?;
            // Under a field list, a key it does not name is no record's: a row
            // with a colon in its first cell (`10:30,start`) for the decoder to refuse.
            if fields.is_some_and(|fields| !fields.iter().any(|f| f.name == key)) {
                if records.is_empty() && current.is_empty() {
                    return Ok(None);
                }
                break;
            }
            if current.contains_key(&key) || (line.blank_before().is_some() && !current.is_empty())
            {
                records.push((record_line, std::mem::take(&mut current)));
            }
            if current.is_empty() {
                record_line = line.number();
            }
            let value = parse_value_token(rest).map_err(|e| lex_error(&line, rest, e))?;
            current.insert(key, Placed::new(record_line, Node::Scalar(value)));
            cursor.advance();
        }
        if !current.is_empty() {
            records.push((record_line, current));
        }
        if !records.is_empty() {
            self.notes.push(Note::RecordBlock {
                line: first_line,
                records: records.len(),
            });
        }
        Ok(Some(
            records
                .into_iter()
                .map(|(line, r)| Placed::new(line, Node::object(in_field_order(r, fields))))
                .collect(),
        ))
    }
}

/// Reorders a record's keys to a header's field order; keys the header does not name follow.
fn in_field_order<'a>(mut record: Object<'a>, fields: Option<&[Field]>) -> Object<'a> {
    let Some(fields) = fields else {
        return record;
    };
    let mut out = Object::new();
    for f in fields {
        if let Some(v) = record.shift_remove(&f.name) {
            out.insert(f.name.clone(), v);
        }
    }
    out.extend(record);
    out
}
