//! Runs every case of the official TOON conformance suite (tests/fixtures/toon-spec)
//! through `decode` and `encode`, and fails listing every case that does not pass.

mod common;

use common::{decode_options, encode_options, load};
use toon_core::{decode, encode, spec::json_model_eq};

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
