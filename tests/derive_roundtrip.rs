//! Round trips over generated values of derived types: `from_toon(to_toon(x)) == x`
//! with no repair reported, and the JSON form of `x` read back to the same `x`.

mod common;

use common::types::*;
use proptest::prelude::*;
use toon_core::{decode, Toon};

/// Text that stresses quoting: delimiters, colons, quotes, backslashes, leading
/// markers (`-`, `#`, backticks), look-alikes of numbers and literals, edges of
/// whitespace, control characters and non-ASCII.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,24}",
        "\\PC{0,12}",
        prop::sample::select(vec![
            "",
            " ",
            "true",
            "null",
            "12",
            "-3.5",
            "1e5",
            "05",
            "-",
            "- item",
            "#",
            "# note",
            "a, b",
            "x: y",
            "\"q\"",
            "back\\slash",
            "```",
            "```toon",
            "line\nbreak",
            "tab\there",
            " padded ",
            "[1]",
            "{a}",
            "é ü 你好 🚀",
        ])
        .prop_map(str::to_owned),
    ]
}

fn severity() -> impl Strategy<Value = Severity> {
    prop_oneof![
        Just(Severity::High),
        Just(Severity::Medium),
        Just(Severity::Low)
    ]
}

fn violation() -> impl Strategy<Value = Violation> {
    (text(), severity(), text(), text(), text()).prop_map(
        |(category, severity, description, related_rule_id, remediation)| Violation {
            category,
            severity,
            description,
            related_rule_id,
            remediation,
        },
    )
}

fn compliance() -> impl Strategy<Value = ComplianceAnalysis> {
    (
        prop_oneof![Just(Status::Compliant), Just(Status::NonCompliant)],
        prop::collection::vec(violation(), 0..6),
        text(),
        text(),
        prop::option::of(prop::num::f64::NORMAL | prop::num::f64::SUBNORMAL | prop::num::f64::ZERO),
    )
        .prop_map(
            |(compliance_status, violations, audit_trail, spoken_response, confidence)| {
                ComplianceAnalysis {
                    compliance_status,
                    violations,
                    audit_trail,
                    spoken_response,
                    internal_note: String::new(),
                    confidence,
                }
            },
        )
}

fn answer() -> impl Strategy<Value = Answer> {
    let finding = prop_oneof![
        (
            text(),
            prop::collection::vec(any::<u32>().prop_map(SourceId), 0..4)
        )
            .prop_map(|(answer, citations)| Finding::Found { answer, citations }),
        text().prop_map(|reason| Finding::NotFound { reason }),
        Just(Finding::Unanswerable),
    ];
    (text(), finding).prop_map(|(question, finding)| Answer { question, finding })
}

fn round_trip<T: Toon + PartialEq + std::fmt::Debug>(x: &T) -> Result<(), TestCaseError> {
    let text = x.to_toon();
    let back =
        T::from_toon_with_report(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
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
