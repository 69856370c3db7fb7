//! Replies written to break the decoder's promise, or plausibly by a model: a
//! JSON key written twice is refused on every path (never the last value
//! silently kept), reasoning after a complete answer is reasoning (not the
//! answer taken away), and the JSON mend and a wide header cost time linear in
//! the input (time at 4n within a small factor of 4 times the time at n).

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::types::{Answer, ComplianceAnalysis};
use proptest::prelude::*;
use serde_json::{json, Value};
use toon_core::{
    decode, decode_reply, from_json_reply, ParseErrorKind, RepairKind, Tool, Toon, ToonStream,
};

const COMPLIANCE_JSON: &str = r#"{"compliance_status": "NON_COMPLIANT", "violations": [{"category": "privacy", "severity": "HIGH", "description": "Emails in logs", "related_rule_id": "R-1", "remediation": "Mask them"}], "audit_trail": "R-1 to R-5", "spoken_response": "One problem."}"#;

#[test]
fn a_json_key_written_twice_is_refused_on_every_path() {
    // The list, then an empty one: the last would read as "found nothing".
    let twice = COMPLIANCE_JSON.replace("\"audit_trail\"", "\"violations\": [], \"audit_trail\"");
    let err = ComplianceAnalysis::from_toon(&twice).unwrap_err();
    assert_eq!(err.kind(), ParseErrorKind::Syntax, "{err}");
    assert!(err.message().contains("`violations`"), "{err}");
    assert!(err.message().contains("twice"), "{err}");
    // Fenced, after prose, mended (a trailing comma): the same refusal.
    for reply in [
        format!("```json\n{twice}\n```"),
        format!("Here it is:\n{twice}"),
        twice.replace("}]", "},]"),
    ] {
        let err = ComplianceAnalysis::from_toon(&reply).unwrap_err();
        assert_eq!(err.kind(), ParseErrorKind::Syntax, "{reply}\n{err}");
    }
    // Into any serde type, a map, an untyped value.
    let map = r#"{"a": 1, "b": 2, "a": 3}"#;
    assert_eq!(
        from_json_reply::<BTreeMap<String, u32>>(map)
            .unwrap_err()
            .kind(),
        ParseErrorKind::Syntax
    );
    assert_eq!(
        from_json_reply::<Value>(map).unwrap_err().kind(),
        ParseErrorKind::Syntax
    );
    assert_eq!(
        BTreeMap::<String, u32>::from_toon(map).unwrap_err().kind(),
        ParseErrorKind::Syntax
    );
    assert!(decode_reply(map).is_err());
    // Nested, in a list: found at any depth, on its line.
    let nested = "[\n  {\"x\": 1},\n  {\"x\": 2, \"x\": 3}\n]";
    let err = from_json_reply::<Value>(nested).unwrap_err();
    assert_eq!((err.kind(), err.line()), (ParseErrorKind::Syntax, Some(3)));
    // A tagged enum's tag twice would switch the variant.
    let tag = r#"{"question": "Capital?", "finding": {"status": "found", "answer": "Lima", "citations": [1], "status": "not_found"}}"#;
    assert_eq!(
        Answer::from_toon(tag).unwrap_err().kind(),
        ParseErrorKind::Syntax
    );
    // A tool call's arguments.
    let tool = Tool::of::<common::types::Capital>();
    let twice = r#"{"country": "Peru", "capital": "Lima", "capital": "Quito"}"#;
    let response = json!({"choices": [{"finish_reason": "tool_calls", "message": {"content": null, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": tool.name(), "arguments": twice}}
    ]}}]});
    let err = tool.read::<common::types::Capital>(&response).unwrap_err();
    assert_eq!(err.kind(), ParseErrorKind::Syntax, "{err}");
    // A key once in each of two objects is no duplicate.
    assert_eq!(
        from_json_reply::<Value>(r#"[{"x": 1}, {"x": 2}]"#).unwrap(),
        json!([{"x": 1}, {"x": 2}])
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any value's JSON with one of its keys written again, anywhere in its
    /// object, with any value: refused, never read.
    #[test]
    fn a_duplicated_key_is_refused(
        x in common::strategies::compliance(),
        key in prop::sample::select(vec!["compliance_status", "violations", "audit_trail", "spoken_response"]),
        again in prop::sample::select(vec!["[]", "\"COMPLIANT\"", "\"\"", "null"]),
        first in any::<bool>(),
    ) {
        let value = decode(&x.to_toon(), &Default::default()).unwrap();
        let text = serde_json::to_string(&value).unwrap();
        let extra = format!("\"{key}\": {again}");
        let twice = if first {
            format!("{{{extra}, {}", &text[1..])
        } else {
            format!("{}, {extra}}}", &text[..text.len() - 1])
        };
        let err = ComplianceAnalysis::from_toon(&twice).unwrap_err();
        prop_assert_eq!(err.kind(), ParseErrorKind::Syntax, "{}\n{}", twice, err);
    }
}

#[test]
fn reasoning_after_a_complete_answer_is_not_the_answer_taken_away() {
    let answer = "country: Peru\ncapital: Lima";
    for reply in [
        format!("{answer}\n<think>\nWas that right? Yes.\n</think>"),
        format!("{answer}\n\n<think>Double-checked.</think>\n"),
        format!("<think>\nPeru.\n</think>\n{answer}\n<think>\nDone.\n</think>"),
    ] {
        let read = common::types::Capital::from_toon_with_report(&reply)
            .unwrap_or_else(|e| panic!("{e}\n{reply}"));
        assert_eq!(read.value.capital, "Lima");
        assert!(
            read.repairs
                .iter()
                .all(|r| r.kind == RepairKind::StrippedReasoning),
            "{:?}",
            read.repairs
        );
        assert!(!read.repairs.is_empty());
        // The stream's finish is the same reading.
        let mut stream = ToonStream::<common::types::Capital>::new();
        let _ = stream.push(&reply);
        let _ = stream.end();
        assert_eq!(stream.finish().unwrap().value, read.value);
    }
    // An answer then a reasoning block never closed: cut inside it.
    let cut = format!("{answer}\n<think>\nLet me check the");
    assert_eq!(
        common::types::Capital::from_toon(&cut).unwrap_err().kind(),
        ParseErrorKind::Truncated
    );
    // A `</think>` before any `<think>` still closes reasoning a chat template opened.
    let template = format!("The user asks about Peru.\n</think>\n{answer}");
    let read = common::types::Capital::from_toon_with_report(&template).unwrap();
    assert_eq!(read.value.capital, "Lima");
}

/// The fastest of three runs of `f`.
fn fastest(f: impl Fn()) -> Duration {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap()
}

/// `make(n)` read by `read` at n and at 4n: linear growth takes about four
/// times as long, quadratic sixteen. The bound, eight times and a few
/// milliseconds, holds for linear work on a loaded machine.
fn grows_linearly(what: &str, make: impl Fn(usize) -> String, read: impl Fn(&str), n: usize) {
    let (small, large) = (make(n), make(4 * n));
    read(&small); // warm up
    let (t1, t4) = (fastest(|| read(&small)), fastest(|| read(&large)));
    assert!(
        t4 <= t1 * 8 + Duration::from_millis(20),
        "{what}: {t1:?} at {} bytes, {t4:?} at {} bytes",
        small.len(),
        large.len()
    );
}

#[test]
fn the_json_mend_is_linear_in_the_reply() {
    // Raw line breaks inside a string.
    grows_linearly(
        "raw line breaks",
        |n| format!("{{\"a\": \"{}\"}}", "a line\n".repeat(n)),
        |s| {
            from_json_reply::<Value>(s).unwrap();
        },
        2_000,
    );
    // `//` comments.
    grows_linearly(
        "comments",
        |n| {
            let items: Vec<String> = (0..n).map(|i| format!("  {i}, // item {i}")).collect();
            format!("[\n{}\n  0\n]", items.join("\n"))
        },
        |s| {
            from_json_reply::<Value>(s).unwrap();
        },
        2_000,
    );
    // Single quotes.
    grows_linearly(
        "single quotes",
        |n| {
            let items: Vec<String> = (0..n).map(|i| format!("'k{i}': 'v'")).collect();
            format!("{{{}}}", items.join(",\n"))
        },
        |s| {
            from_json_reply::<Value>(s).unwrap();
        },
        2_000,
    );
}

#[test]
fn a_wide_header_is_linear_in_its_fields() {
    let make = |n: usize| {
        let names: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
        let cells: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        format!(
            "rows[2]{{{}}}:\n  {}\n  {}",
            names.join(","),
            cells.join(","),
            cells.join(",")
        )
    };
    grows_linearly(
        "decode_reply",
        make,
        |s| {
            decode_reply(s).unwrap();
        },
        1_000,
    );
    grows_linearly(
        "a stream",
        make,
        |s| {
            let mut stream = ToonStream::<Value>::new();
            for piece in s.as_bytes().chunks(64) {
                let _ = stream.push(std::str::from_utf8(piece).unwrap());
            }
            let _ = stream.end();
            stream.finish().unwrap();
        },
        1_000,
    );
}
