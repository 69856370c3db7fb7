//! Generated values of the example types, for the property tests.
#![allow(dead_code)] // each test binary uses its own subset

use proptest::prelude::*;

use super::types::*;

/// Text that stresses quoting: delimiters, colons, quotes, backslashes, leading
/// markers (`-`, `#`, backticks), look-alikes of numbers and literals, edges of
/// whitespace, control characters and non-ASCII.
pub fn text() -> impl Strategy<Value = String> {
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

pub fn severity() -> impl Strategy<Value = Severity> {
    prop_oneof![
        Just(Severity::High),
        Just(Severity::Medium),
        Just(Severity::Low)
    ]
}

pub fn violation() -> impl Strategy<Value = Violation> {
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

pub fn compliance() -> impl Strategy<Value = ComplianceAnalysis> {
    (
        prop_oneof![Just(Status::Compliant), Just(Status::NonCompliant)],
        prop::collection::vec(violation(), 0..6),
        text(),
        text(),
        // Within the field's `range(min = 0, max = 1)`, subnormals and exact ends included.
        prop::option::of(prop_oneof![
            0.0..=1.0f64,
            Just(0.0),
            Just(1.0),
            Just(f64::MIN_POSITIVE / 2.0)
        ]),
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

pub fn finding() -> impl Strategy<Value = Finding> + Clone {
    prop_oneof![
        (
            text(),
            prop::collection::vec(any::<u32>().prop_map(SourceId), 0..4)
        )
            .prop_map(|(answer, citations)| Finding::Found { answer, citations }),
        text().prop_map(|reason| Finding::NotFound { reason }),
        Just(Finding::Unanswerable),
    ]
}

pub fn answer() -> impl Strategy<Value = Answer> {
    (text(), finding()).prop_map(|(question, finding)| Answer { question, finding })
}
