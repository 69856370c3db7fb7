//! What a call site can measure: `retry::Measures` of an ask (attempts,
//! repairs by kind, refusals, finish reasons, tokens), and the same as
//! `tracing` events (the `tracing` feature, on for these tests), captured by
//! a subscriber of the test's own.

mod common;

use std::sync::{Arc, Mutex};

use common::types::Capital;
use serde_json::{json, Value};
use toon_core::exchange::{Exchange, Mechanism, Server};
use toon_core::retry::Measures;
use toon_core::{FinishReason, ParseErrorKind, RepairKind, ReplyOptions, ToonOutputParser};

fn response(reply: &str, finish: &str, tokens: u64) -> Value {
    json!({"choices": [{"finish_reason": finish, "message": {"content": reply}}],
           "usage": {"completion_tokens": tokens}})
}

/// An ask refused once (no answer), then read with two repairs.
fn ask_twice() -> Measures {
    let ex = Exchange::<Capital>::new(Mechanism::Prompted, Server::LlamaServer);
    let mut ask = ex.ask("What is the capital of France?");
    assert!(ask
        .read(&response("I do not know.", "stop", 5))
        .unwrap()
        .is_none());
    let done = ask
        .read(&response(
            "Sure!\ncountry: France\ncapital: Paris\nnote: x",
            "stop",
            14,
        ))
        .unwrap()
        .unwrap();
    done.measures()
}

#[test]
fn an_ask_gives_the_counts_a_dashboard_reads() {
    let m = ask_twice();
    assert_eq!(m.attempts, 2);
    assert!(m.read);
    assert_eq!(
        m.repairs,
        [(RepairKind::StrippedProse, 1), (RepairKind::IgnoredKey, 1)]
    );
    assert_eq!(m.repairs_text(), "stripped_prose=1,ignored_key=1");
    assert_eq!(m.refusals.len(), 1);
    assert_eq!(m.refusals[0].0, ParseErrorKind::InvalidValue);
    assert_eq!(m.finish_reasons, [FinishReason::Stop, FinishReason::Stop]);
    assert_eq!(m.completion_tokens, Some(19));
}

#[test]
fn an_ask_that_gives_up_counts_every_refusal() {
    let ex = Exchange::<Capital>::new(Mechanism::Prompted, Server::LlamaServer).attempts(2);
    let mut ask = ex.ask("q");
    assert!(ask.read(&response("no", "stop", 2)).unwrap().is_none());
    let err = ask
        .read(&response("country: France\ncapital: Par", "length", 3))
        .unwrap_err();
    let m = err.measures();
    assert_eq!((m.attempts, m.read), (2, false));
    assert_eq!(
        m.refusals.iter().map(|r| r.0).collect::<Vec<_>>(),
        [ParseErrorKind::InvalidValue, ParseErrorKind::Truncated]
    );
    assert_eq!(m.refusals[1].1, Some(2));
    assert_eq!(m.finish_reasons, [FinishReason::Stop, FinishReason::Length]);
    assert!(m.repairs.is_empty());
    // A response without usage: no token count, rather than a wrong one.
    let mut ask = ex.ask("q");
    let no_usage = json!({"choices": [{"finish_reason": "stop", "message": {"content": "capital: Paris\ncountry: France"}}]});
    assert_eq!(
        ask.read(&no_usage)
            .unwrap()
            .unwrap()
            .measures()
            .completion_tokens,
        None
    );
}

/// One captured event: its message and fields, as `name=value`.
#[derive(Debug, Clone)]
struct Captured {
    message: String,
    fields: Vec<(String, String)>,
    spans: Vec<String>,
}

impl Captured {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A subscriber that keeps every event and the spans it was in.
#[derive(Default, Clone)]
struct Capture {
    events: Arc<Mutex<Vec<Captured>>>,
    spans: Arc<Mutex<Vec<(u64, String)>>>,
    stack: Arc<Mutex<Vec<u64>>>,
}

struct Fields<'a>(&'a mut Vec<(String, String)>);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}")));
    }
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
}

impl tracing::Subscriber for Capture {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut fields = Vec::new();
        span.record(&mut Fields(&mut fields));
        let text = fields
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        let mut spans = self.spans.lock().unwrap();
        let id = spans.len() as u64 + 1;
        spans.push((id, format!("{} {text}", span.metadata().name())));
        tracing::span::Id::from_u64(id)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = Vec::new();
        event.record(&mut Fields(&mut fields));
        let message = fields
            .iter()
            .find(|(n, _)| n == "message")
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let spans = self.spans.lock().unwrap();
        let open = self
            .stack
            .lock()
            .unwrap()
            .iter()
            .filter_map(|id| spans.iter().find(|(i, _)| i == id).map(|(_, s)| s.clone()))
            .collect();
        self.events.lock().unwrap().push(Captured {
            message,
            fields,
            spans: open,
        });
    }
    fn enter(&self, span: &tracing::span::Id) {
        self.stack.lock().unwrap().push(span.into_u64());
    }
    fn exit(&self, _: &tracing::span::Id) {
        self.stack.lock().unwrap().pop();
    }
}

fn captured(f: impl FnOnce()) -> Vec<Captured> {
    let capture = Capture::default();
    tracing::subscriber::with_default(capture.clone(), f);
    let events = capture.events.lock().unwrap().clone();
    events
}

#[test]
fn each_reading_and_each_ask_is_a_tracing_event() {
    let events = captured(|| {
        ask_twice();
    });
    // Each reply read or refused, at DEBUG, inside the ask's span.
    let reads: Vec<&Captured> = events
        .iter()
        .filter(|e| e.message.starts_with("reply"))
        .collect();
    assert_eq!(reads.len(), 2, "{events:#?}");
    assert_eq!(reads[0].field("read"), Some("false"));
    assert_eq!(reads[0].field("refusal"), Some("invalid value"));
    assert_eq!(reads[1].field("read"), Some("true"));
    assert_eq!(
        reads[1].field("repair_kinds"),
        Some("stripped_prose=1,ignored_key=1")
    );
    assert_eq!(reads[1].field("finish_reason"), Some("Stop"));
    for r in &reads {
        assert!(r.field("type").unwrap().ends_with("Capital"), "{r:?}");
        assert!(
            r.spans.iter().any(|s| s.starts_with("toon.ask")
                && s.contains("mechanism=Prompted")
                && s.contains("server=LlamaServer")),
            "{r:?}"
        );
    }
    // The ask settled: every count of `Measures`.
    let settled: Vec<&Captured> = events
        .iter()
        .filter(|e| e.message == "ask settled")
        .collect();
    assert_eq!(settled.len(), 1, "{events:#?}");
    let s = settled[0];
    assert_eq!(s.field("attempts"), Some("2"));
    assert_eq!(s.field("read"), Some("true"));
    assert_eq!(s.field("completion_tokens"), Some("19"));
    assert_eq!(s.field("refusals"), Some("invalid value@1"));
}

#[test]
fn a_parse_outside_an_ask_is_one_event() {
    let events = captured(|| {
        let parser = ToonOutputParser::<Capital>::new().options(ReplyOptions {
            finish_reason: FinishReason::Length,
            ..ReplyOptions::default()
        });
        assert!(parser
            .parse_with_report("country: Peru\ncapital: Li")
            .is_err());
    });
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0].field("refusal"), Some("truncated"));
    assert_eq!(events[0].field("line"), Some("2"));
    assert_eq!(events[0].field("format"), Some("toon"));
    assert!(events[0].spans.is_empty());
}
