//! What a user running each server meets, checked against the server itself
//! (`scripts/model-server.sh run-each cargo test --test e2e_servers -- --ignored`):
//! the server is the build the script installs, a grammar beside tools is
//! refused by the server as `constrain_request` refuses it, and a JSON Schema's
//! properties come back in declaration order.

mod common;

use common::server::{ask, get, post_status, request, Kind};
use serde_json::{json, Value};
use toon_core::{
    constrain_request, schema::response_format, schema::SchemaDialect, schema::Tool, GrammarServer,
    GrammarSyntax, OutputSchema, Toon,
};

/// A country and its capital, declared out of alphabetical order.
#[derive(Debug, Toon, OutputSchema, serde::Deserialize)]
struct Place {
    /// The country asked about.
    zeta_country: String,
    /// Its capital city.
    alpha_capital: String,
}

/// The same, with an optional field declared first.
#[derive(Debug, Toon, OutputSchema, serde::Deserialize)]
struct NotedPlace {
    /// Anything worth saying about the city, or null.
    note: Option<String>,
    /// The country asked about.
    zeta_country: String,
    /// Its capital city.
    alpha_capital: String,
}

#[test]
#[ignore = "needs a model server: scripts/model-server.sh run-each cargo test --test e2e_servers -- --ignored"]
fn the_server_is_the_build_the_script_installs() {
    match Kind::current() {
        Kind::LlamaServer => {
            let props = get("/props");
            let build = props["build_info"].as_str().unwrap_or_default();
            assert!(build.starts_with("b11434-"), "{props}");
            assert_eq!(
                props["total_slots"], 1,
                "one slot: replies never share the cores"
            );
        }
        Kind::LlamaCppPython => {
            let python = std::env::var("TOON_MODEL_PYTHON").expect("TOON_MODEL_PYTHON");
            let out = std::process::Command::new(python)
                .args(["-c", "import llama_cpp; print(llama_cpp.__version__)"])
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0.3.36");
        }
    }
    let info = std::env::var("TOON_MODEL_INFO").unwrap_or_default();
    assert!(info.contains("SmolLM2-135M-Instruct"), "{info}");
}

/// llama.cpp refuses a grammar together with tools; `constrain_request`
/// refuses it first, by name, and the server's own answer is the 400 it names.
#[test]
#[ignore = "needs a model server: scripts/model-server.sh run-each cargo test --test e2e_servers -- --ignored"]
fn a_grammar_beside_tools_is_refused_as_the_server_refuses_it() {
    let tool = Tool::of::<Place>();
    let mut body = request(
        "Answer by calling the tool.",
        None,
        "What is the capital of France?",
        json!({"tools": [tool.openai()]}),
    );
    let err = constrain_request::<Place>(&mut body, GrammarServer::LlamaCpp).unwrap_err();
    assert!(err.to_string().contains("HTTP 400"), "{err}");
    // The same body with the grammar put in by hand, as a caller might.
    body["grammar"] = json!(Place::toon_grammar(GrammarSyntax::Gbnf));
    body["max_tokens"] = json!(40);
    let (status, answer) = post_status("/v1/chat/completions", &body);
    match Kind::current() {
        Kind::LlamaServer => {
            assert_eq!(status, 400, "{answer}");
            let message = answer["error"]["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("grammar") && message.contains("tools"),
                "{answer}"
            );
        }
        // llama-cpp-python answers 200, holds the reply to the grammar and
        // drops the tools without a word (no call can come): as much a reason
        // to refuse the pair before it is sent.
        Kind::LlamaCppPython => {
            assert_eq!(status, 200, "{answer}");
            let message = &answer["choices"][0]["message"];
            assert!(message["tool_calls"].is_null(), "{answer}");
            let text = message["content"].as_str().unwrap_or_default();
            assert!(text.starts_with("zeta_country: "), "{answer}");
        }
    }
}

/// Asks for `T` as JSON under `schema` (a `response_format`, or llama-server's
/// `json_schema` field) and returns the keys of the reply's object in order.
fn keys_in_order<T: OutputSchema>(extra: Value) -> Vec<String> {
    let system = format!(
        "Answer with one JSON object following these declarations:\n\n{}",
        T::schema_prompt()
    );
    let mut fields = json!({"temperature": 0, "max_tokens": 120});
    for (k, v) in extra.as_object().unwrap() {
        fields[k.as_str()] = v.clone();
    }
    let reply = ask(&request(
        &system,
        None,
        "What is the capital of France?",
        fields,
    ));
    // The keys as the model wrote them, in order, whether or not the reply was cut.
    let mut keys = Vec::new();
    for name in ["note", "zeta_country", "alpha_capital"] {
        if let Some(at) = reply.text.find(&format!("\"{name}\"")) {
            keys.push((at, name.to_owned()));
        }
    }
    keys.sort();
    keys.into_iter().map(|(_, k)| k).collect()
}

#[test]
#[ignore = "needs a model server: scripts/model-server.sh run-each cargo test --test e2e_servers -- --ignored"]
fn a_schemas_properties_come_back_in_declaration_order() {
    // Every property is required (a strict-mode schema lists them all, an
    // `Option` as nullable), so no server moves an optional one after the rest.
    assert_eq!(
        NotedPlace::json_schema()["required"],
        json!(["note", "zeta_country", "alpha_capital"])
    );
    let kind = Kind::current();
    let mut ways = vec![json!({"response_format": response_format::<Place>(kind.dialect())})];
    let mut noted = vec![json!({"response_format": response_format::<NotedPlace>(kind.dialect())})];
    if kind == Kind::LlamaServer {
        // llama-server's own field, and the other dialect's form, which it takes too.
        ways.push(json!({"json_schema": Place::json_schema()}));
        ways.push(
            json!({"response_format": response_format::<Place>(SchemaDialect::LlamaCppPython)}),
        );
        noted.push(json!({"json_schema": NotedPlace::json_schema()}));
    }
    for extra in ways {
        assert_eq!(
            keys_in_order::<Place>(extra.clone()),
            ["zeta_country", "alpha_capital"],
            "{extra}"
        );
    }
    for extra in noted {
        assert_eq!(
            keys_in_order::<NotedPlace>(extra.clone()),
            ["note", "zeta_country", "alpha_capital"],
            "{extra}"
        );
    }
}

/// Each type of this file, declared at run time from this file's source,
/// gives the derived type's artefacts (tests/declared.rs has the readings).
#[test]
fn declared_at_run_time_alike() {
    common::declared::agree(
        include_str!("e2e_servers.rs"),
        &crate::derived![Place, NotedPlace],
    );
}
