//! The specification's JSON-model equality (§2).

use serde_json::Value;

/// Compares two values the way the TOON specification's round-trip rule does (§2):
/// numbers by mathematical value (`1`, `1.0` and `-0`/`0` are equal), strings by
/// their characters, arrays in order, and objects by the same ordered key
/// sequence with equal values.
///
/// `serde_json`'s own `==` differs in one place: it tells the integer `1` from
/// the float `1.0`.
///
/// ```
/// use serde_json::json;
/// assert!(toon_core::spec::json_model_eq(&json!({"a": 1, "b": [2.0]}), &json!({"a": 1.0, "b": [2]})));
/// assert!(!toon_core::spec::json_model_eq(&json!({"a": 1, "b": 2}), &json!({"b": 2, "a": 1})));
/// ```
pub fn json_model_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(i), Some(j), _, _) => i == j,
                (_, _, Some(i), Some(j)) => i == j,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_model_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, va), (kb, vb))| ka == kb && json_model_eq(va, vb))
        }
        _ => a == b,
    }
}
