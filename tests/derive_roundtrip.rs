//! Round trips over generated values of derived types: `from_toon(to_toon(x)) == x`
//! with no repair reported, and the JSON form of `x` read back to the same `x`.

mod common;

use common::strategies::{answer, compliance};
use proptest::prelude::*;
use toon_core::{decode, Toon};

fn round_trip<T: Toon + PartialEq + std::fmt::Debug>(x: &T) -> Result<(), TestCaseError> {
    let text = x.to_toon();
    let back = toon_core::ToonOutputParser::<T>::new()
        .parse_with_report(&text)
        .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    prop_assert_eq!(&back.value, x, "text:\n{}", text);
    prop_assert!(
        back.repairs.is_empty(),
        "repairs {:?} on valid text:\n{}",
        back.repairs,
        text
    );
    // The same value as JSON, as a model that falls back to JSON would write it.
    let json = decode(&text, &Default::default()).unwrap().to_string();
    let from_json = T::from_toon(&json).map_err(|e| TestCaseError::fail(format!("{e}\n{json}")))?;
    prop_assert_eq!(&from_json, x, "json: {}", json);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn compliance_round_trips(x in compliance()) {
        round_trip(&x)?;
    }

    #[test]
    fn answer_round_trips(x in answer()) {
        round_trip(&x)?;
    }
}
