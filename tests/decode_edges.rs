//! Decoder behaviour the conformance suite does not pin: the SPEC v4.1 changes,
//! error positions and messages, and hostile input (huge counts, long lines, deep
//! nesting, bad escapes) answered quickly with a clear error.

use std::time::{Duration, Instant};

use serde_json::json;
use toon_core::{decode, encode, spec::DecodeErrorKind, spec::DecodeOptions};

fn strict(s: &str) -> Result<serde_json::Value, toon_core::spec::DecodeError> {
    decode(s, &DecodeOptions::default())
}

fn kind(s: &str) -> DecodeErrorKind {
    strict(s).expect_err(s).kind()
}

/// Runs `f` and fails if it takes longer than `limit` (generous: CI machines are shared).
fn timed<T>(limit: Duration, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    assert!(start.elapsed() < limit, "took {:?}", start.elapsed());
    out
}

#[test]
fn v41_strips_a_byte_order_mark_only_at_the_start() {
    assert_eq!(strict("\u{feff}a: 1").unwrap(), json!({"a": 1}));
    assert_eq!(strict("a: \u{feff}x").unwrap(), json!({"a": "\u{feff}x"}));
}

#[test]
fn v41_trailing_spaces_are_not_content() {
    assert_eq!(
        strict("a: x   \nb: 2  ").unwrap(),
        json!({"a": "x", "b": 2})
    );
    // `- ` alone is the empty-object list item, not an item holding an empty string.
    assert_eq!(strict("items[1]:\n  - ").unwrap(), json!({"items": [{}]}));
}

#[test]
fn v41_text_after_a_closing_quote_is_an_error_everywhere() {
    assert_eq!(kind(r#"a: "x"y"#), DecodeErrorKind::TextAfterQuote);
    assert_eq!(kind("t[2]: \"a\"b,c"), DecodeErrorKind::TextAfterQuote);
    assert_eq!(kind("\"k\"x: 1"), DecodeErrorKind::TextAfterQuote);
    assert_eq!(
        kind("r[1]{a,b}:\n  \"x\" y,1"),
        DecodeErrorKind::TextAfterQuote
    );
}

#[test]
fn crlf_line_endings_are_accepted() {
    assert_eq!(
        strict("t[2]{a,b}:\r\n  1,x\r\n  2,y\r\n").unwrap(),
        json!({"t": [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]})
    );
}

/// Each place a token's error can stand is given its column from the byte
/// where the token begins: a cell in the middle of a row, a value of an
/// inline array, a value after a key, a key in a list item, a key's escape,
/// a header's count, and text after a header's colon.
#[test]
fn a_token_error_is_at_its_column_wherever_the_token_stands() {
    let at = |text: &str| {
        let e = strict(text).unwrap_err();
        (e.kind(), e.line(), e.column())
    };
    use DecodeErrorKind::*;
    // `"b\q"` is the third cell; its bad escape is 2 bytes in.
    assert_eq!(at("t[1]{a,b,c}:\n  1,x,\"b\\q\""), (InvalidEscape, 2, 9));
    // The second inline value, an unterminated string.
    assert_eq!(at("tags[2]: a,\"b"), (UnterminatedString, 1, 12));
    // A value after a key in a list item's first field.
    assert_eq!(at("xs[1]:\n  - k: \"open"), (UnterminatedString, 2, 8));
    // A quoted key with a bad escape, in a list item.
    assert_eq!(at("xs[1]:\n  - \"k\\q\": 1"), (InvalidEscape, 2, 7));
    // Text after a table header's colon.
    assert_eq!(at("t[1]{a}: 5\n  1"), (InvalidHeader, 1, 10));
    // A row wider than its header: the row, from its start.
    assert_eq!(at("t[1]{a}:\n  1,2"), (WidthMismatch, 2, 3));
}

#[test]
fn errors_name_the_line_column_and_text() {
    let err = strict("user:\n  name: Ada\n  tags[3]: a,b").unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::LengthMismatch);
    assert_eq!((err.line(), err.column()), (3, 8));
    assert_eq!(
        err.to_string(),
        "line 3, column 8: header declares 3 values but has 2; make `[3]` match what follows\n  3 | tags[3]: a,b"
    );

    let err = strict("a: 1\nb: \"unterminated").unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::UnterminatedString);
    assert_eq!((err.line(), err.column()), (2, 4));

    let err = strict("rows[2]{a,b}:\n  1,2\n  3,4,5").unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::WidthMismatch);
    assert_eq!(err.line(), 3);
    assert!(err
        .message()
        .contains("3 cells but the header names 2 fields"));

    let err = strict("a:\n  b: 1\n   c: 2").unwrap_err();
    assert_eq!((err.kind(), err.line()), (DecodeErrorKind::Indentation, 3));
}

#[test]
fn a_huge_declared_length_is_a_count_error_not_an_allocation() {
    let doc = "items[4000000000]:\n  - a\n  - b";
    let err = timed(Duration::from_secs(1), || strict(doc)).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::LengthMismatch);
    assert!(err
        .message()
        .contains("declares 4000000000 items but has 2"));
    // Past `usize` too: a header (§6 sets no bound) whose count cannot match.
    let err = strict("t[99999999999999999999999999]: a").unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::LengthMismatch);
    assert!(err
        .message()
        .contains("declares 99999999999999999999999999 values but has 1"));
}

#[test]
fn a_ten_megabyte_line_decodes_in_linear_time() {
    let text = "x".repeat(10 << 20);
    let doc = format!("a: {text}");
    let value = timed(Duration::from_secs(5), || strict(&doc)).unwrap();
    assert_eq!(value["a"].as_str().map(str::len), Some(10 << 20));

    // A 10 MB line that never closes its quote: an error whose message stays short.
    let doc = format!("a: \"{text}");
    let err = timed(Duration::from_secs(5), || strict(&doc)).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::UnterminatedString);
    assert!(
        err.to_string().len() < 400,
        "message is {} bytes",
        err.to_string().len()
    );

    // A 10 MB inline array.
    let cells = vec!["1"; 2 << 20].join(",");
    let doc = format!("n[{}]: {cells}", 2 << 20);
    let value = timed(Duration::from_secs(5), || strict(&doc)).unwrap();
    assert_eq!(value["n"].as_array().map(Vec::len), Some(2 << 20));
}

#[test]
fn nesting_past_the_depth_limit_is_refused() {
    // One line 100,000 levels deep.
    let doc = format!("a:\n{}b: 1", "  ".repeat(100_000));
    let err = timed(Duration::from_secs(1), || strict(&doc)).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::DepthLimit);
    assert!(err
        .message()
        .contains("100000 levels deep, past the limit of 128"));

    // A real chain of 2,000 nested objects.
    let doc: String = (0..2_000)
        .map(|d| format!("{}k:\n", "  ".repeat(d)))
        .collect();
    let err = timed(Duration::from_secs(2), || strict(&doc)).unwrap_err();
    assert_eq!((err.kind(), err.line()), (DecodeErrorKind::DepthLimit, 130));

    // Nesting of 100,000 field groups inside one header.
    let doc = format!("t[1]{}{}:\n  1", "{x".repeat(100_000), "}".repeat(100_000));
    assert_eq!(
        timed(Duration::from_secs(1), || kind(&doc)),
        DecodeErrorKind::DepthLimit
    );
}

#[test]
fn nesting_within_the_limit_decodes_on_a_small_stack() {
    // 125 levels of objects and 120 of lists inside list items, on a 1 MiB thread stack (half the default for spawned threads), in a debug build.
    let objects: String = (0..125)
        .map(|d| format!("{}k:\n", "  ".repeat(d)))
        .collect::<String>()
        + &format!("{}leaf: 1", "  ".repeat(125));
    let lists: String = (0..120)
        .map(|d| format!("{}- [1]:\n", "  ".repeat(d + 1)))
        .collect::<String>();
    let lists = format!("l[1]:\n{lists}{}- x", "  ".repeat(121));
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            (
                strict(&objects).map(|v| encode(&v, &Default::default())),
                strict(&lists),
            )
        })
        .unwrap();
    let (objects, lists) = handle.join().expect("no stack overflow");
    assert!(objects.unwrap().ends_with("leaf: 1"));
    let mut v = &lists.unwrap()["l"];
    for _ in 0..=120 {
        v = &v[0];
    }
    assert_eq!(v, &json!("x"));
}

#[test]
fn bad_escapes_are_refused_with_a_reason() {
    let err = strict(r#"a: "\uD800""#).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::InvalidEscape);
    assert!(err.message().contains("lone surrogate"), "{err}");
    assert_eq!(kind(r#"a: "\uDFFF\uD800""#), DecodeErrorKind::InvalidEscape);
    assert_eq!(kind(r#"a: "\q""#), DecodeErrorKind::InvalidEscape);
    assert_eq!(kind(r#"a: "\u12G4""#), DecodeErrorKind::InvalidEscape);
    assert_eq!(
        kind(r#"a: "ends with backslash\"#),
        DecodeErrorKind::UnterminatedString
    );
    assert_eq!(strict(r#"a: "\u00E9\u00e9""#).unwrap(), json!({"a": "éé"}));
}

#[test]
fn unterminated_quotes_anywhere() {
    for doc in [
        "\"abc",
        "a: \"abc",
        "\"k: 1",
        "t[2]: \"a,b",
        "r[1]{a}:\n  \"x",
        "l[1]:\n  - \"x",
    ] {
        assert_eq!(kind(doc), DecodeErrorKind::UnterminatedString, "{doc:?}");
    }
}

#[test]
fn zero_indent_size_is_an_error_not_a_division_by_zero() {
    let opts = DecodeOptions {
        indent_size: 0,
        ..Default::default()
    };
    assert_eq!(
        decode("a: 1", &opts).unwrap_err().kind(),
        DecodeErrorKind::Indentation
    );
}

#[test]
fn non_strict_mode_forgives_counts_and_indentation() {
    let lax = DecodeOptions {
        strict: false,
        ..Default::default()
    };
    assert_eq!(decode("t[5]: a,b", &lax).unwrap(), json!({"t": ["a", "b"]}));
    assert_eq!(decode("a:\n   b: 1", &lax).unwrap(), json!({"a": {"b": 1}}));
    // A leading tab is one level, as `DecodeOptions::strict` says.
    assert_eq!(decode("a:\n\tb: 1", &lax).unwrap(), json!({"a": {"b": 1}}));
    // §6 sets no bound on a length: one past `usize` is a header all the same.
    let huge = "99999999999999999999";
    assert_eq!(
        decode(&format!("a[{huge}]: x"), &lax).unwrap(),
        json!({"a": ["x"]})
    );
    assert_eq!(
        decode(&format!("[{huge}]: a,b"), &lax).unwrap(),
        json!(["a", "b"])
    );
    assert_eq!(decode("a: 1\na: 2", &lax).unwrap(), json!({"a": 2}));
}

/// A keyed row with nothing after its colon has no cells (§9.5): a width error
/// in strict mode, an entry without fields otherwise.
#[test]
fn an_empty_keyed_row_has_no_cells() {
    let doc = "m[1:]{x,y}:\n  a:";
    let err = strict(doc).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::WidthMismatch);
    assert_eq!(
        err.message(),
        "row has 0 cells but the header names 2 fields; quote any cell that contains the delimiter"
    );
    let lenient = toon_core::spec::DecodeOptions {
        strict: false,
        ..Default::default()
    };
    assert_eq!(
        toon_core::decode(doc, &lenient).unwrap(),
        serde_json::json!({"m": {"a": {}}})
    );
}

/// SPEC 4.1 §5.2: a bare line among a list's items is an error in non-strict
/// mode too (the newer suite bundled with serde_toon 0.3 has the case).
#[test]
fn a_bare_line_among_list_items_is_an_error_in_both_modes() {
    let lax = DecodeOptions {
        strict: false,
        ..Default::default()
    };
    for text in ["k[1]:\n  - x: 1\n  bare", "k[2]:\n  - a\n  stray\n  - b"] {
        for options in [DecodeOptions::default(), lax.clone()] {
            let e = decode(text, &options).unwrap_err();
            assert_eq!(
                (e.kind(), e.line()),
                (DecodeErrorKind::UnexpectedLine, 3),
                "{text}"
            );
        }
    }
    // An item's own fields stand one level deeper, and stay its own.
    assert_eq!(
        decode("k[1]:\n  - x: 1\n    y: 2", &lax).unwrap(),
        serde_json::json!({"k": [{"x": 1, "y": 2}]})
    );
}
