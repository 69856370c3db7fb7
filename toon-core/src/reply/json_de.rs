//! A JSON reply read into a serde type in one pass, through a deserializer
//! that wraps serde_json's own and keeps three things on the way:
//! - where it is (`violations[1].severity`), so that a refusal names its
//!   field without the text being read again;
//! - an empty object (`{}`) read as a struct with fields, which serde reads
//!   without a word as each field missing (see [`Read::empty`]);
//! - what a refusal is, as the type's `Deserialize` said it (a field missing,
//!   no such variant, a wrong type), so that no one reads it from its words.
//!
//! serde's API hands each error back through serde_json as serde_json's own
//! type. So each error crossing into serde_json leaves its cause and the path
//! it was raised at in the shared [`State`], and the wrapper that gets the
//! error back picks them up again; the error itself passes unchanged, and
//! serde_json places it as it always does.
//! What serde buffers before reading (fields flattened into a struct, an
//! untagged or internally tagged enum) is read from the buffer, not through
//! this wrapper: no empty object is found there, and its refusals are worded
//! by serde alone.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt::{self, Display, Write};

use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, EnumAccess, Expected, MapAccess, SeqAccess,
    Unexpected, VariantAccess, Visitor,
};

/// What a refusal is, as the type's `Deserialize` raised it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Said {
    /// serde_json's own: the JSON does not parse, or a value of the wrong
    /// kind for what was asked (its category tells which).
    Json,
    /// A field the type requires is not there.
    Missing,
    /// A value none of an enum's variants has.
    NoVariant,
    /// A key the type does not have (`deny_unknown_fields`).
    UnknownKey,
    /// A value or a length the type does not allow.
    NotAllowed,
    /// A value of the wrong type, or the type's own words.
    WrongType,
    /// A field written twice, as serde's derive finds it.
    Twice,
}

/// Why the reply did not read: serde_json's error, placed where it always is,
/// what raised it, and the field it is about (`None` at the root).
#[derive(Debug)]
pub(crate) struct Refusal {
    pub json: serde_json::Error,
    pub said: Said,
    pub path: Option<String>,
}

/// The first JSON value of a text, read.
#[derive(Debug)]
pub(crate) struct Read<T> {
    pub value: T,
    /// The offset right after the value.
    pub end: usize,
    /// The first empty object the type read as a struct with fields:
    /// `Some(None)` the whole value, `Some(Some(path))` one in it. A model
    /// that wrote `{}` said nothing of that struct, which is not an answer
    /// that each of its fields is missing.
    pub empty: Option<Option<String>>,
}

/// Reads the first JSON value of `text` as `T`; `None` for no value. What
/// follows the value is left to the caller, except that a number or a
/// keyword must end where a JSON value may end (`42abc` does not read as 42).
pub(crate) fn read_first<'de, T: Deserialize<'de>>(
    text: &'de str,
) -> Result<Option<Read<T>>, Refusal> {
    let Some(first) = text.bytes().find(|b| !b.is_ascii_whitespace()) else {
        return Ok(None);
    };
    let state = RefCell::new(State::default());
    let mut de = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(Track::new(&mut de, &state)).map_err(|e| Refusal {
        json: e.error,
        said: e.said,
        path: e.path.flatten(),
    })?;
    let (end, rest) = match de.end() {
        Ok(()) => (text.trim_end().len(), None),
        // The error stands at the first byte after the value's white space.
        Err(e) => {
            let at = offset_of(text, e.line(), e.column()).saturating_sub(1);
            (text[..at].trim_end().len(), Some((at, e)))
        }
    };
    if let Some((at, e)) = rest {
        let delimited = matches!(first, b'{' | b'[' | b'"');
        let may_follow = matches!(
            text.as_bytes()[at],
            b'"' | b'[' | b']' | b'{' | b'}' | b',' | b':'
        ) || at > end;
        if !delimited && !may_follow {
            return Err(Refusal {
                json: e,
                said: Said::Json,
                path: None,
            });
        }
    }
    Ok(Some(Read {
        value,
        end,
        empty: state.into_inner().empty,
    }))
}

/// The byte offset of a 1-based line and column (in bytes, as serde_json
/// counts them) in `text`, plus one.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (start + column).min(text.len() + 1)
}

/// Is the number serde_json stopped at, on `line` and `column` of `text`,
/// a JSON number beyond what any number type holds (`1e400`)? serde_json
/// calls that a syntax error; the JSON is whole and the value is what is wrong.
pub(crate) fn out_of_range(text: &str, line: usize, column: usize) -> bool {
    let b = text.as_bytes();
    let at = offset_of(text, line, column).min(b.len());
    let number = |c: &u8| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E');
    let start = b[..at]
        .iter()
        .rposition(|c| !number(c))
        .map_or(0, |i| i + 1);
    let end = at + b[at..].iter().take_while(|c| number(c)).count();
    // Bytes of a number only, so ASCII, wherever in a character `at` fell.
    let literal = &b[start..end];
    json_number(literal)
        && std::str::from_utf8(literal)
            .ok()
            .and_then(|n| n.parse::<f64>().ok())
            .is_some_and(f64::is_infinite)
}

/// Is `b` a number as JSON writes one: `-`, an integer part without a
/// leading zero, then a fraction and an exponent, each if any?
fn json_number(b: &[u8]) -> bool {
    let digits = |b: &[u8]| b.iter().take_while(|c| c.is_ascii_digit()).count();
    let b = b.strip_prefix(b"-").unwrap_or(b);
    let int = digits(b);
    if int == 0 || (int > 1 && b[0] == b'0') {
        return false;
    }
    let mut rest = &b[int..];
    if let Some(fraction) = rest.strip_prefix(b".") {
        let n = digits(fraction);
        if n == 0 {
            return false;
        }
        rest = &fraction[n..];
    }
    if let Some(exponent) = rest.strip_prefix(b"e").or_else(|| rest.strip_prefix(b"E")) {
        let exponent = exponent
            .strip_prefix(b"+")
            .or_else(|| exponent.strip_prefix(b"-"))
            .unwrap_or(exponent);
        let n = digits(exponent);
        if n == 0 {
            return false;
        }
        rest = &exponent[n..];
    }
    rest.is_empty()
}

/// One step down a JSON value.
enum Step<'de> {
    Key(Cow<'de, str>),
    Index(usize),
}

/// What the wrappers share while the value is read.
#[derive(Default)]
struct State<'de> {
    /// Where the reading is.
    path: Vec<Step<'de>>,
    /// The key just read, for the value after it.
    key: Option<Cow<'de, str>>,
    /// The cause of the error passing through serde_json and where it was
    /// raised, for the wrapper that gets it back.
    crossing: Option<(Said, Option<String>)>,
    empty: Option<Option<String>>,
}

impl<'de> State<'de> {
    /// The path as errors write it: `violations[1].location`; `None` at the root.
    fn path(&self) -> Option<String> {
        if self.path.is_empty() {
            return None;
        }
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
        Some(out)
    }
}

/// The shared state, as each wrapper holds it.
type Shared<'s, 'de> = &'s RefCell<State<'de>>;

/// An error as the type's `Deserialize` sees it: serde_json's (or, inside
/// serde_json's reading, the error type it passes), with its cause and,
/// once it has passed a wrapper, the path it was raised at (`Some(None)` at
/// the root). An error the type catches is dropped with its path.
#[derive(Debug)]
pub(crate) struct Refused<E> {
    error: E,
    said: Said,
    path: Option<Option<String>>,
}

impl<E> Refused<E> {
    fn new(error: E, said: Said) -> Self {
        Refused {
            error,
            said,
            path: None,
        }
    }
}

impl<E: Display> Display for Refused<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl<E: de::Error> std::error::Error for Refused<E> {}

impl<E: de::Error> de::Error for Refused<E> {
    fn custom<T: Display>(msg: T) -> Self {
        Refused::new(E::custom(msg), Said::WrongType)
    }
    fn invalid_type(unexp: Unexpected<'_>, exp: &dyn Expected) -> Self {
        Refused::new(E::invalid_type(unexp, exp), Said::WrongType)
    }
    fn invalid_value(unexp: Unexpected<'_>, exp: &dyn Expected) -> Self {
        Refused::new(E::invalid_value(unexp, exp), Said::NotAllowed)
    }
    fn invalid_length(len: usize, exp: &dyn Expected) -> Self {
        Refused::new(E::invalid_length(len, exp), Said::NotAllowed)
    }
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        Refused::new(E::unknown_variant(variant, expected), Said::NoVariant)
    }
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        Refused::new(E::unknown_field(field, expected), Said::UnknownKey)
    }
    fn missing_field(field: &'static str) -> Self {
        Refused::new(E::missing_field(field), Said::Missing)
    }
    fn duplicate_field(field: &'static str) -> Self {
        Refused::new(E::duplicate_field(field), Said::Twice)
    }
}

/// An error coming back out of serde_json: the cause and place it crossed
/// with, or serde_json's own, raised here.
fn back<E>(state: Shared<'_, '_>, error: E) -> Refused<E> {
    let mut state = state.borrow_mut();
    let (said, path) = match state.crossing.take() {
        Some(crossed) => crossed,
        None => (Said::Json, state.path()),
    };
    Refused {
        error,
        said,
        path: Some(path),
    }
}

/// An error going into serde_json: its cause and place are left for
/// [`back`], the place being here if it has none yet.
fn across<E>(state: Shared<'_, '_>, refused: Refused<E>) -> E {
    let mut state = state.borrow_mut();
    let path = refused.path.unwrap_or_else(|| state.path());
    state.crossing = Some((refused.said, path));
    refused.error
}

/// What the value being read is to the wrapper.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Value,
    /// A key or a variant's name: its text goes on the path.
    Key,
    /// A struct with fields: an empty object read as it is found.
    Struct,
}

/// serde_json's deserializer (or one it hands out), wrapped.
struct Track<'s, 'de, D> {
    de: D,
    state: Shared<'s, 'de>,
    role: Role,
}

impl<'s, 'de, D> Track<'s, 'de, D> {
    fn new(de: D, state: Shared<'s, 'de>) -> Self {
        Track {
            de,
            state,
            role: Role::Value,
        }
    }
}

/// The same visitor, wrapped in `role`.
fn visit<'s, 'de, V>(visitor: V, state: Shared<'s, 'de>, role: Role) -> Visit<'s, 'de, V> {
    Visit {
        visitor,
        state,
        role,
    }
}

macro_rules! forward_deserialize {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
            let state = self.state;
            self.de
                .$method($($arg,)* visit(visitor, state, self.role))
                .map_err(|e| back(state, e))
        }
    )*};
}

impl<'s, 'de, D: Deserializer<'de>> Deserializer<'de> for Track<'s, 'de, D> {
    type Error = Refused<D::Error>;

    forward_deserialize! {
        deserialize_any(); deserialize_bool(); deserialize_i8(); deserialize_i16();
        deserialize_i32(); deserialize_i64(); deserialize_i128(); deserialize_u8();
        deserialize_u16(); deserialize_u32(); deserialize_u64(); deserialize_u128();
        deserialize_f32(); deserialize_f64(); deserialize_char(); deserialize_str();
        deserialize_string(); deserialize_bytes(); deserialize_byte_buf();
        deserialize_option(); deserialize_unit(); deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str); deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize); deserialize_map();
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier(); deserialize_ignored_any();
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let role = if fields.is_empty() {
            Role::Value
        } else {
            Role::Struct
        };
        let state = self.state;
        self.de
            .deserialize_struct(name, fields, visit(visitor, state, role))
            .map_err(|e| back(state, e))
    }

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

/// The type's visitor, wrapped: what serde_json hands it is wrapped in turn.
struct Visit<'s, 'de, V> {
    visitor: V,
    state: Shared<'s, 'de>,
    role: Role,
}

impl<'de, V> Visit<'_, 'de, V> {
    /// The role of what this value wraps (an `Option`'s, a newtype's): a
    /// key's is a key too.
    fn inner(&self) -> Role {
        if self.role == Role::Key {
            Role::Key
        } else {
            Role::Value
        }
    }

    /// A key's text, for the value after it.
    fn key(&self, text: impl FnOnce() -> Cow<'de, str>) {
        if self.role == Role::Key {
            self.state.borrow_mut().key = Some(text());
        }
    }
}

macro_rules! forward_visit {
    ($($method:ident($ty:ty);)*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
            self.key(|| Cow::Owned(v.to_string()));
            let state = self.state;
            self.visitor.$method(v).map_err(|e| across(state, e))
        }
    )*};
}

impl<'s, 'de, V: Visitor<'de>> Visitor<'de> for Visit<'s, 'de, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    forward_visit! {
        visit_bool(bool); visit_i8(i8); visit_i16(i16); visit_i32(i32); visit_i64(i64);
        visit_i128(i128); visit_u8(u8); visit_u16(u16); visit_u32(u32); visit_u64(u64);
        visit_u128(u128); visit_f32(f32); visit_f64(f64); visit_char(char); visit_str(&str);
        visit_string(String);
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        self.key(|| Cow::Borrowed(v));
        let state = self.state;
        self.visitor
            .visit_borrowed_str(v)
            .map_err(|e| across(state, e))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
        let state = self.state;
        self.visitor.visit_bytes(v).map_err(|e| across(state, e))
    }

    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<Self::Value, E> {
        let state = self.state;
        self.visitor
            .visit_borrowed_bytes(v)
            .map_err(|e| across(state, e))
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Self::Value, E> {
        let state = self.state;
        self.visitor.visit_byte_buf(v).map_err(|e| across(state, e))
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        let state = self.state;
        self.visitor.visit_none().map_err(|e| across(state, e))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        let state = self.state;
        self.visitor.visit_unit().map_err(|e| across(state, e))
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        let (state, role) = (self.state, self.inner());
        self.visitor
            .visit_some(Track { de, state, role })
            .map_err(|e| across(state, e))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        let (state, role) = (self.state, self.inner());
        self.visitor
            .visit_newtype_struct(Track { de, state, role })
            .map_err(|e| across(state, e))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        let state = self.state;
        let items = Items {
            seq,
            state,
            index: 0,
        };
        self.visitor.visit_seq(items).map_err(|e| across(state, e))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let state = self.state;
        let entries = Entries {
            map,
            state,
            of_struct: self.role == Role::Struct,
            any: false,
        };
        self.visitor
            .visit_map(entries)
            .map_err(|e| across(state, e))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        let state = self.state;
        let variant = Variant { data, state };
        self.visitor
            .visit_enum(variant)
            .map_err(|e| across(state, e))
    }
}

/// The type's seed, wrapped: what it reads is read through [`Track`] at
/// `step` on the path (none for a key).
struct Seed<'s, 'de, S> {
    seed: S,
    state: Shared<'s, 'de>,
    role: Role,
}

impl<'s, 'de, S> Seed<'s, 'de, S> {
    fn new(seed: S, state: Shared<'s, 'de>, role: Role) -> Self {
        Seed { seed, state, role }
    }
}

impl<'s, 'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<'s, 'de, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        let state = self.state;
        let track = Track {
            de,
            state,
            role: self.role,
        };
        self.seed.deserialize(track).map_err(|e| across(state, e))
    }
}

/// `read` with `step` on the path.
fn at<'de, R>(state: Shared<'_, 'de>, step: Step<'de>, read: impl FnOnce() -> R) -> R {
    state.borrow_mut().path.push(step);
    let read = read();
    state.borrow_mut().path.pop();
    read
}

/// An array's items, each at its index.
struct Items<'s, 'de, A> {
    seq: A,
    state: Shared<'s, 'de>,
    index: usize,
}

impl<'s, 'de, A: SeqAccess<'de>> SeqAccess<'de> for Items<'s, 'de, A> {
    type Error = Refused<A::Error>;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Self::Error> {
        let (state, index) = (self.state, self.index);
        self.index += 1;
        let seed = Seed::new(seed, state, Role::Value);
        at(state, Step::Index(index), || {
            self.seq.next_element_seed(seed)
        })
        .map_err(|e| back(state, e))
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

/// An object's entries, each value at its key.
struct Entries<'s, 'de, A> {
    map: A,
    state: Shared<'s, 'de>,
    /// The object is read as a struct with fields.
    of_struct: bool,
    /// A key was read.
    any: bool,
}

impl<'s, 'de, A: MapAccess<'de>> MapAccess<'de> for Entries<'s, 'de, A> {
    type Error = Refused<A::Error>;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Self::Error> {
        let state = self.state;
        // A key no visit gives the text of is `?`, never the one before.
        state.borrow_mut().key = None;
        let seed = Seed::new(seed, state, Role::Key);
        let key = self.map.next_key_seed(seed).map_err(|e| back(state, e))?;
        if key.is_none() && self.of_struct && !self.any {
            let mut state = state.borrow_mut();
            if state.empty.is_none() {
                state.empty = Some(state.path());
            }
        }
        self.any = true;
        Ok(key)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<S::Value, Self::Error> {
        let state = self.state;
        let key = state.borrow_mut().key.take().unwrap_or(Cow::Borrowed("?"));
        let seed = Seed::new(seed, state, Role::Value);
        at(state, Step::Key(key), || self.map.next_value_seed(seed)).map_err(|e| back(state, e))
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// An enum's variant: its value is at the variant's name on the path.
struct Variant<'s, 'de, A> {
    data: A,
    state: Shared<'s, 'de>,
}

impl<'s, 'de, A: EnumAccess<'de>> EnumAccess<'de> for Variant<'s, 'de, A> {
    type Error = Refused<A::Error>;
    type Variant = Variant<'s, 'de, A::Variant>;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self::Variant), Self::Error> {
        let state = self.state;
        let seed = Seed::new(seed, state, Role::Key);
        let (value, data) = self.data.variant_seed(seed).map_err(|e| back(state, e))?;
        Ok((value, Variant { data, state }))
    }
}

impl<'s, 'de, A: VariantAccess<'de>> Variant<'s, 'de, A> {
    /// `read` at the variant's name on the path.
    fn value<R, E>(self, read: impl FnOnce(A) -> Result<R, E>) -> Result<R, Refused<E>> {
        let state = self.state;
        let name = state.borrow_mut().key.take().unwrap_or(Cow::Borrowed("?"));
        at(state, Step::Key(name), || read(self.data)).map_err(|e| back(state, e))
    }
}

impl<'s, 'de, A: VariantAccess<'de>> VariantAccess<'de> for Variant<'s, 'de, A> {
    type Error = Refused<A::Error>;

    fn unit_variant(self) -> Result<(), Self::Error> {
        // No value: the name stays the key of what follows, as a map's key.
        let state = self.state;
        self.data.unit_variant().map_err(|e| back(state, e))
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<S::Value, Self::Error> {
        let state = self.state;
        let seed = Seed::new(seed, state, Role::Value);
        self.value(|data| data.newtype_variant_seed(seed))
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let visitor = visit(visitor, self.state, Role::Value);
        self.value(|data| data.tuple_variant(len, visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let role = if fields.is_empty() {
            Role::Value
        } else {
            Role::Struct
        };
        let visitor = visit(visitor, self.state, role);
        self.value(|data| data.struct_variant(fields, visitor))
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

    fn empty<T: serde::de::DeserializeOwned>(json: &str) -> Option<Option<String>> {
        read_first::<T>(json).unwrap().unwrap().empty
    }

    fn refused<T: serde::de::DeserializeOwned + fmt::Debug>(json: &str) -> Refusal {
        read_first::<T>(json).unwrap_err()
    }

    #[test]
    fn an_empty_object_read_as_a_struct_is_found_at_its_path() {
        assert_eq!(empty::<Opts>("{}"), Some(None));
        assert_eq!(empty::<Opts>(" {\n } "), Some(None));
        assert_eq!(
            empty::<Vec<Opts>>("[{\"a\": 1}, {}]").flatten().as_deref(),
            Some("[1]")
        );
        let outer = |rest: &str| format!("{{\"name\": \"x\", {rest}}}");
        assert_eq!(
            empty::<Outer>(&outer("\"opts\": {}")).flatten().as_deref(),
            Some("opts")
        );
        assert_eq!(
            empty::<Outer>(&outer("\"list\": [{}]"))
                .flatten()
                .as_deref(),
            Some("list[0]")
        );
        assert_eq!(
            empty::<Outer>(&outer("\"kind\": {\"Shaped\": {}}"))
                .flatten()
                .as_deref(),
            Some("kind.Shaped")
        );
        // An empty key is a step all the same.
        assert_eq!(
            empty::<HashMap<String, Opts>>(r#"{"": {}}"#),
            Some(Some(String::new()))
        );
    }

    #[test]
    fn an_empty_object_read_as_anything_else_is_not() {
        // A map with no entries, a struct with no fields, a string holding `{}`.
        assert_eq!(empty::<HashMap<String, u32>>("{}"), None);
        assert_eq!(empty::<Nothing>("{}"), None);
        let outer = |rest: &str| format!("{{\"name\": \"{{}}\", {rest}}}");
        assert_eq!(empty::<Outer>(&outer("\"by_name\": {}")), None);
        assert_eq!(empty::<Outer>(&outer("\"opts\": null")), None);
        assert_eq!(empty::<Outer>(&outer("\"opts\": {\"a\": 1}")), None);
        assert_eq!(empty::<serde_json::Value>("{}"), None);
    }

    #[test]
    fn a_refusal_says_what_raised_it_and_where() {
        let r = refused::<Outer>("{\"name\": \"x\", \"list\": [{\"a\": 1}, {\"a\": -1}]}");
        assert_eq!(
            (r.said, r.path.as_deref()),
            (Said::NotAllowed, Some("list[1].a"))
        );
        let r = refused::<Outer>("{\"opts\": null}");
        assert_eq!((r.said, r.path), (Said::Missing, None));
        assert_eq!(
            r.json.to_string(),
            "missing field `name` at line 1 column 14"
        );
        let r = refused::<Outer>("{\"name\": \"x\", \"kind\": \"Round\"}");
        assert_eq!((r.said, r.path.as_deref()), (Said::NoVariant, Some("kind")));
        let r = refused::<Outer>("{\"name\": 7}");
        assert_eq!((r.said, r.path.as_deref()), (Said::Json, Some("name")));
        let r = refused::<Outer>("{\"name\": \"x\", \"name\": \"y\"}");
        assert_eq!(r.said, Said::Twice);
        let r = refused::<Outer>("{\"name\": \"x\", ");
        assert_eq!(r.said, Said::Json);
        assert_eq!(
            r.json.classify(),
            serde_json::error::Category::Eof,
            "{}",
            r.json
        );
    }

    #[test]
    fn an_error_caught_by_the_type_leaves_no_path_behind() {
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Lenient {
            #[serde(deserialize_with = "zero_if_not")]
            a: u32,
            b: String,
        }
        fn zero_if_not<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
            Ok(u32::deserialize(d).unwrap_or(0))
        }
        let r = refused::<Lenient>("{\"a\": \"x\", \"b\": 7}");
        assert_eq!((r.said, r.path.as_deref()), (Said::Json, Some("b")));
    }

    #[test]
    fn a_key_read_as_an_enum_or_a_newtype_names_its_value() {
        #[derive(Debug, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
        enum Side {
            Left,
        }
        #[derive(Debug, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
        struct Name(String);
        let r = refused::<std::collections::BTreeMap<Side, u8>>("{\"Left\": -1}");
        assert_eq!(r.path.as_deref(), Some("Left"));
        let r = refused::<std::collections::BTreeMap<Name, u8>>("{\"n\": -1}");
        assert_eq!(r.path.as_deref(), Some("n"));
    }

    #[test]
    fn a_value_ends_where_json_lets_it_end() {
        let read = read_first::<Vec<u8>>("[1, 2]\n\nThat is all.")
            .unwrap()
            .unwrap();
        assert_eq!((read.value, read.end), (vec![1, 2], 6));
        let read = read_first::<u8>("42, as asked").unwrap().unwrap();
        assert_eq!((read.value, read.end), (42, 2));
        assert!(read_first::<u8>("42abc").is_err());
        assert!(read_first::<u8>("  \n").unwrap().is_none());
    }

    #[test]
    fn a_number_past_every_range_is_told_from_a_syntax_error() {
        let e = refused::<Vec<f64>>("[1e400]");
        assert!(out_of_range("[1e400]", e.json.line(), e.json.column()));
        // Not JSON's numbers, and a place inside a character: no.
        for text in [
            "[1, x]",
            "[+1e999]",
            "[01e999]",
            "{\"a\": “x”}",
            "[\"\\é\"]",
        ] {
            let e = refused::<serde_json::Value>(text);
            assert!(
                !out_of_range(text, e.json.line(), e.json.column()),
                "{text}"
            );
        }
    }
}
