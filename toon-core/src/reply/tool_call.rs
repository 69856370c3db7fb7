//! A tool call's arguments read back from a response, through the JSON path.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{from_json_reply_with_options, FinishReason, ParseError, ParseErrorKind, ReplyOptions};
use crate::schema::Tool;

impl Tool {
    /// Reads the tool call's arguments from a response, OpenAI's
    /// (`choices[0].message.tool_calls[..].function.arguments`, a JSON string,
    /// through the JSON path with its stripping and refusals, the response's
    /// `finish_reason` deciding a cut) or Anthropic's (`content[..]` of type
    /// `tool_use`, its `input`).
    ///
    /// # Errors
    /// `EmptyCompletion` if the response holds no call of this tool; otherwise
    /// as [`from_json_reply`](crate::from_json_reply).
    pub fn read<T: DeserializeOwned>(&self, response: &Value) -> Result<T, ParseError> {
        let choice = &response["choices"][0];
        let openai = choice["message"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["function"]["name"] == self.name.as_str())
            .and_then(|c| c["function"]["arguments"].as_str());
        let value: Value = if let Some(arguments) = openai {
            let options = ReplyOptions {
                finish_reason: FinishReason::from_openai(
                    choice["finish_reason"].as_str().unwrap_or(""),
                ),
                ..Default::default()
            };
            from_json_reply_with_options::<Value>(arguments, &options)?.0
        } else {
            let anthropic = response["content"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|c| c["type"] == "tool_use" && c["name"] == self.name.as_str());
            match anthropic {
                Some(call) => call["input"].clone(),
                None => {
                    return Err(ParseError::new(
                        ParseErrorKind::EmptyCompletion,
                        None,
                        format!("the response holds no call of the tool `{}`; send its tool_choice to make the model call it", self.name),
                    ))
                }
            }
        };
        let value = if self.wrapped {
            value.get("value").cloned().unwrap_or(Value::Null)
        } else {
            value
        };
        serde_json::from_value(value).map_err(|e| {
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
        })
    }
}
