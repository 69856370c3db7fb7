//! End to end against a real model behind a real OpenAI-compatible server
//! (llama-cpp-python serving SmolLM2-135M-Instruct; `scripts/model-server.sh`).
//!
//! Ignored by the README's test command; run against a server with
//! `scripts/model-server.sh run cargo test --test e2e -- --ignored --test-threads 1`
//! (`.ci/run` does). With `TOON_E2E_CAPTURE=1` the TOON replies are saved under
//! `tests/replies/real/` and the table is written into BENCHMARKS.md.

mod common;

use common::server::{complete, request, stream, write_report, DOCUMENTS, RULES};

use std::collections::BTreeMap;

use common::types::{
    example_compliance, Answer, Capital, ComplianceAnalysis, Detection, Detections, Label,
    LongBounds, Violation,
};
use serde_json::{json, Value};
use toon_core::{
    constrain_request, decode, from_json_reply, response_format, FinishReason, GrammarServer,
    GrammarSyntax, OutputSchema, ParseError, ParseErrorKind, ReplyOptions, SchemaDialect, Toon,
    ToonStream,
};

const WHY: &str =
    "needs a model server: scripts/model-server.sh run cargo test --test e2e -- --ignored";

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

/// One type's questions: the TOON prompt with its example exchange, and the
/// JSON path's system prompt, for the same questions.
struct Task {
    name: &'static str,
    system: String,
    example: (String, String),
    questions: Vec<String>,
    json_system: String,
    json_max_tokens: u32,
}

type TonPath = fn(&str, &str, (&str, &str), &[String], &mut Vec<Row>);

fn compliance_task() -> Task {
    Task {
        name: "compliance",
        system: format!(
            "You check documents against rules and answer in TOON.\n{RULES}\n\n{}",
            ComplianceAnalysis::toon_prompt()
        ),
        example: (
            "Document: We keep health records in a shared folder without encryption.".into(),
            example_compliance().to_toon(),
        ),
        questions: DOCUMENTS.iter().map(|d| format!("Document: {d}")).collect(),
        json_system: format!(
            "{RULES}\nAnswer with one JSON object following these declarations:\n\n{}",
            ComplianceAnalysis::schema_prompt()
        ),
        json_max_tokens: 400,
    }
}

fn detections_task() -> Task {
    Task {
        name: "detections",
        system: format!(
            "You list the objects in a described scene and answer in TOON.\n\n{}",
            Detections::toon_prompt()
        ),
        example: (
            "Scene: a mug next to a plate".into(),
            example_detections().to_toon(),
        ),
        questions: SCENES.iter().map(|s| format!("Scene: {s}")).collect(),
        json_system: format!(
            "Answer with one JSON object following these declarations:\n\n{}",
            Detections::schema_prompt()
        ),
        json_max_tokens: 300,
    }
}

fn capitals_task() -> Task {
    let example = Capital {
        country: "Germany".into(),
        capital: "Berlin".into(),
    };
    Task {
        name: "capitals",
        system: format!(
            "You answer questions about capitals in TOON.\n\n{}",
            Capital::toon_prompt()
        ),
        example: ("What is the capital of Germany?".into(), example.to_toon()),
        questions: COUNTRIES
            .iter()
            .map(|c| format!("What is the capital of {c}?"))
            .collect(),
        json_system: format!(
            "Answer with one JSON object following these declarations:\n\n{}",
            Capital::schema_prompt()
        ),
        json_max_tokens: 64,
    }
}

/// How one TOON reply fared.
#[derive(Debug)]
enum Outcome {
    Strict,
    Repaired(Vec<&'static str>),
    Refused(ParseError),
}

fn outcome<T: Toon>(reply: &str, finish: &str) -> Outcome {
    let options = ReplyOptions {
        finish_reason: FinishReason::from_openai(finish),
        ..Default::default()
    };
    match T::from_toon_with_options(reply, &options) {
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
            let (reply, finish, _) = complete(&body);
            let o = outcome::<T>(&reply, &finish);
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
    let (compliance, detections, capitals) =
        (compliance_task(), detections_task(), capitals_task());
    for (task, path) in [
        (&compliance, toon_path::<ComplianceAnalysis> as TonPath),
        (&detections, toon_path::<Detections>),
        (&capitals, toon_path::<Capital>),
    ] {
        path(
            task.name,
            &task.system,
            (&task.example.0, &task.example.1),
            &task.questions,
            &mut rows,
        );
    }

    // The JSON path: the schema in the server's dialect, the declarations in the system prompt.
    let (mut json_ok, mut json_total, mut truncations, mut out_of_bounds) = (0, 0, 0, 0);
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
        let (reply, finish, _) = complete(&body);
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
            // The server's JSON grammar holds the shape, not `minimum`/`maximum`:
            // a value outside its field's range is refused by name.
            (_, Err(e)) if e.kind() == ParseErrorKind::Constraint => out_of_bounds += 1,
            (_, Err(e)) => {
                panic!("a reply that finished normally does not decode: {e}\n--- reply:\n{reply}")
            }
        }
    };
    for c in &COUNTRIES[..8] {
        json_case(
            capitals.json_system.clone(),
            response_format::<Capital>(SchemaDialect::LlamaCppPython),
            &format!("What is the capital of {c}?"),
            64,
            &|r| from_json_reply::<Capital>(r).map(drop),
        );
    }
    for d in &DOCUMENTS[..4] {
        json_case(
            compliance.json_system.clone(),
            response_format::<ComplianceAnalysis>(SchemaDialect::LlamaCppPython),
            &format!("Document: {d}"),
            400,
            &|r| ComplianceAnalysis::from_toon(r).map(drop),
        );
    }
    for s in &SCENES[..4] {
        json_case(
            detections.json_system.clone(),
            response_format::<Detections>(SchemaDialect::LlamaCppPython),
            &format!("Scene: {s}"),
            300,
            &|r| Detections::from_toon(r).map(drop),
        );
    }
    // A token limit too small for the answer: the cut-off reply is named as such.
    let body = request(
        &capitals.json_system,
        None,
        "What is the capital of France? Describe it at length in the capital field.",
        json!({"temperature": 0, "max_tokens": 12, "response_format": response_format::<Capital>(SchemaDialect::LlamaCppPython)}),
    );
    let (reply, finish, _) = complete(&body);
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
         {json_ok} of {json_total} replies decoded; {truncations} stopped by `max_tokens` and were refused as `Truncated`; \
         {out_of_bounds} finished with a value outside its field's range (the server's JSON grammar holds the schema's shape, not its \
         `minimum`/`maximum`) and were refused as `Constraint`.\n<!-- /e2e -->\n"
    );
    eprintln!("{report}");
    write_report("e2e", &report);
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

/// llama.cpp's own grammar parser, through llama-cpp-python and the model's
/// vocabulary (`scripts/gbnf_check.py`), must accept each GBNF grammar: the
/// server would otherwise go on without one (it fails open).
fn llama_cpp_parses(grammars: &[(&str, String)]) {
    let python = std::env::var("TOON_MODEL_PYTHON")
        .expect("TOON_MODEL_PYTHON: the model venv's python (scripts/model-server.sh sets it)");
    let dir = format!("{}/target/e2e-grammars", env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(&dir).unwrap();
    let files: Vec<String> = grammars
        .iter()
        .map(|(name, text)| {
            let file = format!("{dir}/{name}.gbnf");
            std::fs::write(&file, text).unwrap();
            file
        })
        .collect();
    let out = std::process::Command::new(python)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/gbnf_check.py"
        ))
        .args(&files)
        .output()
        .expect("the model venv's python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "llama.cpp refuses a grammar:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout.lines().filter(|l| l.ends_with(": ok")).count(),
        files.len(),
        "{stdout}"
    );
}

/// One type at one temperature: the grammar path and the JSON-Schema path on the same questions.
#[derive(Default)]
struct GrammarRow {
    ty: &'static str,
    temperature: f64,
    strict: usize,
    cut: usize,
    tokens: Vec<u64>,
    json_decoded: usize,
    json_refused: usize,
    json_cut: usize,
    json_tokens: Vec<u64>,
}

fn mean(v: &[u64]) -> f64 {
    v.iter().sum::<u64>() as f64 / v.len().max(1) as f64
}

/// The grammar path for one type: `toon_prompt()`, the example exchange and the
/// type's grammar; beside it the JSON path (`response_format`, `schema_prompt()`)
/// on the same questions with the same token limit.
fn grammar_path<T: Toon + OutputSchema>(
    task: &Task,
    json_decode: &dyn Fn(&str) -> Result<(), ParseError>,
    rows: &mut Vec<GrammarRow>,
) {
    for temperature in [0.0, 0.8] {
        let mut row = GrammarRow {
            ty: task.name,
            temperature,
            ..Default::default()
        };
        let limits = json!({"temperature": temperature, "max_tokens": task.json_max_tokens});
        for (i, q) in task.questions.iter().enumerate() {
            let mut body = request(
                &task.system,
                Some((&task.example.0, &task.example.1)),
                q,
                limits.clone(),
            );
            constrain_request::<T>(&mut body, GrammarServer::LlamaCpp).unwrap();
            let (reply, finish, tokens) = complete(&body);
            row.tokens.push(tokens);
            if std::env::var_os("TOON_E2E_CAPTURE").is_some() {
                let dir = format!(
                    "{}/tests/replies/real/grammar/{}",
                    env!("CARGO_MANIFEST_DIR"),
                    task.name
                );
                std::fs::create_dir_all(&dir).unwrap();
                let cut = if finish == "length" { ".length" } else { "" };
                let file = format!("{dir}/t{}-{i:02}{cut}.txt", (temperature * 10.0) as u32);
                std::fs::write(file, &reply).unwrap();
            }
            if finish == "length" {
                row.cut += 1;
            } else {
                // The server ends a constrained reply only where the grammar is
                // complete, so every finished reply is valid TOON of the type.
                match outcome::<T>(&reply, &finish) {
                    Outcome::Strict => row.strict += 1,
                    other => panic!(
                        "a reply the grammar constrained is not strict: {other:?}\n--- reply:\n{reply}"
                    ),
                }
            }

            // The comparison is the measurement run's (it doubles the run's time).
            if std::env::var_os("TOON_E2E_CAPTURE").is_none() {
                continue;
            }
            let mut json_limits = limits.clone();
            json_limits["response_format"] = response_format::<T>(SchemaDialect::LlamaCppPython);
            let body = request(&task.json_system, None, q, json_limits);
            let (reply, finish, tokens) = complete(&body);
            row.json_tokens.push(tokens);
            match (finish.as_str(), json_decode(&reply)) {
                ("length", Err(e)) => {
                    assert_eq!(e.kind(), ParseErrorKind::Truncated, "{e}\n{reply}");
                    row.json_cut += 1;
                }
                (_, Ok(())) => row.json_decoded += 1,
                (_, Err(e)) => {
                    eprintln!("JSON reply refused: {e}\n{reply}");
                    row.json_refused += 1;
                }
            }
        }
        rows.push(row);
    }
}

#[test]
#[ignore = "needs a model server: scripts/model-server.sh run cargo test --test e2e -- --ignored"]
fn grammar_path_against_a_real_model() {
    llama_cpp_parses(&[
        (
            "compliance",
            ComplianceAnalysis::toon_grammar(GrammarSyntax::Gbnf),
        ),
        ("detections", Detections::toon_grammar(GrammarSyntax::Gbnf)),
        ("capitals", Capital::toon_grammar(GrammarSyntax::Gbnf)),
        ("answer", Answer::toon_grammar(GrammarSyntax::Gbnf)),
        ("long_bounds", LongBounds::toon_grammar(GrammarSyntax::Gbnf)),
    ]);
    let mut rows = Vec::new();
    grammar_path::<ComplianceAnalysis>(
        &compliance_task(),
        &|r| ComplianceAnalysis::from_toon(r).map(drop),
        &mut rows,
    );
    grammar_path::<Detections>(
        &detections_task(),
        &|r| Detections::from_toon(r).map(drop),
        &mut rows,
    );
    grammar_path::<Capital>(
        &capitals_task(),
        &|r| from_json_reply::<Capital>(r).map(drop),
        &mut rows,
    );

    let mut table = String::from(
        "| type | temperature | grammar: decoded strictly | with repairs | refused | cut off at `max_tokens` | completion tokens per reply | JSON Schema: decoded | refused | cut off | completion tokens per reply | grammar / JSON tokens |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in &rows {
        table.push_str(&format!(
            "| {} | {} | {} | 0 | 0 | {} | {:.0} | {} | {} | {} | {:.0} | {:.2} |\n",
            r.ty,
            r.temperature,
            r.strict,
            r.cut,
            mean(&r.tokens),
            r.json_decoded,
            r.json_refused,
            r.json_cut,
            mean(&r.json_tokens),
            mean(&r.tokens) / mean(&r.json_tokens).max(1.0),
        ));
    }
    let target = rows
        .iter()
        .filter(|r| r.ty == "compliance")
        .map(|r| {
            let met = r.strict >= 18 && mean(&r.tokens) <= mean(&r.json_tokens) / 2.0;
            format!(
                "temperature {}: {} of 20 decoded, {:.0} tokens against {:.0} ({})",
                r.temperature,
                r.strict,
                mean(&r.tokens),
                mean(&r.json_tokens),
                if met { "met" } else { "not met" }
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let report = format!(
        "<!-- e2e-grammar -->\n### The grammar path\n\n`toon_prompt()` and the example exchange as on the TOON path, and the type's own \
         grammar (`toon_grammar(GrammarSyntax::Gbnf)`, sent by `constrain_request` as llama-cpp-python's `grammar` field); beside it, on \
         the same questions with the same `max_tokens`, the JSON path (`response_format` with `json_schema()`, `schema_prompt()` in the \
         system prompt). Every grammar was first parsed by llama.cpp's own parser. A reply the grammar constrained that finished is \
         always strict TOON of the type (the test asserts it); the replies are kept in `tests/replies/real/grammar/`. \
         Reproduce with `TOON_E2E_CAPTURE=1 scripts/model-server.sh run cargo test --test e2e grammar -- --ignored`.\n\n{table}\n\
         Target (the compliance type decodes in at least 18 of 20 replies at each temperature, at no more than half the JSON path's \
         completion tokens): {target}.\n<!-- /e2e-grammar -->\n"
    );
    eprintln!("{report}");
    write_report("e2e-grammar", &report);
}

#[test]
#[ignore = "needs a model server: scripts/model-server.sh run cargo test --test e2e -- --ignored"]
fn streaming_with_the_grammar_equals_the_whole_text() {
    let task = compliance_task();
    for q in &task.questions[..5] {
        let mut body = request(
            &task.system,
            Some((&task.example.0, &task.example.1)),
            q,
            json!({"temperature": 0, "max_tokens": task.json_max_tokens}),
        );
        constrain_request::<ComplianceAnalysis>(&mut body, GrammarServer::LlamaCpp).unwrap();
        let deltas = stream(&body);
        let whole: String = deltas.concat();
        let mut s = ToonStream::<ComplianceAnalysis>::new();
        let mut rows = 0;
        for piece in &deltas {
            rows += s
                .push(piece)
                .iter()
                .filter(|e| e.decode::<Violation>().is_ok())
                .count();
        }
        rows += s
            .end()
            .iter()
            .filter(|e| e.decode::<Violation>().is_ok())
            .count();
        let streamed = s
            .finish()
            .unwrap_or_else(|e| panic!("{e}\n--- reply:\n{whole}"));
        let direct = ComplianceAnalysis::from_toon_with_report(&whole).unwrap();
        assert_eq!(streamed.value, direct.value);
        assert!(
            streamed.repairs.is_empty() && direct.repairs.is_empty(),
            "{whole}"
        );
        assert_eq!(
            rows,
            direct.value.violations.len(),
            "each row streamed once:\n{whole}"
        );
    }
}

/// The retry helper on the compliance type, TOON path without a grammar: how
/// many first answers are refused, and how many of those one or two retries
/// (the reply and its `retry_prompt()` sent back) rescue.
#[test]
#[ignore = "needs a model server: scripts/model-server.sh run cargo test --test e2e -- --ignored"]
fn retries_against_a_real_model() {
    let task = compliance_task();
    let parser = toon_core::ToonOutputParser::<ComplianceAnalysis>::new();
    // By how many retries each answer was read: 0, 1, 2, or not at all.
    let mut read_after = [0usize; 3];
    let mut never = 0;
    let mut refusals: BTreeMap<&'static str, usize> = BTreeMap::new();
    for q in &task.questions {
        let base = request(
            &task.system,
            Some((&task.example.0, &task.example.1)),
            q,
            json!({}),
        );
        let messages = base["messages"].as_array().unwrap().clone();
        let result = parser.parse_with_retries(messages, 2, |messages| {
            let body = json!({"model": "local", "messages": messages, "seed": 7, "temperature": 0, "max_tokens": 200});
            let (content, finish, _) = complete(&body);
            Ok::<_, String>(toon_core::Turn::new(content, FinishReason::from_openai(&finish)))
        });
        let attempts = match &result {
            Ok(r) => r.attempts.clone(),
            Err(toon_core::RetryError::Refused { attempts }) => attempts.clone(),
            Err(e) => panic!("{e}"),
        };
        for a in &attempts {
            if let Err(e) = &a.outcome {
                *refusals.entry(e.kind().as_str()).or_default() += 1;
                let turn = e.retry_prompt();
                assert!(turn.starts_with("Your answer could not be used."), "{turn}");
            }
        }
        match result {
            Ok(r) => read_after[r.attempts.len() - 1] += 1,
            Err(_) => never += 1,
        }
    }
    let first_refused = task.questions.len() - read_after[0];
    let report = format!(
        "<!-- e2e-retry -->\n### Asking again\n\n`ToonOutputParser::parse_with_retries` on the compliance type, TOON path without a grammar \
         (the prompt and example exchange above, temperature 0, at most two retries, each sending back the refused reply and its \
         `retry_prompt()`): of {n} first answers, {first_refused} were refused; the first retry rescued {r1}, the second {r2}, and \
         {never} stayed refused. Refusals over all attempts: {top}. Reproduce with \
         `TOON_E2E_CAPTURE=1 scripts/model-server.sh run cargo test --test e2e retries -- --ignored`.\n<!-- /e2e-retry -->\n",
        n = task.questions.len(),
        r1 = read_after[1],
        r2 = read_after[2],
        top = top(&refusals),
    );
    eprintln!("{report}");
    assert_eq!(
        read_after.iter().sum::<usize>() + never,
        task.questions.len()
    );
    write_report("e2e-retry", &report);
}
