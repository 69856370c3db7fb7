//! A constrained reply is never cut, and a model may think before the grammar
//! holds it, on the real servers
//! (`scripts/model-server.sh run-each cargo test --test e2e_never_cut -- --ignored`).
//!
//! The compliance type with the grammar's default bounds (every text at most
//! 200 characters, every list at most 10 items), sent through
//! `constrain_request` with no token limit of the caller's: the limit is the
//! longest reply the grammar admits, so no reply can stop at it. `.ci/run` asks
//! two questions at each temperature; with `TOON_E2E_CAPTURE=1` ten, and the
//! replies are kept under `tests/replies/real/<server>/never-cut/` and the
//! table written into BENCHMARKS.md.

mod common;

use common::server::{ask, median, request, write_table, Kind, DOCUMENTS, RULES};
use common::types::{Capital, PlainCompliance, PlainViolation, Severity, Status};
use serde_json::json;
use toon_core::{
    constrain_request, grammar::GrammarOptions, FinishReason, GrammarServer, GrammarSyntax,
    RepairKind, ReplyOptions, Toon,
};

fn capture() -> bool {
    std::env::var_os("TOON_E2E_CAPTURE").is_some()
}

fn keep(dir: &str, name: &str, reply: &str) {
    if capture() {
        let dir = Kind::current().replies(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(format!("{dir}/{name}"), reply).unwrap();
    }
}

fn example() -> PlainCompliance {
    PlainCompliance {
        compliance_status: Status::NonCompliant,
        violations: vec![PlainViolation {
            category: "privacy".into(),
            severity: Severity::High,
            description: "Health records are stored unencrypted".into(),
        }],
        summary: "One problem: health records are not encrypted.".into(),
    }
}

fn system() -> String {
    format!(
        "You check documents against rules and answer in TOON.\n{RULES}\n\n{}",
        PlainCompliance::toon_prompt()
    )
}

const EXAMPLE_QUESTION: &str =
    "Document: We keep health records in a shared folder without encryption.";

#[test]
#[ignore = "needs a model server: scripts/model-server.sh run-each cargo test --test e2e_never_cut -- --ignored"]
fn a_constrained_reply_is_never_cut() {
    let asked = if capture() { 10 } else { 2 };
    let (system, answer) = (system(), example().to_toon());
    let worst = GrammarOptions::new(GrammarSyntax::Gbnf).max_reply_bytes::<PlainCompliance>();
    let mut rows = String::new();
    for temperature in [0.2, 0.7, 1.0] {
        let (mut tokens, mut seconds, mut per_token, mut longest) = (vec![], vec![], vec![], 0);
        for (i, d) in DOCUMENTS.iter().take(asked).enumerate() {
            let mut body = request(
                &system,
                Some((EXAMPLE_QUESTION, &answer)),
                &format!("Document: {d}"),
                json!({"temperature": temperature}),
            );
            constrain_request::<PlainCompliance>(&mut body, GrammarServer::LlamaCpp).unwrap();
            assert_eq!(body["max_tokens"], worst);
            let reply = ask(&body);
            keep(
                "never-cut",
                &format!(
                    "t{}-{i:02}.{}.txt",
                    (temperature * 10.0) as u32,
                    reply.finish
                ),
                &reply.text,
            );
            assert_ne!(reply.finish, "length", "cut at the limit:\n{}", reply.text);
            let options = ReplyOptions {
                finish_reason: FinishReason::from_openai(&reply.finish),
                ..Default::default()
            };
            let read = toon_core::ToonOutputParser::<PlainCompliance>::new()
                .options(options)
                .parse_with_report(&reply.text)
                .unwrap_or_else(|e| panic!("{e}\n--- reply:\n{}", reply.text));
            assert!(
                read.repairs.is_empty(),
                "{:?}\n{}",
                read.repairs,
                reply.text
            );
            tokens.push(reply.tokens as f64);
            seconds.push(reply.seconds);
            per_token.push(reply.ms_per_token);
            longest = longest.max(reply.tokens);
        }
        rows.push_str(&format!(
            "| {} | {temperature} | {asked} | 0 | {asked} | {:.0} | {longest} | {worst} | {:.1} | {:.1} |\n",
            Kind::current().name(),
            tokens.iter().sum::<f64>() / tokens.len() as f64,
            median(&seconds),
            median(&per_token),
        ));
    }

    // A limit of the caller's below the worst case is refused, with both figures.
    let mut body = request(
        &system,
        Some((EXAMPLE_QUESTION, &answer)),
        "Document: Backups are kept for ten years.",
        json!({"temperature": 0.7, "max_tokens": 400}),
    );
    let err = constrain_request::<PlainCompliance>(&mut body, GrammarServer::LlamaCpp)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`max_tokens` is 400") && err.contains(&format!("takes {worst} bytes")),
        "{err}"
    );
    assert!(
        body.get("grammar").is_none(),
        "nothing is sent half-constrained"
    );

    write_table(
        "e2e-never-cut",
        "### Never cut at the token limit\n\nThe compliance type with the grammar's default bounds (every text at most 200 \
         characters, at most 10 violations; `PlainCompliance` in `tests/common/types.rs`), its prompt and one example exchange, \
         sent through `constrain_request` with no `max_tokens` of the caller's: the limit it sets is the longest reply the \
         grammar admits (`max_tokens` below), so a reply can end only where the grammar ends. Each server runs with a context \
         of 32,768 tokens, which holds the prompt and that limit (llama-server stops a reply at a full context as at the \
         limit). The same request with `max_tokens` 400 is refused by `constrain_request` before it is sent, naming 400 and the \
         worst case and the fields that take the most. Reproduce with \
         `TOON_E2E_CAPTURE=1 scripts/model-server.sh run-each cargo test --test e2e_never_cut -- --ignored`.",
        "| server | temperature | replies | cut at the limit | decoded strictly | completion tokens a reply | longest reply (tokens) | `max_tokens` set | seconds a reply (median) | ms a token (median) |",
        &rows,
        "",
    );
}

#[test]
#[ignore = "needs a model server: scripts/model-server.sh run-each cargo test --test e2e_never_cut -- --ignored"]
fn a_model_may_think_before_the_grammar_holds_it() {
    let asked = if capture() { 10 } else { 3 };
    let options = GrammarOptions::new(GrammarServer::LlamaCpp.syntax()).reasoning(300);
    let system = format!(
        "You answer questions about capitals in TOON. Think briefly between <think> and </think> first.\n\n{}",
        Capital::toon_prompt()
    );
    let example = format!(
        "<think>\nGermany's seat of government is Berlin.\n</think>\n{}",
        Capital {
            country: "Germany".into(),
            capital: "Berlin".into()
        }
        .to_toon()
    );
    let (mut thought, mut tokens) = (0, vec![]);
    let countries = [
        "France", "Japan", "Brazil", "Kenya", "Canada", "Italy", "Egypt", "India", "Mexico",
        "Norway",
    ];
    for (i, country) in countries.iter().take(asked).enumerate() {
        let mut body = request(
            &system,
            Some(("What is the capital of Germany?", &example)),
            &format!("What is the capital of {country}?"),
            json!({"temperature": 0}),
        );
        options
            .constrain_request::<Capital>(&mut body, GrammarServer::LlamaCpp)
            .unwrap();
        assert_eq!(body["max_tokens"], options.max_reply_bytes::<Capital>());
        let reply = ask(&body);
        keep(
            "reasoning",
            &format!("t0-{i:02}.{}.txt", reply.finish),
            &reply.text,
        );
        assert_ne!(reply.finish, "length", "{}", reply.text);
        let read = toon_core::ToonOutputParser::<Capital>::new()
            .parse_with_report(&reply.text)
            .unwrap_or_else(|e| panic!("{e}\n--- reply:\n{}", reply.text));
        let kinds: Vec<RepairKind> = read.repairs.iter().map(|r| r.kind).collect();
        if reply.text.starts_with("<think>") {
            // The block is stripped and reported, and nothing else was needed.
            assert_eq!(kinds, [RepairKind::StrippedReasoning], "{}", reply.text);
            thought += 1;
        } else {
            assert!(kinds.is_empty(), "{kinds:?}\n{}", reply.text);
        }
        tokens.push(reply.tokens as f64);
    }
    let row = format!(
        "| {} | {asked} | {asked} | {thought} | {:.0} | {} |\n",
        Kind::current().name(),
        tokens.iter().sum::<f64>() / tokens.len() as f64,
        options.max_reply_bytes::<Capital>(),
    );
    write_table(
        "e2e-reasoning",
        "### Thinking before the grammar holds the answer\n\nThe capitals type's grammar with a reasoning block \
         (`GrammarOptions::reasoning(300)`: one optional `<think>` block of at most 300 characters, then the document), sent \
         with `GrammarOptions::constrain_request`, an example exchange whose answer thinks first, temperature 0. Every reply decodes; a \
         block is stripped and reported as `stripped_reasoning`, and nothing else is repaired. The replies are kept under \
         `tests/replies/real/<server>/reasoning/`.",
        "| server | replies | decoded | with a reasoning block, reported | completion tokens a reply | `max_tokens` set |",
        &row,
        "",
    );
}
