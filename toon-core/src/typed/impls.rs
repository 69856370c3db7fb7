//! `Toon` for the standard types.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Number, Value};

use super::{Cx, Readers, Toon};
use crate::reply::{ParseErrorKind, RepairKind};
use crate::shape::Shape;
use crate::spec::lex::{parse_number, unquoted_token, whole};
use crate::spec::node::{Node, Scalar};

impl Toon for String {
    const __TOON: Readers<Self> = Readers {
        from_cell: |cell| match cell {
            Scalar::Text(s) => Some((*s).to_owned()),
            Scalar::String(s) => Some(s.clone()),
            _ => None,
        },
        cell_reads: |cell| matches!(cell, Scalar::Text(_) | Scalar::String(_)),
        // Text unless it is a keyword or may be a number, which are told apart.
        from_token: |token| Self::__TOON.token_reads(token).then(|| token.to_owned()),
        token_reads: |token| match token.as_bytes().first() {
            Some(b'0'..=b'9' | b'-') => Self::__TOON.cell_reads(&unquoted_token(token)),
            _ => !matches!(token, "true" | "false" | "null"),
        },
        ..Readers::new(
            || Shape::String,
            |this| Value::String(this.clone()),
            |node, cx| {
                match node {
            Node::Scalar(Scalar::Text(s)) => Ok(s.to_owned()),
            Node::Scalar(Scalar::String(s)) => Ok(s),
            // `rule_id: 12` or `version: 3.2` for a text field: the token's
            // characters are what the model wrote, and the type says it is
            // text. A plain integer is its own spelling; any other number
            // reaches here with its spelling (`lex::value_token`), but for a
            // JSON reply's, whose spelling serde_json has not kept.
            Node::Scalar(Scalar::Number(n)) if n.is_i64() || n.is_u64() => {
                cx.repair(
                    RepairKind::UnquotedScalar,
                    format!("number {n} read as text"),
                );
                Ok(n.to_string())
            }
            Node::Scalar(Scalar::Token(t)) => match crate::spec::lex::value_token(t) {
                Scalar::Token(_) => {
                    cx.repair(
                        RepairKind::UnquotedScalar,
                        format!("number {t} read as text"),
                    );
                    Ok(t.to_owned())
                }
                told => Self::__TOON.from_node(Node::Scalar(told), cx),
            },
            Node::Scalar(Scalar::Bool(b)) => {
                cx.repair(
                    RepairKind::UnquotedScalar,
                    format!("boolean {b} read as text"),
                );
                Ok(b.to_string())
            }
            Node::Scalar(Scalar::Number(n)) => Err(cx.error(
                ParseErrorKind::InvalidValue,
                format!("expected text, found the number {n}, whose spelling a JSON number does not keep: write the text as a JSON string"),
            )),
            other => Err(cx.error(
                ParseErrorKind::InvalidValue,
                format!("expected text, found {}", other.describe()),
            )),
        }
            },
        )
    };
}

impl Toon for bool {
    const __TOON: Readers<Self> = Readers {
        from_cell: |cell| match cell {
            Scalar::Bool(b) => Some(*b),
            _ => None,
        },
        from_token: |token| match token {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        },
        ..Readers::new(
            || Shape::Bool,
            |this| Value::Bool(*this),
            |node, cx| match node {
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
            },
        )
    };
}

/// A number the model wrote, or quoted: the quoted form is read only if it is
/// exactly a TOON number once the spaces around it are set aside (`" 3 "`),
/// and reported.
fn number_of(node: &Node<'_>, cx: &mut Cx) -> Option<Number> {
    match node {
        Node::Scalar(Scalar::Number(n)) => Some(n.clone()),
        // A number whose spelling was kept for a text field.
        Node::Scalar(Scalar::Token(t)) => parse_number(t),
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

/// What to write instead of an integral float too wide for an `f64` to
/// hold exactly (a JSON reply's, which is read as an `f64`).
fn wide_float(n: Option<&Number>) -> &'static str {
    match n.and_then(Number::as_f64) {
        Some(f) if n.is_some_and(Number::is_f64) && f.fract() == 0.0 => {
            " (a number this large, written with a point or an exponent, may have been rounded to another: write it in digits)"
        }
        _ => "",
    }
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl Toon for $t {
    const __TOON: Readers<Self> = Readers {
from_cell: |cell| {
                let Scalar::Number(n) = cell else { return None };
                <$t>::try_from(whole(n)?).ok()
            },
// Plain digits (at most 18, no leading zero) are the integer they
// spell, as §4 reads them; any other token is told apart.
from_token: |token| {
                let b = token.as_bytes();
                if (1..=18).contains(&b.len())
                    && b.iter().all(u8::is_ascii_digit)
                    && (b.len() == 1 || b[0] != b'0')
                {
                    let n = b.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
                    return <$t>::try_from(n).ok();
                }
                Self::__TOON.from_cell(&unquoted_token(token))
            },
..Readers::new(|| {
                Shape::Integer { min: <$t>::MIN as i128, max: <$t>::MAX as i128 }
            }, |this| {
                Value::from(*this)
            }, |node, cx| {
                let n = number_of(&node, cx);
                let wide = n.as_ref().and_then(whole);
                match wide {
                    Some(w) => <$t>::try_from(w).map_err(|_| cx.error(
                        ParseErrorKind::InvalidValue,
                        format!("{w} is outside the range of {}: write a whole number from {} to {}", stringify!($t), <$t>::MIN, <$t>::MAX),
                    )),
                    None => Err(cx.error_about(
                        ParseErrorKind::InvalidValue,
                        format!("expected a whole number, found {}{}", node.describe(), wide_float(n.as_ref())),
                        &node,
                    )),
                }
            })
    };
}
    )*};
}
integers!(i8, i16, i32, i64, u8, u16, u32, u64, isize, usize);

/// A number read into the float type: rounded to its precision, which is the
/// field's declared one, but never past its range (`1e39` as an `f32` would be
/// infinity, a value the model did not write).
fn narrow<F: Narrow>(f: f64) -> Option<F> {
    let (v, finite) = F::narrow(f);
    (finite == f.is_finite()).then_some(v)
}

/// The float types, from the `f64` a number is read as.
trait Narrow: Sized {
    /// The value, and whether it is finite.
    fn narrow(f: f64) -> (Self, bool);
}

impl Narrow for f64 {
    fn narrow(f: f64) -> (f64, bool) {
        (f, f.is_finite())
    }
}

impl Narrow for f32 {
    fn narrow(f: f64) -> (f32, bool) {
        #[allow(clippy::cast_possible_truncation)]
        let v = f as f32;
        (v, v.is_finite())
    }
}

/// A float as the `f64` of its shortest decimal: `0.1f32` is written `0.1`,
/// not `0.10000000149011612` (the same `f32` when read back, and what a
/// grammar's bounded fraction admits).
pub(crate) trait Widen {
    fn widen(self) -> f64;
}

impl Widen for f64 {
    fn widen(self) -> f64 {
        self
    }
}

impl Widen for f32 {
    fn widen(self) -> f64 {
        // Display gives the shortest digits that read back as this f32.
        self.to_string().parse().unwrap_or(f64::from(self))
    }
}

macro_rules! floats {
    ($($t:ty),*) => {$(
        impl Toon for $t {
    const __TOON: Readers<Self> = Readers {
from_cell: |cell| {
                let Scalar::Number(n) = cell else { return None };
                n.as_f64().and_then(narrow)
            },
..Readers::new(|| {
                Shape::Float { bits: std::mem::size_of::<$t>() as u8 * 8 }
            }, |this| {
                crate::spec::lex::float_value(Widen::widen(*this))
            }, |node, cx| {
                let n = number_of(&node, cx);
                match n.as_ref().and_then(Number::as_f64) {
                    Some(f) => narrow(f).ok_or_else(|| cx.error_about(
                        ParseErrorKind::InvalidValue,
                        format!("{} is outside the range of {}", n.as_ref().map_or_else(String::new, Number::to_string), stringify!($t)),
                        &node,
                    )),
                    None => Err(cx.error_about(
                        ParseErrorKind::InvalidValue,
                        format!("expected a number, found {}", node.describe()),
                        &node,
                    )),
                }
            })
    };
}
    )*};
}
floats!(f32, f64);

impl<T: Toon> Toon for Option<T> {
    const __TOON: Readers<Self> = Readers {
        from_cell: |cell| match cell {
            Scalar::Null => Some(None),
            c => T::__TOON.from_cell(c).map(Some),
        },
        cell_reads: |cell| matches!(cell, Scalar::Null) || T::__TOON.cell_reads(cell),
        from_token: |token| match token {
            "null" => Some(None),
            t => T::__TOON.from_token(t).map(Some),
        },
        token_reads: |token| token == "null" || T::__TOON.token_reads(token),
        missing: || Some(None),
        stream_row: |key, row| T::__TOON.stream_row(key, row),
        ..Readers::new(
            || Shape::Option(Box::new(T::__TOON.shape_ref())),
            |this| this.as_ref().map_or(Value::Null, T::__TOON.to_value),
            |node, cx| match node {
                Node::Scalar(Scalar::Null) => Ok(None),
                v => T::__TOON.from_node(v, cx).map(Some),
            },
        )
    };
}

impl<T: Toon> Toon for Box<T> {
    const __TOON: Readers<Self> = Readers {
        shape_ref: || T::__TOON.shape_ref(),
        from_cell: |cell| T::__TOON.from_cell(cell).map(Box::new),
        cell_reads: |cell| T::__TOON.cell_reads(cell),
        from_token: |token| T::__TOON.from_token(token).map(Box::new),
        token_reads: |token| T::__TOON.token_reads(token),
        missing: || T::__TOON.missing().map(Box::new),
        stream_row: |key, row| T::__TOON.stream_row(key, row),
        ..Readers::new(
            || T::__TOON.shape(),
            |this| T::__TOON.to_value(this),
            |node, cx| T::__TOON.from_node(node, cx).map(Box::new),
        )
    };
}

impl<T: Toon> Toon for Vec<T> {
    const __TOON: Readers<Self> = Readers {
        // A row is dropped where the element type cannot read it; a value
        // outside its constraint refuses the whole reply instead (`Cx::rows`).
        stream_row: |key, row| key.is_empty().then(|| row.read::<T>()),
        ..Readers::new(
            || Shape::List(Box::new(T::__TOON.shape_ref())),
            |this| Value::Array(this.iter().map(T::__TOON.to_value).collect()),
            |node, cx| {
                match node {
                    Node::Array(items) => items
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| cx.element(v, i))
                        .collect(),
                    Node::Table(table) => cx.rows(*table),
                    // `audit_trail: Scanned the logs` where a list is wanted: one item.
                    Node::Scalar(s) if !matches!(s, Scalar::Null) => cx.lone_item(Node::Scalar(s)),
                    // An empty object (`items:` and nothing under it) is no item.
                    Node::Object(map) if !map.is_empty() => cx.lone_item(Node::Object(map)),
                    other => Err(cx.error(
                        ParseErrorKind::InvalidValue,
                        format!("expected a list, found {}", other.describe()),
                    )),
                }
            },
        )
    };
}

macro_rules! maps {
    ($($m:ident),*) => {$(
        impl<T: Toon> Toon for $m<String, T> {
    const __TOON: Readers<Self> = Readers {
// Every key is the map's: a table at any key holds its values.
stream_row: |_key, row| {
                T::__TOON.stream_row("", row)
            },
..Readers::new(|| {
                Shape::Map(Box::new(T::__TOON.shape_ref()))
            }, |this| {
                let mut keys: Vec<&String> = this.keys().collect();
                keys.sort(); // a stable order on the wire, whatever the map's own
                Value::Object(keys.into_iter().map(|k| (k.clone(), T::__TOON.to_value(&this[k]))).collect::<Map<_, _>>())
            }, |node, cx| {
                let map = match node {
                    Node::Object(map) => *map,
                    Node::Row(row) => row.into_object(),
                    other => return Err(cx.error(ParseErrorKind::InvalidValue, format!("expected an object, found {}", other.describe()))),
                };
                map.into_iter().map(|(k, v)| { let x = cx.entry(v, &k)?; Ok((k, x)) }).collect()
            })
    };
}
    )*};
}
maps!(BTreeMap, HashMap);

/// Free-form data: whatever the reply holds at that place, as read.
impl Toon for Value {
    const __TOON: Readers<Self> = Readers {
        ..Readers::new(
            || Shape::Any,
            |this| this.clone(),
            |node, _| Ok(node.into_value()),
        )
    };
}

/// The object `{"value": …}` OpenAI's strict mode asks for where the type is
/// not an object: read by the type's own decoder, `value` missing, beside
/// another key or given twice refused, never read as `null`.
impl<T: Toon> Toon for crate::reply::Wrapped<T> {
    const __TOON: Readers<Self> = Readers {
        ..Readers::new(
            || {
                Shape::Struct(crate::shape::StructShape {
                    name: "Wrapped",
                    doc: "",
                    fields: vec![crate::shape::FieldShape {
                        name: "value",
                        doc: "",
                        shape: T::__TOON.shape_ref(),
                        optional: false,
                        max_len: None,
                        max_items: None,
                        delimited: false,
                        constraints: crate::shape::Constraints::NONE,
                        inner: crate::shape::Constraints::NONE,
                    }],
                })
            },
            |this| {
                let mut map = Map::new();
                map.insert("value".into(), T::__TOON.to_value(&this.0));
                Value::Object(map)
            },
            |node, cx| {
                let refusal = match &node {
                    Node::Object(map) if map.len() == 1 && map.contains_key("value") => None,
                    Node::Object(map) => {
                        let keys: Vec<String> =
                            map.keys().take(5).map(|k| format!("`{k}`")).collect();
                        let (kind, what) = if map.contains_key("value") {
                            (ParseErrorKind::InvalidValue, "beside other keys")
                        } else {
                            (ParseErrorKind::MissingField, "missing")
                        };
                        let found = if keys.is_empty() {
                            "an empty object".to_owned()
                        } else {
                            format!("an object with the keys {}", keys.join(", "))
                        };
                        Some((kind, format!("the answer's one property `value` is {what}: found {found}; write the answer as the value of `value`, and nothing beside it")))
                    }
                    other => Some((
                        ParseErrorKind::InvalidValue,
                        format!(
                            "expected an object whose one property is `value`, found {}",
                            other.describe()
                        ),
                    )),
                };
                if let Some((kind, message)) = refusal {
                    return Err(cx.error(kind, message));
                }
                let mut fields = cx.object(node, "Wrapped")?;
                cx.field::<T>(&mut fields, "value", &[])
                    .map(crate::reply::Wrapped)
            },
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A token read straight into a type reads exactly as the value token it
    /// is would, and the checks that build nothing answer as the reading does:
    /// the shortcuts of text, integers and booleans change nothing.
    #[test]
    fn a_token_reads_as_its_value_token() {
        fn same<T: Toon + PartialEq + std::fmt::Debug>(token: &str) {
            let cell = unquoted_token(token);
            let told_apart = T::__TOON.from_cell(&cell);
            assert_eq!(
                T::__TOON.cell_reads(&cell),
                told_apart.is_some(),
                "{token:?}"
            );
            assert_eq!(
                T::__TOON.token_reads(token),
                told_apart.is_some(),
                "{token:?}"
            );
            assert_eq!(T::__TOON.from_token(token), told_apart, "{token:?}");
        }
        let mut tokens: Vec<String> = [
            "",
            "0",
            "00",
            "01",
            "-0",
            "-1",
            "1",
            "7",
            "255",
            "256",
            "-128",
            "-129",
            "65535",
            "65536",
            "4294967295",
            "4294967296",
            "999999999999999999",
            "1000000000000000000",
            "18446744073709551615",
            "18446744073709551616",
            "1.5",
            "1e3",
            "-",
            "--1",
            "1-",
            "true",
            "false",
            "null",
            "True",
            "NULL",
            "abc",
            "a b",
            "R-12",
            "0x10",
            "+1",
            " 1",
            "１",
            "é",
            "1_000",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        tokens.extend((0..64).map(|i| (1u64 << i).to_string()));
        for t in &tokens {
            same::<String>(t);
            same::<bool>(t);
            same::<u8>(t);
            same::<u16>(t);
            same::<u32>(t);
            same::<u64>(t);
            same::<usize>(t);
            same::<i8>(t);
            same::<i32>(t);
            same::<i64>(t);
            same::<f64>(t);
            same::<Option<u32>>(t);
            same::<Option<String>>(t);
            same::<Option<bool>>(t);
            same::<Box<u16>>(t);
        }
    }
}
