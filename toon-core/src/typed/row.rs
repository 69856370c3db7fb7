//! The one-pass row reader: a table row read straight into a struct, each field
//! from its cell by header position, with no path kept and no node built.
//!
//! It reads only what needs no decision: every cell reads as it stands (an
//! unquoted cell from its token, [`Toon::__TOON.from_token`], any other by
//! [`Toon::__TOON.from_cell`]), the header names exactly the type's fields, and no
//! field has a constraint to check or an alias to look up. Anything else returns
//! `None` before a value is kept, and the row takes the full path, which repairs,
//! reports or refuses it; so the fast path never reads a row differently.

use super::Toon;
use crate::spec::header::Field;
use crate::spec::node::{open_column, Memo, Row, Scalar};

/// A row lent to a struct's [`Toon::__TOON.from_row`]. Generated code calls it; its
/// methods are not part of the public API.
#[doc(hidden)]
pub struct RowCells<'r, 't> {
    fields: &'r [Field],
    cells: &'r [Scalar<'t>],
    memo: &'r mut Memo,
    /// How many fields the type has asked for (see `node::column_of`).
    asked: usize,
    /// A bit per column read.
    taken: u64,
}

impl<'r, 't> RowCells<'r, 't> {
    pub(crate) fn new(row: &'r Row<'t>, memo: &'r mut Memo) -> Self {
        Self::of(row.fields, row.cells, memo)
    }

    /// A row's `cells` under its table's `fields`.
    pub(crate) fn of(fields: &'r [Field], cells: &'r [Scalar<'t>], memo: &'r mut Memo) -> Self {
        RowCells {
            fields,
            cells,
            memo,
            asked: 0,
            taken: 0,
        }
    }

    /// The cell of `key`, not yet read; `count_absent` as the full path counts
    /// the question when the key is absent, so both share one memo.
    #[inline(always)]
    fn find(&mut self, key: &'static str, count_absent: bool) -> Option<&'r Scalar<'t>> {
        let column = open_column(
            self.fields,
            self.cells.len(),
            self.memo,
            self.taken,
            self.asked,
            key,
        );
        if column.is_some() || count_absent {
            self.asked += 1;
        }
        let i = column?;
        self.taken |= 1 << i;
        Some(&self.cells[i])
    }

    /// A field's value; an absent column reads as the type's missing value
    /// (`None` for an `Option`), or sends the row down the full path. Always
    /// inlined: it is called once per field of every row, and the call cost
    /// more than the reading (5% of a short row).
    #[inline(always)]
    pub fn cell<T: Toon>(&mut self, key: &'static str) -> Option<T> {
        match self.find(key, true) {
            Some(cell) => read(cell),
            None => T::__TOON.missing(),
        }
    }

    /// A field with a default: an absent column reads as `missing()`.
    #[inline(always)]
    pub fn cell_or<T: Toon>(
        &mut self,
        key: &'static str,
        missing: impl FnOnce() -> T,
    ) -> Option<T> {
        match self.find(key, false) {
            Some(cell) => read(cell),
            None => Some(missing()),
        }
    }

    /// Would [`cell`](Self::cell) read the field? Without building it: the
    /// field type's checks, and whether it may be missing.
    #[inline]
    pub fn reads(&mut self, key: &'static str, check: CellCheck, optional: bool) -> bool {
        self.find(key, true).map_or(optional, |c| check.reads(c))
    }

    /// Would [`cell_or`](Self::cell_or) read the field? Without building it.
    #[inline]
    pub fn reads_or(&mut self, key: &'static str, check: CellCheck) -> bool {
        match self.find(key, false) {
            Some(cell) => check.reads(cell),
            None => true,
        }
    }

    /// Is the row whole, with every column read? A short row, or a column the
    /// type has no field for, is the full path's to report.
    #[inline]
    pub fn whole(&self) -> bool {
        self.cells.len() == self.fields.len()
            && self.taken.count_ones() as usize == self.cells.len()
    }
}

/// A cell read as `T`: a token as the type wants it, anything else as it stands.
#[inline]
fn read<T: Toon>(cell: &Scalar<'_>) -> Option<T> {
    match cell {
        Scalar::Token(token) => T::__TOON.from_token(token),
        cell => T::__TOON.from_cell(cell),
    }
}

/// A field type's checks of a cell: its `cell_reads` and `token_reads` entries.
/// Function values, not a type parameter, so that a field type with no `Toon`
/// is reported once, at the field.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct CellCheck(pub fn(&Scalar<'_>) -> bool, pub fn(&str) -> bool);

impl CellCheck {
    /// Would the field type read the cell?
    #[inline]
    fn reads(self, cell: &Scalar<'_>) -> bool {
        match cell {
            Scalar::Token(token) => (self.1)(token),
            cell => (self.0)(cell),
        }
    }
}
