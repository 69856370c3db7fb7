//! Hostile input through all three entry points (`decode`, `decode_reply`,
//! `T::from_toon`): each returns quickly, with the outcome it should, and with
//! peak memory bounded by a small multiple of the input (measured by a counting
//! allocator; this binary holds one test so nothing else allocates meanwhile).

mod common;

use std::time::{Duration, Instant};

use common::alloc::{peak_during, Counting};

use common::types::ComplianceAnalysis;
use toon_core::{
    decode, decode_reply, reply::from_json_serde, spec::DecodeErrorKind, ParseErrorKind,
    ReplyOptions, Toon,
};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` on `input` and checks time and the peak of memory allocated meanwhile.
fn bounded<T>(what: &str, input: &str, f: impl FnOnce(&str) -> T) -> T {
    let start = Instant::now();
    let (out, peak) = peak_during(|| f(input));
    let took = start.elapsed();
    // Generous bounds for a debug build on a shared machine: linear in the input.
    let limit = 16 * input.len() + (1 << 20);
    assert!(
        peak <= limit,
        "{what}: peak {peak} bytes for {} bytes of input (limit {limit})",
        input.len()
    );
    assert!(took < Duration::from_secs(10), "{what}: took {took:?}");
    out
}

/// The three entry points, each bounded.
fn all_three(
    what: &str,
    input: &str,
) -> (
    Result<serde_json::Value, toon_core::spec::DecodeError>,
    Result<serde_json::Value, toon_core::ParseError>,
    Result<ComplianceAnalysis, toon_core::ParseError>,
) {
    (
        bounded(&format!("{what} / decode"), input, |s| {
            decode(s, &Default::default())
        }),
        bounded(&format!("{what} / decode_reply"), input, decode_reply),
        bounded(
            &format!("{what} / from_toon"),
            input,
            ComplianceAnalysis::from_toon,
        ),
    )
}

const TAIL: &str = "audit_trail: a\nspoken_response: b\ncompliance_status: COMPLIANT";

#[test]
fn hostile_inputs() {
    // A header declaring billions of rows over two.
    let doc = format!(
        "violations[4000000000]{{category,severity,description,related_rule_id,remediation}}:\n  a,HIGH,b,c,d\n  e,LOW,f,g,h\n{TAIL}"
    );
    let (spec, reply, typed) = all_three("billions of rows", &doc);
    assert_eq!(spec.unwrap_err().kind(), DecodeErrorKind::LengthMismatch);
    assert_eq!(
        reply.unwrap()["violations"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(typed.unwrap().violations.len(), 2);

    // A wide header declaring a million rows, followed by many lines that are
    // not rows: room for rows is never sized by the declaration times the width.
    let fields: Vec<String> = (0..1000).map(|i| format!("f{i}")).collect();
    let value = "v".repeat(60);
    let keys: Vec<String> = (0..20_000).map(|i| format!("k{i}: {value}")).collect();
    let doc = format!(
        "violations[1000000]{{{}}}:\n{}\n{TAIL}",
        fields.join(","),
        keys.join("\n")
    );
    let (spec, _, typed) = all_three("a wide header over no rows", &doc);
    assert_eq!(spec.unwrap_err().kind(), DecodeErrorKind::LengthMismatch);
    // No rows under a header that declares them is refused, never read as none.
    let refused = typed.unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("declares 1000000 value(s) and none follow"),
        "{refused}"
    );

    // A 10 MB line.
    let doc = format!(
        "violations[0]{{category}}:\n{TAIL}\nnote: {}",
        "x".repeat(10 << 20)
    );
    let (spec, reply, typed) = all_three("10 MB line", &doc);
    assert_eq!(spec.unwrap()["note"].as_str().map(str::len), Some(10 << 20));
    assert!(reply.is_ok());
    assert!(
        typed.is_ok(),
        "the unknown 10 MB key is ignored and reported"
    );

    // 100,000 levels of indentation on one line: the spec decoder refuses the
    // depth; the reply decoder reads the line as one level under its parent (the
    // only reading there is), so `b` is found.
    let doc = format!("a:\n{}b: 1", "  ".repeat(100_000));
    let (spec, reply, typed) = all_three("one deep line", &doc);
    assert_eq!(spec.unwrap_err().kind(), DecodeErrorKind::DepthLimit);
    assert_eq!(reply.unwrap(), serde_json::json!({"a": {"b": 1}}));
    assert_eq!(typed.unwrap_err().kind(), ParseErrorKind::MissingField);

    // A real chain of 2,000 nested objects: past every depth limit.
    let doc: String = (0..2_000)
        .map(|d| format!("{}k:\n", "  ".repeat(d)))
        .collect();
    let (spec, reply, typed) = all_three("deep nesting", &doc);
    assert_eq!(spec.unwrap_err().kind(), DecodeErrorKind::DepthLimit);
    assert_eq!(reply.unwrap_err().kind(), ParseErrorKind::LimitExceeded);
    assert_eq!(typed.unwrap_err().kind(), ParseErrorKind::LimitExceeded);

    // The same depth as JSON: refused by the same limit, not as a syntax error
    // (serde_json alone stops at 128 levels whatever the limit).
    let doc = format!("{}{}", "[".repeat(2_000), "]".repeat(2_000));
    let (_, reply, typed) = all_three("deep JSON", &doc);
    assert_eq!(reply.unwrap_err().kind(), ParseErrorKind::LimitExceeded);
    assert_eq!(typed.unwrap_err().kind(), ParseErrorKind::LimitExceeded);
    let e = toon_core::from_json_reply::<serde_json::Value>(&doc).unwrap_err();
    assert_eq!(
        (e.kind(), e.line()),
        (ParseErrorKind::LimitExceeded, Some(1))
    );
    // A lower limit holds too; brackets inside strings are text.
    let three = ReplyOptions {
        max_depth: 3,
        ..Default::default()
    };
    let within = r#"{"a": {"b": ["[[[[{{\"[["]}}"#;
    assert!(from_json_serde::<serde_json::Value>(within, &three).is_ok());
    let past = "{\"a\":\n {\"b\": [[1]]}}";
    let e = from_json_serde::<serde_json::Value>(past, &three).unwrap_err();
    assert_eq!(
        (e.kind(), e.line()),
        (ParseErrorKind::LimitExceeded, Some(2))
    );
    let e = toon_core::reply::read(past, &three).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::LimitExceeded);

    // Thousands of blank and comment lines.
    let filler = "\n# a comment\n   \n".repeat(50_000);
    let doc = format!(
        "violations[2]{{category,severity,description,related_rule_id,remediation}}:{filler}  a,HIGH,b,c,d{filler}  e,LOW,f,g,h{filler}\n{TAIL}"
    );
    let (spec, reply, typed) = all_three("blank and comment lines", &doc);
    assert_eq!(
        spec.unwrap_err().kind(),
        DecodeErrorKind::BlankLineInArray,
        "strict: blank lines between rows"
    );
    assert_eq!(
        reply.unwrap()["violations"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(typed.unwrap().violations.len(), 2);

    // Every escape edge case, in a field and in a table cell.
    for (escape, ok) in [
        (r"\uD800", false),
        (r"\uDFFF", false),
        (r"\uD83D\uDE00", false),
        (r"\u12", false),
        (r"\u12G4", false),
        (r"\x", false),
        (r"\'", false),
        (r"\", false),
        (r"\u0000", true),
        (r"\u001F", true),
        (r"\u00e9\u00E9", true),
        (r#"\"\\\n\r\t"#, true),
    ] {
        for doc in [
            format!("violations[0]{{category}}:\n{TAIL}\nnote: \"{escape}\""),
            format!("violations[1]{{category,severity,description,related_rule_id,remediation}}:\n  \"{escape}\",HIGH,b,c,d\n{TAIL}"),
        ] {
            let (spec, reply, typed) = all_three(escape, &doc);
            assert_eq!(spec.is_ok(), ok, "{escape}: {spec:?}");
            if let Err(e) = &spec {
                assert!(matches!(e.kind(), DecodeErrorKind::InvalidEscape | DecodeErrorKind::UnterminatedString), "{escape}: {e}");
            }
            // The reply decoders refuse or drop the bad cell; they never panic.
            if ok {
                assert!(reply.is_ok() && typed.is_ok(), "{escape}: {reply:?} {typed:?}");
            }
        }
    }

    // Invalid UTF-8, as a caller holding bytes would pass it (from_utf8_lossy).
    let mut bytes = format!("violations[1]{{category,severity,description,related_rule_id,remediation}}:\n  a,HIGH,b,c,d\n{TAIL}\n").into_bytes();
    bytes.extend([
        0xff, 0xfe, 0xc3, 0x28, b':', b' ', 0xe2, 0x82, b'\n', b'n', b'o', b't', b'e', b':', b' ',
        0xf0, 0x9f,
    ]);
    let doc = String::from_utf8_lossy(&bytes);
    let (_, reply, typed) = all_three("invalid UTF-8", &doc);
    let value = reply.unwrap();
    assert_eq!(
        value["note"], "\u{fffd}",
        "the replacement character is data like any other"
    );
    assert_eq!(typed.unwrap().violations.len(), 1);

    // A reply over ReplyOptions::max_bytes is refused before any work.
    let doc = "x".repeat(17 << 20);
    let (_, reply, typed) = all_three("oversized reply", &doc);
    assert_eq!(reply.unwrap_err().kind(), ParseErrorKind::LimitExceeded);
    assert_eq!(typed.unwrap_err().kind(), ParseErrorKind::LimitExceeded);
}
