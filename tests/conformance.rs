//! Runs every case of the official TOON conformance suite (tests/fixtures/toon-spec)
//! through `decode` and `encode`, and fails listing every case that does not pass.

use std::path::Path;

use serde_json::Value;
use toon_core::{decode, encode, json_model_eq, DecodeOptions, Delimiter, EncodeOptions};

const SUITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/toon-spec");

struct Case {
    file: String,
    name: String,
    input: Value,
    expected: Value,
    should_error: bool,
    options: Value,
}

fn load(kind: &str) -> Vec<Case> {
    let mut files: Vec<_> = std::fs::read_dir(Path::new(SUITE).join(kind))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for t in doc["tests"].as_array().unwrap() {
            out.push(Case {
                file: path.file_name().unwrap().to_string_lossy().into_owned(),
                name: t["name"].as_str().unwrap().to_owned(),
                input: t["input"].clone(),
                expected: t["expected"].clone(),
                should_error: t["shouldError"].as_bool().unwrap_or(false),
                options: t.get("options").cloned().unwrap_or(Value::Null),
            });
        }
    }
    out
}

fn decode_options(o: &Value) -> DecodeOptions {
    let mut opts = DecodeOptions::default();
    if let Some(n) = o["indentSize"].as_u64() {
        opts.indent_size = n as usize;
    }
    if let Some(s) = o["strict"].as_bool() {
        opts.strict = s;
    }
    opts
}

fn encode_options(o: &Value) -> EncodeOptions {
    let mut opts = EncodeOptions::default();
    if let Some(n) = o["indentSize"].as_u64() {
        opts.indent_size = n as usize;
    }
    opts.delimiter = match o["delimiter"].as_str() {
        Some("\t") => Delimiter::Tab,
        Some("|") => Delimiter::Pipe,
        _ => Delimiter::Comma,
    };
    opts
}

#[test]
fn decode_fixtures() {
    let cases = load("decode");
    assert_eq!(cases.len(), 343, "the decode suite has 343 cases");
    let mut failures = Vec::new();
    for c in &cases {
        let input = c.input.as_str().expect("decode input is a string");
        let got = decode(input, &decode_options(&c.options));
        let ok = match (&got, c.should_error) {
            (Err(_), true) => true,
            (Ok(v), false) => json_model_eq(v, &c.expected),
            _ => false,
        };
        if !ok {
            failures.push(format!(
                "{} / {}\n  input: {:?}\n  expected: {}\n  got: {:?}",
                c.file,
                c.name,
                input,
                if c.should_error {
                    "an error".to_owned()
                } else {
                    c.expected.to_string()
                },
                got
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} decode cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn encode_fixtures() {
    let cases = load("encode");
    assert_eq!(cases.len(), 173, "the encode suite has 173 cases");
    let mut failures = Vec::new();
    for c in &cases {
        assert!(!c.should_error, "encode cases never expect errors");
        let got = encode(&c.input, &encode_options(&c.options));
        let expected = c.expected.as_str().expect("encode expectation is a string");
        if got != expected {
            failures.push(format!(
                "{} / {}\n  input: {}\n  expected:\n{}\n  got:\n{}",
                c.file, c.name, c.input, expected, got
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} encode cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
