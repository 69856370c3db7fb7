//! A value that is not an object, as the one property `value` of an object:
//! the form OpenAI's strict mode takes for a tool's parameters and for a
//! `response_format` schema, whose root must be an object.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// A reply of a type that is not a JSON object (a list, an enum, an
/// `Option`), read from the object `{"value": …}` that [`Tool`](crate::schema::Tool)
/// and [`response_format`](crate::schema::response_format) ask for where OpenAI's strict mode
/// takes only an object at the root. `value` missing, beside another key or
/// given twice is refused, never read as `null`.
///
/// ```
/// use toon_core::{from_json_reply, reply::Wrapped};
///
/// let Wrapped(cities) = from_json_reply::<Wrapped<Vec<String>>>(r#"{"value": ["Lima", "Quito"]}"#).unwrap();
/// assert_eq!(cities, ["Lima", "Quito"]);
/// assert!(from_json_reply::<Wrapped<Vec<String>>>(r#"{"value": [], "extra": 1}"#).is_err());
/// assert!(from_json_reply::<Wrapped<Option<u8>>>("{}").is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Wrapped<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Wrapped<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Only<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Only<T> {
            type Value = Wrapped<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object whose one property is `value`")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Wrapped<T>, M::Error> {
                let mut value = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key != "value" {
                        return Err(de::Error::unknown_field(&key, &["value"]));
                    }
                    if value.is_some() {
                        return Err(de::Error::duplicate_field("value"));
                    }
                    value = Some(map.next_value()?);
                }
                value
                    .map(Wrapped)
                    .ok_or_else(|| de::Error::missing_field("value"))
            }
        }
        deserializer.deserialize_map(Only(PhantomData))
    }
}
