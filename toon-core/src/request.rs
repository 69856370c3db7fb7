//! The constrained request, in each server's own field, and the reply read back.

use std::fmt;

use serde_json::{json, Value};

use crate::grammar::GrammarSyntax;
use crate::shape::Shape;
use crate::typed::Toon;

/// Servers that constrain a chat completion to a grammar, each in its own field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GrammarServer {
    /// llama.cpp's `llama-server` and llama-cpp-python's server: `"grammar"`, GBNF.
    /// Neither takes a grammar together with `tools`, and in llama-cpp-python a
    /// `response_format` replaces the grammar, so both are refused.
    LlamaCpp,
    /// vLLM: `"structured_outputs": {"grammar": ...}`, GBNF (read by its default
    /// xgrammar backend; the older `guided_grammar` field is gone since v0.12).
    Vllm,
    /// OpenAI (GPT-5 models, Chat Completions): a custom tool whose input is
    /// constrained by a Lark grammar, and `tool_choice` naming it; the reply
    /// arrives as the tool call's input (read it with [`reply_text`]).
    OpenAi,
}

/// Why a request cannot be constrained as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstrainError {
    message: String,
}

impl ConstrainError {
    fn new(message: impl Into<String>) -> Self {
        ConstrainError {
            message: message.into(),
        }
    }
}

impl fmt::Display for ConstrainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConstrainError {}

/// Adds to an OpenAI-style chat request body (`{"model", "messages", ...}`) the
/// fields with which `server` constrains the reply to `T`'s TOON
/// ([`Toon::toon_grammar`]). Everything else in the body is left as it is.
///
/// ```
/// use serde_json::json;
/// use toon_core::{constrain_request, GrammarServer, Toon};
///
/// let mut body = json!({"model": "local", "messages": [{"role": "user", "content": "Tags?"}]});
/// constrain_request::<Vec<String>>(&mut body, GrammarServer::LlamaCpp).unwrap();
/// assert!(body["grammar"].as_str().unwrap().starts_with("root ::= "));
///
/// // llama.cpp answers a grammar together with tools with HTTP 400: refused here first.
/// let mut with_tools = json!({"messages": [], "tools": [{"type": "function"}]});
/// let err = constrain_request::<Vec<String>>(&mut with_tools, GrammarServer::LlamaCpp).unwrap_err();
/// assert!(err.to_string().contains("tools"));
/// ```
///
/// # Errors
/// The body is not a JSON object, or it already holds a field that the
/// server would let override or conflict with the grammar: `tools` or
/// `response_format` (llama.cpp), `structured_outputs`, `guided_grammar` or
/// `response_format` (vLLM), `tool_choice` or `response_format` (OpenAI); or a
/// `grammar` already set. Nothing is changed then.
pub fn constrain_request<T: Toon>(
    body: &mut Value,
    server: GrammarServer,
) -> Result<(), ConstrainError> {
    let Some(map) = body.as_object_mut() else {
        return Err(ConstrainError::new(
            "the request body is not a JSON object; start from {\"model\": ..., \"messages\": [...]}",
        ));
    };
    let refuse = |key: &str, why: &str| -> Result<(), ConstrainError> {
        if map.contains_key(key) {
            Err(ConstrainError::new(format!(
                "the request already has `{key}`: {why}"
            )))
        } else {
            Ok(())
        }
    };
    match server {
        GrammarServer::LlamaCpp => {
            refuse("tools", "llama.cpp refuses a grammar together with tools (HTTP 400); send the tools in a request of their own")?;
            refuse(
                "response_format",
                "llama-cpp-python lets a response_format replace the grammar; remove it",
            )?;
            refuse("grammar", "remove it, or send this body unchanged")?;
            map.insert(
                "grammar".into(),
                Value::String(T::toon_grammar(GrammarSyntax::Gbnf)),
            );
        }
        GrammarServer::Vllm => {
            refuse(
                "structured_outputs",
                "vLLM takes one constraint a request; remove it",
            )?;
            refuse("guided_grammar", "vLLM removed it in v0.12; remove it")?;
            refuse(
                "response_format",
                "vLLM takes one constraint a request; remove it",
            )?;
            map.insert(
                "structured_outputs".into(),
                json!({"grammar": T::toon_grammar(GrammarSyntax::Gbnf)}),
            );
        }
        GrammarServer::OpenAi => {
            refuse(
                "tool_choice",
                "the grammar's tool must be the one chosen; remove it",
            )?;
            refuse(
                "response_format",
                "a JSON response format and a TOON tool call cannot both be the reply; remove it",
            )?;
            if map.get("tools").is_some_and(|t| !t.is_array()) {
                return Err(ConstrainError::new("the request's `tools` is not a list"));
            }
            let (name, doc) = tool_name_and_doc(&T::__shape());
            let tool = json!({
                "type": "custom",
                "custom": {
                    "name": name,
                    "description": doc,
                    "format": {
                        "type": "grammar",
                        "grammar": {"syntax": "lark", "definition": T::toon_grammar(GrammarSyntax::Lark)},
                    },
                },
            });
            let tools = map.entry("tools").or_insert_with(|| json!([]));
            if let Some(list) = tools.as_array_mut() {
                list.push(tool);
            }
            map.insert(
                "tool_choice".into(),
                json!({"type": "custom", "custom": {"name": name}}),
            );
        }
    }
    Ok(())
}

/// The tool's name (the type's, as OpenAI allows) and its description (the
/// type's doc comment, and how to answer).
fn tool_name_and_doc(shape: &Shape) -> (String, String) {
    let (name, doc) = crate::schema::name_and_doc(shape);
    let how = "The input is the answer, written in TOON.";
    let doc = if doc.is_empty() {
        how.to_owned()
    } else {
        format!("{doc} {how}")
    };
    (crate::schema::tool_name(name), doc)
}

/// The text of a chat completion's reply: the message content, or, for a
/// request constrained through a custom tool ([`GrammarServer::OpenAi`]), the
/// tool call's input. `None` if the response holds neither.
///
/// ```
/// use serde_json::json;
/// let response = json!({"choices": [{"message": {"tool_calls": [
///     {"type": "custom", "custom": {"name": "Capital", "input": "country: France\ncapital: Paris"}}
/// ]}}]});
/// assert_eq!(toon_core::reply_text(&response), Some("country: France\ncapital: Paris"));
/// ```
pub fn reply_text(response: &Value) -> Option<&str> {
    let message = &response["choices"][0]["message"];
    message["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|call| call["custom"]["input"].as_str())
        .or_else(|| message["content"].as_str())
}
