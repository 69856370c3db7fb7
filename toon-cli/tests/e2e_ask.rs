//! `toon ask` against a real model behind a real server, through the grammar
//! and the JSON Schema: the type comes from the triage example's source file,
//! read as it is, and the value is the JSON on standard output. Through the
//! grammar the first reply reads with no repair; through the schema, which
//! bounds no text, this model may write a text until the token limit on
//! every attempt (a CI run on llama-server did), and the command then exits
//! with status 2 and the refusal: either way the server took each request.
//!
//! `scripts/model-server.sh run-each cargo test -p toon-cli --test e2e_ask -- --ignored`

mod support;

use serde_json::Value;
use support::{ask, toon};

const REPORT: &str = "Report: Saving a project over 2 GB on version 4.0.1 corrupts the file and all the work is gone.";

#[test]
#[ignore = "needs a model server: scripts/model-server.sh run cargo test -p toon-cli --test e2e_ask -- --ignored"]
fn toon_ask_reads_a_real_reply_through_the_grammar_and_the_schema() {
    let server = std::env::var("TOON_MODEL_SERVER")
        .expect("TOON_MODEL_SERVER (scripts/model-server.sh sets it)");
    let kind = std::env::var("TOON_MODEL_SERVER_KIND").expect("TOON_MODEL_SERVER_KIND");
    for mechanism in ["grammar", "schema"] {
        let mut rest = vec![
            "--server-kind",
            &kind,
            "--mechanism",
            mechanism,
            "--instructions",
            "You triage bug reports for a photo editor.",
            "--field",
            "temperature=0",
            "--field",
            "seed=7",
        ];
        // Without a grammar, a short limit: a runaway text is cut soon.
        if mechanism == "schema" {
            rest.extend(["--field", "max_tokens=200"]);
        }
        rest.push(REPORT);
        let out = toon(&ask(&server, &rest), "");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        eprintln!(
            "{kind} {mechanism}: {:?} {stdout} {stderr}",
            out.status.code()
        );
        if mechanism == "schema" && out.status.code() == Some(2) {
            assert!(stdout.is_empty(), "{stdout}");
            assert!(stderr.contains("attempts was refused"), "{stderr}");
            continue;
        }
        assert_eq!(out.status.code(), Some(0), "{kind} {mechanism}: {stderr}");
        // One JSON value, and nothing else, with every field of the type.
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
        let value: Value = serde_json::from_str(&stdout).unwrap();
        let severity = value["severity"].as_str().unwrap();
        assert!(
            ["MINOR", "MAJOR", "CRITICAL"].contains(&severity),
            "{value}"
        );
        let priority = value["priority"].as_u64().unwrap();
        assert!((1..=5).contains(&priority), "{value}");
        for key in ["title", "component", "reported_version"] {
            assert!(value[key].is_string(), "{key}: {value}");
        }
        if mechanism == "grammar" {
            // The grammar holds everything the type asks: nothing to repair.
            assert!(stderr.is_empty(), "{stderr}");
        }
    }
}
