//! An empty JSON object (`{}`) where a serde type reads a struct with fields.
//! The model said nothing of that struct, which is not an answer that each of
//! its fields is missing, though serde reads it so without a word (an
//! `Option` as `None`, a `#[serde(default)]` field as its default). So where
//! a reply that read holds an empty object, its value is walked once more,
//! as the type asks for it, to find whether the type read one as a struct.
//! The walk only ever adds that refusal: where it cannot follow the type
//! (what serde buffers before reading: the fields flattened into a struct,
//! an untagged or internally tagged enum), it finds nothing.

use std::fmt::Write;

use serde::de::value::{Error, StrDeserializer};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, Error as _, IntoDeserializer, MapAccess,
    SeqAccess, VariantAccess, Visitor,
};
use serde::forward_to_deserialize_any;
use serde_json::Value;

use super::json_scan::{Scan, Tok};

/// Where the first empty object in the JSON value `json` that `T` reads as
/// a struct with fields is: `Some(None)` the whole value, `Some(Some(path))`
/// a value in it (`violations[1].location`).
pub(crate) fn empty_struct<T: DeserializeOwned>(json: &str) -> Option<Option<String>> {
    if !has_empty_object(json) {
        return None;
    }
    let value: Value = serde_json::from_str(json).ok()?;
    let mut walk = Walk::default();
    // An error is where the walk stopped; only what it found counts.
    let _ = T::deserialize(Probe {
        value: &value,
        walk: &mut walk,
    });
    walk.found
}

/// Does `json` hold `{` and `}` with only whitespace between, outside strings?
fn has_empty_object(json: &str) -> bool {
    let mut open = false;
    for (_, tok) in Scan::new(json) {
        if open && tok == Tok::Close(b'}') {
            return true;
        }
        open = tok == Tok::Open(b'{');
    }
    false
}

/// Where the walk is, and what it found.
#[derive(Default)]
struct Walk {
    path: Vec<Step>,
    /// The path of the empty object found, `None` for the root.
    found: Option<Option<String>>,
}

enum Step {
    Key(String),
    Index(usize),
}

impl Walk {
    /// The path as errors write it: `violations[1].location`.
    fn path(&self) -> String {
        let mut out = String::new();
        for step in &self.path {
            match step {
                Step::Key(key) if out.is_empty() => out.push_str(key),
                Step::Key(key) => {
                    out.push('.');
                    out.push_str(key);
                }
                Step::Index(i) => {
                    let _ = write!(out, "[{i}]");
                }
            }
        }
        out
    }

    /// `read` with `step` on the path.
    fn at<R>(&mut self, step: Step, read: impl FnOnce(&mut Self) -> R) -> R {
        self.path.push(step);
        let read = read(self);
        self.path.pop();
        read
    }
}

/// The value at one place, read as the type asks for it.
struct Probe<'v, 'w> {
    value: &'v Value,
    walk: &'w mut Walk,
}

impl<'de> de::Deserializer<'de> for Probe<'_, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => visitor.visit_u64(u),
                (_, Some(i), _) => visitor.visit_i64(i),
                (_, _, Some(f)) => visitor.visit_f64(f),
                _ => Err(Error::custom("a number the walk does not follow")),
            },
            Value::String(s) => visitor.visit_str(s),
            Value::Array(items) => visitor.visit_seq(Items {
                items: items.iter(),
                index: 0,
                walk: self.walk,
            }),
            Value::Object(map) => visitor.visit_map(Entries {
                entries: map.iter(),
                next: None,
                walk: self.walk,
            }),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if matches!(self.value, Value::Object(map) if map.is_empty()) && !fields.is_empty() {
            let walk = &mut *self.walk;
            walk.found = Some((!walk.path.is_empty()).then(|| walk.path()));
            return Err(Error::custom("an empty object read as a struct"));
        }
        self.deserialize_any(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Value::String(name) => visitor.visit_enum(name.as_str().into_deserializer()),
            Value::Object(map) if map.len() == 1 => match map.iter().next() {
                Some((name, value)) => visitor.visit_enum(Variant {
                    name,
                    value,
                    walk: self.walk,
                }),
                None => Err(Error::custom("an enum the walk does not follow")),
            },
            _ => Err(Error::custom("an enum the walk does not follow")),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map identifier
    }
}

/// An array's items, each at its index.
struct Items<'v, 'w> {
    items: std::slice::Iter<'v, Value>,
    index: usize,
    walk: &'w mut Walk,
}

impl<'de> SeqAccess<'de> for Items<'_, '_> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        let Some(value) = self.items.next() else {
            return Ok(None);
        };
        let index = self.index;
        self.index += 1;
        self.walk
            .at(Step::Index(index), |walk| {
                seed.deserialize(Probe { value, walk })
            })
            .map(Some)
    }
}

/// An object's entries, each value at its key.
struct Entries<'v, 'w> {
    entries: serde_json::map::Iter<'v>,
    next: Option<(&'v String, &'v Value)>,
    walk: &'w mut Walk,
}

impl<'de> MapAccess<'de> for Entries<'_, '_> {
    type Error = Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.next = Some((key, value));
        let key: StrDeserializer<'_, Error> = key.as_str().into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let Some((key, value)) = self.next.take() else {
            return Err(Error::custom("a value asked for before its key"));
        };
        self.walk.at(Step::Key(key.clone()), |walk| {
            seed.deserialize(Probe { value, walk })
        })
    }
}

/// An enum written as an object of one key, its variant's name.
struct Variant<'v, 'w> {
    name: &'v String,
    value: &'v Value,
    walk: &'w mut Walk,
}

impl<'de, 'v, 'w> EnumAccess<'de> for Variant<'v, 'w> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), Error> {
        let name: StrDeserializer<'_, Error> = self.name.as_str().into_deserializer();
        Ok((seed.deserialize(name)?, self))
    }
}

impl Variant<'_, '_> {
    /// `read` of the variant's value, at its name on the path.
    fn value<R>(self, read: impl FnOnce(Probe<'_, '_>) -> R) -> R {
        let value = self.value;
        self.walk.at(Step::Key(self.name.clone()), |walk| {
            read(Probe { value, walk })
        })
    }
}

impl<'de> VariantAccess<'de> for Variant<'_, '_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        Ok(())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, Error> {
        self.value(|probe| seed.deserialize(probe))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.value(|probe| de::Deserializer::deserialize_seq(probe, visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.value(|probe| de::Deserializer::deserialize_struct(probe, "", fields, visitor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use std::collections::HashMap;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Opts {
        a: Option<u32>,
        #[serde(default)]
        b: String,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Outer {
        name: String,
        opts: Option<Opts>,
        list: Option<Vec<Opts>>,
        by_name: Option<HashMap<String, u32>>,
        kind: Option<Kind>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    enum Kind {
        Plain,
        Shaped { width: Option<u32> },
    }

    #[derive(Debug, Deserialize)]
    struct Nothing {}

    #[test]
    fn an_empty_object_read_as_a_struct_is_found_at_its_path() {
        assert_eq!(empty_struct::<Opts>("{}"), Some(None));
        assert_eq!(empty_struct::<Opts>(" {\n } "), Some(None));
        assert_eq!(
            empty_struct::<Vec<Opts>>("[{\"a\": 1}, {}]")
                .flatten()
                .as_deref(),
            Some("[1]")
        );
        let outer = |rest: &str| format!("{{\"name\": \"x\", {rest}}}");
        assert_eq!(
            empty_struct::<Outer>(&outer("\"opts\": {}"))
                .flatten()
                .as_deref(),
            Some("opts")
        );
        assert_eq!(
            empty_struct::<Outer>(&outer("\"list\": [{}]"))
                .flatten()
                .as_deref(),
            Some("list[0]")
        );
        assert_eq!(
            empty_struct::<Outer>(&outer("\"kind\": {\"Shaped\": {}}"))
                .flatten()
                .as_deref(),
            Some("kind.Shaped")
        );
    }

    #[test]
    fn an_empty_object_at_an_empty_key_is_not_the_root() {
        let map = empty_struct::<HashMap<String, Opts>>(r#"{"": {}}"#);
        assert_eq!(map, Some(Some(String::new())));
    }

    #[test]
    fn an_empty_object_read_as_anything_else_is_not() {
        // A map with no entries, a struct with no fields, a string holding `{}`.
        assert_eq!(empty_struct::<HashMap<String, u32>>("{}"), None);
        assert_eq!(empty_struct::<Nothing>("{}"), None);
        let outer = |rest: &str| format!("{{\"name\": \"{{}}\", {rest}}}");
        assert_eq!(empty_struct::<Outer>(&outer("\"by_name\": {}")), None);
        assert_eq!(empty_struct::<Outer>(&outer("\"opts\": null")), None);
        assert_eq!(empty_struct::<Outer>(&outer("\"opts\": {\"a\": 1}")), None);
        assert_eq!(empty_struct::<serde_json::Value>("{}"), None);
        // Not JSON: nothing found, the caller's reading decides.
        assert_eq!(empty_struct::<Opts>("{} {"), None);
    }

    #[test]
    fn an_empty_object_is_told_from_braces_in_strings() {
        assert!(has_empty_object("{}"));
        assert!(has_empty_object("[{ \n\t}]"));
        assert!(!has_empty_object("{\"a\": \"{}\"}"));
        assert!(!has_empty_object("{\"a\": \"\\\"{}\"}"));
        assert!(!has_empty_object("{\"a\": 1}"));
        assert!(!has_empty_object("{ x }"));
    }
}
