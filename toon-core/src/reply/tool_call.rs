//! A tool call found in a response: its arguments' text and how the
//! response ended, for the typed reading, or read by serde.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::Format;
use super::json;
use super::wrapped::Wrapped;
use super::{from_json_serde, FinishReason, ParseError, ParseErrorKind, ReplyOptions};
use crate::schema::Tool;

/// A tool call's arguments as the response holds them, and how the
/// response ended.
pub(crate) struct Call<'r> {
    /// The arguments' JSON text: OpenAI's as sent, a parsed object (Anthropic's
    /// `input`, a server that sends an object) written back as text.
    pub arguments: Cow<'r, str>,
    /// The response's `finish_reason`, which decides what an argument text
    /// left open is.
    pub finish_reason: FinishReason,
}

impl Tool {
    /// Reads the tool call's arguments with serde, for a type that is not
    /// [`Toon`](crate::Toon) (a `Toon` type is read by [`read`](Tool::read),
    /// with its own decoder): from OpenAI's response
    /// (`choices[0].message.tool_calls[..].function.arguments`, a JSON string,
    /// through [`from_json_serde`](crate::reply::from_json_serde), the
    /// response's `finish_reason` deciding a cut) or Anthropic's (`content[..]`
    /// of type `tool_use`, its `input`; `stop_reason: "max_tokens"` is a cut).
    /// A wrapped type is read from the one property `value`, which must be
    /// there and be the only one. serde reads under serde's names and checks
    /// no constraint.
    ///
    /// ```
    /// use toon_core::{OutputSchema, schema::Tool};
    /// /// A country and its capital city.
    /// #[derive(OutputSchema, serde::Deserialize)]
    /// struct Capital { country: String, capital: String }
    ///
    /// let response = serde_json::json!({"choices": [{"finish_reason": "tool_calls", "message": {"tool_calls": [
    ///     {"type": "function", "function": {"name": "Capital", "arguments": "{\"country\": \"Peru\", \"capital\": \"Lima\"}"}}
    /// ]}}]});
    /// let c: Capital = Tool::of::<Capital>().read_serde(&response).unwrap();
    /// assert_eq!(c.capital, "Lima");
    /// ```
    ///
    /// # Errors
    /// As [`read`](Tool::read).
    pub fn read_serde<T: DeserializeOwned>(&self, response: &Value) -> Result<T, ParseError> {
        let call = self.call(response)?;
        let options = ReplyOptions {
            finish_reason: call.finish_reason,
            ..Default::default()
        };
        let read = |text: &str| {
            if self.wrapped {
                from_json_serde::<Wrapped<T>>(text, &options).map(|r| r.value.0)
            } else {
                from_json_serde::<T>(text, &options).map(|r| r.value)
            }
        };
        read(&call.arguments)
    }

    /// The call of this tool in a response, OpenAI's or Anthropic's: its
    /// arguments' text and how the response ended.
    ///
    /// # Errors
    /// As [`read`](Tool::read), before the arguments are read.
    pub(crate) fn call<'r>(&self, response: &'r Value) -> Result<Call<'r>, ParseError> {
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
            Some(Value::String(text)) => Some(Cow::Borrowed(text.as_str())),
            Some(object @ Value::Object(_)) => Some(Cow::Owned(object.to_string())),
            Some(other) => {
                return Err(ParseError::new(
                    ParseErrorKind::Syntax,
                    None,
                    format!(
                        "the call of the tool `{}` has arguments that are not JSON text: {other}",
                        self.name
                    ),
                )
                .in_format(Format::Json))
            }
            None => None,
        };
        if let Some(arguments) = openai {
            // Read from the text, so a duplicate key is refused and an error
            // has its line and column.
            return Ok(Call {
                arguments,
                finish_reason: FinishReason::of_response(response),
            });
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
            .in_format(Format::Json));
        }
        Ok(Call {
            arguments: Cow::Owned(call["input"].to_string()),
            finish_reason: FinishReason::Stop,
        })
    }

    /// The response body's text as one JSON value, a key written twice in
    /// any object of it refused, never settled by keeping one.
    pub(crate) fn body(body: &str) -> Result<Value, ParseError> {
        json::unique_value(body).map_err(|not_read| {
            let (said, line, column) = not_read.said(body);
            let e = format!("{said} at line {line} column {column}");
            let line = Some(line).filter(|&l| l > 0);
            let message = if matches!(not_read, json::NotRead::Twice(_)) {
                format!("the response writes a key twice in one object ({e}): parsed, it keeps one of the two, and which the model meant is not known; ask again")
            } else {
                format!("the response body is not one JSON value ({e}): pass the body's text as the server sent it")
            };
            ParseError::new(ParseErrorKind::Syntax, line, message).in_format(Format::Json)
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
            .in_format(Format::Json));
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
            .in_format(Format::Json);
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
            )
            .in_format(Format::Json);
        }
        ParseError::new(
            ParseErrorKind::EmptyCompletion,
            None,
            format!("the response holds no call of the tool `{name}`; send its tool_choice to make the model call it"),
        )
        .in_format(Format::Json)
    }
}
