//! `Toon` for the standard types.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Number, Value};

use super::{Cx, Element, Toon};
use crate::lex::parse_number;
use crate::node::{Node, Scalar};
use crate::reply::{ParseError, ParseErrorKind, RepairKind};
use crate::shape::Shape;

impl Toon for String {
    fn __shape() -> Shape {
        Shape::String
    }
    fn __to_value(&self) -> Value {
        Value::String(self.clone())
    }
    #[inline]
    fn __from_cell(cell: &Scalar<'_>) -> Option<Self> {
        match cell {
            Scalar::Text(s) => Some((*s).to_owned()),
            Scalar::String(s) => Some(s.clone()),
            _ => None,
        }
    }
    #[inline]
    fn __cell_reads(cell: &Scalar<'_>) -> bool {
        matches!(cell, Scalar::Text(_) | Scalar::String(_))
    }
    #[inline]
    fn __from_node(node: Node<'_>, cx: &mut Cx) -> Result<Self, ParseError> {
        match node {
            Node::Scalar(Scalar::Text(s)) => Ok(s.to_owned()),
            Node::Scalar(Scalar::String(s)) => Ok(s),
            // `rule_id: 12` for a text field: the digits are the text the model meant.
            Node::Scalar(Scalar::Number(n)) if n.is_i64() || n.is_u64() => {
                cx.repair(
                    RepairKind::UnquotedScalar,
                    format!("number {n} read as text"),
                );
                Ok(n.to_string())
            }
            other => Err(cx.error(
                ParseErrorKind::InvalidValue,
                format!("expected text, found {}", other.describe()),
            )),
        }
    }
}

impl Toon for bool {
    fn __shape() -> Shape {
        Shape::Bool
    }
    fn __to_value(&self) -> Value {
        Value::Bool(*self)
    }
    #[inline]
    fn __from_cell(cell: &Scalar<'_>) -> Option<Self> {
        match cell {
            Scalar::Bool(b) => Some(*b),
            _ => None,
        }
    }
    #[inline]
    fn __from_node(node: Node<'_>, cx: &mut Cx) -> Result<Self, ParseError> {
        match node {
            Node::Scalar(Scalar::Bool(b)) => Ok(b),
            Node::Scalar(Scalar::String(s)) if s == "true" || s == "false" => {
                cx.repair(
                    RepairKind::UnquotedScalar,
                    format!("quoted \"{s}\" read as a boolean"),
                );
                Ok(s == "true")
            }
            other => Err(cx.error_about(
                ParseErrorKind::InvalidValue,
                format!("expected true or false, found {}", other.describe()),
                &other,
            )),
        }
    }
}

/// A number the model wrote, or quoted: the quoted form is read only if it is
/// exactly a TOON number, and reported.
fn number_of(node: &Node<'_>, cx: &mut Cx) -> Option<Number> {
    match node {
        Node::Scalar(Scalar::Number(n)) => Some(n.clone()),
        Node::Scalar(s) => {
            let s = s.as_str()?;
            let n = parse_number(s.trim())?;
            cx.repair(
                RepairKind::UnquotedScalar,
                format!("quoted \"{s}\" read as a number"),
            );
            Some(n)
        }
        _ => None,
    }
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl Toon for $t {
            fn __shape() -> Shape {
                Shape::Integer { min: <$t>::MIN as i128, max: <$t>::MAX as i128 }
            }
            fn __to_value(&self) -> Value {
                Value::from(*self)
            }
            #[inline]
            fn __from_cell(cell: &Scalar<'_>) -> Option<Self> {
                let Scalar::Number(n) = cell else { return None };
                let wide = n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from))?;
                <$t>::try_from(wide).ok()
            }
            #[inline]
    fn __from_node(node: Node<'_>, cx: &mut Cx) -> Result<Self, ParseError> {
                let n = number_of(&node, cx);
                let wide = n.as_ref().and_then(|n| {
                    n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from))
                });
                match wide {
                    Some(w) => <$t>::try_from(w).map_err(|_| cx.error(
                        ParseErrorKind::InvalidValue,
                        format!("{w} is outside the range of {} ({}..={})", stringify!($t), <$t>::MIN, <$t>::MAX),
                    )),
                    None => Err(cx.error_about(
                        ParseErrorKind::InvalidValue,
                        format!("expected a whole number, found {}", node.describe()),
                        &node,
                    )),
                }
            }
        }
    )*};
}
integers!(i8, i16, i32, i64, u8, u16, u32, u64, isize, usize);

macro_rules! floats {
    ($($t:ty),*) => {$(
        impl Toon for $t {
            fn __shape() -> Shape {
                Shape::Float
            }
            fn __to_value(&self) -> Value {
                crate::lex::float_value(f64::from(*self))
            }
            #[inline]
            fn __from_cell(cell: &Scalar<'_>) -> Option<Self> {
                let Scalar::Number(n) = cell else { return None };
                // Narrowing to f32 is the field's declared precision.
                #[allow(clippy::cast_possible_truncation)]
                n.as_f64().map(|f| f as $t)
            }
            #[inline]
    fn __from_node(node: Node<'_>, cx: &mut Cx) -> Result<Self, ParseError> {
                match number_of(&node, cx).and_then(|n| n.as_f64()) {
                    // Narrowing to f32 is the field's declared precision.
                    #[allow(clippy::cast_possible_truncation)]
                    Some(f) => Ok(f as $t),
                    None => Err(cx.error_about(
                        ParseErrorKind::InvalidValue,
                        format!("expected a number, found {}", node.describe()),
                        &node,
                    )),
                }
            }
        }
    )*};
}
floats!(f32, f64);

impl<T: Toon> Toon for Option<T> {
    fn __shape() -> Shape {
        Shape::Option(Box::new(T::__shape_ref()))
    }
    fn __to_value(&self) -> Value {
        self.as_ref().map_or(Value::Null, T::__to_value)
    }
    #[inline]
    fn __from_cell(cell: &Scalar<'_>) -> Option<Self> {
        match cell {
            Scalar::Null => Some(None),
            c => T::__from_cell(c).map(Some),
        }
    }
    #[inline]
    fn __cell_reads(cell: &Scalar<'_>) -> bool {
        matches!(cell, Scalar::Null) || T::__cell_reads(cell)
    }
    #[inline]
    fn __from_node(node: Node<'_>, cx: &mut Cx) -> Result<Self, ParseError> {
        match node {
            Node::Scalar(Scalar::Null) => Ok(None),
            v => T::__from_node(v, cx).map(Some),
        }
    }
    fn __missing() -> Option<Self> {
        Some(None)
    }
    fn __keeps_row(key: &str, row: &Element) -> Option<bool> {
        T::__keeps_row(key, row)
    }
}

impl<T: Toon> Toon for Box<T> {
    fn __shape() -> Shape {
        T::__shape()
    }
    fn __shape_ref() -> Shape {
        T::__shape_ref()
    }
    fn __to_value(&self) -> Value {
        T::__to_value(self)
    }
    #[inline]
    fn __from_cell(cell: &Scalar<'_>) -> Option<Self> {
        T::__from_cell(cell).map(Box::new)
    }
    #[inline]
    fn __cell_reads(cell: &Scalar<'_>) -> bool {
        T::__cell_reads(cell)
    }
    #[inline]
    fn __from_node(node: Node<'_>, cx: &mut Cx) -> Result<Self, ParseError> {
        T::__from_node(node, cx).map(Box::new)
    }
    fn __missing() -> Option<Self> {
        T::__missing().map(Box::new)
    }
    fn __keeps_row(key: &str, row: &Element) -> Option<bool> {
        T::__keeps_row(key, row)
    }
}

impl<T: Toon> Toon for Vec<T> {
    fn __shape() -> Shape {
        Shape::List(Box::new(T::__shape_ref()))
    }
    fn __to_value(&self) -> Value {
        Value::Array(self.iter().map(T::__to_value).collect())
    }
    #[inline]
    fn __from_node(node: Node<'_>, cx: &mut Cx) -> Result<Self, ParseError> {
        match node {
            Node::Array(items) => items
                .into_iter()
                .enumerate()
                .map(|(i, v)| cx.element(v, i))
                .collect(),
            Node::Table(table) => cx.rows(*table),
            // `audit_trail: Scanned the logs` where a list is wanted: one item.
            Node::Scalar(s) if !matches!(s, Scalar::Null) => cx.lone_item(Node::Scalar(s)),
            Node::Object(map) => cx.lone_item(Node::Object(map)),
            other => Err(cx.error(
                ParseErrorKind::InvalidValue,
                format!("expected a list, found {}", other.describe()),
            )),
        }
    }

    /// A row is dropped where the element type cannot read it; a value
    /// outside its constraint refuses the whole reply instead (`Cx::rows`).
    fn __keeps_row(key: &str, row: &Element) -> Option<bool> {
        key.is_empty().then(|| row.kept::<T>())
    }
}

macro_rules! maps {
    ($($m:ident),*) => {$(
        impl<T: Toon> Toon for $m<String, T> {
            fn __shape() -> Shape {
                Shape::Map(Box::new(T::__shape_ref()))
            }
            fn __to_value(&self) -> Value {
                let mut keys: Vec<&String> = self.keys().collect();
                keys.sort(); // a stable order on the wire, whatever the map's own
                Value::Object(keys.into_iter().map(|k| (k.clone(), self[k].__to_value())).collect::<Map<_, _>>())
            }
            #[inline]
    fn __from_node(node: Node<'_>, cx: &mut Cx) -> Result<Self, ParseError> {
                let map = match node {
                    Node::Object(map) => *map,
                    Node::Row(row) => row.into_object(),
                    other => return Err(cx.error(ParseErrorKind::InvalidValue, format!("expected an object, found {}", other.describe()))),
                };
                map.into_iter().map(|(k, v)| { let x = cx.entry(v, &k)?; Ok((k, x)) }).collect()
            }
            // Every key is the map's: a table at any key holds its values.
            fn __keeps_row(_key: &str, row: &Element) -> Option<bool> {
                T::__keeps_row("", row)
            }
        }
    )*};
}
maps!(BTreeMap, HashMap);

/// Free-form data: whatever the reply holds at that place, as read.
impl Toon for Value {
    fn __shape() -> Shape {
        Shape::Any
    }
    fn __to_value(&self) -> Value {
        self.clone()
    }
    fn __from_node(node: Node<'_>, _: &mut Cx) -> Result<Self, ParseError> {
        Ok(node.into_value())
    }
}
