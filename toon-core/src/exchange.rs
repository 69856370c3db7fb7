//! Asking a server for a typed value, with no I/O of its own: the request
//! bodies, the response read into the type, and the next request after a
//! refusal. A blocking and an async client drive it the same way.
//!
//! ```
//! # #[cfg(feature = "derive")] {
//! use serde_json::{json, Value};
//! use toon_core::exchange::{Exchange, Mechanism, Server};
//! use toon_core::{OutputSchema, Toon};
//!
//! /// A country and its capital city.
//! #[derive(Debug, Toon, OutputSchema)]
//! struct Capital {
//!     /// The country's name in English.
//!     country: String,
//!     /// Its capital city.
//!     capital: String,
//! }
//!
//! let exchange = Exchange::<Capital>::new(Mechanism::Grammar, Server::LlamaServer)
//!     .instructions("You answer questions about geography.");
//! let mut ask = exchange.ask("What is the capital of Peru?");
//! # let mut replies = vec!["country: Peru\ncapital:", "country: Peru\ncapital: Lima"].into_iter();
//! # let mut send = |body: &Value| -> Result<Value, std::convert::Infallible> {
//! #     assert!(body["grammar"].is_string());
//! #     Ok(json!({"choices": [{"finish_reason": "stop", "message": {"content": replies.next().unwrap()}}]}))
//! # };
//! let done = loop {
//!     let response: Value = send(&ask.body()).unwrap(); // your client: POST /v1/chat/completions
//!     if let Some(done) = ask.read(&response).unwrap() {
//!         break done;
//!     }
//! };
//! assert_eq!(done.value.capital, "Lima");
//! assert_eq!(done.attempts.len(), 2, "the first reply was refused and asked again");
//! # }
//! ```

use std::fmt;

use serde_json::{json, Map, Value};

use crate::grammar::GrammarOptions;
use crate::reply::FinishReason;
use crate::request::{reply_text, GrammarServer};
use crate::schema::{
    name_and_doc, object_root, response_format, tool_name, OutputSchema, SchemaDialect, Tool,
};
use crate::typed::{Attempt, Retried, RetryError, Rounds, Said, Toon, ToonOutputParser};

/// How the reply is held to the type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Mechanism {
    /// TOON, constrained by the type's grammar in the server's own field,
    /// the token limit the longest reply the grammar admits (never cut).
    Grammar,
    /// JSON, constrained by the type's JSON Schema as `response_format`
    /// (strict where strict mode can take it), the declarations in the
    /// system prompt.
    JsonSchema,
    /// A forced call of the type as a tool; its arguments are the answer.
    Tool,
    /// TOON, asked for by the prompt alone and read by the tolerant decoder.
    Prompted,
}

/// The server a request goes to, which decides the fields a constraint takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Server {
    /// llama.cpp's `llama-server`: `grammar`, OpenAI's `response_format`, and
    /// `tool_choice` only in its string forms (`"required"`).
    LlamaServer,
    /// llama-cpp-python's server: `grammar`, `response_format` in its own
    /// form (`{"type": "json_object", "schema": …}`).
    LlamaCppPython,
    /// vLLM: `structured_outputs.grammar`, OpenAI's `response_format`.
    Vllm,
    /// OpenAI's Chat Completions: the grammar as a custom tool's Lark grammar,
    /// `max_completion_tokens`.
    OpenAi,
}

impl Server {
    fn grammar_server(self) -> GrammarServer {
        match self {
            Server::LlamaServer | Server::LlamaCppPython => GrammarServer::LlamaCpp,
            Server::Vllm => GrammarServer::Vllm,
            Server::OpenAi => GrammarServer::OpenAi,
        }
    }

    fn dialect(self) -> SchemaDialect {
        match self {
            Server::LlamaCppPython => SchemaDialect::LlamaCppPython,
            _ => SchemaDialect::OpenAi,
        }
    }
}

/// A type asked for through one mechanism of one server: the parts of every
/// request that stay the same (built once, the grammar among them), the
/// instructions, an example exchange and the parser the replies are read with.
/// [`ask`](Exchange::ask) starts one question's exchange.
pub struct Exchange<T> {
    mechanism: Mechanism,
    server: Server,
    /// The body's fields but `messages`: the constraint, the token limit, the
    /// caller's own.
    fields: Map<String, Value>,
    instructions: String,
    example: Option<(String, String)>,
    parser: ToonOutputParser<T>,
    tool: Option<Tool>,
    /// Whether a JSON reply holds the value as its one property `value`.
    wrapped: bool,
    attempts: usize,
}

impl<T> fmt::Debug for Exchange<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Exchange")
            .field("mechanism", &self.mechanism)
            .field("server", &self.server)
            .field("fields", &self.fields.keys().collect::<Vec<_>>())
            .field("attempts", &self.attempts)
            .finish_non_exhaustive()
    }
}

impl<T: Toon + OutputSchema> Exchange<T> {
    /// The exchange for `T` through `mechanism` on `server`, with no
    /// instructions, no example, the default parser and 3 attempts.
    pub fn new(mechanism: Mechanism, server: Server) -> Self {
        let mut fields = Map::new();
        let mut tool = None;
        let mut wrapped = false;
        match mechanism {
            Mechanism::Grammar => {
                let grammar = server.grammar_server();
                let mut body = Value::Object(Map::new());
                // A body built here sets nothing the constraint refuses.
                let options = GrammarOptions::new(grammar.syntax());
                if let Err(e) = options.constrain_request::<T>(&mut body, grammar) {
                    unreachable!("an empty body takes any constraint: {e}");
                }
                if let Value::Object(map) = body {
                    fields = map;
                }
            }
            Mechanism::JsonSchema => {
                fields.insert(
                    "response_format".into(),
                    response_format::<T>(server.dialect()),
                );
                if server.dialect() == SchemaDialect::OpenAi {
                    let (name, _) = name_and_doc(&<T as OutputSchema>::__shape());
                    wrapped = object_root(T::json_schema(), name).1;
                }
            }
            Mechanism::Tool => {
                let t = Tool::of::<T>();
                fields.insert("tools".into(), json!([t.openai()]));
                // llama-server takes only the string forms: with one tool
                // offered, `required` is the same choice.
                let choice = match server {
                    Server::LlamaServer => json!("required"),
                    _ => t.openai_choice(),
                };
                fields.insert("tool_choice".into(), choice);
                wrapped = t.wrapped;
                tool = Some(t);
            }
            Mechanism::Prompted => {}
        }
        // A limit that stops a runaway reply where no grammar sets one: the
        // longest TOON reply of the type (no valid one is longer), twice
        // that for JSON, which spells every key and quote. Not a never-cut
        // bound: a cut reply is refused as `Truncated`, by name.
        if mechanism != Mechanism::Grammar {
            let toon = T::toon_max_reply_bytes();
            let most = match mechanism {
                Mechanism::Prompted => toon,
                _ => toon.saturating_mul(2),
            };
            let field = match server {
                Server::OpenAi => "max_completion_tokens",
                _ => "max_tokens",
            };
            fields.insert(field.into(), json!(most));
        }
        Exchange {
            mechanism,
            server,
            fields,
            instructions: String::new(),
            example: None,
            parser: ToonOutputParser::new(),
            tool,
            wrapped,
            attempts: 3,
        }
    }

    /// The caller's instructions, first in the system prompt; the type's
    /// format (its prompt, or its declarations) follows them.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = instructions.into();
        self
    }

    /// An example exchange before the question: the question, and its answer
    /// as the mechanism writes it ([`Toon::to_toon`], or the JSON of the
    /// value). Not for [`Mechanism::Tool`], whose answer is a call: there
    /// it is left out.
    pub fn example(mut self, question: impl Into<String>, answer: &T) -> Self {
        let written = match self.mechanism {
            Mechanism::Grammar | Mechanism::Prompted => answer.to_toon(),
            Mechanism::JsonSchema if self.wrapped => {
                json!({"value": crate::typed::to_value(answer)}).to_string()
            }
            Mechanism::JsonSchema => crate::typed::to_value(answer).to_string(),
            Mechanism::Tool => return self,
        };
        self.example = Some((question.into(), written));
        self
    }

    /// A field of every request body: `model`, `temperature`, `seed`, or
    /// another token limit (`max_tokens`; `max_completion_tokens` on
    /// OpenAI). With [`Mechanism::Grammar`] the limit is the longest reply
    /// the grammar admits, so that no reply is cut: a smaller one set here
    /// may cut one, which is then refused as `Truncated` (bound the type with
    /// `#[toon(max_len = N)]` or `#[toon(max_items = N)]` instead). With the
    /// other mechanisms it stops a runaway reply: the longest TOON reply of
    /// the type for [`Mechanism::Prompted`], twice that for JSON, which
    /// may not hold every JSON reply of the type (keys are spelt in each
    /// object); a reply it cuts is refused as `Truncated` and asked again.
    pub fn field(mut self, key: &str, value: Value) -> Self {
        self.fields.insert(key.to_owned(), value);
        self
    }

    /// The parser the replies are read with: its options and the caller's
    /// check ([`ToonOutputParser::validate`]).
    pub fn parser(mut self, parser: ToonOutputParser<T>) -> Self {
        self.parser = parser;
        self
    }

    /// At most `attempts` requests for one question (at least one); 3 unless set.
    pub fn attempts(mut self, attempts: usize) -> Self {
        self.attempts = attempts.max(1);
        self
    }

    /// One question's exchange.
    pub fn ask(&self, question: &str) -> Ask<'_, T> {
        let mut messages = vec![json!({"role": "system", "content": self.system()})];
        if let Some((q, a)) = &self.example {
            messages.push(json!({"role": "user", "content": q}));
            messages.push(json!({"role": "assistant", "content": a}));
        }
        messages.push(json!({"role": "user", "content": question}));
        Ask {
            exchange: self,
            messages,
            rounds: Rounds::new(self.attempts),
            #[cfg(feature = "tracing")]
            span: tracing::info_span!(
                target: "toon_core",
                "toon.ask",
                r#type = %crate::typed::measures::type_label::<T>(),
                mechanism = ?self.mechanism,
                server = ?self.server,
            ),
        }
    }

    /// The system prompt: the instructions, then how to answer.
    fn system(&self) -> String {
        let how = match self.mechanism {
            // The prompt says how to answer in its own first line.
            Mechanism::Grammar | Mechanism::Prompted => T::toon_prompt(),
            Mechanism::JsonSchema => {
                let wrapped = if self.wrapped {
                    " Write the answer as the one property `value` of a JSON object."
                } else {
                    ""
                };
                format!(
                    "Answer with one JSON object following these declarations.{wrapped}\n\n{}",
                    T::schema_prompt()
                )
            }
            Mechanism::Tool => {
                let (name, _) = name_and_doc(&<T as Toon>::__TOON.shape());
                format!("Answer by calling the tool `{}`.", tool_name(name))
            }
        };
        if self.instructions.is_empty() {
            how
        } else {
            format!("{}\n\n{how}", self.instructions)
        }
    }
}

/// One question asked through an [`Exchange`]: the next request's body, and
/// each response read until one gives the value or the attempts run out.
#[derive(Debug)]
pub struct Ask<'e, T> {
    exchange: &'e Exchange<T>,
    messages: Vec<Value>,
    rounds: Rounds,
    /// The span each response is read in: the type, mechanism and server.
    #[cfg(feature = "tracing")]
    span: tracing::Span,
}

impl<T: Toon + OutputSchema> Ask<'_, T> {
    /// The next request's body: the exchange's fields and the messages so far.
    pub fn body(&self) -> Value {
        let mut body = self.exchange.fields.clone();
        body.insert("messages".into(), Value::Array(self.messages.clone()));
        Value::Object(body)
    }

    /// The messages so far: the system prompt, the example, the question,
    /// and each refused reply with its retry turn.
    pub fn messages(&self) -> &[Value] {
        &self.messages
    }

    /// Every attempt so far, each reply with what became of it; once the
    /// value is read or the attempts run out, they move into what
    /// [`read`](Ask::read) returns.
    pub fn attempts(&self) -> &[Attempt] {
        self.rounds.attempts()
    }

    /// Reads the server's response to [`body`](Ask::body) (its whole JSON:
    /// the content or the tool call, the finish reason, the token usage):
    /// `Some` with the value, its repairs and every attempt; `None` after a
    /// refusal, [`body`](Ask::body) then being the next request (the refused
    /// reply and its [`retry_prompt`](crate::ParseError::retry_prompt) added).
    ///
    /// # Errors
    /// [`RetryError::Refused`] with every attempt when the last one allowed
    /// is refused; [`RetryError::Send`] for a response that is a server's
    /// error (`{"error": …}`), which is no reply of the model's.
    pub fn read(
        &mut self,
        response: &Value,
    ) -> Result<Option<Retried<T>>, RetryError<ServerError>> {
        #[cfg(feature = "tracing")]
        let _entered = self.span.clone().entered();
        if let Some(error) = response.get("error").filter(|e| !e.is_null()) {
            return Err(self.rounds.failed(ServerError(error.clone())));
        }
        let exchange = self.exchange;
        let tokens = response["usage"]["completion_tokens"]
            .as_u64()
            .or_else(|| response["usage"]["output_tokens"].as_u64());
        let finish = FinishReason::of_response(response);
        let (reply, outcome) = match (exchange.mechanism, &exchange.tool) {
            (Mechanism::Tool, Some(tool)) => {
                let said = match tool.call(response) {
                    Ok(call) => call.arguments.into_owned(),
                    Err(_) => text_of(response),
                };
                (said, exchange.parser.parse_tool_call(tool, response))
            }
            (Mechanism::JsonSchema, _) => {
                let text = text_of(response);
                let read = exchange
                    .parser
                    .parse_json_text(&text, finish, exchange.wrapped);
                (text, read)
            }
            _ => {
                let text = text_of(response);
                let parser = exchange.parser.clone().finish_reason(finish);
                let read = parser.parse_with_report(&text);
                (text, read)
            }
        };
        let said = Said {
            reply,
            finish_reason: finish,
            completion_tokens: tokens,
        };
        self.rounds.settle(said, outcome, &mut self.messages)
    }
}

/// The reply's text, or none.
fn text_of(response: &Value) -> String {
    reply_text(response)
        .map(|t| t.into_owned())
        .unwrap_or_default()
}

/// A server's error in place of a completion (`{"error": …}`): the request
/// was not answered, so it is no refusal of a reply.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerError(pub Value);

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0["message"].as_str().or_else(|| self.0.as_str()) {
            Some(message) => write!(f, "the server answered with an error: {message}"),
            None => write!(f, "the server answered with an error: {}", self.0),
        }
    }
}

impl std::error::Error for ServerError {}
