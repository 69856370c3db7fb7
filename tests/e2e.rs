//! End to end against a real model behind a real OpenAI-compatible server
//! (llama-cpp-python serving SmolLM2-135M-Instruct; `scripts/model-server.sh`).
//!
//! Ignored by the README's test command; run against a server with
//! `scripts/model-server.sh run cargo test --test e2e -- --ignored --test-threads 1`
//! (`.ci/run` does). With `TOON_E2E_CAPTURE=1` the TOON replies are saved under
//! `tests/replies/real/` and the table is written into BENCHMARKS.md.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::types::{
    example_compliance, Capital, ComplianceAnalysis, Detection, Detections, Label, Violation,
};
use serde_json::{json, Value};
use toon_core::{
    decode, from_json_reply, response_format, OutputSchema, ParseError, ParseErrorKind,
    SchemaDialect, Toon, ToonStream,
};

const WHY: &str =
    "needs a model server: scripts/model-server.sh run cargo test --test e2e -- --ignored";

fn server() -> String {
    std::env::var("TOON_MODEL_SERVER")
        .expect("TOON_MODEL_SERVER: the server's address (scripts/model-server.sh sets it)")
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(180)))
        .build()
        .into()
}

/// One chat request; the completion and why it stopped.
fn complete(body: &Value) -> (String, String) {
    let url = format!("{}/v1/chat/completions", server());
    let mut response = agent()
        .post(&url)
        .send_json(body)
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    let answer: Value = response
        .body_mut()
        .read_json()
        .expect("the server answers JSON");
    let choice = &answer["choices"][0];
    (
        choice["message"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        choice["finish_reason"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    )
}

/// The same request streamed; the content deltas in order.
fn stream(body: &Value) -> Vec<String> {
    use std::io::BufRead;
    let mut body = body.clone();
    body["stream"] = json!(true);
    let url = format!("{}/v1/chat/completions", server());
    let response = agent()
        .post(&url)
        .send_json(&body)
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    let mut deltas = Vec::new();
    for line in std::io::BufReader::new(response.into_body().into_reader()).lines() {
        let line = line.expect("the stream reads");
        let Some(data) = line.strip_prefix("data: ") else {
            continue;
        };
        if data.trim() == "[DONE]" {
            break;
        }
        if let Ok(event) = serde_json::from_str::<Value>(data) {
            if let Some(piece) = event["choices"][0]["delta"]["content"].as_str() {
                deltas.push(piece.to_owned());
            }
        }
    }
    deltas
}

/// A chat request: system prompt, optional example exchange, the question.
fn request(system: &str, example: Option<(&str, &str)>, question: &str, extra: Value) -> Value {
    let mut messages = vec![json!({"role": "system", "content": system})];
    if let Some((q, a)) = example {
        messages.push(json!({"role": "user", "content": q}));
        messages.push(json!({"role": "assistant", "content": a}));
    }
    messages.push(json!({"role": "user", "content": question}));
    let mut body = json!({"model": "local", "messages": messages, "seed": 7});
    for (k, v) in extra.as_object().into_iter().flatten() {
        body[k.as_str()] = v.clone();
    }
    body
}

const COUNTRIES: [&str; 20] = [
    "France", "Japan", "Brazil", "Kenya", "Canada", "Italy", "Egypt", "India", "Mexico", "Norway",
    "Peru", "Spain", "Chile", "Ghana", "Greece", "Poland", "Turkey", "Vietnam", "Sweden", "Cuba",
];

const SCENES: [&str; 20] = [
    "a cup next to a spoon",
    "two plates and a cup",
    "a spoon on a plate",
    "three cups in a row",
    "an empty table",
    "a plate with a spoon and a cup",
    "a cup",
    "two spoons",
    "a stack of four plates",
    "a cup on the left, a plate on the right",
    "a spoon in a cup",
    "five cups",
    "a plate",
    "a cup and a plate",
    "two cups and two spoons",
    "a broken plate",
    "a spoon under a plate",
    "a tall cup",
    "a plate with three spoons",
    "a cup, a spoon and a plate",
];

const DOCUMENTS: [&str; 20] = [
    "We store customer emails in plain-text logs.",
    "Backups are kept for ten years.",
    "Users can delete their data at any time.",
    "We share phone numbers with partners without asking.",
    "Passwords are hashed with bcrypt.",
    "Admins have no two-factor login.",
    "Cookies are set before consent.",
    "Logs are deleted after 30 days.",
    "Payment data is encrypted at rest.",
    "Support staff can read every message.",
    "We never ask for consent.",
    "Data is stored in one region only.",
    "Old accounts are never deleted.",
    "We send marketing emails without an opt-out.",
    "Access is reviewed every quarter.",
    "Employees share one admin password.",
    "We keep ID scans forever.",
    "Children's data is collected without checks.",
    "Audit logs are immutable.",
    "We sell browsing history.",
];

const RULES: &str = "Rules: R-1 personal data must be encrypted; R-2 data must be deleted when no longer needed; \
    R-3 consent is required before collecting data; R-4 access must be limited and reviewed; R-5 passwords must be protected.";

fn example_detections() -> Detections {
    Detections {
        objects: vec![
            Detection {
                label: Label::Cup,
                score: 0.9,
                note: "white mug".into(),
            },
            Detection {
                label: Label::Plate,
                score: 0.8,
                note: "round plate".into(),
            },
        ],
        count: 2,
    }
}

/// How one TOON reply fared.
#[derive(Debug)]
enum Outcome {
    Strict,
    Repaired(Vec<&'static str>),
    Refused(ParseError),
}

fn outcome<T: Toon>(reply: &str) -> Outcome {
    match T::from_toon_with_report(reply) {
        Ok(r) if r.repairs.is_empty() && decode(reply, &Default::default()).is_ok() => {
            Outcome::Strict
        }
        Ok(r) => Outcome::Repaired(r.repairs.iter().map(|r| r.kind.as_str()).collect()),
        Err(e) => Outcome::Refused(e),
    }
}

/// The TOON path for one type: 20 prompts at two temperatures.
fn toon_path<T: Toon>(
    name: &str,
    system: &str,
    example: (&str, &str),
    questions: &[String],
    rows: &mut Vec<Row>,
) {
    for temperature in [0.0, 0.8] {
        let mut row = Row {
            ty: name.to_owned(),
            temperature,
            ..Default::default()
        };
        for (i, q) in questions.iter().enumerate() {
            let body = request(
                system,
                Some(example),
                q,
                json!({"temperature": temperature, "max_tokens": 200}),
            );
            let (reply, _) = complete(&body);
            let o = outcome::<T>(&reply);
            match &o {
                Outcome::Strict => row.strict += 1,
                Outcome::Repaired(kinds) => {
                    row.repaired += 1;
                    for k in kinds {
                        *row.repairs.entry(k).or_default() += 1;
                    }
                }
                Outcome::Refused(e) => {
                    row.refused += 1;
                    *row.errors.entry(e.kind().as_str()).or_default() += 1;
                    assert!(
                        e.line().is_some()
                            || e.path().is_some()
                            || e.kind() == ParseErrorKind::EmptyCompletion,
                        "a refusal without a location: {e}\n--- reply:\n{reply}"
                    );
                }
            }
            if std::env::var_os("TOON_E2E_CAPTURE").is_some() {
                let dir = format!("{}/tests/replies/real/{name}", env!("CARGO_MANIFEST_DIR"));
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(
                    format!("{dir}/t{}-{i:02}.txt", (temperature * 10.0) as u32),
                    &reply,
                )
                .unwrap();
            }
        }
        rows.push(row);
    }
}

#[derive(Default)]
struct Row {
    ty: String,
    temperature: f64,
    strict: usize,
    repaired: usize,
    refused: usize,
    repairs: BTreeMap<&'static str, usize>,
    errors: BTreeMap<&'static str, usize>,
}

fn top(map: &BTreeMap<&'static str, usize>) -> String {
    let mut v: Vec<_> = map.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1));
    v.iter()
        .take(4)
        .map(|(k, n)| format!("{k} ({n})"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
#[ignore = "needs a model server: scripts/model-server.sh run cargo test --test e2e -- --ignored"]
fn toon_and_json_paths_against_a_real_model() {
    let _ = WHY;
    let mut rows = Vec::new();

    // The TOON path: the prompt snippet, one example exchange, 20 questions, two temperatures.
    let compliance_system = format!(
        "You check documents against rules and answer in TOON.\n{RULES}\n\n{}",
        ComplianceAnalysis::toon_prompt()
    );
    let example_q =
        "Document: We keep health records in a shared folder without encryption.".to_owned();
    let example_a = example_compliance().to_toon();
    let questions: Vec<String> = DOCUMENTS.iter().map(|d| format!("Document: {d}")).collect();
    toon_path::<ComplianceAnalysis>(
        "compliance",
        &compliance_system,
        (&example_q, &example_a),
        &questions,
        &mut rows,
    );

    let detect_system = format!(
        "You list the objects in a described scene and answer in TOON.\n\n{}",
        Detections::toon_prompt()
    );
    let example_a = example_detections().to_toon();
    let questions: Vec<String> = SCENES.iter().map(|s| format!("Scene: {s}")).collect();
    toon_path::<Detections>(
        "detections",
        &detect_system,
        ("Scene: a mug next to a plate", &example_a),
        &questions,
        &mut rows,
    );

    let capital_system = format!(
        "You answer questions about capitals in TOON.\n\n{}",
        Capital::toon_prompt()
    );
    let example_a = Capital {
        country: "Germany".into(),
        capital: "Berlin".into(),
    }
    .to_toon();
    let questions: Vec<String> = COUNTRIES
        .iter()
        .map(|c| format!("What is the capital of {c}?"))
        .collect();
    toon_path::<Capital>(
        "capitals",
        &capital_system,
        ("What is the capital of Germany?", &example_a),
        &questions,
        &mut rows,
    );

    // The JSON path: the schema in the server's dialect, the declarations in the system prompt.
    let (mut json_ok, mut json_total, mut truncations) = (0, 0, 0);
    let mut json_case = |system: String,
                         schema: Value,
                         question: &str,
                         max_tokens: u32,
                         decode: &dyn Fn(&str) -> Result<(), ParseError>| {
        let body = request(
            &system,
            None,
            question,
            json!({"temperature": 0, "max_tokens": max_tokens, "response_format": schema}),
        );
        let (reply, finish) = complete(&body);
        json_total += 1;
        match (finish.as_str(), decode(&reply)) {
            ("length", Err(e)) => {
                assert_eq!(
                    e.kind(),
                    ParseErrorKind::Truncated,
                    "a reply stopped by max_tokens: {e}\n{reply}"
                );
                truncations += 1;
            }
            ("length", Ok(())) => json_ok += 1, // stopped exactly at the end of the value
            (_, Ok(())) => json_ok += 1,
            (_, Err(e)) => {
                panic!("a reply that finished normally does not decode: {e}\n--- reply:\n{reply}")
            }
        }
    };
    for c in &COUNTRIES[..8] {
        json_case(
            format!(
                "Answer with one JSON object following these declarations:\n\n{}",
                Capital::schema_prompt()
            ),
            response_format::<Capital>(SchemaDialect::LlamaCppPython),
            &format!("What is the capital of {c}?"),
            64,
            &|r| from_json_reply::<Capital>(r).map(drop),
        );
    }
    for d in &DOCUMENTS[..4] {
        json_case(
            format!(
                "{RULES}\nAnswer with one JSON object following these declarations:\n\n{}",
                ComplianceAnalysis::schema_prompt()
            ),
            response_format::<ComplianceAnalysis>(SchemaDialect::LlamaCppPython),
            &format!("Document: {d}"),
            400,
            &|r| ComplianceAnalysis::from_toon(r).map(drop),
        );
    }
    for s in &SCENES[..4] {
        json_case(
            format!(
                "Answer with one JSON object following these declarations:\n\n{}",
                Detections::schema_prompt()
            ),
            response_format::<Detections>(SchemaDialect::LlamaCppPython),
            &format!("Scene: {s}"),
            300,
            &|r| Detections::from_toon(r).map(drop),
        );
    }
    // A token limit too small for the answer: the cut-off reply is named as such.
    let body = request(
        &format!(
            "Answer with one JSON object following these declarations:\n\n{}",
            Capital::schema_prompt()
        ),
        None,
        "What is the capital of France? Describe it at length in the capital field.",
        json!({"temperature": 0, "max_tokens": 12, "response_format": response_format::<Capital>(SchemaDialect::LlamaCppPython)}),
    );
    let (reply, finish) = complete(&body);
    assert_eq!(finish, "length");
    assert_eq!(
        from_json_reply::<Capital>(&reply).unwrap_err().kind(),
        ParseErrorKind::Truncated,
        "{reply}"
    );
    truncations += 1;
    json_total += 1;

    let mut table = String::from(
        "| type | temperature | strict | decoded with repairs | refused | repairs most applied | refusals |\n|---|---|---|---|---|---|---|\n",
    );
    for r in &rows {
        table.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            r.ty,
            r.temperature,
            r.strict,
            r.repaired,
            r.refused,
            top(&r.repairs),
            top(&r.errors)
        ));
    }
    let info = std::env::var("TOON_MODEL_INFO").unwrap_or_else(|_| "unknown server".into());
    let report = format!(
        "<!-- e2e -->\n## End to end: a real model\n\n{info}, on this machine's CPU, through its OpenAI-compatible server. \
         Reproduce with `TOON_E2E_CAPTURE=1 scripts/model-server.sh run cargo test --test e2e -- --ignored --test-threads 1`.\n\n\
         The TOON path: `toon_prompt()` in the system prompt and one example exchange written with `to_toon()`, 20 prompts per \
         type at each temperature; \"strict\" replies are valid TOON as written.\n\n{table}\n\
         The JSON path (`json_schema()` as `response_format`, `schema_prompt()` in the system prompt, temperature 0): \
         {json_ok} of {json_total} replies decoded; {truncations} stopped by `max_tokens` and were refused as `Truncated`.\n<!-- /e2e -->\n"
    );
    eprintln!("{report}");
    if std::env::var_os("TOON_E2E_CAPTURE").is_some() {
        let path = format!("{}/BENCHMARKS.md", env!("CARGO_MANIFEST_DIR"));
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        let kept = match (current.find("<!-- e2e -->"), current.find("<!-- /e2e -->")) {
            (Some(a), Some(b)) => format!(
                "{}{}",
                &current[..a],
                &current[b + "<!-- /e2e -->\n".len().min(current.len() - b)..]
            ),
            _ => current,
        };
        std::fs::write(&path, format!("{}\n{report}", kept.trim_end())).unwrap();
    }
}

#[test]
#[ignore = "needs a model server: scripts/model-server.sh run cargo test --test e2e -- --ignored"]
fn streaming_against_a_real_model_equals_the_whole_text() {
    let system = format!(
        "You check documents against rules and answer in TOON.\n{RULES}\n\n{}",
        ComplianceAnalysis::toon_prompt()
    );
    let example_a = example_compliance().to_toon();
    for d in &DOCUMENTS[..5] {
        let body = request(
            &system,
            Some(("Document: We keep health records unencrypted.", &example_a)),
            &format!("Document: {d}"),
            json!({"temperature": 0, "max_tokens": 200}),
        );
        let deltas = stream(&body);
        let whole: String = deltas.concat();
        let mut s = ToonStream::<ComplianceAnalysis>::new();
        let mut events = Vec::new();
        for piece in &deltas {
            events.extend(s.push(piece));
        }
        events.extend(s.end());
        let streamed = s.finish();
        let direct = ComplianceAnalysis::from_toon_with_report(&whole);
        match (&streamed, &direct) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.value, b.value);
                assert_eq!(a.repairs, b.repairs);
                let rows: Vec<Violation> = events
                    .iter()
                    .filter_map(|e| e.decode::<Violation>().ok())
                    .collect();
                assert!(
                    rows.iter().all(|r| a.value.violations.contains(r)),
                    "a streamed row not in the final value"
                );
            }
            (Err(a), Err(b)) => assert_eq!(a, b),
            _ => panic!("streamed {streamed:?} but whole {direct:?}\n--- reply:\n{whole}"),
        }
    }
}
