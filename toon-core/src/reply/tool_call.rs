//! A tool call's arguments read back from a response, through the JSON path.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::json;
use super::json_path::JSON_FORMAT;
use super::wrapped::Wrapped;
use super::{from_json_reply_with_options, FinishReason, ParseError, ParseErrorKind, ReplyOptions};
use crate::schema::Tool;

impl Tool {
    /// Reads the tool call's arguments from a response, OpenAI's
    /// (`choices[0].message.tool_calls[..].function.arguments`, a JSON string,
    /// through the JSON path with its stripping and refusals, the response's
    /// `finish_reason` deciding a cut) or Anthropic's (`content[..]` of type
    /// `tool_use`, its `input`; `stop_reason: "max_tokens"` is a cut). A
    /// wrapped type is read from the one property `value`, which must be there
    /// and be the only one. The arguments are read by serde, under serde's
    /// names: a rename written only in `#[toon(...)]` is in the tool's schema
    /// but not read here (write it as `#[serde(...)]`, which the derives follow).
    ///
    /// # Errors
    /// `Truncated` if the token limit stopped the response before a call of
    /// this tool (`finish_reason: "length"`, `stop_reason: "max_tokens"`);
    /// `EmptyCompletion` if it holds no call of this tool otherwise; `Syntax`
    /// for a call whose arguments are not JSON text; otherwise as
    /// [`from_json_reply`](crate::from_json_reply).
    ///
    /// A response already parsed into a `Value` has lost any key written
    /// twice in an object sent as an object (Anthropic's `input`, or
    /// arguments a server sends as an object): the parse kept the last
    /// value. Given the response's text, [`read_body`](Tool::read_body)
    /// refuses such a key as the JSON path does.
    pub fn read<T: DeserializeOwned>(&self, response: &Value) -> Result<T, ParseError> {
        if self.wrapped {
            self.arguments::<Wrapped<T>>(response).map(|w| w.0)
        } else {
            self.arguments::<T>(response)
        }
    }

    /// As [`read`](Tool::read), from the response body's text as the server
    /// sent it: a key written twice in any object of it (the arguments'
    /// own, or Anthropic's `input`) is refused, never settled by keeping one.
    ///
    /// ```
    /// # use toon_core::{OutputSchema, schema::Tool};
    /// # #[derive(Debug, OutputSchema, serde::Deserialize)]
    /// # struct Verdict { ok: bool }
    /// let body = r#"{"content": [{"type": "tool_use", "name": "Verdict",
    ///     "input": {"ok": true, "ok": false}}], "stop_reason": "tool_use"}"#;
    /// let err = Tool::of::<Verdict>().read_body::<Verdict>(body).unwrap_err();
    /// assert!(err.message().contains("twice"));
    /// ```
    ///
    /// # Errors
    /// `Syntax` for a body that is not one JSON value, or that writes a key
    /// twice in an object; otherwise as [`read`](Tool::read).
    pub fn read_body<T: DeserializeOwned>(&self, body: &str) -> Result<T, ParseError> {
        let response = json::unique_value(body).map_err(|(e, twice)| {
            let line = Some(e.line()).filter(|&l| l > 0);
            let message = if twice {
                format!("the response writes a key twice in one object ({e}): parsed, it keeps one of the two, and which the model meant is not known; ask again")
            } else {
                format!("the response body is not one JSON value ({e}): pass the body's text as the server sent it")
            };
            ParseError::new(ParseErrorKind::Syntax, line, message).in_format(JSON_FORMAT)
        })?;
        self.read(&response)
    }

    /// The call's arguments read as `A`.
    fn arguments<A: DeserializeOwned>(&self, response: &Value) -> Result<A, ParseError> {
        let choice = &response["choices"][0];
        let call = choice["message"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["function"]["name"] == self.name.as_str());
        let call = self.only(call)?;
        // OpenAI sends the arguments as JSON text; a server that sends the
        // object itself is read as that object's text.
        let openai = match call.map(|c| &c["function"]["arguments"]) {
            Some(Value::String(text)) => Some(std::borrow::Cow::Borrowed(text.as_str())),
            Some(object @ Value::Object(_)) => Some(std::borrow::Cow::Owned(object.to_string())),
            Some(other) => {
                return Err(ParseError::new(
                    ParseErrorKind::Syntax,
                    None,
                    format!(
                        "the call of the tool `{}` has arguments that are not JSON text: {other}",
                        self.name
                    ),
                )
                .in_format(JSON_FORMAT))
            }
            None => None,
        };
        if let Some(arguments) = openai {
            let options = ReplyOptions {
                finish_reason: FinishReason::of_response(response),
                ..Default::default()
            };
            // Read straight from the text, so a duplicate key is refused and
            // an error has its line and column.
            return from_json_reply_with_options::<A>(&arguments, &options).map(|(a, _)| a);
        }
        let anthropic = response["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["type"] == "tool_use" && c["name"] == self.name.as_str());
        let anthropic = self.only(anthropic)?;
        let Some(call) = anthropic else {
            return Err(self.no_call(response));
        };
        // The input arrives parsed, whole even where the token limit cut it.
        if response["stop_reason"] == "max_tokens" {
            return Err(ParseError::truncated(
                None,
                "the response stopped at max_tokens inside the tool call; raise max_tokens",
                "the tool call stops before its end",
            )
            .in_format(JSON_FORMAT));
        }
        A::deserialize(&call["input"]).map_err(|e| {
            let kind = if e.to_string().starts_with("missing field") {
                ParseErrorKind::MissingField
            } else {
                ParseErrorKind::InvalidValue
            };
            ParseError::new(
                kind,
                None,
                format!("the tool call's arguments do not fit the type: {e}"),
            )
            .in_format(JSON_FORMAT)
        })
    }

    /// The one call of this tool: two are two answers, and taking one would
    /// drop the other.
    fn only<'a>(
        &self,
        mut calls: impl Iterator<Item = &'a Value>,
    ) -> Result<Option<&'a Value>, ParseError> {
        let first = calls.next();
        let more = calls.count();
        if more > 0 {
            return Err(ParseError::new(
                ParseErrorKind::Syntax,
                None,
                format!(
                    "the response holds {} calls of the tool `{}`, where the answer is one; ask for one call (parallel_tool_calls: false)",
                    more + 1,
                    self.name
                ),
            )
            .in_format(JSON_FORMAT));
        }
        Ok(first)
    }

    /// Why a response holds no call of this tool: a cut, a refusal, or none.
    fn no_call(&self, response: &Value) -> ParseError {
        let name = &self.name;
        if let Some((what, todo)) = FinishReason::of_response(response).cut() {
            return ParseError::truncated(
                None,
                format!("{what} before the call of the tool `{name}`; {todo}"),
                "the tool call never comes",
            )
            .in_format(JSON_FORMAT);
        }
        let refusal = response["choices"][0]["message"]["refusal"]
            .as_str()
            .or_else(|| (response["stop_reason"] == "refusal").then_some(""));
        if let Some(said) = refusal {
            let said = if said.is_empty() {
                String::new()
            } else {
                format!(" ({said:?})")
            };
            return ParseError::new(
                ParseErrorKind::EmptyCompletion,
                None,
                format!("the model refused{said} instead of calling the tool `{name}`: a refusal is no answer; change the question, or take the refusal as the outcome"),
            );
        }
        ParseError::new(
            ParseErrorKind::EmptyCompletion,
            None,
            format!("the response holds no call of the tool `{name}`; send its tool_choice to make the model call it"),
        )
    }
}
