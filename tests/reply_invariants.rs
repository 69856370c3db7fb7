//! Invariants of the reply decoder: valid documents are never touched, and no
//! input takes more than linear time.

mod common;

use std::time::{Duration, Instant};

use toon_core::{decode, spec::DecodeOptions, ParseErrorKind};

#[test]
fn valid_conformance_documents_decode_exactly_as_the_spec_decoder_does() {
    let docs = common::valid_default_documents();
    assert!(docs.len() > 200, "only {} documents", docs.len());
    let mut failures = Vec::new();
    for (name, doc) in &docs {
        let spec = decode(doc, &DecodeOptions::default()).expect(name);
        match toon_core::reply::read(doc, &toon_core::ReplyOptions::default()) {
            // Exact equality, not JSON-model equality: nothing may change at all.
            Ok(reply) if reply.value == spec && reply.repairs.is_empty() => {}
            Ok(reply) => failures.push(format!(
                "{name}: {} with repairs {:?}",
                reply.value, reply.repairs
            )),
            // The one deliberate difference: a document with no content lines is `{}`
            // to the spec decoder but an empty completion to the reply decoder.
            Err(e) if e.kind() == ParseErrorKind::EmptyCompletion && no_content(doc) => {}
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn comment_only_document_is_an_empty_completion_for_a_reply() {
    // The spec decodes a document of only comments to `{}`; a reply of only
    // comments carries no answer, and must not read as "found nothing".
    let err = toon_core::decode_reply("# I could not find anything\n").unwrap_err();
    assert_eq!(err.kind(), ParseErrorKind::EmptyCompletion);
}

fn no_content(doc: &str) -> bool {
    doc.lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
}

fn linear(make: impl Fn(usize) -> String) {
    let time = |n: usize| {
        let text = make(n);
        let start = Instant::now();
        let _ = toon_core::reply::read(&text, &toon_core::ReplyOptions::default());
        start.elapsed()
    };
    let small = time(2_000).max(Duration::from_micros(200));
    let large = time(20_000);
    // Ten times the input may take at most ~30 times as long (linear, with slack for noise).
    assert!(
        large < small * 30,
        "2,000 lines: {small:?}; 20,000 lines: {large:?}"
    );
}

#[test]
fn stray_indentation_takes_linear_time() {
    // 10,000-line documents of stray, varying indentation.
    linear(|n| {
        (0..n)
            .map(|i| format!("{}k{i}: v\n", " ".repeat(i % 7)))
            .collect()
    });
    linear(|n| {
        format!("rows[{n}]{{a,b}}:\n")
            + &(0..n)
                .map(|i| format!("{}{i},x\n", " ".repeat(2 + i % 5)))
                .collect::<String>()
    });
    linear(|n| {
        (0..n)
            .map(|i| format!("{}- item {i}\n", " ".repeat(i % 40)))
            .collect()
    });
}

#[test]
fn blank_and_prose_heavy_replies_take_linear_time() {
    linear(|n| "Here is my answer\n".repeat(n) + "a: 1");
    linear(|n| format!("t[{n}]{{a}}:\n") + &"  x\n\n".repeat(n));
    linear(|n| "<think>\n".to_owned() + &"hmm\n".repeat(n) + "</think>\na: 1");
}
