//! Checking a decoded value against its field's constraints: a value outside
//! them is refused by name, never clamped or dropped.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::shape::{span_text, Constraints};

/// What a constraint measures in a value: a number, a text's characters, or a
/// list's items. Values of other types measure nothing and pass.
#[doc(hidden)]
pub enum Measured<'v> {
    Number(f64),
    Text(&'v str),
    Items(usize),
    /// `None` of an `Option`, or a type no constraint applies to.
    Nothing,
}

/// A value a field constraint can measure; implemented for the standard types.
#[doc(hidden)]
#[cfg_attr(
    toon_diagnostic,
    diagnostic::on_unimplemented(
        message = "a field constraint cannot measure `{Self}`",
        label = "`range` bounds a number; `length` a text or a list; `pattern` a text",
        note = "to bound what a derived type holds, put the constraint on that type's own fields"
    )
)]
pub trait Measure {
    fn measure(&self) -> Measured<'_>;
}

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl Measure for $t {
            // A bound is compared as f64; integers past 2^53 compare approximately.
            #[allow(clippy::cast_precision_loss, clippy::cast_lossless)]
            fn measure(&self) -> Measured<'_> {
                Measured::Number(*self as f64)
            }
        }
    )*};
}
numbers!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f64);

impl Measure for f32 {
    /// By the shortest decimal that reads back as this `f32`, the number the
    /// model wrote: `0.3` is `0.3`, within a bound of `0.3`, where its exact
    /// value, `0.30000001192092896`, is not.
    fn measure(&self) -> Measured<'_> {
        Measured::Number(super::impls::Widen::widen(*self))
    }
}

impl Measure for String {
    fn measure(&self) -> Measured<'_> {
        Measured::Text(self)
    }
}

impl<T> Measure for Vec<T> {
    fn measure(&self) -> Measured<'_> {
        Measured::Items(self.len())
    }
}

impl<K, T> Measure for BTreeMap<K, T> {
    fn measure(&self) -> Measured<'_> {
        Measured::Items(self.len())
    }
}

impl<K, T, S> Measure for HashMap<K, T, S> {
    fn measure(&self) -> Measured<'_> {
        Measured::Items(self.len())
    }
}

impl<T: Measure> Measure for Option<T> {
    fn measure(&self) -> Measured<'_> {
        self.as_ref().map_or(Measured::Nothing, T::measure)
    }
}

impl<T: Measure> Measure for Box<T> {
    fn measure(&self) -> Measured<'_> {
        T::measure(self)
    }
}

impl Measure for Value {
    fn measure(&self) -> Measured<'_> {
        match self {
            Value::Number(n) => n.as_f64().map_or(Measured::Nothing, Measured::Number),
            Value::String(s) => Measured::Text(s),
            Value::Array(a) => Measured::Items(a.len()),
            _ => Measured::Nothing,
        }
    }
}

/// Where an item stands in the list or map an `inner` constraint bounds.
#[doc(hidden)]
pub enum ItemAt<'v> {
    Index(usize),
    Key(&'v str),
}

/// The items of a list, or values of a map, that a field's `inner`
/// constraints bound; implemented for the standard collections.
#[doc(hidden)]
#[cfg_attr(
    toon_diagnostic,
    diagnostic::on_unimplemented(
        message = "`inner` constraints cannot reach the items of `{Self}`",
        label = "`inner` bounds each item of a `Vec` or each value of a map",
        note = "put the constraint on the field itself, or on the item type's own fields"
    )
)]
pub trait Items {
    /// Each item, with where it stands.
    fn each_item(&self, f: &mut dyn FnMut(ItemAt<'_>, Measured<'_>));
}

impl<T: Measure> Items for Vec<T> {
    fn each_item(&self, f: &mut dyn FnMut(ItemAt<'_>, Measured<'_>)) {
        for (i, item) in self.iter().enumerate() {
            f(ItemAt::Index(i), item.measure());
        }
    }
}

impl<T: Measure> Items for BTreeMap<String, T> {
    fn each_item(&self, f: &mut dyn FnMut(ItemAt<'_>, Measured<'_>)) {
        for (k, v) in self {
            f(ItemAt::Key(k), v.measure());
        }
    }
}

impl<T: Measure, S: std::hash::BuildHasher> Items for HashMap<String, T, S> {
    fn each_item(&self, f: &mut dyn FnMut(ItemAt<'_>, Measured<'_>)) {
        // In key order, so that a refusal names the items alike each time.
        let mut keys: Vec<&String> = self.keys().collect();
        keys.sort();
        for k in keys {
            if let Some(v) = self.get(k.as_str()) {
                f(ItemAt::Key(k), v.measure());
            }
        }
    }
}

impl<C: Items> Items for Option<C> {
    fn each_item(&self, f: &mut dyn FnMut(ItemAt<'_>, Measured<'_>)) {
        if let Some(c) = self {
            c.each_item(f);
        }
    }
}

impl<C: Items> Items for Box<C> {
    fn each_item(&self, f: &mut dyn FnMut(ItemAt<'_>, Measured<'_>)) {
        C::each_item(self, f);
    }
}

/// Why `value` breaks `c`, if it does; `regex` compiles (and keeps) a pattern.
pub(crate) fn violation(
    value: &Measured<'_>,
    c: &Constraints,
    regex: &mut dyn FnMut(&'static str) -> Option<bool>,
) -> Option<String> {
    match *value {
        Measured::Number(n) => {
            let outside = c.min.is_some_and(|m| n < m) || c.max.is_some_and(|m| n > m);
            outside.then(|| {
                format!(
                    "{n} is outside the allowed {}",
                    span_text(c.min, c.max).unwrap_or_default()
                )
            })
        }
        Measured::Text(s) => {
            let chars = s.chars().count();
            let len = u32::try_from(chars).unwrap_or(u32::MAX);
            if c.min_length.is_some_and(|m| len < m) || c.max_length.is_some_and(|m| len > m) {
                return Some(format!(
                    "`{}` has {chars} characters; {} allowed",
                    crate::spec::lex::clip(s),
                    span_text(c.min_length, c.max_length).unwrap_or_default()
                ));
            }
            let pattern = c.pattern?;
            (regex(pattern) == Some(false)).then(|| {
                format!(
                    "`{}` does not match the pattern `{pattern}`",
                    crate::spec::lex::clip(s)
                )
            })
        }
        Measured::Items(n) => {
            let len = u32::try_from(n).unwrap_or(u32::MAX);
            let outside =
                c.min_length.is_some_and(|m| len < m) || c.max_length.is_some_and(|m| len > m);
            outside.then(|| {
                format!(
                    "{n} items; {} allowed",
                    span_text(c.min_length, c.max_length).unwrap_or_default()
                )
            })
        }
        Measured::Nothing => None,
    }
}
