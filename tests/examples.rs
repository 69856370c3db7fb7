//! The examples' logic on their recorded replies: the typed result and the exit status.

// Each example is a standalone program that includes the shared chat helper
// itself, so including two of them here includes the helper twice.
#![allow(clippy::duplicate_mod)]

#[allow(dead_code)] // `main` is the example's own entry point
#[path = "../examples/compliance.rs"]
mod compliance;

#[allow(dead_code)]
#[path = "../examples/capitals.rs"]
mod capitals;

#[allow(dead_code)]
#[path = "../examples/answer.rs"]
mod answer;

#[allow(dead_code)]
#[path = "../examples/detect.rs"]
mod detect;

#[allow(dead_code)]
#[path = "../examples/triage.rs"]
mod triage;

use toon_core::FinishReason;

fn reply(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/examples/replies/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn text(buf: Vec<u8>) -> String {
    String::from_utf8(buf).unwrap()
}

#[test]
fn compliance_reads_the_recorded_reply_into_the_application_type() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let response = compliance::run(
        &reply("compliance.txt"),
        FinishReason::Unknown,
        &mut out,
        &mut err,
    )
    .expect("usable");
    assert!(!response.compliant);
    assert_eq!(response.findings.len(), 2);
    assert_eq!(
        response.findings[0],
        compliance::Finding {
            rule: "R-12".into(),
            severity: "high",
            summary: "privacy: Customer emails are written to application logs, unmasked".into(),
            fix: "Mask emails before logging".into(),
        }
    );
    assert_eq!(response.findings[1].severity, "medium");
    let out = text(out);
    assert!(
        out.contains("line 4: corrected_length (declared [3], found 2)"),
        "{out}"
    );
    assert!(
        out.contains("line 5: enum_case (violations[0].severity: `high` read as `HIGH`)"),
        "{out}"
    );
    assert!(text(err).is_empty());
}

#[test]
fn compliance_refuses_a_truncated_reply_and_reports_nothing() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        compliance::run(
            &reply("compliance-truncated.txt"),
            FinishReason::Unknown,
            &mut out,
            &mut err
        ),
        None
    );
    assert!(
        text(out).is_empty(),
        "nothing is reported for an unusable reply"
    );
    let err = text(err);
    assert!(
        err.starts_with("TOON_PARSE_FAILURE: line 7: the reply stops mid-document"),
        "{err}"
    );
    assert!(err.contains("repeat one another"));
}

#[test]
fn capitals_writes_only_the_json_on_stdout_and_an_exit_status() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        capitals::run(
            &reply("capitals.json"),
            FinishReason::Unknown,
            &mut out,
            &mut err
        ),
        0
    );
    assert_eq!(
        text(out),
        "{\"country\":\"France\",\"capital\":\"Paris\"}\n"
    );
    assert!(text(err).is_empty());

    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        capitals::run(
            &reply("capitals-truncated.json"),
            FinishReason::Unknown,
            &mut out,
            &mut err
        ),
        2
    );
    assert!(text(out).is_empty());
    assert!(text(err).starts_with("JSON_PARSE_FAILURE: line 1: the reply stops mid-document"));
}

#[test]
fn capitals_request_carries_the_schema_and_the_declarations() {
    let body = capitals::request_body("Japan", toon_core::schema::SchemaDialect::LlamaCppPython);
    assert_eq!(body["response_format"]["type"], "json_object");
    assert_eq!(
        body["response_format"]["schema"]["required"],
        serde_json::json!(["country", "capital"])
    );
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("/// The name of the capital city of that country; a city, never the country's own name.\n    capital: String,"));
    assert_eq!(
        body["messages"][1]["content"],
        "What is the capital of Japan?"
    );
}

#[test]
fn answer_parses_but_a_citation_to_a_source_never_sent_is_caught() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(answer::run(&reply("answer.txt"), &mut out, &mut err), 3);
    let (out, err) = (text(out), text(err));
    assert!(out.starts_with("answer: Either party may end the lease"));
    assert!(out.contains("  [2] Either party may end the lease with three months' notice."));
    assert!(
        err.contains("it cites [4], and only sources 1 to 3 were sent"),
        "{err}"
    );

    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        answer::run(&reply("answer-not-found.txt"), &mut out, &mut err),
        0
    );
    assert_eq!(
        text(out),
        "not found: The sources do not say whether a deposit is required.\n"
    );

    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        answer::run(
            "finding:\n  status: found\n  answer: yes",
            &mut out,
            &mut err
        ),
        2
    );
    assert!(text(err).contains("at `finding.citations`"));
}

#[test]
fn detect_reads_the_bbox_2d_idiom_into_the_application_type() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let found = detect::run(&reply("detect.txt"), (640, 480), &mut out, &mut err).unwrap();
    assert_eq!(
        found,
        [
            detect::Detection {
                label: "cup".into(),
                x: 112,
                y: 201,
                width: 133,
                height: 129
            },
            detect::Detection {
                label: "spoon".into(),
                x: 300,
                y: 260,
                width: 212,
                height: 40
            },
        ]
    );
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        detect::run(
            &reply("detect-out-of-image.txt"),
            (640, 480),
            &mut out,
            &mut err
        ),
        Err(2)
    );
    assert!(
        text(err).contains("box [500, 400, 700, 520] for `plate` is not inside the 640x480 image")
    );
}

#[allow(dead_code)]
#[path = "../examples/stream.rs"]
mod stream;

#[test]
fn stream_prints_each_violation_and_the_partial_value_as_they_fill() {
    let recorded = reply("stream.txt");
    let chars: Vec<char> = recorded.chars().collect();
    let chunks: Vec<String> = chars.chunks(4).map(|c| c.iter().collect()).collect();
    let mut out = Vec::new();
    let (seen, whole) = stream::run(
        chunks.iter().map(String::as_str),
        FinishReason::Unknown,
        &mut out,
    )
    .unwrap();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen, whole);
    let out = text(out);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "compliance_status: NON_COMPLIANT");
    // The partial value, rendered after each piece that decided something:
    // the table not reached is shown as not there yet, not as empty.
    assert_eq!(
        lines[1],
        "  [so far: status NON_COMPLIANT, violations …, spoken …]"
    );
    assert_eq!(
        lines[2],
        "violation 1: [HIGH] privacy: Customer emails are kept in plain-text logs"
    );
    assert_eq!(
        lines[3],
        "  [so far: status NON_COMPLIANT, 1 violation(s), spoken …]"
    );
    assert_eq!(
        lines[6],
        "violation 3: [HIGH] consent: No consent is asked before collecting emails"
    );
    assert!(lines[9].ends_with(
        "spoken \"I found three problems; the most urgent is the plain-text emails.\"]"
    ));
}

#[test]
fn compliance_constrains_its_server_request_with_the_type_grammar() {
    let body = compliance::constrained_request("Backups are kept for ten years.");
    let grammar = body["grammar"].as_str().expect("a GBNF grammar");
    assert!(
        grammar.starts_with("root ::= compliance-analysis-d0-r0"),
        "{grammar}"
    );
    assert!(
        grammar.contains("\"HIGH\" | \"MEDIUM\" | \"LOW\""),
        "{grammar}"
    );
    assert!(
        body.get("response_format").is_none(),
        "it would replace the grammar"
    );
    // The token limit holds the longest reply the grammar admits: never cut.
    assert_eq!(
        body["max_tokens"],
        toon_core::grammar::GrammarOptions::new(toon_core::GrammarSyntax::Gbnf)
            .max_reply_bytes::<compliance::ComplianceAnalysis>()
    );
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(
        messages.len(),
        4,
        "system, the example exchange, the question"
    );
    assert!(messages[3]["content"]
        .as_str()
        .unwrap()
        .ends_with("ten years."));
}

#[test]
fn compliance_reports_a_dropped_row_where_it_matters() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let response = compliance::run(
        &reply("compliance-dropped-row.txt"),
        FinishReason::Stop,
        &mut out,
        &mut err,
    )
    .expect("the other rows are kept");
    assert_eq!(response.findings.len(), 2);
    assert_eq!(response.findings[1].rule, "R-7");
    let out = text(out);
    assert!(
        out.contains("repaired  line 4: dropped_row (the row has no `severity`"),
        "{out}"
    );
    assert!(
        out.contains("WARNING   1 row(s) the model wrote could not be read and are not in the result (lines 4)"),
        "{out}"
    );
}

#[allow(dead_code)]
#[path = "../examples/retry.rs"]
mod retry;

#[test]
fn retry_sends_the_refusal_back_and_reads_the_second_answer() {
    let mut answers = vec![
        "objects[2]{label,score}:\n  cup,0.9\n  spoon,0.7\ncount: 2",
        "objects[2]{label,score}:\n  cup,0.9\n  spoon,0.7\ncount: 3",
    ];
    let mut turns: Vec<Vec<serde_json::Value>> = Vec::new();
    let mut out = Vec::new();
    let attempts = retry::run(
        |messages| {
            turns.push(messages.to_vec());
            Ok::<_, String>(toon_core::retry::Turn::new(
                answers.pop().unwrap(),
                FinishReason::Stop,
            ))
        },
        &mut out,
    );
    assert_eq!(attempts, retry::Done::Read(2));
    let out = text(out);
    assert!(out.contains("attempt 1: TOON_PARSE_FAILURE: the value reads but is not valid here: `count` is 3 but 2 objects are listed"), "{out}");
    assert!(out.contains("attempt 2: read"), "{out}");
    assert_eq!(
        turns[1].len(),
        4,
        "system, question, the refused answer, the retry turn"
    );
    assert!(turns[1][3]["content"]
        .as_str()
        .unwrap()
        .starts_with("Your answer could not be used."));
}

/// A network failure after a refused answer is not "every attempt refused":
/// the attempts before it are printed, and the run ends as a failed send.
#[test]
fn retry_reports_a_failed_send_with_the_attempts_before_it() {
    let mut sent = 0;
    let mut out = Vec::new();
    let done = retry::run(
        |_| {
            sent += 1;
            match sent {
                1 => Ok(toon_core::retry::Turn::new(
                    "objects[2]{label,score}:\n  cup,0.9\n  spoon,0.7\ncount: 3",
                    FinishReason::Stop,
                )),
                _ => Err("connection refused"),
            }
        },
        &mut out,
    );
    assert_eq!(done, retry::Done::SendFailed);
    let out = text(out);
    assert!(out.contains("attempt 1: TOON_PARSE_FAILURE"), "{out}");
    assert!(out.contains("sending failed: connection refused"), "{out}");
}

#[test]
fn triage_asks_again_after_a_refusal_and_reads_the_value() {
    use toon_core::exchange::{Mechanism, Server};
    let exchange = triage::exchange(Mechanism::Grammar, Server::LlamaServer);
    let done = triage::ask_recorded(&exchange, triage::REPORT, &triage::recorded()).unwrap();
    assert_eq!(done.value.priority, 4);
    assert_eq!(done.value.severity, triage::Severity::Minor);
    // The version is the text the model wrote, not a number read back.
    assert_eq!(done.value.reported_version, "3.20");
    assert_eq!(done.attempts.len(), 2);
    let first = done.attempts[0].outcome.as_ref().unwrap_err();
    assert_eq!(
        (first.kind(), first.path()),
        (toon_core::ParseErrorKind::Constraint, Some("priority"))
    );
    assert_eq!(done.attempts[1].completion_tokens, Some(31));
}

#[allow(dead_code)]
#[path = "../examples/dashboard.rs"]
mod dashboard;

#[test]
fn dashboard_sums_what_each_ask_measured() {
    let measures = dashboard::measure(&dashboard::recorded());
    assert_eq!(
        measures.iter().map(|m| m.attempts).collect::<Vec<_>>(),
        [1, 1, 2, 2, 2]
    );
    let mut out = Vec::new();
    dashboard::dashboard(&measures, &mut out);
    let out = text(out);
    for line in [
        "asks                     5",
        "read on the first answer 2",
        "read on a later answer   2",
        "gave up                  1",
        "answers cut off          1",
        "completion tokens        74",
        "repair enum_case         1",
        "repair stripped_prose    1",
        "refusal constraint       1",
        "refusal invalid value    2",
        "refusal truncated        1",
    ] {
        assert!(out.lines().any(|l| l == line), "{line:?} not in\n{out}");
    }
}
