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
/// A server's error, or an answer without a choice, is an error here, never
/// an empty completion: a server that failed is not a model that said nothing.
pub fn complete(url: &str, body: &Value) -> Result<Completion, String> {
    let mut response = ureq::post(url)
        .send_json(body)
        .map_err(|e| format!("request to {url} failed: {e}"))?;
    let answer: Value = response
        .body_mut()
        .read_json()
        .map_err(|e| format!("{url} did not answer with JSON: {e}"))?;
    if !answer["error"].is_null() {
        return Err(format!("{url} answered with an error: {}", answer["error"]));
    }
    let choice = &answer["choices"][0];
    if !choice.is_object() {
        return Err(format!("{url} answered with no choice: {answer}"));
    }
    Ok(Completion {
        content: content_text(&choice["message"]["content"])
            .ok_or_else(|| format!("{url} answered with content that is not text: {choice}"))?,
        finish_reason: choice["finish_reason"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    })
}

/// A message's content: a string, `null` (no text: a tool call, or nothing),
/// or a list of parts whose text parts are joined; `None` for anything else.
fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(text) => Some(text.clone()),
        Value::Null => Some(String::new()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter(|p| p["type"] == "text")
                .filter_map(|p| p["text"].as_str())
                .collect(),
        ),
        _ => None,
    }
}

/// Sends the request with `"stream": true` and calls `on_delta` with each piece
/// of content as the server's SSE stream delivers it; returns the finish reason.
/// An error the server sends in the stream (llama.cpp's `error:` event, or an
/// event holding `error`), an event that is not JSON, or a stream that stops
/// before its end is an error: what arrived may be only part of the reply.
pub fn stream(url: &str, body: &Value, mut on_delta: impl FnMut(&str)) -> Result<String, String> {
    use std::io::BufRead;
    let mut body = body.clone();
    body["stream"] = json!(true);
    let response = ureq::post(url)
        .send_json(&body)
        .map_err(|e| format!("request to {url} failed: {e}"))?;
    let reader = std::io::BufReader::new(response.into_body().into_reader());
    let mut finish_reason = String::new();
    let mut done = false;
    for line in reader.lines() {
        let line = line.map_err(|e| format!("reading the stream from {url}: {e}"))?;
        if let Some(error) = line.strip_prefix("error:") {
            return Err(format!(
                "{url} sent an error in the stream: {}",
                error.trim()
            ));
        }
        let Some(data) = line.strip_prefix("data:").map(str::trim) else {
            continue; // comments, `event:` and `id:` lines, blank separators
        };
        if data == "[DONE]" {
            done = true;
            break;
        }
        let event = serde_json::from_str::<Value>(data)
            .map_err(|e| format!("{url} sent a stream event that is not JSON ({e}): {data}"))?;
        if !event["error"].is_null() {
            return Err(format!(
                "{url} sent an error in the stream: {}",
                event["error"]
            ));
        }
        let choice = &event["choices"][0];
        if let Some(piece) = choice["delta"]["content"].as_str() {
            on_delta(piece);
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            finish_reason = reason.to_owned();
        }
    }
    if !done && finish_reason.is_empty() {
        return Err(format!(
            "the stream from {url} stopped before its end: the reply may be cut"
        ));
    }
    Ok(finish_reason)
}
