//! A type as a tool: OpenAI and Anthropic definitions, the forcing
//! `tool_choice`, JSON mode, and the call's arguments read back.

mod common;

use common::types::*;
use serde_json::{json, Value};
use toon_core::{
    schema::json_mode, schema::strict_violations, schema::Tool, OutputSchema, ParseErrorKind,
};

fn all_tools() -> Vec<Tool> {
    vec![
        Tool::of::<Capital>(),
        Tool::of::<ComplianceAnalysis>(),
        Tool::of::<Answer>(),
        Tool::of::<Detections>(),
        Tool::of::<Finding>(),
        Tool::of::<Severity>(),
    ]
}

#[test]
fn every_tool_definition_meets_strict_mode() {
    for tool in all_tools() {
        let def = tool.openai();
        let violations = strict_violations(&def["function"]["parameters"]);
        assert!(violations.is_empty(), "{}: {violations:?}", tool.name());
        assert_eq!(def["function"]["strict"], true, "{}", tool.name());
        assert_eq!(
            tool.anthropic()["input_schema"],
            def["function"]["parameters"]
        );
    }
}

#[test]
fn a_root_strict_mode_cannot_take_is_wrapped_and_unwrapped() {
    // A tagged enum's schema is an `anyOf`: strict mode wants an object.
    assert!(!strict_violations(&Finding::json_schema()).is_empty());
    let tool = Tool::of::<Finding>();
    assert_eq!(tool.parameters()["required"], json!(["value"]));
    let response = json!({"choices": [{"finish_reason": "tool_calls", "message": {"tool_calls": [
        {"type": "function", "function": {"name": "Finding", "arguments": "{\"value\": {\"status\": \"not_found\", \"reason\": \"no source\"}}"}}
    ]}}]});
    let f: Value = tool.read(&response).unwrap();
    assert_eq!(f, json!({"status": "not_found", "reason": "no source"}));
}

#[test]
fn names_descriptions_and_choices_come_from_the_type_with_an_override() {
    let tool = Tool::of::<ComplianceAnalysis>();
    assert_eq!(tool.name(), "ComplianceAnalysis");
    assert_eq!(
        tool.openai()["function"]["description"],
        "The result of checking a document against the rules."
    );
    let renamed = tool
        .clone()
        .named("report compliance!")
        .described("File the result.");
    assert_eq!(
        renamed.openai_choice(),
        json!({"type": "function", "function": {"name": "reportcompliance"}})
    );
    assert_eq!(
        renamed.anthropic_choice(),
        json!({"type": "tool", "name": "reportcompliance"})
    );
    assert_eq!(renamed.anthropic()["description"], "File the result.");
    assert_eq!(json_mode(), json!({"type": "json_object"}));
    insta::assert_snapshot!(
        "capital_openai_tool",
        serde_json::to_string_pretty(&Tool::of::<Capital>().openai()).unwrap()
    );
    insta::assert_snapshot!(
        "finding_anthropic_tool",
        serde_json::to_string_pretty(&Tool::of::<Finding>().anthropic()).unwrap()
    );
}

#[test]
fn the_calls_arguments_are_read_back_with_the_json_paths_refusals() {
    let tool = Tool::of::<Capital>();
    let openai = |arguments: &str, finish: &str| {
        json!({"choices": [{"finish_reason": finish, "message": {"content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "Capital", "arguments": arguments}}
        ]}}]})
    };
    let c: Capital = tool
        .read(&openai(
            "{\"country\": \"Peru\", \"capital\": \"Lima\"}",
            "tool_calls",
        ))
        .unwrap();
    assert_eq!(c.capital, "Lima");
    let cut = tool
        .read::<Capital>(&openai("{\"country\": \"Peru\", \"capi", "length"))
        .unwrap_err();
    assert_eq!(cut.kind(), ParseErrorKind::Truncated);
    let missing = tool
        .read::<Capital>(&openai("{\"country\": \"Peru\"}", "tool_calls"))
        .unwrap_err();
    assert_eq!(missing.kind(), ParseErrorKind::MissingField);
    let anthropic = json!({"content": [
        {"type": "text", "text": "Calling the tool."},
        {"type": "tool_use", "id": "t1", "name": "Capital", "input": {"country": "Chile", "capital": "Santiago"}}
    ]});
    assert_eq!(
        tool.read::<Capital>(&anthropic).unwrap().capital,
        "Santiago"
    );
    let none = tool
        .read::<Capital>(&json!({"choices": [{"message": {"content": "Lima"}}]}))
        .unwrap_err();
    assert_eq!(none.kind(), ParseErrorKind::EmptyCompletion);
    assert!(none.message().contains("tool_choice"), "{none}");
}

/// The fields each mechanism adds to a chat request, for one type: what the
/// server is sent is a behaviour, pinned here as one snapshot.
#[test]
fn every_mechanisms_request_is_pinned() {
    use toon_core::{
        constrain_request, schema::response_format, schema::SchemaDialect, GrammarServer,
    };
    let tool = Tool::of::<Capital>();
    let constrained = |server: GrammarServer| {
        let mut body = json!({"model": "m", "messages": []});
        constrain_request::<Capital>(&mut body, server).unwrap();
        body
    };
    // The Responses API takes `input` where chat takes `messages`.
    let mut responses = json!({"model": "m", "input": []});
    constrain_request::<Capital>(&mut responses, GrammarServer::OpenAiResponses).unwrap();
    let bodies = json!({
        "json_schema_openai": {"response_format": response_format::<Capital>(SchemaDialect::OpenAi)},
        "json_schema_llama_cpp_python": {"response_format": response_format::<Capital>(SchemaDialect::LlamaCppPython)},
        "json_mode": {"response_format": json_mode()},
        "tool_openai": {"tools": [tool.openai()], "tool_choice": tool.openai_choice()},
        "tool_anthropic": {"tools": [tool.anthropic()], "tool_choice": tool.anthropic_choice()},
        "grammar_llama_cpp": constrained(GrammarServer::LlamaCpp),
        "grammar_vllm": constrained(GrammarServer::Vllm),
        "grammar_openai": constrained(GrammarServer::OpenAi),
        "grammar_openai_responses": responses,
    });
    insta::assert_snapshot!(
        "capital_request_bodies",
        serde_json::to_string_pretty(&bodies).unwrap()
    );
}

/// An expression tree: a tagged enum, so wrapped as a tool, that refers to itself.
#[derive(Debug, PartialEq, toon_core::Toon, OutputSchema)]
#[toon(tag = "kind")]
enum Expr {
    Num { value: i32 },
    Neg { inner: Box<Expr> },
}

#[test]
fn a_wrapped_type_that_refers_to_itself_still_refers_to_itself() {
    // Unwrapped, the type refers to itself as the root.
    assert!(Expr::json_schema().to_string().contains(r##""$ref":"#""##));
    let tool = Tool::of::<Expr>();
    let params = tool.parameters();
    // Wrapped, `#` is the wrapper: the type moves into `$defs`.
    assert!(!params.to_string().contains(r##""$ref":"#""##), "{params}");
    assert_eq!(params["properties"]["value"]["$ref"], "#/$defs/Expr");
    assert!(
        strict_violations(params).is_empty(),
        "{:?}",
        strict_violations(params)
    );
    let validator = jsonschema::draft202012::new(params).unwrap();
    let nested = json!({"value": {"kind": "Neg", "inner": {"kind": "Neg", "inner": {"kind": "Num", "value": 1}}}});
    assert!(validator.is_valid(&nested));
    // What the old `#` would have demanded: the wrapper again, inside.
    let rewrapped =
        json!({"value": {"kind": "Neg", "inner": {"value": {"kind": "Num", "value": 1}}}});
    assert!(!validator.is_valid(&rewrapped));
}

/// A type whose Rust name OpenAI's name pattern (`^[a-zA-Z0-9_-]{1,64}$`) refuses.
#[derive(Debug, PartialEq, toon_core::Toon, OutputSchema)]
struct Größe {
    wert: u8,
}

#[test]
fn names_sent_to_openai_keep_to_its_pattern() {
    assert_eq!(Tool::of::<Größe>().name(), "Gre");
    let rf =
        toon_core::schema::response_format::<Größe>(toon_core::schema::SchemaDialect::OpenAi);
    assert_eq!(rf["json_schema"]["name"], "Gre");
}

fn openai_call(name: &str, arguments: &str) -> Value {
    json!({"choices": [{"finish_reason": "tool_calls", "message": {"content": null, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}
    ]}}]})
}

#[test]
fn a_wrapped_call_must_hold_its_value_and_only_it() {
    let tool = Tool::of::<Option<Capital>>();
    let read = |arguments: &str| tool.read::<Option<Capital>>(&openai_call(tool.name(), arguments));
    let peru = "{\"country\": \"Peru\", \"capital\": \"Lima\"}";
    assert_eq!(
        read(&format!("{{\"value\": {peru}}}"))
            .unwrap()
            .unwrap()
            .capital,
        "Lima"
    );
    assert_eq!(read("{\"value\": null}").unwrap(), None);
    // An empty call is not "nothing found", and an unwrapped object is not dropped.
    assert_eq!(read("{}").unwrap_err().kind(), ParseErrorKind::MissingField);
    let unwrapped = read(peru).unwrap_err();
    assert_eq!(
        (unwrapped.kind(), unwrapped.message()),
        (ParseErrorKind::MissingField, "the answer's one property `value` is missing: found an object with the keys `country`, `capital`; write the answer as the value of `value`, and nothing beside it"),
    );
    let beside = read(&format!("{{\"value\": {peru}, \"note\": 1}}")).unwrap_err();
    assert_eq!(beside.kind(), ParseErrorKind::InvalidValue, "{beside}");
    assert!(beside.message().contains("beside other keys"), "{beside}");
    let twice = read(&format!("{{\"value\": null, \"value\": {peru}}}")).unwrap_err();
    assert!(twice.message().contains("duplicate key `value`"), "{twice}");
    // The same through Anthropic's parsed input.
    let anthropic = json!({"content": [{"type": "tool_use", "name": tool.name(), "input": {}}]});
    assert_eq!(
        tool.read::<Option<Capital>>(&anthropic).unwrap_err().kind(),
        ParseErrorKind::MissingField
    );
}

#[test]
fn a_calls_arguments_are_read_from_their_text() {
    let tool = Tool::of::<Capital>();
    // Two values of one key: which one the model meant is a guess.
    let twice = tool
        .read::<Capital>(&openai_call(
            "Capital",
            "{\"country\": \"Peru\", \"capital\": \"Lima\", \"capital\": \"Cusco\"}",
        ))
        .unwrap_err();
    assert!(
        twice.message().contains("duplicate key `capital`"),
        "{twice}"
    );
    // A wrong value says where it is, and asks again for JSON.
    let wrong = tool
        .read::<Capital>(&openai_call(
            "Capital",
            "{\"country\": \"Peru\",\n\"capital\": [5]}",
        ))
        .unwrap_err();
    assert_eq!(wrong.kind(), ParseErrorKind::InvalidValue);
    assert_eq!(wrong.line(), Some(2));
    assert!(
        wrong.retry_prompt().contains("one JSON value"),
        "{}",
        wrong.retry_prompt()
    );
    // A list's call of `[]` is an empty list, not a TOON header.
    let list = Tool::of::<Vec<Capital>>();
    assert_eq!(
        list.read::<Vec<Capital>>(&openai_call(list.name(), "{\"value\": []}"))
            .unwrap(),
        Vec::new()
    );
}

#[test]
fn an_anthropic_call_stopped_at_max_tokens_is_truncated() {
    let tool = Tool::of::<Capital>();
    let cut = json!({"stop_reason": "max_tokens", "content": [
        {"type": "tool_use", "id": "t1", "name": "Capital", "input": {"country": "Peru", "capital": "Lima"}}]});
    let err = tool.read::<Capital>(&cut).unwrap_err();
    assert_eq!(err.kind(), ParseErrorKind::Truncated);
    assert!(err.message().contains("max_tokens"), "{err}");
    let whole = json!({"stop_reason": "tool_use", "content": [
        {"type": "tool_use", "id": "t1", "name": "Capital", "input": {"country": "Peru", "capital": "Lima"}}]});
    assert_eq!(tool.read::<Capital>(&whole).unwrap().capital, "Lima");
}

#[test]
fn arguments_sent_as_an_object_are_read_as_its_text() {
    let tool = Tool::of::<Capital>();
    let response = json!({"choices": [{"finish_reason": "tool_calls", "message": {"tool_calls": [
        {"type": "function", "function": {"name": "Capital", "arguments": {"country": "Peru", "capital": "Lima"}}}
    ]}}]});
    assert_eq!(tool.read::<Capital>(&response).unwrap().capital, "Lima");
}

/// A key written twice in arguments that arrive as an object (Anthropic's
/// `input`, or a server's object arguments) is refused when the response is
/// read from its text; read from a parsed `Value` it is gone before the call.
#[test]
fn a_key_twice_in_object_arguments_is_refused_from_the_body() {
    let tool = Tool::of::<Capital>();
    let bodies = [
        r#"{"content": [{"type": "tool_use", "name": "Capital", "input": {"country": "Peru", "capital": "Lima", "capital": "Cusco"}}], "stop_reason": "tool_use"}"#,
        r#"{"content": [{"type": "tool_use", "name": "Capital", "input": {"country": "Peru", "country": "Chile", "capital": "Lima"}}], "stop_reason": "tool_use"}"#,
        r#"{"choices": [{"finish_reason": "tool_calls", "message": {"tool_calls": [
            {"type": "function", "function": {"name": "Capital", "arguments": {"country": "Peru", "capital": "Lima", "capital": "Cusco"}}}]}}]}"#,
        // Arguments as JSON text: the JSON path refuses it inside the string.
        r#"{"choices": [{"finish_reason": "tool_calls", "message": {"tool_calls": [
            {"type": "function", "function": {"name": "Capital", "arguments": "{\"country\": \"Peru\", \"capital\": \"Lima\", \"capital\": \"Cusco\"}"}}]}}]}"#,
        r#"{"content": [{"type": "tool_use", "name": "Capital", "input": {"country": "Peru", "capital": "Lima"}}], "content": [], "stop_reason": "tool_use"}"#,
    ];
    for body in bodies {
        let err = tool.read_body::<Capital>(body).unwrap_err();
        assert_eq!(err.kind(), ParseErrorKind::Syntax, "{body}\n{err}");
        assert!(
            err.message().contains("twice") || err.message().contains("duplicate"),
            "{err}"
        );
    }
    let once = r#"{"content": [{"type": "tool_use", "name": "Capital", "input": {"country": "Peru", "capital": "Lima"}}], "stop_reason": "tool_use"}"#;
    assert_eq!(tool.read_body::<Capital>(once).unwrap().capital, "Lima");
    let err = tool.read_body::<Capital>("{\"content\": [").unwrap_err();
    assert!(err.message().contains("not one JSON value"), "{err}");
}

/// A response the token limit stopped before the call came is a cut, named
/// so, never "the model did not call the tool"; a call whose arguments are
/// not JSON text says so.
#[test]
fn a_response_cut_before_its_call_is_truncated() {
    let tool = Tool::of::<Capital>();
    let openai = json!({"choices": [{"finish_reason": "length", "message": {"content": null}}]});
    let anthropic =
        json!({"content": [{"type": "text", "text": "Let me think"}], "stop_reason": "max_tokens"});
    for response in [openai, anthropic] {
        let e = tool.read::<Capital>(&response).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::Truncated, "{e}");
        assert!(e.to_string().contains("raise max_tokens"), "{e}");
    }
    // Stopped normally with no call: the model did not call it.
    let none = json!({"choices": [{"finish_reason": "stop", "message": {"content": "Lima."}}]});
    assert_eq!(
        tool.read::<Capital>(&none).unwrap_err().kind(),
        ParseErrorKind::EmptyCompletion
    );
    let null_args = json!({"choices": [{"finish_reason": "tool_calls", "message": {"tool_calls": [
        {"type": "function", "function": {"name": "Capital", "arguments": null}}
    ]}}]});
    let e = tool.read::<Capital>(&null_args).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Syntax);
    assert!(e.to_string().contains("not JSON text"), "{e}");
}

/// Two calls of the tool are two answers: refused, never one of them taken.
/// A refusal or a content filter with no call is named as such, not as a
/// missing `tool_choice`.
#[test]
fn two_calls_a_refusal_and_a_filter_are_named() {
    let tool = Tool::of::<Capital>();
    let call = |country: &str| {
        json!({"type": "function", "function": {"name": "Capital",
            "arguments": format!("{{\"country\": \"{country}\", \"capital\": \"x\"}}")}})
    };
    let two = json!({"choices": [{"finish_reason": "tool_calls",
        "message": {"tool_calls": [call("Peru"), call("Chile")]}}]});
    let e = tool.read::<Capital>(&two).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Syntax);
    assert!(
        e.to_string().contains("2 calls of the tool `Capital`"),
        "{e}"
    );
    // Another tool's call beside it is not this tool's answer.
    let beside = json!({"choices": [{"finish_reason": "tool_calls", "message": {"tool_calls": [
        {"type": "function", "function": {"name": "shell", "arguments": "{}"}}, call("Peru")
    ]}}]});
    assert_eq!(tool.read::<Capital>(&beside).unwrap().country, "Peru");
    let anthropic = json!({"content": [
        {"type": "tool_use", "name": "Capital", "input": {"country": "Peru", "capital": "Lima"}},
        {"type": "tool_use", "name": "Capital", "input": {"country": "Chile", "capital": "Santiago"}}
    ], "stop_reason": "tool_use"});
    assert_eq!(
        tool.read::<Capital>(&anthropic).unwrap_err().kind(),
        ParseErrorKind::Syntax
    );

    let refused = json!({"choices": [{"finish_reason": "stop",
        "message": {"content": null, "refusal": "I can't help with that."}}]});
    let e = tool.read::<Capital>(&refused).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::EmptyCompletion);
    assert!(
        e.to_string()
            .contains("refused (\"I can't help with that.\")"),
        "{e}"
    );
    assert!(!e.to_string().contains("tool_choice"), "{e}");

    let filtered =
        json!({"choices": [{"finish_reason": "content_filter", "message": {"content": null}}]});
    let e = tool.read::<Capital>(&filtered).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Truncated);
    assert!(e.to_string().contains("content filter"), "{e}");
}

/// Each type of this file, declared at run time from this file's source,
/// gives the derived type's artefacts (tests/declared.rs has the readings).
#[test]
fn declared_at_run_time_alike() {
    common::declared::agree(include_str!("tools.rs"), &crate::derived![Expr, Größe]);
}
