//! `OutputSchema` for the standard types.

use std::collections::{BTreeMap, HashMap};

use super::OutputSchema;
use crate::shape::Shape;

macro_rules! leaves {
    ($($t:ty => $shape:expr),* $(,)?) => {$(
        impl OutputSchema for $t {
            fn __shape() -> Shape {
                $shape
            }
        }
    )*};
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        leaves!($t => Shape::Integer { min: <$t>::MIN as i128, max: <$t>::MAX as i128 });
    )*};
}

leaves!(String => Shape::String, bool => Shape::Bool, f32 => Shape::Float { bits: 32 }, f64 => Shape::Float { bits: 64 }, serde_json::Value => Shape::Any);
integers!(i8, i16, i32, i64, u8, u16, u32, u64, isize, usize);

impl<T: OutputSchema> OutputSchema for Option<T> {
    fn __shape() -> Shape {
        Shape::Option(Box::new(T::__shape_ref()))
    }
    fn __optional() -> bool {
        true
    }
}

impl<T: OutputSchema> OutputSchema for Box<T> {
    fn __shape() -> Shape {
        T::__shape()
    }
    fn __shape_ref() -> Shape {
        T::__shape_ref()
    }
    fn __optional() -> bool {
        T::__optional()
    }
}

impl<T: OutputSchema> OutputSchema for Vec<T> {
    fn __shape() -> Shape {
        Shape::List(Box::new(T::__shape_ref()))
    }
}

impl<T: OutputSchema> OutputSchema for BTreeMap<String, T> {
    fn __shape() -> Shape {
        Shape::Map(Box::new(T::__shape_ref()))
    }
}

impl<T: OutputSchema> OutputSchema for HashMap<String, T> {
    fn __shape() -> Shape {
        Shape::Map(Box::new(T::__shape_ref()))
    }
}
