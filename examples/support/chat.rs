//! A minimal client for an OpenAI-compatible `/v1/chat/completions` endpoint
//! (a local llama.cpp server, say), shared by the examples.

use serde_json::{json, Value};

/// A system prompt and one user message, with any extra request fields.
pub fn request(system: &str, user: &str, extra: Value) -> Value {
    request_with_example(system, None, user, extra)
}

/// As [`request`], with one example exchange (question, answer) before the
/// question: small models write TOON far more reliably after seeing one.
pub fn request_with_example(
    system: &str,
    example: Option<(&str, &str)>,
    user: &str,
    extra: Value,
) -> Value {
    let mut messages = vec![json!({"role": "system", "content": system})];
    if let Some((q, a)) = example {
        messages.push(json!({"role": "user", "content": q}));
        messages.push(json!({"role": "assistant", "content": a}));
    }
    messages.push(json!({"role": "user", "content": user}));
    let mut body = json!({ "model": "local", "messages": messages });
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        b.extend(e.clone());
    }
    body
}

/// What the server answered: the completion text and why it stopped
/// (`"length"` means the token limit cut it off).
pub struct Completion {
    pub content: String,
    pub finish_reason: String,
}

/// Sends the request to `url` (the full `/v1/chat/completions` address, plain HTTP).
pub fn complete(url: &str, body: &Value) -> Result<Completion, String> {
    let mut response = ureq::post(url)
        .send_json(body)
        .map_err(|e| format!("request to {url} failed: {e}"))?;
    let answer: Value = response
        .body_mut()
        .read_json()
        .map_err(|e| format!("{url} did not answer with JSON: {e}"))?;
    let choice = &answer["choices"][0];
    Ok(Completion {
        content: choice["message"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        finish_reason: choice["finish_reason"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    })
}

/// Sends the request with `"stream": true` and calls `on_delta` with each piece
/// of content as the server's SSE stream delivers it; returns the finish reason.
pub fn stream(url: &str, body: &Value, mut on_delta: impl FnMut(&str)) -> Result<String, String> {
    use std::io::BufRead;
    let mut body = body.clone();
    body["stream"] = json!(true);
    let response = ureq::post(url)
        .send_json(&body)
        .map_err(|e| format!("request to {url} failed: {e}"))?;
    let reader = std::io::BufReader::new(response.into_body().into_reader());
    let mut finish_reason = String::new();
    for line in reader.lines() {
        let line = line.map_err(|e| format!("reading the stream from {url}: {e}"))?;
        let Some(data) = line.strip_prefix("data: ") else {
            continue;
        };
        if data.trim() == "[DONE]" {
            break;
        }
        let Ok(event) = serde_json::from_str::<Value>(data) else {
            continue;
        };
        let choice = &event["choices"][0];
        if let Some(piece) = choice["delta"]["content"].as_str() {
            on_delta(piece);
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            finish_reason = reason.to_owned();
        }
    }
    Ok(finish_reason)
}
