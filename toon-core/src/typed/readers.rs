//! [`Readers`]: what a `Toon` type gives the readers, as one table. The derive
//! fills it in for a derived type, `impls.rs` for the standard types; the
//! trait's one hidden item, `Toon::__TOON`, holds it.

use serde_json::Value;

use super::{Cx, RowCells, StreamRow, Toon};
use crate::reply::ParseError;
use crate::shape::Shape;
use crate::spec::lex::unquoted_token;
use crate::spec::node::{Node, Scalar};

/// A type's description, its writer and its readers. Generated code fills it
/// in ([`Readers::new`] and the entries it overrides); not part of the
/// stable API.
#[doc(hidden)]
pub struct Readers<T> {
    /// The type's shape.
    pub shape: fn() -> Shape,
    /// How a field of this type refers to it: its shape, or [`Shape::Named`]
    /// for a derived struct or enum, so that a recursive type describes
    /// itself lazily.
    pub shape_ref: fn() -> Shape,
    /// The value as JSON, as `to_toon` writes it.
    pub to_value: fn(&T) -> Value,
    /// Reads the decoded node (an object, a table row, a list, a primitive).
    pub from_node: fn(Node<'_>, &mut Cx) -> Result<T, ParseError>,
    /// A table cell read as it stands, where it reads with no repair; `None`
    /// sends its row down the full path (see [`RowCells`]).
    pub from_cell: fn(&Scalar<'_>) -> Option<T>,
    /// An unquoted cell read straight into the type, where it reads as it
    /// stands: exactly `from_cell` of the value token it is, which types
    /// whose cells are mostly read this way (text, integers) answer without
    /// telling the token apart first.
    pub from_token: fn(&str) -> Option<T>,
    /// Would `from_cell` read this cell? Answered without building the value.
    pub cell_reads: fn(&Scalar<'_>) -> bool,
    /// Would `from_token` read this token? Answered without building the value.
    pub token_reads: fn(&str) -> bool,
    /// A table row read straight into the type, where every cell reads as it
    /// stands and the header names exactly the type's fields; `None` sends the
    /// row down the full path, which repairs, reports or refuses it.
    pub from_row: fn(&mut RowCells<'_, '_>) -> Option<T>,
    /// Would `from_row` read this row? Answered without building the value.
    pub row_reads: fn(&mut RowCells<'_, '_>) -> bool,
    /// Whether the whole reply keeps a row of the table at `key` (the root
    /// array for `""`): `Some(false)` for a row its reading drops, so that a
    /// stream neither emits it nor counts it; `None` where `key` names no
    /// array of this type.
    pub stream_row: fn(&str, &mut StreamRow<'_, '_>) -> Option<bool>,
    /// The value of a field whose key is missing from the reply, if it may be missing.
    pub missing: fn() -> Option<T>,
    /// May a field of this type be missing from the reply?
    pub optional: fn() -> bool,
}

impl<T: Toon> Readers<T> {
    /// The readers of a type that gives its shape, its writer and its node
    /// reader; every other entry says "not this way" (a cell or row goes
    /// down the full path, no key may be missing) or answers from the others.
    pub const fn new(
        shape: fn() -> Shape,
        to_value: fn(&T) -> Value,
        from_node: fn(Node<'_>, &mut Cx) -> Result<T, ParseError>,
    ) -> Self {
        Readers {
            shape,
            shape_ref: shape,
            to_value,
            from_node,
            from_cell: |_| None,
            from_token: token_as_cell::<T>,
            cell_reads: cell_reads::<T>,
            token_reads: token_reads::<T>,
            from_row: |_| None,
            row_reads: |_| false,
            stream_row: |_, _| None,
            missing: || None,
            optional: optional::<T>,
        }
    }
}

/// Each entry called by its name: `T::__TOON.from_node(node, cx)`.
impl<T> Readers<T> {
    /// Calls [`shape`](Readers::shape).
    #[inline(always)]
    pub fn shape(&self) -> Shape {
        (self.shape)()
    }
    /// Calls [`shape_ref`](Readers::shape_ref).
    #[inline(always)]
    pub fn shape_ref(&self) -> Shape {
        (self.shape_ref)()
    }
    /// Calls [`to_value`](Readers::to_value).
    #[inline(always)]
    pub fn to_value(&self, value: &T) -> Value {
        (self.to_value)(value)
    }
    /// Calls [`from_node`](Readers::from_node).
    #[inline(always)]
    pub fn from_node(&self, node: Node<'_>, cx: &mut Cx) -> Result<T, ParseError> {
        (self.from_node)(node, cx)
    }
    /// Calls [`from_cell`](Readers::from_cell).
    #[inline(always)]
    pub fn from_cell(&self, cell: &Scalar<'_>) -> Option<T> {
        (self.from_cell)(cell)
    }
    /// Calls [`from_token`](Readers::from_token).
    #[inline(always)]
    pub fn from_token(&self, token: &str) -> Option<T> {
        (self.from_token)(token)
    }
    /// Calls [`cell_reads`](Readers::cell_reads).
    #[inline(always)]
    pub fn cell_reads(&self, cell: &Scalar<'_>) -> bool {
        (self.cell_reads)(cell)
    }
    /// Calls [`token_reads`](Readers::token_reads).
    #[inline(always)]
    pub fn token_reads(&self, token: &str) -> bool {
        (self.token_reads)(token)
    }
    /// Calls [`from_row`](Readers::from_row).
    #[inline(always)]
    pub fn from_row(&self, row: &mut RowCells<'_, '_>) -> Option<T> {
        (self.from_row)(row)
    }
    /// Calls [`row_reads`](Readers::row_reads).
    #[inline(always)]
    pub fn row_reads(&self, row: &mut RowCells<'_, '_>) -> bool {
        (self.row_reads)(row)
    }
    /// Calls [`stream_row`](Readers::stream_row).
    #[inline(always)]
    pub fn stream_row(&self, key: &str, row: &mut StreamRow<'_, '_>) -> Option<bool> {
        (self.stream_row)(key, row)
    }
    /// Calls [`missing`](Readers::missing).
    #[inline(always)]
    pub fn missing(&self) -> Option<T> {
        (self.missing)()
    }
    /// Calls [`optional`](Readers::optional).
    #[inline(always)]
    pub fn optional(&self) -> bool {
        (self.optional)()
    }
}

fn token_as_cell<T: Toon>(token: &str) -> Option<T> {
    T::__TOON.from_cell(&unquoted_token(token))
}

fn cell_reads<T: Toon>(cell: &Scalar<'_>) -> bool {
    T::__TOON.from_cell(cell).is_some()
}

fn token_reads<T: Toon>(token: &str) -> bool {
    T::__TOON.from_token(token).is_some()
}

fn optional<T: Toon>() -> bool {
    T::__TOON.missing().is_some()
}

/// `T` as JSON, as `to_toon` writes it.
pub(crate) fn to_value<T: Toon>(value: &T) -> Value {
    T::__TOON.to_value(value)
}
