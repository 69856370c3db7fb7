//! The exchange with no I/O: the request body it builds for each mechanism
//! and server (pinned, since what the model is shown is a behaviour), and a
//! fake transport driven through a refusal and the retry.

mod common;

use common::types::Capital;
use serde_json::{json, Value};
use toon_core::exchange::{Exchange, Mechanism, Server};
use toon_core::retry::RetryError;
use toon_core::{ParseErrorKind, RepairKind, ToonOutputParser};

const MECHANISMS: [(Mechanism, &str); 4] = [
    (Mechanism::Grammar, "grammar"),
    (Mechanism::JsonSchema, "json_schema"),
    (Mechanism::Tool, "tool"),
    (Mechanism::Prompted, "prompted"),
];
const SERVERS: [(Server, &str); 4] = [
    (Server::LlamaServer, "llama_server"),
    (Server::LlamaCppPython, "llama_cpp_python"),
    (Server::Vllm, "vllm"),
    (Server::OpenAi, "openai"),
];

fn lima() -> Capital {
    Capital {
        country: "Peru".into(),
        capital: "Lima".into(),
    }
}

fn exchange(m: Mechanism, s: Server) -> Exchange<Capital> {
    Exchange::<Capital>::new(m, s)
        .instructions("You answer questions about geography.")
        .example("What is the capital of Peru?", &lima())
        .field("model", json!("local"))
        .field("temperature", json!(0))
}

/// Every first request, per mechanism and server.
#[test]
fn every_exchange_request_is_pinned() {
    let mut bodies = serde_json::Map::new();
    for (m, m_name) in MECHANISMS {
        for (s, s_name) in SERVERS {
            let body = exchange(m, s).ask("What is the capital of France?").body();
            bodies.insert(format!("{m_name}_{s_name}"), body);
        }
    }
    insta::assert_snapshot!(
        "capital_exchange_bodies",
        serde_json::to_string_pretty(&bodies).unwrap()
    );
}

/// A response as each server kind sends it, for the mechanism's reply.
fn response(m: Mechanism, reply: &str, finish: &str, tokens: u64) -> Value {
    let message = match m {
        Mechanism::Tool => json!({"content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "Capital", "arguments": reply}}]}),
        _ => json!({"content": reply}),
    };
    json!({"choices": [{"finish_reason": finish, "message": message}],
           "usage": {"prompt_tokens": 100, "completion_tokens": tokens}})
}

/// The reply the mechanism asks for, and a refused one.
fn replies(m: Mechanism) -> (&'static str, &'static str) {
    match m {
        Mechanism::Grammar | Mechanism::Prompted => (
            "country: France\ncapital:",
            "country: France\ncapital: Paris",
        ),
        _ => (
            r#"{"country": "France"}"#,
            r#"{"country": "France", "capital": "Paris"}"#,
        ),
    }
}

#[test]
fn a_refusal_is_asked_again_and_every_attempt_kept() {
    for (m, name) in MECHANISMS {
        let ex = exchange(m, Server::LlamaServer);
        let mut ask = ex.ask("What is the capital of France?");
        let (refused, good) = replies(m);
        let first = ask.body();
        assert!(
            ask.read(&response(m, refused, "stop", 9))
                .unwrap()
                .is_none(),
            "{name}"
        );
        // The next request: the refused reply, then the refusal's retry turn.
        let next = ask.body();
        let sent = next["messages"].as_array().unwrap();
        assert_eq!(
            sent.len(),
            first["messages"].as_array().unwrap().len() + 2,
            "{name}"
        );
        assert_eq!(
            sent[sent.len() - 2],
            json!({"role": "assistant", "content": refused}),
            "{name}"
        );
        let again = sent[sent.len() - 1]["content"].as_str().unwrap();
        assert!(
            again.starts_with("Your answer could not be used."),
            "{name}: {again}"
        );
        let format = match m {
            Mechanism::Grammar | Mechanism::Prompted => "in TOON",
            _ => "in one JSON value",
        };
        assert!(again.contains(format), "{name}: {again}");
        // Everything but the messages is the same request.
        let strip = |mut b: Value| {
            b.as_object_mut().unwrap().remove("messages");
            b
        };
        assert_eq!(strip(next), strip(first), "{name}");
        let done = ask.read(&response(m, good, "stop", 12)).unwrap().unwrap();
        assert_eq!(done.value.capital, "Paris", "{name}");
        let tokens: Vec<Option<u64>> = done.attempts.iter().map(|a| a.completion_tokens).collect();
        assert_eq!(tokens, [Some(9), Some(12)], "{name}");
        let refusal = done.attempts[0].outcome.as_ref().unwrap_err().kind();
        assert!(
            matches!(
                refusal,
                ParseErrorKind::MissingField | ParseErrorKind::InvalidValue
            ),
            "{name}: {refusal:?}"
        );
    }
}

#[test]
fn the_attempts_run_out_with_every_one_kept() {
    let ex = exchange(Mechanism::Prompted, Server::LlamaServer).attempts(2);
    let mut ask = ex.ask("What is the capital of France?");
    assert!(ask
        .read(&response(Mechanism::Prompted, "no idea", "stop", 3))
        .unwrap()
        .is_none());
    let err = ask
        .read(&response(Mechanism::Prompted, "still none", "stop", 3))
        .unwrap_err();
    let RetryError::Refused { attempts } = err else {
        panic!("{err}");
    };
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[1].reply, "still none");
}

/// A cut reply is refused as cut; a server's error is no reply at all.
#[test]
fn a_cut_reply_and_a_servers_error_are_told_apart() {
    let ex = exchange(Mechanism::JsonSchema, Server::LlamaServer);
    let mut ask = ex.ask("What is the capital of France?");
    let cut = response(
        Mechanism::JsonSchema,
        r#"{"country": "France", "capital": "Pa"#,
        "length",
        64,
    );
    assert!(ask.read(&cut).unwrap().is_none());
    assert_eq!(
        ask.attempts()[0].outcome.as_ref().unwrap_err().kind(),
        ParseErrorKind::Truncated
    );
    let error =
        json!({"error": {"code": 500, "message": "the model crashed", "type": "server_error"}});
    let err = ask.read(&error).unwrap_err();
    assert!(err.to_string().contains("the model crashed"), "{err}");
    assert!(matches!(err, RetryError::Send { ref attempts, .. } if attempts.len() == 1));
}

/// The parser's options and the caller's check hold on every mechanism.
#[test]
fn the_callers_check_refuses_through_the_exchange() {
    let parser = ToonOutputParser::<Capital>::new().validate(|c| match c.capital.as_str() {
        "Paris" => Err("Paris is the capital of France, not of the country asked about".into()),
        _ => Ok(()),
    });
    for (m, name) in MECHANISMS {
        let ex = exchange(m, Server::LlamaCppPython).parser(parser.clone());
        let mut ask = ex.ask("What is the capital of Peru?");
        let (_, paris) = replies(m);
        assert!(
            ask.read(&response(m, paris, "stop", 5)).unwrap().is_none(),
            "{name}"
        );
        let e = ask.attempts()[0].outcome.clone().unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::Constraint, "{name}");
    }
}

/// A list asked for as JSON on a server that takes only an object at the
/// root: wrapped in the request, in the example and in the reading.
#[test]
fn a_list_is_wrapped_where_the_server_takes_only_an_object() {
    let ex = Exchange::<Vec<Capital>>::new(Mechanism::JsonSchema, Server::LlamaServer)
        .example("Capitals of Peru and Chile?", &vec![lima()]);
    let ask = ex.ask("Capitals of France and Spain?");
    let body = ask.body();
    assert_eq!(
        body["messages"][2]["content"],
        r#"{"value":[{"country":"Peru","capital":"Lima"}]}"#
    );
    assert!(body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("one property `value`"));
    let mut ask = ex.ask("Capitals of France and Spain?");
    let reply = r#"{"value": [{"country": "France", "capital": "Paris"}, {"country": "Spain", "capital": "Madrid"}]}"#;
    let done = ask
        .read(&response(Mechanism::JsonSchema, reply, "stop", 30))
        .unwrap()
        .unwrap();
    assert_eq!(done.value.len(), 2);
    // llama-cpp-python takes any root: not wrapped.
    let plain = Exchange::<Vec<Capital>>::new(Mechanism::JsonSchema, Server::LlamaCppPython);
    let mut ask = plain.ask("Capitals of France?");
    let done = ask
        .read(&response(
            Mechanism::JsonSchema,
            r#"[{"country": "France", "capital": "Paris"}]"#,
            "stop",
            9,
        ))
        .unwrap()
        .unwrap();
    assert_eq!(done.value[0].capital, "Paris");
}

/// The grammar's token limit is the longest reply it admits: never cut.
#[test]
fn a_grammar_exchange_sets_the_never_cut_limit() {
    use toon_core::{grammar::GrammarOptions, GrammarSyntax};
    for (s, name) in SERVERS {
        let body = Exchange::<Capital>::new(Mechanism::Grammar, s)
            .ask("?")
            .body();
        let (field, syntax) = match s {
            Server::OpenAi => ("max_completion_tokens", GrammarSyntax::Lark),
            _ => ("max_tokens", GrammarSyntax::Gbnf),
        };
        let worst = GrammarOptions::new(syntax).max_reply_bytes::<Capital>();
        assert_eq!(body[field].as_u64(), Some(worst as u64), "{name}");
    }
    // A reply read with no repair, as a grammar-held reply is.
    let ex = Exchange::<Capital>::new(Mechanism::Grammar, Server::LlamaServer);
    let mut ask = ex.ask("?");
    let done = ask
        .read(&response(Mechanism::Grammar, &lima_toon(), "stop", 8))
        .unwrap()
        .unwrap();
    assert!(done.repairs.is_empty());
    assert!(!done.repairs.iter().any(|r| r.kind == RepairKind::ReadJson));
}

fn lima_toon() -> String {
    use toon_core::Toon;
    lima().to_toon()
}
