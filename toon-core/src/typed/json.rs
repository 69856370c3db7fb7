//! The JSON path for a `Toon` type: a reply asked for as JSON and a tool
//! call's arguments, read by the type's own decoder, as a TOON reply is.

use serde_json::Value;

use super::{read_as, Toon, ToonOutputParser};
use crate::reply::{Format, ParseError, Reply, ReplyOptions, Wrapped};
use crate::schema::Tool;

/// Reads a reply asked for as JSON (a `response_format` schema, JSON mode)
/// into a [`Toon`] type, with the type's own decoder: fences, reasoning
/// blocks and surrounding prose are stripped, then the first JSON value is
/// read under the type's names (`#[toon]` and `#[serde]` alike), its
/// constraints checked, as [`Toon::from_toon`] reads it. A reply that is not
/// JSON is refused. For the caller's own check, options or the report, use
/// [`ToonOutputParser::json`]; for a type that is not `Toon`,
/// [`from_json_serde`](crate::reply::from_json_serde).
///
/// JSON that does not parse is mended, and each mend reported, only where the
/// mistake has one reading: trailing commas, `//` and `/* */` comments,
/// Python's `True`/`False`/`None`, single-quoted strings and keys, unquoted
/// keys, raw line breaks inside strings (see [`RepairKind`](crate::RepairKind));
/// values survive byte for byte. An unclosed structure, a missing comma or a
/// stray word is refused.
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use toon_core::{from_json_reply, ParseErrorKind, Toon};
///
/// #[derive(Debug, Toon)]
/// struct Capital {
///     country: String,
///     #[toon(rename = "CAPITAL", length(max = 20))]
///     capital: String,
/// }
///
/// let c: Capital = from_json_reply("```json\n{\"country\": \"France\", \"CAPITAL\": \"Paris\"}\n```").unwrap();
/// assert_eq!(c.capital, "Paris");
/// let err = from_json_reply::<Capital>(r#"{"country": "Wales", "CAPITAL": "Llanfairpwllgwyngyllgogerychwyrndrobwll"}"#);
/// assert_eq!(err.unwrap_err().kind(), ParseErrorKind::Constraint);
/// let err = from_json_reply::<Capital>("{ \"country\": \"FRANCE\", \"CAPITAL\": \"Paris }").unwrap_err();
/// assert_eq!(err.kind(), ParseErrorKind::Truncated);
/// # }
/// ```
///
/// # Errors
/// A [`ParseError`] (shown as `JSON_PARSE_FAILURE: …`): `EmptyCompletion`,
/// `Truncated`, `Syntax` (not JSON), `MissingField`, `InvalidValue`,
/// `Constraint`, or `LimitExceeded` past a limit.
pub fn from_json_reply<T: Toon>(completion: &str) -> Result<T, ParseError> {
    ToonOutputParser::<T>::new().json().parse(completion)
}

impl<T: Toon> ToonOutputParser<T> {
    /// Reads the call of `tool` in a server's response into `T`, with the
    /// type's own decoder, the parser's options and check: the call is
    /// found as [`Tool::read`] finds it, the response's own finish reason
    /// deciding a cut, and its arguments read as [`json`](Self::json) reads
    /// a reply.
    ///
    /// # Errors
    /// As [`Tool::read`], and `Constraint` when the check refuses.
    pub fn parse_tool_call(&self, tool: &Tool, response: &Value) -> Result<Reply<T>, ParseError> {
        let call = tool.call(response)?;
        self.parse_json_text(&call.arguments, call.finish_reason, tool.wrapped)
    }

    /// Reads a JSON reply that ended as `finish_reason` says, the value
    /// being the one property `value` of an object where `wrapped`.
    pub(crate) fn parse_json_text(
        &self,
        text: &str,
        finish_reason: crate::FinishReason,
        wrapped: bool,
    ) -> Result<Reply<T>, ParseError> {
        let options = ReplyOptions {
            finish_reason,
            ..*self.settings().0
        };
        let reply = if wrapped {
            let r = read_as::<Wrapped<T>>(text, &options, Format::Json)?;
            Reply {
                value: r.value.0,
                repairs: r.repairs,
            }
        } else {
            read_as::<T>(text, &options, Format::Json)?
        };
        self.checked(reply)
    }
}

impl Tool {
    /// Reads the call of this tool in a response into `T`, with the type's
    /// own decoder: its names (`#[toon]` and `#[serde]` alike), its
    /// constraints, the report's rules, as [`from_json_reply`] reads a reply.
    /// OpenAI's response (`choices[0].message.tool_calls[..].function.arguments`,
    /// a JSON string; its `finish_reason` decides a cut) and Anthropic's
    /// (`content[..]` of type `tool_use`, its `input`; `stop_reason:
    /// "max_tokens"` is a cut) are both read. A wrapped type is read from the
    /// one property `value`, which must be there and be the only one. For the
    /// caller's own check or the report, use
    /// [`ToonOutputParser::parse_tool_call`]; for a type that is not `Toon`,
    /// [`read_serde`](Tool::read_serde).
    ///
    /// ```
    /// # #[cfg(feature = "derive")] {
    /// use toon_core::{schema::Tool, OutputSchema, ParseErrorKind, Toon};
    ///
    /// /// How bad a bug is.
    /// #[derive(Debug, PartialEq, Toon, OutputSchema)]
    /// #[toon(rename_all = "SCREAMING_SNAKE_CASE")]
    /// enum Severity { Minor, Major }
    ///
    /// /// A bug report's triage.
    /// #[derive(Debug, Toon, OutputSchema)]
    /// struct Triage {
    ///     severity: Severity,
    ///     #[toon(range(min = 1, max = 5))]
    ///     priority: u8,
    /// }
    ///
    /// let tool = Tool::of::<Triage>();
    /// let call = |arguments: &str| serde_json::json!({"choices": [{"finish_reason": "tool_calls",
    ///     "message": {"tool_calls": [{"type": "function", "function": {"name": "Triage", "arguments": arguments}}]}}]});
    /// let t: Triage = tool.read(&call(r#"{"severity": "MAJOR", "priority": 2}"#)).unwrap();
    /// assert_eq!(t.severity, Severity::Major);
    /// let err = tool.read::<Triage>(&call(r#"{"severity": "MAJOR", "priority": 9}"#)).unwrap_err();
    /// assert_eq!(err.kind(), ParseErrorKind::Constraint);
    /// # }
    /// ```
    ///
    /// A response already parsed into a `Value` has lost any key written
    /// twice in an object sent as an object (Anthropic's `input`, or
    /// arguments a server sends as an object): the parse kept the last
    /// value. Given the response's text, [`read_body`](Tool::read_body)
    /// refuses such a key as the JSON path does.
    ///
    /// # Errors
    /// `Truncated` if the token limit stopped the response before or inside a
    /// call of this tool (`finish_reason: "length"`, `stop_reason:
    /// "max_tokens"`); `EmptyCompletion` if it holds no call of this tool
    /// otherwise (or the model refused); `Syntax` for two calls of it or
    /// arguments that are not JSON text; otherwise as [`from_json_reply`].
    pub fn read<T: Toon>(&self, response: &Value) -> Result<T, ParseError> {
        ToonOutputParser::new()
            .parse_tool_call(self, response)
            .map(|r| r.value)
    }

    /// As [`read`](Tool::read), from the response body's text as the server
    /// sent it: a key written twice in any object of it (the arguments'
    /// own, or Anthropic's `input`) is refused, never settled by keeping one.
    ///
    /// ```
    /// # use toon_core::{schema::Tool, OutputSchema, Toon};
    /// # #[derive(Debug, Toon, OutputSchema)]
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
    pub fn read_body<T: Toon>(&self, body: &str) -> Result<T, ParseError> {
        self.read(&Tool::body(body)?)
    }
}
