//! The constrained request, in each server's own field, and the reply read back.

use std::borrow::Cow;
use std::fmt;

use serde_json::{json, Value};

use crate::grammar::{largest_fields, GrammarOptions, GrammarSyntax};
use crate::shape::Shape;
use crate::typed::Toon;

/// Servers that constrain a reply to a grammar, each in its own field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GrammarServer {
    /// llama.cpp's `llama-server` and llama-cpp-python's server: `"grammar"`, GBNF.
    /// Neither takes a grammar together with `tools`, llama-server takes a
    /// `json_schema` or a grammar, not both, and in llama-cpp-python a
    /// `response_format` replaces the grammar, so these are refused (and a
    /// `grammar` already set).
    LlamaCpp,
    /// vLLM: `"structured_outputs": {"grammar": ...}`, GBNF (read by xgrammar,
    /// which vLLM's default backend choice, `auto`, takes for a grammar it
    /// supports; the older `guided_grammar` field is gone since v0.12). `tools`
    /// are refused: with a required or named `tool_choice` vLLM puts the tools'
    /// schema in place of the grammar.
    Vllm,
    /// OpenAI (GPT-5 models), Chat Completions (`/v1/chat/completions`): a custom
    /// tool whose input is constrained by a Lark grammar, and `tool_choice`
    /// naming it; the reply arrives as the tool call's input (read it with
    /// [`reply_text`]).
    OpenAi,
    /// OpenAI (GPT-5 models), the Responses API (`/v1/responses`): the same
    /// custom tool in that API's flat form, and `tool_choice` naming it; the
    /// reply arrives as a `custom_tool_call` output item (read it with
    /// [`reply_text`]). A `response_format`, which this API does not have (its
    /// format is `text.format`), is refused.
    OpenAiResponses,
}

impl GrammarServer {
    /// The grammar syntax the server takes: GBNF for llama.cpp and vLLM, Lark
    /// for OpenAI's custom tools.
    #[must_use]
    pub fn syntax(self) -> GrammarSyntax {
        match self {
            GrammarServer::LlamaCpp | GrammarServer::Vllm => GrammarSyntax::Gbnf,
            GrammarServer::OpenAi | GrammarServer::OpenAiResponses => GrammarSyntax::Lark,
        }
    }

    /// The server's own field for the most tokens a reply may take.
    fn token_limit_field(self) -> &'static str {
        match self {
            GrammarServer::LlamaCpp | GrammarServer::Vllm => "max_tokens",
            GrammarServer::OpenAi => "max_completion_tokens",
            GrammarServer::OpenAiResponses => "max_output_tokens",
        }
    }
}

/// Every field in which some server takes a token limit.
const TOKEN_LIMITS: [&str; 4] = [
    "max_tokens",
    "max_completion_tokens",
    "max_output_tokens",
    "n_predict",
];

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

/// Adds to an OpenAI-style request body (`{"model", "messages", ...}`, or
/// `{"model", "input", ...}` for the Responses API) the fields with which
/// `server` constrains the reply to `T`'s TOON ([`Toon::toon_grammar`]), and
/// a token limit that holds the longest reply the grammar admits
/// ([`Toon::toon_max_reply_bytes`]: a token is at least one byte), so the reply
/// is never cut at the limit. Everything else in the body is left as it is.
///
/// The token limit: where the body sets none, the server's own field is set
/// to the worst case (`max_tokens` for llama.cpp and vLLM,
/// `max_completion_tokens` for OpenAI's Chat Completions, `max_output_tokens`
/// for its Responses API). A limit the caller set (in any of those fields, or
/// llama.cpp's `n_predict`) is kept as it is where it holds the worst case,
/// and refused where it does not: the error names both figures and the
/// fields that take the most, to be bounded with `#[toon(max_len = N)]` or
/// `#[toon(max_items = N)]`. A limit is never raised or lowered silently. The
/// server's context must hold the prompt and the limit (llama.cpp stops a
/// reply at a full context as at the limit); on OpenAI's reasoning models the
/// limit also counts the hidden reasoning tokens, so set a larger one there.
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
/// The body sets a token limit smaller than the longest reply the grammar
/// admits (see above), or one that is not a whole number. The body is not a JSON object, or it already sets a field that the server
/// would let override or conflict with the grammar: `tools`, `grammar` or
/// `json_schema` (llama.cpp), `tools`, `tool_choice`, `structured_outputs` or
/// any `guided_*` field (vLLM), `tool_choice` or a tool of the type's name
/// (OpenAI, which refuses two tools of one name), a `response_format` other
/// than `{"type": "text"}` (every server but the Responses API, which has no
/// such field and refuses any) or a `text.format` other than that (Responses
/// API), and on every server the older `functions` and `function_call`. A
/// field set to `null` counts as not set. Nothing is changed then.
pub fn constrain_request<T: Toon>(
    body: &mut Value,
    server: GrammarServer,
) -> Result<(), ConstrainError> {
    GrammarOptions::new(server.syntax()).constrain_request::<T>(body, server)
}

impl GrammarOptions {
    /// [`constrain_request`] with the grammar written as these options say: a
    /// reasoning block before the document ([`GrammarOptions::reasoning`]), which
    /// the token limit then holds too.
    ///
    /// ```
    /// use serde_json::json;
    /// use toon_core::{grammar::GrammarOptions, GrammarServer, Toon};
    ///
    /// let options = GrammarOptions::new(GrammarServer::LlamaCpp.syntax()).reasoning(400);
    /// let mut body = json!({"model": "local", "messages": [{"role": "user", "content": "Tags?"}]});
    /// options.constrain_request::<Vec<String>>(&mut body, GrammarServer::LlamaCpp).unwrap();
    /// assert!(body["grammar"].as_str().unwrap().contains("\"<think>\""));
    /// assert_eq!(body["max_tokens"], options.max_reply_bytes::<Vec<String>>());
    /// ```
    ///
    /// # Errors
    /// As [`constrain_request`], and where the options' syntax is not the one the
    /// server takes ([`GrammarServer::syntax`]).
    pub fn constrain_request<T: Toon>(
        &self,
        body: &mut Value,
        server: GrammarServer,
    ) -> Result<(), ConstrainError> {
        let options = self;
        if options.syntax() != server.syntax() {
            return Err(ConstrainError::new(format!(
            "the grammar options are for {:?}, but {server:?} takes {:?}; build them with GrammarOptions::new(server.syntax())",
            options.syntax(),
            server.syntax()
        )));
        }
        let Some(map) = body.as_object_mut() else {
            return Err(ConstrainError::new(
            "the request body is not a JSON object; start from {\"model\": ..., \"messages\": [...]}",
        ));
        };
        let refuse = |key: &str, why: &str| -> Result<(), ConstrainError> {
            if is_set(map.get(key)) {
                Err(ConstrainError::new(format!(
                    "the request already has `{key}`: {why}"
                )))
            } else {
                Ok(())
            }
        };
        // `{"type": "text"}` is every server's default: no constraint of its own.
        let refuse_format = |format: Option<&Value>, key: &str, why: &str| match format {
            Some(f) if is_set(Some(f)) && f != &json!({"type": "text"}) => Err(
                ConstrainError::new(format!("the request already has `{key}` {f}: {why}")),
            ),
            _ => Ok(()),
        };
        // Function calling's older form (`functions`, `function_call`) offers or
        // forces a call as `tools` does, on every server.
        let functions = |why: &str| -> Result<(), ConstrainError> {
            for key in ["functions", "function_call"] {
                refuse(key, &format!("it is the older form of `tools`: {why}"))?;
            }
            Ok(())
        };
        let worst = options.max_reply_bytes::<T>();
        let limit = token_limit::<T>(map, worst, options)?;
        match server {
            GrammarServer::LlamaCpp => {
                let tools_why = "llama.cpp refuses a grammar together with tools (HTTP 400); send the tools in a request of their own";
                refuse("tools", tools_why)?;
                functions(tools_why)?;
                refuse_format(
                    map.get("response_format"),
                    "response_format",
                    "llama-cpp-python lets a response_format replace the grammar; remove it",
                )?;
                refuse("grammar", "remove it, or send this body unchanged")?;
                refuse(
                    "json_schema",
                    "llama.cpp takes either a json_schema or a grammar, not both; remove it",
                )?;
                map.insert("grammar".into(), Value::String(options.grammar::<T>()));
            }
            GrammarServer::Vllm => {
                let tools_why = "vLLM puts the tools' schema in place of the grammar when a tool is required or named, and reads tool calls out of the reply; send the tools in a request of their own";
                refuse("tools", tools_why)?;
                refuse("tool_choice", tools_why)?;
                refuse(
                    "structured_outputs",
                    "vLLM takes one constraint a request; remove it",
                )?;
                functions(tools_why)?;
                // Every `guided_*` field, not only the grammar's: an older vLLM
                // takes them in place of `structured_outputs`.
                let guided: Vec<String> = map
                    .keys()
                    .filter(|k| k.starts_with("guided_"))
                    .cloned()
                    .collect();
                for key in guided {
                    refuse(&key, "vLLM removed the guided_* fields in v0.12, and an older vLLM takes them in place of structured_outputs; remove it")?;
                }
                refuse_format(
                    map.get("response_format"),
                    "response_format",
                    "vLLM takes one constraint a request; remove it",
                )?;
                map.insert(
                    "structured_outputs".into(),
                    json!({"grammar": options.grammar::<T>()}),
                );
            }
            GrammarServer::OpenAi | GrammarServer::OpenAiResponses => {
                let responses = server == GrammarServer::OpenAiResponses;
                refuse(
                    "tool_choice",
                    "the grammar's tool must be the one chosen; remove it",
                )?;
                functions("the grammar's tool must be the one called; remove it")?;
                let why =
                "a JSON response format and a TOON tool call cannot both be the reply; remove it";
                if responses {
                    refuse_format(
                        map.get("text").and_then(|t| t.get("format")),
                        "text.format",
                        why,
                    )?;
                    refuse(
                    "response_format",
                    "the Responses API has no such field (its format is `text.format`); remove it",
                )?;
                } else {
                    refuse_format(map.get("response_format"), "response_format", why)?;
                }
                if map
                    .get("tools")
                    .is_some_and(|t| !t.is_array() && !t.is_null())
                {
                    return Err(ConstrainError::new("the request's `tools` is not a list"));
                }
                let (name, doc) = tool_name_and_doc(&T::__TOON.shape());
                let taken = map
                    .get("tools")
                    .and_then(Value::as_array)
                    .is_some_and(|list| {
                        list.iter().any(|t| {
                            [&t["name"], &t["function"]["name"], &t["custom"]["name"]]
                                .iter()
                                .any(|n| n.as_str() == Some(name.as_str()))
                        })
                    });
                if taken {
                    return Err(ConstrainError::new(format!(
                    "the request's `tools` already has a tool named `{name}` (OpenAI refuses two tools of one name with HTTP 400); constrain a request once, and rename or remove the other tool"
                )));
                }
                let grammar = options.grammar::<T>();
                let (tool, choice) = if responses {
                    (
                        json!({
                            "type": "custom",
                            "name": name,
                            "description": doc,
                            "format": {"type": "grammar", "syntax": "lark", "definition": grammar},
                        }),
                        json!({"type": "custom", "name": name}),
                    )
                } else {
                    (
                        json!({
                            "type": "custom",
                            "custom": {
                                "name": name,
                                "description": doc,
                                "format": {
                                    "type": "grammar",
                                    "grammar": {"syntax": "lark", "definition": grammar},
                                },
                            },
                        }),
                        json!({"type": "custom", "custom": {"name": name}}),
                    )
                };
                let tools = map.entry("tools").or_insert(Value::Null);
                if tools.is_null() {
                    *tools = json!([]);
                }
                if let Some(list) = tools.as_array_mut() {
                    list.push(tool);
                }
                map.insert("tool_choice".into(), choice);
            }
        }
        if limit.is_none() {
            map.insert(server.token_limit_field().into(), json!(worst));
        }
        Ok(())
    }
}

/// The caller's token limit (the smallest, where several fields set one), or
/// `None`; refused where it cannot hold `worst` bytes, or is no whole number.
fn token_limit<T: Toon>(
    map: &serde_json::Map<String, Value>,
    worst: usize,
    options: &GrammarOptions,
) -> Result<Option<u64>, ConstrainError> {
    let mut least: Option<(&str, u64)> = None;
    for key in TOKEN_LIMITS {
        let Some(value) = map.get(key).filter(|v| !v.is_null()) else {
            continue;
        };
        let Some(n) = value.as_u64() else {
            return Err(ConstrainError::new(format!(
                "the request's `{key}` is {value}, not a whole number of tokens"
            )));
        };
        if !matches!(least, Some((_, m)) if m <= n) {
            least = Some((key, n));
        }
    }
    let Some((key, n)) = least else {
        return Ok(None);
    };
    if n >= worst as u64 {
        return Ok(Some(n));
    }
    let mut takers: Vec<String> = largest_fields(&T::__TOON.shape())
        .into_iter()
        .take(3)
        .map(|(name, bytes)| format!("`{name}` (up to {bytes} bytes)"))
        .collect();
    if let Some(r) = options.reasoning_block() {
        takers.insert(
            0,
            format!("the reasoning block (up to {} characters)", r.max_chars),
        );
    }
    let bound = if takers.is_empty() {
        String::new()
    } else {
        format!(
            ", or bound what takes the most with `#[toon(max_len = N)]` or `#[toon(max_items = N)]`: {}",
            takers.join(", ")
        )
    };
    Err(ConstrainError::new(format!(
        "the request's `{key}` is {n}, but the longest reply the grammar admits takes {worst} bytes, and a token can be a single byte, so the reply could be cut at the limit; remove `{key}` (the worst case is then set), raise it to at least {worst}{bound}"
    )))
}

/// Whether a request sets a field: present and not `null` (many clients write
/// an option left unset as `null`).
fn is_set(value: Option<&Value>) -> bool {
    value.is_some_and(|v| !v.is_null())
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

/// The text of a reply: the message content of a chat completion (its text
/// parts joined, where the content is a list of parts), or, for a request
/// constrained through a custom tool ([`GrammarServer::OpenAi`]), the tool
/// call's input; of a Responses API response
/// ([`GrammarServer::OpenAiResponses`]), the `custom_tool_call` item's input,
/// else the `output_text` parts of its message items, joined (as OpenAI's own
/// `output_text` does). `None` if the response holds none of these, and where
/// a tool call holds no input (the message beside it is not the answer) or the
/// model refused (`refusal`): nothing is read in place of an answer.
///
/// Whether the reply was cut off is [`FinishReason::of_response`](crate::FinishReason::of_response).
///
/// ```
/// use serde_json::json;
/// let response = json!({"choices": [{"message": {"tool_calls": [
///     {"type": "custom", "custom": {"name": "Capital", "input": "country: France\ncapital: Paris"}}
/// ]}}]});
/// assert_eq!(toon_core::request::reply_text(&response).as_deref(), Some("country: France\ncapital: Paris"));
///
/// let responses_api = json!({"output": [
///     {"type": "reasoning", "summary": []},
///     {"type": "custom_tool_call", "name": "Capital", "input": "country: Peru\ncapital: Lima"}
/// ]});
/// assert_eq!(toon_core::request::reply_text(&responses_api).as_deref(), Some("country: Peru\ncapital: Lima"));
/// ```
pub fn reply_text(response: &Value) -> Option<Cow<'_, str>> {
    if let Some(output) = response["output"].as_array() {
        if let Some(call) = output.iter().find(|i| i["type"] == "custom_tool_call") {
            return call["input"].as_str().map(Cow::Borrowed);
        }
        let parts = output
            .iter()
            .filter(|item| item["type"] == "message")
            .flat_map(|item| item["content"].as_array().into_iter().flatten());
        return joined(parts, "output_text");
    }
    let message = &response["choices"][0]["message"];
    let mut calls = message["tool_calls"].as_array().into_iter().flatten();
    if let Some(call) = calls.find(|c| c["type"] == "custom" || !c["custom"].is_null()) {
        return call["custom"]["input"].as_str().map(Cow::Borrowed);
    }
    match &message["content"] {
        Value::String(text) => Some(Cow::Borrowed(text.as_str())),
        Value::Array(parts) => joined(parts.iter(), "text"),
        _ => None,
    }
}

/// The text of the parts of this type, joined; `None` where there are none,
/// or where a part is a refusal.
fn joined<'a>(parts: impl Iterator<Item = &'a Value>, kind: &str) -> Option<Cow<'a, str>> {
    let mut text: Option<Cow<'a, str>> = None;
    for part in parts {
        if part["type"] == "refusal" {
            return None;
        }
        if let (true, Some(t)) = (part["type"] == kind, part["text"].as_str()) {
            text = Some(match text {
                None => Cow::Borrowed(t),
                Some(before) => Cow::Owned(before.into_owned() + t),
            });
        }
    }
    text
}
