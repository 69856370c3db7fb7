//! The typed decoder's state while it walks a decoded value: the field path, for
//! errors, and the repairs so far.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::Toon;
use crate::decode::line_of;
use crate::{ParseError, ParseErrorKind, Repair, RepairKind};

/// Walks a decoded value into a Rust value. Generated code calls it; its
/// methods are not part of the public API.
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct Cx {
    path: Vec<Segment>,
    repairs: Vec<Repair>,
    /// Typed repairs not yet placed on a line: (index in `repairs`, path).
    unplaced: Vec<(usize, String)>,
}

#[derive(Debug)]
enum Segment {
    /// A struct field: its name is a literal of the generated code, so no allocation.
    Field(&'static str),
    /// A map entry's key.
    Key(String),
    Index(usize),
}

impl Cx {
    pub(crate) fn new(repairs: Vec<Repair>) -> Self {
        Cx {
            path: Vec::new(),
            repairs,
            unplaced: Vec::new(),
        }
    }

    pub(crate) fn has_unplaced(&self) -> bool {
        !self.unplaced.is_empty()
    }

    /// Gives each typed repair the line its value stood on.
    pub(crate) fn place(&mut self, lines: &HashMap<String, usize>) {
        for (i, path) in self.unplaced.drain(..) {
            if let Some(line) = line_of(lines, &path) {
                self.repairs[i].line = line;
            }
        }
    }

    pub(crate) fn into_repairs(mut self) -> Vec<Repair> {
        self.repairs.sort_by_key(|r| r.line);
        self.repairs
    }

    /// The path so far: `violations[1].severity`.
    pub fn path(&self) -> String {
        let mut out = String::new();
        for seg in &self.path {
            match seg {
                Segment::Field(k) if out.is_empty() => out.push_str(k),
                Segment::Key(k) if out.is_empty() => out.push_str(k),
                Segment::Field(k) => {
                    out.push('.');
                    out.push_str(k);
                }
                Segment::Key(k) => {
                    out.push('.');
                    out.push_str(k);
                }
                Segment::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        if out.is_empty() {
            out.push_str("(root)");
        }
        out
    }

    /// An error at the current path.
    pub fn error(&self, kind: ParseErrorKind, message: impl Into<String>) -> ParseError {
        ParseError::at_path(kind, self.path(), message)
    }

    /// Records a typed repair at the current path.
    pub fn repair(&mut self, kind: RepairKind, detail: impl std::fmt::Display) {
        let path = self.path();
        self.unplaced.push((self.repairs.len(), path.clone()));
        self.repairs
            .push(Repair::new(kind, 0, format!("{path}: {detail}")));
    }

    /// The value as an object, or an error naming the type that wanted one.
    pub fn object(&self, value: Value, type_name: &str) -> Result<Map<String, Value>, ParseError> {
        match value {
            Value::Object(map) => Ok(map),
            other => Err(self.error(
                ParseErrorKind::InvalidValue,
                format!(
                    "expected {type_name} (an object with its fields), found {}",
                    describe(&other)
                ),
            )),
        }
    }

    /// Reports the keys left in `map` once the type has taken its fields: the
    /// model wrote them, the type has no place for them.
    pub fn ignore_unknown(&mut self, map: Map<String, Value>) {
        for key in map.keys() {
            self.path.push(Segment::Key(key.clone()));
            self.repair(RepairKind::IgnoredKey, "key the type does not have");
            self.path.pop();
        }
    }

    /// Takes the field `key` out of `map`; a missing key is an error unless the
    /// type has a value for "missing" (`Option`).
    pub fn field<T: Toon>(
        &mut self,
        map: &mut Map<String, Value>,
        key: &'static str,
    ) -> Result<T, ParseError> {
        self.path.push(Segment::Field(key));
        let out = match map.remove(key) {
            Some(v) => T::__from_value(v, self),
            None => T::__missing().ok_or_else(|| {
                self.error(
                    ParseErrorKind::MissingField,
                    format!("required field `{key}` is missing from the reply"),
                )
            }),
        };
        self.path.pop();
        out
    }

    /// Takes the field `key`, or `T::default()` when it is missing (`#[serde(default)]`).
    pub fn field_or_default<T: Toon + Default>(
        &mut self,
        map: &mut Map<String, Value>,
        key: &'static str,
    ) -> Result<T, ParseError> {
        if map.contains_key(key) {
            self.field(map, key)
        } else {
            Ok(T::default())
        }
    }

    /// Reads element `index` of an array.
    pub(crate) fn element<T: Toon>(&mut self, value: Value, index: usize) -> Result<T, ParseError> {
        self.path.push(Segment::Index(index));
        let out = T::__from_value(value, self);
        self.path.pop();
        out
    }

    /// Reads entry `key` of a map.
    pub(crate) fn entry<T: Toon>(&mut self, value: Value, key: &str) -> Result<T, ParseError> {
        self.path.push(Segment::Key(key.to_owned()));
        let out = T::__from_value(value, self);
        self.path.pop();
        out
    }

    /// Takes the tag of an internally tagged enum out of `map` and matches it to a variant.
    pub fn tag(
        &mut self,
        map: &mut Map<String, Value>,
        tag: &'static str,
        names: &[&str],
    ) -> Result<usize, ParseError> {
        self.path.push(Segment::Field(tag));
        let out = match map.remove(tag) {
            Some(v) => self.variant(&v, names),
            None => Err(self.error(
                ParseErrorKind::MissingField,
                format!(
                    "the tag `{tag}` is missing; it names which form this is: {}",
                    names.join(", ")
                ),
            )),
        };
        self.path.pop();
        out
    }

    /// Matches a unit-enum value against the variants' wire names, forgiving letter case (reported).
    pub fn variant(&mut self, value: &Value, names: &[&str]) -> Result<usize, ParseError> {
        let Some(text) = value.as_str() else {
            return Err(self.error(
                ParseErrorKind::InvalidValue,
                format!(
                    "expected one of {}, found {}",
                    names.join(", "),
                    describe(value)
                ),
            ));
        };
        if let Some(i) = names.iter().position(|n| *n == text) {
            return Ok(i);
        }
        let folded: Vec<usize> = (0..names.len())
            .filter(|&i| names[i].eq_ignore_ascii_case(text))
            .collect();
        if let [i] = folded[..] {
            self.repair(
                RepairKind::EnumCase,
                format!("`{text}` read as `{}`", names[i]),
            );
            return Ok(i);
        }
        Err(self.error(
            ParseErrorKind::InvalidValue,
            format!("`{text}` is not one of {}", names.join(", ")),
        ))
    }
}

/// A few words on what a value is, for messages.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the text `{}`", crate::lex::clip(s)),
        Value::Array(a) => format!("an array of {}", a.len()),
        Value::Object(_) => "an object".into(),
    }
}
