//! The exchange against a real model behind a real server, through each
//! mechanism, driven by the `triage` example's own loop (ureq): every body it
//! builds is one the server takes, every response is read, and a refusal is
//! asked again. With a grammar, the first reply reads with no repair: the
//! grammar holds everything the type asks (its range, its lengths, the
//! quotes of a version number), and the token limit is the longest reply it
//! admits. Each attempt's reply is kept under
//! `tests/replies/real/<server>/exchange/` with `TOON_E2E_CAPTURE=1`, and
//! `tests/real_replies.rs` pins what the decoder makes of each.
//!
//! `scripts/model-server.sh run-each cargo test --test e2e_exchange -- --ignored`

mod common;

#[allow(dead_code)] // `main` is the example's own entry point
#[path = "../examples/triage.rs"]
mod triage;

use common::server::{server, Kind};
use toon_core::exchange::{Mechanism, Server};
use toon_core::retry::{Attempt, RetryError};
use toon_core::ParseErrorKind;

const REPORTS: [&str; 2] = [
    "Report: Since 3.20 the brush tool draws a line one pixel off from the cursor. Annoying but I can live with it.",
    "Report: Saving a project over 2 GB on version 4.0.1 corrupts the file and all the work is gone.",
];

/// The token limit of the mechanisms that have no grammar to set one.
const MAX_TOKENS: u64 = 160;

const MECHANISMS: [(Mechanism, &str); 4] = [
    (Mechanism::Grammar, "grammar"),
    (Mechanism::JsonSchema, "json-schema"),
    (Mechanism::Tool, "tool"),
    (Mechanism::Prompted, "prompted"),
];

fn kind() -> Server {
    match Kind::current() {
        Kind::LlamaServer => Server::LlamaServer,
        Kind::LlamaCppPython => Server::LlamaCppPython,
    }
}

/// Keeps each attempt's reply, named by mechanism, report and attempt.
fn capture(mechanism: &str, report: usize, attempts: &[Attempt]) {
    if std::env::var_os("TOON_E2E_CAPTURE").is_none() {
        return;
    }
    let dir = Kind::current().replies("exchange");
    std::fs::create_dir_all(&dir).unwrap();
    for (i, a) in attempts.iter().enumerate() {
        let finish = match a.finish_reason {
            toon_core::FinishReason::Length => "length",
            toon_core::FinishReason::Stop => "stop",
            _ => "unknown",
        };
        // A response with no call of the tool keeps its text, marked so: it
        // is no tool call's arguments to read again.
        let no_call = a.outcome.as_ref().is_err_and(|e| {
            e.kind() == ParseErrorKind::EmptyCompletion && e.message().contains("no call")
        });
        let mark = if no_call { ".no-call" } else { "" };
        let file = format!("{dir}/{mechanism}-{report}-{}.{finish}{mark}.txt", i + 1);
        std::fs::write(file, &a.reply).unwrap();
    }
}

#[test]
#[ignore = "needs a model server: scripts/model-server.sh run cargo test --test e2e_exchange -- --ignored"]
fn the_exchange_against_a_real_model_through_each_mechanism() {
    let url = format!("{}/v1/chat/completions", server());
    let mut lines = Vec::new();
    for (m, name) in MECHANISMS {
        // Without a grammar, a short limit: this model may run on in prose.
        let exchange = match m {
            Mechanism::Grammar => triage::exchange(m, kind()),
            _ => triage::exchange(m, kind()).field("max_tokens", serde_json::json!(MAX_TOKENS)),
        };
        for (i, report) in REPORTS.iter().enumerate() {
            let attempts = match triage::ask_server(&url, &exchange, report) {
                Ok(done) => {
                    lines.push(format!(
                        "{name} {i}: read after {} attempt(s): {:?}",
                        done.attempts.len(),
                        done.value
                    ));
                    if m == Mechanism::Grammar {
                        assert_eq!(done.attempts.len(), 1, "{name}: {:?}", done.attempts);
                        assert!(done.repairs.is_empty(), "{name}: {:?}", done.repairs);
                    }
                    done.attempts
                }
                Err(e) => match e.downcast::<RetryError<toon_core::exchange::ServerError>>() {
                    // Every attempt refused: the model's replies, not the exchange.
                    Ok(refused) => match *refused {
                        RetryError::Refused { attempts } => {
                            assert_ne!(m, Mechanism::Grammar, "{name}: {attempts:?}");
                            let last = attempts.last().unwrap().outcome.as_ref().unwrap_err();
                            lines.push(format!(
                                "{name} {i}: refused {} times, last {:?}",
                                attempts.len(),
                                last.kind()
                            ));
                            attempts
                        }
                        other => panic!("{name}: the server refused a request: {other}"),
                    },
                    Err(other) => panic!("{name}: the request failed: {other}"),
                },
            };
            // Every attempt has the server's token count.
            assert!(
                attempts.iter().all(|a| a.completion_tokens.is_some()),
                "{name}: {attempts:?}"
            );
            capture(name, i, &attempts);
        }
    }
    eprintln!("{}", lines.join("\n"));
}
