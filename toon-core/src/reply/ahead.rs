//! Rows a reader has already read into its type (a stream's, which reads each
//! row as its line ends), so that the decode its `finish` runs need not read
//! them again. Nothing here is forgiven: a row counts as read ahead only
//! where the decoder meets that very row of the completion, unchanged, as the
//! row of the same table at the same place.

use std::ops::Range;

use crate::decode::Forgive;

/// Where the rows read ahead stand in the completion.
#[derive(Debug)]
pub(crate) struct ReadAhead {
    /// The completion's address: a row is the one read ahead only if it is
    /// the completion's own text at the same bytes, not a repaired copy.
    base: usize,
    /// Each table by its header's line, in order, with its rows' bytes in order.
    tables: Vec<(usize, Vec<Range<usize>>)>,
}

impl ReadAhead {
    /// The rows of `tables` (by header line, in order) of `completion`.
    pub(crate) fn new(completion: &str, tables: Vec<(usize, Vec<Range<usize>>)>) -> Self {
        ReadAhead {
            base: completion.as_ptr() as usize,
            tables,
        }
    }
}

/// On the decode of the completion as it stands: forgives nothing, as the
/// specification, and knows the rows read ahead.
impl<'a> Forgive<'a> for &ReadAhead {
    fn read_ahead(&self, header: usize, i: usize, row: &str) -> bool {
        // The row's bytes, if it lies past the completion's start: any other
        // text (a repaired copy) is elsewhere, so its bytes match no row's.
        let Some(start) = (row.as_ptr() as usize).checked_sub(self.base) else {
            return false;
        };
        let Ok(table) = self.tables.binary_search_by_key(&header, |(line, _)| *line) else {
            return false;
        };
        self.tables[table].1.get(i) == Some(&(start..start + row.len()))
    }
}
