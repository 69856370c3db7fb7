//! The real model server of the end-to-end tests (`scripts/model-server.sh`
//! starts it and sets `TOON_MODEL_SERVER` and `TOON_MODEL_SERVER_KIND`):
//! requests, replies, streams, where a server's replies are kept, and the
//! report written into BENCHMARKS.md by a measurement run.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use toon_core::schema::SchemaDialect;

/// The servers the end-to-end run asks, one at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// llama.cpp's own `llama-server`.
    LlamaServer,
    /// llama-cpp-python's OpenAI-compatible server.
    LlamaCppPython,
}

impl Kind {
    /// Both, in the order the tables list them.
    pub const ALL: [Kind; 2] = [Kind::LlamaServer, Kind::LlamaCppPython];

    /// The server of this run (`TOON_MODEL_SERVER_KIND`).
    pub fn current() -> Kind {
        match std::env::var("TOON_MODEL_SERVER_KIND").as_deref() {
            Ok("llama-server") => Kind::LlamaServer,
            Ok("llama-cpp-python") => Kind::LlamaCppPython,
            other => panic!(
                "TOON_MODEL_SERVER_KIND is {other:?}: llama-server or llama-cpp-python (scripts/model-server.sh sets it)"
            ),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::LlamaServer => "llama-server",
            Kind::LlamaCppPython => "llama-cpp-python",
        }
    }

    /// How the server takes a JSON Schema in `response_format`.
    pub fn dialect(self) -> SchemaDialect {
        match self {
            Kind::LlamaServer => SchemaDialect::OpenAi,
            Kind::LlamaCppPython => SchemaDialect::LlamaCppPython,
        }
    }

    /// Where this server's captured replies are kept: `tests/replies/real/<server>/<sub>`.
    pub fn replies(self, sub: &str) -> String {
        format!(
            "{}/tests/replies/real/{}/{sub}",
            env!("CARGO_MANIFEST_DIR"),
            self.name()
        )
    }
}

/// Milliseconds a generated token: the server's own timing where it gives one
/// (llama-server's `timings.predicted_per_token_ms`), else the wall clock over
/// the completion tokens (which then includes reading the prompt).
pub fn ms_per_token(response: &Value, elapsed: Duration) -> f64 {
    response["timings"]["predicted_per_token_ms"]
        .as_f64()
        .unwrap_or_else(|| {
            let tokens = response["usage"]["completion_tokens"].as_u64().unwrap_or(0);
            elapsed.as_secs_f64() * 1000.0 / tokens.max(1) as f64
        })
}

/// With `TOON_E2E_CAPTURE` set, keeps this server's rows of a table (markdown
/// lines, the first cell the server's name) and its closing text in its
/// replies folder, and writes the table of every server's rows kept so far
/// into BENCHMARKS.md between `<!-- marker -->` and `<!-- /marker -->`: `head`
/// (title and text), the table's header line, every server's rows, then every
/// server's `tail`.
pub fn write_table(marker: &str, head: &str, columns: &str, rows: &str, tail: &str) {
    if std::env::var_os("TOON_E2E_CAPTURE").is_none() {
        return;
    }
    let dir = Kind::current().replies("tables");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(format!("{dir}/{marker}.md"), rows).unwrap();
    std::fs::write(format!("{dir}/{marker}.tail.md"), tail).unwrap();
    let kept = |file: &str, sep: &str| -> String {
        Kind::ALL
            .iter()
            .filter_map(|k| std::fs::read_to_string(format!("{}/{file}", k.replies("tables"))).ok())
            .map(|t| t.trim_end().to_owned())
            .filter(|t| !t.is_empty())
            .fold(Vec::new(), |mut kept: Vec<String>, t| {
                // The same closing text from each server is said once.
                if !kept.contains(&t) {
                    kept.push(t);
                }
                kept
            })
            .join(sep)
    };
    let all = kept(&format!("{marker}.md"), "\n");
    let tail = kept(&format!("{marker}.tail.md"), "\n\n");
    let sep = columns
        .matches('|')
        .skip(1)
        .map(|_| "---|")
        .collect::<String>();
    write_report(
        marker,
        &format!(
            "<!-- {marker} -->\n{head}\n\n{columns}\n|{sep}\n{all}\n{}<!-- /{marker} -->\n",
            if tail.is_empty() {
                String::new()
            } else {
                format!("\n{tail}\n")
            }
        ),
    );
}

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
    let r = ask(body);
    (r.text, r.finish, r.tokens)
}

/// One reply, with what it cost.
#[derive(Debug, Clone)]
pub struct Reply {
    pub text: String,
    pub finish: String,
    pub tokens: u64,
    pub seconds: f64,
    pub ms_per_token: f64,
}

/// One chat request, read into a [`Reply`].
pub fn ask(body: &Value) -> Reply {
    let (answer, elapsed) = complete_raw(body);
    let choice = &answer["choices"][0];
    Reply {
        text: choice["message"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        finish: choice["finish_reason"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        tokens: answer["usage"]["completion_tokens"].as_u64().unwrap_or(0),
        seconds: elapsed.as_secs_f64(),
        ms_per_token: ms_per_token(&answer, elapsed),
    }
}

/// The median of some figures (0 for none).
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => 0.0,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
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

/// A request to `path` on the server whose answer may be an error: its HTTP
/// status and its body.
pub fn post_status(path: &str, body: &Value) -> (u16, Value) {
    let url = format!("{}{path}", server());
    let mut response = agent()
        .post(&url)
        .config()
        .http_status_as_error(false)
        .build()
        .send_json(body)
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    let status = response.status().as_u16();
    let answer = response.body_mut().read_json().unwrap_or(Value::Null);
    (status, answer)
}

/// A GET of `path` on the server, as JSON.
pub fn get(path: &str) -> Value {
    let url = format!("{}{path}", server());
    agent()
        .get(&url)
        .call()
        .unwrap_or_else(|e| panic!("{url}: {e}"))
        .body_mut()
        .read_json()
        .expect("the server answers JSON")
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
