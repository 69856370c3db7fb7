//! The real model server of the end-to-end tests (`scripts/model-server.sh`
//! starts it and sets `TOON_MODEL_SERVER`): requests, replies, streams, and the
//! report written into BENCHMARKS.md by a measurement run.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub fn server() -> String {
    std::env::var("TOON_MODEL_SERVER")
        .expect("TOON_MODEL_SERVER: the server's address (scripts/model-server.sh sets it)")
}

pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(180)))
        .build()
        .into()
}

/// One chat request; the completion, why it stopped, and its completion tokens.
pub fn complete(body: &Value) -> (String, String, u64) {
    let (answer, _) = complete_raw(body);
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
        answer["usage"]["completion_tokens"].as_u64().unwrap_or(0),
    )
}

/// The same request streamed; the content deltas in order.
pub fn stream(body: &Value) -> Vec<String> {
    stream_timed(body).into_iter().map(|(_, d)| d).collect()
}

/// A chat request: system prompt, optional example exchange, the question.
pub fn request(system: &str, example: Option<(&str, &str)>, question: &str, extra: Value) -> Value {
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

/// With `TOON_E2E_CAPTURE` set, puts `report` (which starts with `<!-- marker -->`
/// and ends with `<!-- /marker -->`) into BENCHMARKS.md in place of the block it
/// replaces, or at the end.
pub fn write_report(marker: &str, report: &str) {
    if std::env::var_os("TOON_E2E_CAPTURE").is_none() {
        return;
    }
    let path = format!("{}/BENCHMARKS.md", env!("CARGO_MANIFEST_DIR"));
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    let (open, close) = (
        format!("<!-- {marker} -->"),
        format!("<!-- /{marker} -->\n"),
    );
    let next = match (current.find(&open), current.find(&close)) {
        (Some(a), Some(b)) => format!("{}{report}{}", &current[..a], &current[b + close.len()..]),
        _ => format!("{}\n\n{report}", current.trim_end()),
    };
    std::fs::write(&path, next).unwrap();
}

/// One chat request, the whole response as the server sent it, and how long it took.
pub fn complete_raw(body: &Value) -> (Value, Duration) {
    let url = format!("{}/v1/chat/completions", server());
    let start = Instant::now();
    let mut response = agent()
        .post(&url)
        .send_json(body)
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    let answer: Value = response
        .body_mut()
        .read_json()
        .expect("the server answers JSON");
    (answer, start.elapsed())
}

/// The same request streamed: each content delta with the time since the request was sent.
pub fn stream_timed(body: &Value) -> Vec<(Duration, String)> {
    use std::io::BufRead;
    let mut body = body.clone();
    body["stream"] = json!(true);
    let url = format!("{}/v1/chat/completions", server());
    let start = Instant::now();
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
                deltas.push((start.elapsed(), piece.to_owned()));
            }
        }
    }
    deltas
}

/// The compliance task's documents.
pub const DOCUMENTS: [&str; 20] = [
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

/// The rules the documents are checked against.
pub const RULES: &str = "Rules: R-1 personal data must be encrypted; R-2 data must be deleted when no longer needed; \
    R-3 consent is required before collecting data; R-4 access must be limited and reviewed; R-5 passwords must be protected.";
