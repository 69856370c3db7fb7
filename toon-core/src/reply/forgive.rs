//! What the reply pipeline forgives the specification's decoder: a wrong
//! count, blank lines between rows, rows of the wrong width that the type
//! reads another way, rows that cannot be read, and records written as
//! `key: value` blocks where rows or items belong. Each forgiven refusal is
//! kept as a [`Note`], which becomes the reply's repair.

use super::{Guide, RepairKind};
use crate::spec::decode::{end_at, error_at, key, lex_error, Cursor, Forgive, Result};
use crate::spec::error::DecodeErrorKind;
use crate::spec::header::{parse_header, Field, Header, HeaderParse};
use crate::spec::lex::{find_unquoted, parse_value_token, read_cells, trim_spaces, Scalar};
use crate::spec::lines::Line;
use crate::spec::node::{Node, Object, Placed};

/// Something forgiven, by the line it happened on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Note {
    Count {
        line: usize,
        declared: usize,
        actual: usize,
        /// The line its values end on.
        last: usize,
    },
    BlankLine {
        line: usize,
    },
    DroppedRow {
        line: usize,
        /// The line of its table's header.
        header: usize,
        reason: String,
        /// Fewer cells than the header names: a cell left out, or a cut.
        short: bool,
    },
    RecordBlock {
        line: usize,
        records: usize,
    },
    /// A row the type read at another width ([`Mend`]).
    Mended {
        line: usize,
        kind: RepairKind,
        detail: String,
    },
}

/// How the expected type reads a row of a top-level table whose cells are
/// not as many as its header names, where only one reading fits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mend {
    /// One cell short, and the column left out is optional: null in its place.
    Fill { column: usize },
    /// Wider by `extra` cells, which an unquoted delimiter split out of the
    /// one text column that can hold them: the row's bytes `span` are that
    /// column's text.
    Join {
        column: usize,
        extra: usize,
        span: (usize, usize),
    },
    /// One cell short, and only one column, a required one, can be the one
    /// left out: the row is dropped, and the refusal or report names it.
    Missing { column: usize },
}

/// The reply pipeline's forgiveness: everything [`Forgive`] asks, each noted.
pub(crate) struct Forgiving<'g> {
    pub notes: Vec<Note>,
    /// The expected type, which mends rows of the wrong width.
    pub guide: Option<&'g dyn Guide>,
    /// Rows short of a required cell that only one column can be missing
    /// from: (line, that column).
    pub missing: Vec<(usize, String)>,
}

impl<'g> Forgiving<'g> {
    pub(crate) fn new(guide: Option<&'g dyn Guide>) -> Self {
        Forgiving {
            notes: Vec::new(),
            guide,
            missing: Vec::new(),
        }
    }
}

impl<'a> Forgive<'a> for Forgiving<'_> {
    /// Where the type reads the row one way only (see [`Mend`]): the root's
    /// tables only, the type's fields being the root's.
    fn mend_row(
        &mut self,
        h: &Header<'a>,
        depth: usize,
        row: &Line<'a>,
        cells: &mut Vec<Scalar<'a>>,
    ) -> bool {
        let (Some(guide), Some(key), Some(fields), 0) = (self.guide, &h.key, &h.fields, depth)
        else {
            return false;
        };
        let Some(mend) = guide.mend_row(key, fields, h.delim, row.content) else {
            return false;
        };
        let width = Field::leaf_count(fields);
        let start = cells.len();
        // The guide counts the cells as the decoder reads them; a row read
        // to another count is left to be refused.
        let read_as = |count: usize, cells: &mut Vec<Scalar<'a>>| {
            let read =
                read_cells(row.content, h.delim, cells).is_ok() && cells.len() - start == count;
            if !read {
                cells.truncate(start);
            }
            read
        };
        let (kind, detail) = match mend {
            Mend::Missing { column } => {
                self.missing
                    .push((row.number(), fields[column].name.clone()));
                return false;
            }
            Mend::Fill { column } => {
                if !read_as(width - 1, cells) {
                    return false;
                }
                cells.insert(start + column, Scalar::Null);
                (
                    RepairKind::FilledCell,
                    format!(
                        "optional `{}` left out of the row; read as null",
                        fields[column].name
                    ),
                )
            }
            Mend::Join {
                column,
                extra,
                span: (from, to),
            } => {
                if !read_as(width + extra, cells) {
                    return false;
                }
                let text = Scalar::String(row.content[from..to].to_owned());
                cells.splice(start + column..=start + column + extra, [text]);
                (
                    RepairKind::RejoinedCells,
                    format!(
                        "{} cells read as one `{}` text",
                        extra + 1,
                        fields[column].name
                    ),
                )
            }
        };
        self.notes.push(Note::Mended {
            line: row.number(),
            kind,
            detail,
        });
        true
    }

    fn count(&mut self, line: usize, declared: usize, actual: usize, last: usize) -> bool {
        self.notes.push(Note::Count {
            line,
            declared,
            actual,
            last,
        });
        true
    }

    fn blank_line(&mut self, line: usize) -> bool {
        self.notes.push(Note::BlankLine { line });
        true
    }

    fn malformed_row(&mut self, line: usize, header: usize, reason: String, short: bool) -> bool {
        self.notes.push(Note::DroppedRow {
            line,
            header,
            reason,
            short,
        });
        true
    }

    /// `key: value` lines at `depth` read as records (objects written as
    /// key/value blocks under an array header), a new record starting where a
    /// key repeats. A blank line between two lines may end a record too: where
    /// reading it so gives other records than not, the header's count says
    /// which reading it is, and with neither count, the lines are refused.
    /// Keys follow the header's field order where there is one.
    fn records(
        &mut self,
        cursor: &mut Cursor<'a>,
        depth: usize,
        fields: Option<&[Field]>,
        declared: usize,
    ) -> Result<Option<Vec<Placed<'a>>>> {
        let first_line = cursor.peek().map_or(0, |l| l.number());
        // Each line's key, value, line number, and whether a blank line precedes it.
        let mut entries = Vec::new();
        let mut at_blank = None;
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
            let key = key(&line, 0, trim_spaces(&line.content[..colon]))?;
            // Under a field list, a key it does not name is no record's: a row
            // with a colon in its first cell (`10:30,start`) for the decoder to refuse.
            if fields.is_some_and(|fields| !fields.iter().any(|f| f.name == key)) {
                if entries.is_empty() {
                    return Ok(None);
                }
                break;
            }
            let value = parse_value_token(rest)
                .map_err(|e| lex_error(&line, end_at(&line, rest), rest, e))?;
            let blank = !entries.is_empty() && line.blank_before().is_some();
            if blank && at_blank.is_none() {
                at_blank = Some(line);
            }
            entries.push((key, value, line.number(), blank));
            cursor.advance();
        }
        let by_keys = record_starts(&entries, false);
        let starts = match at_blank {
            None => by_keys,
            Some(line) => {
                let by_blanks = record_starts(&entries, true);
                let (blanks_fit, keys_fit) =
                    (by_blanks.len() == declared, by_keys.len() == declared);
                if by_blanks == by_keys || (blanks_fit && !keys_fit) {
                    by_blanks
                } else if keys_fit && !blanks_fit {
                    by_keys
                } else {
                    return Err(error_at(
                        &line,
                        0,
                        DecodeErrorKind::BlankLineInArray,
                        format!(
                            "the blank line before line {} may end a record or not, and the header's count ({declared}) does not tell which ({} or {} records); write each record's keys together, or the rows as a table",
                            line.number(),
                            by_blanks.len(),
                            by_keys.len()
                        ),
                    ));
                }
            }
        };
        let records = records_at(entries, &starts);
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

/// Where records start among their lines: where a key repeats and, with
/// `blanks`, after a blank line.
fn record_starts(entries: &[(String, Scalar<'_>, usize, bool)], blanks: bool) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut keys: Vec<&str> = Vec::new();
    for (i, (key, _, _, blank)) in entries.iter().enumerate() {
        if keys.is_empty() || keys.contains(&key.as_str()) || (blanks && *blank) {
            starts.push(i);
            keys.clear();
        }
        keys.push(key);
    }
    starts
}

/// The records the lines make, each starting at one of `starts`; each
/// record's values are placed on its first line, where it is reported.
fn records_at<'a>(
    entries: Vec<(String, Scalar<'a>, usize, bool)>,
    starts: &[usize],
) -> Vec<(usize, Object<'a>)> {
    let mut records: Vec<(usize, Object<'a>)> = Vec::with_capacity(starts.len());
    let mut starts = starts.iter().peekable();
    for (i, (key, value, line, _)) in entries.into_iter().enumerate() {
        if starts.next_if_eq(&&i).is_some() {
            records.push((line, Object::new()));
        }
        if let Some((first, record)) = records.last_mut() {
            record.insert(key, Placed::new(*first, Node::Scalar(value)));
        }
    }
    records
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
