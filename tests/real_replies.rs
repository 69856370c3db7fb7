//! Replies captured from a real model (SmolLM2-135M-Instruct behind each
//! server, llama.cpp's `llama-server` and llama-cpp-python; see tests/e2e.rs),
//! kept apart by server under `tests/replies/real/<server>/`, each with the
//! outcome it gives, pinned by one snapshot a server: a decoder change that
//! alters what happens to a real reply shows up in review.

mod common;

#[allow(dead_code)] // the example's own entry point and helpers
#[path = "../examples/triage.rs"]
mod triage;

use std::fmt::Write as _;

use common::types::{
    Capital, ComplianceAnalysis, Detections, PlainCompliance, Sourced, SourcedProse,
};
use toon_core::{FinishReason, ReplyOptions, Toon};

fn outcome<T: Toon + std::fmt::Debug>(reply: &str) -> String {
    outcome_with::<T>(reply, &ReplyOptions::default())
}

fn outcome_with<T: Toon + std::fmt::Debug>(reply: &str, options: &ReplyOptions) -> String {
    said(
        toon_core::ToonOutputParser::<T>::new()
            .options(*options)
            .parse_with_report(reply),
    )
}

/// What a reading gave: the value, with its repairs, or the refusal.
fn said<T: std::fmt::Debug>(read: Result<toon_core::Reply<T>, toon_core::ParseError>) -> String {
    match read {
        Ok(r) if r.repairs.is_empty() => format!("ok {:?}", r.value),
        Ok(r) => {
            let kinds: Vec<String> = r
                .repairs
                .iter()
                .map(|r| format!("{}@{}", r.kind, r.line))
                .collect();
            format!("repaired [{}] {:?}", kinds.join(" "), r.value)
        }
        Err(e) => format!(
            "refused {:?} line {:?}: {}",
            e.kind(),
            e.line(),
            e.message()
        ),
    }
}

/// The files of a folder of replies, in name order.
fn sorted_files(dir: &str) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// The folder of one server's replies.
fn root(server: &str) -> String {
    format!("{}/tests/replies/real/{server}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn real_replies_give_the_outcomes_reviewed() {
    for server in ["llama-server", "llama-cpp-python"] {
        let summary = prompted_outcomes(&root(server));
        insta::assert_snapshot!(format!("real_replies_{server}"), summary);
    }
}

/// The TOON path's replies of one server, each with its outcome.
fn prompted_outcomes(root: &str) -> String {
    let mut summary = String::new();
    let mut count = 0;
    for ty in ["capitals", "compliance", "detections"] {
        for path in sorted_files(&format!("{root}/{ty}")) {
            let reply = std::fs::read_to_string(&path).unwrap();
            let result = match ty {
                "capitals" => outcome::<Capital>(&reply),
                "compliance" => outcome::<ComplianceAnalysis>(&reply),
                _ => outcome::<Detections>(&reply),
            };
            let _ = writeln!(
                summary,
                "{ty}/{}: {result}",
                path.file_name().unwrap().to_string_lossy()
            );
            count += 1;
        }
    }
    assert_eq!(count, 120, "3 types x 20 prompts x 2 temperatures");
    summary
}

/// The replies of every mechanism (tests/e2e_mechanisms.rs), each read as that
/// run read it: the text of the reply, or of the tool call's arguments, with
/// the finish reason the server gave (in the file name).
#[test]
fn mechanism_replies_give_the_outcomes_reviewed() {
    for server in ["llama-server", "llama-cpp-python"] {
        let summary = mechanism_outcomes(&format!("{}/mechanisms", root(server)));
        insta::assert_snapshot!(format!("mechanism_replies_{server}"), summary);
    }
}

/// A captured reply: its file name, its text, and the options that read it
/// with the finish reason the server gave (in the file name, `name.stop.txt`).
fn captured(path: &std::path::Path) -> (String, String, ReplyOptions) {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let finish = name.split('.').nth(1).unwrap_or_default();
    let options = ReplyOptions {
        finish_reason: FinishReason::from_openai(finish),
        ..Default::default()
    };
    (
        name.clone(),
        std::fs::read_to_string(path).unwrap(),
        options,
    )
}

/// Every mechanism's replies of one server, each with its outcome.
fn mechanism_outcomes(root: &str) -> String {
    let mut summary = String::new();
    let mut count = 0;
    for ty in ["compliance", "sourced"] {
        for path in sorted_files(&format!("{root}/{ty}")) {
            let (name, reply, options) = captured(&path);
            let result = match ty {
                "compliance" => outcome_with::<ComplianceAnalysis>(&reply, &options),
                _ if name.starts_with("toon-delimited") => {
                    outcome_with::<SourcedProse>(&reply, &options)
                }
                _ => outcome_with::<Sourced>(&reply, &options),
            };
            let _ = writeln!(summary, "{ty}/{name}: {result}");
            count += 1;
        }
    }
    assert_eq!(
        count, 130,
        "10 questions x (7 mechanisms + 6 for compliance)"
    );
    summary
}

/// The never-cut runs (tests/e2e_never_cut.rs): the compliance type with the
/// grammar's default bounds at three temperatures, and the capitals type
/// thinking first; each read with the finish reason in its file name.
#[test]
fn never_cut_replies_give_the_outcomes_reviewed() {
    for server in ["llama-server", "llama-cpp-python"] {
        let mut summary = String::new();
        for (dir, expected) in [("never-cut", 30), ("reasoning", 10)] {
            let files = sorted_files(&format!("{}/{dir}", root(server)));
            assert_eq!(files.len(), expected, "{server}/{dir}");
            for path in files {
                let (name, reply, options) = captured(&path);
                let result = match dir {
                    "never-cut" => outcome_with::<PlainCompliance>(&reply, &options),
                    _ => outcome_with::<Capital>(&reply, &options),
                };
                let _ = writeln!(summary, "{dir}/{name}: {result}");
            }
        }
        insta::assert_snapshot!(format!("never_cut_replies_{server}"), summary);
    }
}

/// The exchange's replies (tests/e2e_exchange.rs), every attempt, each read
/// as the exchange read it: TOON for the grammar and the prompt alone, JSON
/// for the schema and the tool call's arguments, with the finish reason in
/// the file name.
#[test]
fn exchange_replies_give_the_outcomes_reviewed() {
    for server in ["llama-server", "llama-cpp-python"] {
        let mut summary = String::new();
        for path in sorted_files(&format!("{}/exchange", root(server))) {
            let (name, reply, options) = captured(&path);
            let result = if name.contains(".no-call.") {
                // The server answered in text, with no call of the tool.
                "no call of the tool".to_owned()
            } else if name.starts_with("grammar") || name.starts_with("prompted") {
                outcome_with::<triage::Triage>(&reply, &options)
            } else {
                let parser = toon_core::ToonOutputParser::<triage::Triage>::new()
                    .json()
                    .options(options);
                said(parser.parse_with_report(&reply))
            };
            let _ = writeln!(summary, "exchange/{name}: {result}");
        }
        assert!(!summary.is_empty(), "{server}: no exchange replies");
        insta::assert_snapshot!(format!("exchange_replies_{server}"), summary);
    }
}
