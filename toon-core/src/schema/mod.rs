//! JSON Schema for constrained decoding, and the declarations as prompt text.

mod declarations;
mod impls;
mod json_schema;
mod tool;

pub use tool::{json_mode, Tool};
pub(crate) use tool::{name_and_doc, tool_name};

use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::reply::{ParseError, Repair, ReplyOptions};
use crate::shape::Shape;

pub use json_schema::strict_violations;

/// A type whose JSON Schema constrains a model's output, and whose declarations
/// tell the model what each field means.
///
/// Derive it with `#[derive(OutputSchema)]`; the standard types implement it
/// already. The `__` methods are what the derive generates; call the others.
pub trait OutputSchema {
    #[doc(hidden)]
    fn __shape() -> Shape;

    /// How a field of this type refers to it: [`Shape::Named`] for derived types.
    #[doc(hidden)]
    fn __shape_ref() -> Shape {
        Self::__shape()
    }

    /// May a field of this type be missing (`Option`)?
    #[doc(hidden)]
    fn __optional() -> bool {
        false
    }

    /// The type as a JSON Schema (draft 2020-12), for `response_format`.
    ///
    /// Properties and `required` are in declaration order; every object is
    /// closed (`additionalProperties: false`) with every property required, an
    /// `Option` field being required and nullable, as OpenAI's strict mode
    /// demands. Doc comments become `description`s; derived types used in
    /// fields are `$ref`s into `$defs`.
    fn json_schema() -> Value {
        json_schema::schema(&Self::__shape())
    }

    /// The declarations of the type and of every type it uses, as Rust with
    /// their doc comments and wire names: the text for the system prompt next
    /// to the schema, because the server keeps only the schema's grammar and
    /// the model never sees its descriptions.
    fn schema_prompt() -> String {
        declarations::render(&Self::__shape())
    }
}

/// How an OpenAI-compatible server takes a JSON Schema in `response_format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaDialect {
    /// `{"type": "json_schema", "json_schema": {"name", "strict", "schema"}}`:
    /// OpenAI, vLLM and llama.cpp's own `llama-server`.
    OpenAi,
    /// `{"type": "json_object", "schema": …}`: llama-cpp-python's server, which
    /// answers HTTP 500 to the OpenAI form.
    LlamaCppPython,
}

/// The `response_format` value that constrains a reply to `T`'s schema.
///
/// `strict` is set only when the schema meets strict mode's rules (a map or a
/// free-form `serde_json::Value` field does not; see [`strict_violations`]).
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use toon_core::{response_format, OutputSchema, SchemaDialect};
///
/// /// A country and its capital.
/// #[derive(OutputSchema)]
/// struct Capital {
///     /// The country's name in English.
///     country: String,
///     /// The capital city of that country (not the country's name).
///     capital: String,
/// }
///
/// let rf = response_format::<Capital>(SchemaDialect::OpenAi);
/// assert_eq!(rf["json_schema"]["name"], "Capital");
/// assert_eq!(rf["json_schema"]["strict"], true);
/// assert_eq!(rf["json_schema"]["schema"]["required"], serde_json::json!(["country", "capital"]));
/// # }
/// ```
pub fn response_format<T: OutputSchema>(dialect: SchemaDialect) -> Value {
    let schema = T::json_schema();
    match dialect {
        SchemaDialect::OpenAi => {
            let (name, _) = name_and_doc(&T::__shape());
            json!({
                "type": "json_schema",
                "json_schema": {
                    "name": name,
                    "strict": strict_violations(&schema).is_empty(),
                    "schema": schema,
                }
            })
        }
        SchemaDialect::LlamaCppPython => json!({ "type": "json_object", "schema": schema }),
    }
}

/// Reads a JSON reply into any `serde` type: fences, reasoning blocks and
/// surrounding prose are stripped, then `serde_json` reads the first JSON value.
///
/// JSON that does not parse is mended, and each mend reported, only where the
/// mistake has one reading: trailing commas, `//` and `/* */` comments, Python's
/// `True`/`False`/`None`, single-quoted strings and keys, unquoted keys, raw line
/// breaks inside strings (see [`RepairKind`](crate::RepairKind)); values survive
/// byte for byte. An unclosed structure, a missing comma or a stray word is refused.
///
/// A reply cut off at the token limit is [`Truncated`](crate::ParseErrorKind::Truncated),
/// by name; a missing field is `MissingField`, a wrong value `InvalidValue`,
/// each with the line of the reply it stands on.
///
/// ```
/// #[derive(serde::Deserialize, Debug)]
/// struct Capital { country: String, capital: String }
///
/// let c: Capital = toon_core::from_json_reply("```json\n{\"country\": \"France\", \"capital\": \"Paris\"}\n```").unwrap();
/// assert_eq!(c.capital, "Paris");
/// let err = toon_core::from_json_reply::<Capital>("{ \"country\": \"FRANCE\", \"capital\": \"Paris }").unwrap_err();
/// assert_eq!(err.kind(), toon_core::ParseErrorKind::Truncated);
/// ```
///
/// # Errors
/// A [`ParseError`]: `EmptyCompletion`, `Truncated`, `Syntax` (not JSON), `MissingField` or `InvalidValue`.
pub fn from_json_reply<T: DeserializeOwned>(completion: &str) -> Result<T, ParseError> {
    from_json_reply_with_report(completion).map(|(v, _)| v)
}

/// [`from_json_reply`], also returning what was stripped around the JSON.
///
/// # Errors
/// As [`from_json_reply`].
pub fn from_json_reply_with_report<T: DeserializeOwned>(
    completion: &str,
) -> Result<(T, Vec<Repair>), ParseError> {
    from_json_reply_with_options(completion, &ReplyOptions::default())
}

/// [`from_json_reply_with_options`] with the caller's own check, run after
/// decoding, as [`ToonOutputParser::validate`](crate::ToonOutputParser::validate)
/// does on the TOON path: its `Err` is a [`Constraint`](crate::ParseErrorKind::Constraint)
/// refusal carrying the message.
///
/// ```
/// use toon_core::{from_json_reply_with_check, ParseErrorKind, ReplyOptions};
/// let sent = 6;
/// let check = |ids: &Vec<u32>| match ids.iter().find(|&&i| i as usize > sent) {
///     Some(i) => Err(format!("source {i} does not exist; cite 1 to {sent}")),
///     None => Ok(()),
/// };
/// let err = from_json_reply_with_check("[2, 7]", &ReplyOptions::default(), check).unwrap_err();
/// assert_eq!(err.kind(), ParseErrorKind::Constraint);
/// assert!(err.retry_prompt().contains("one JSON object"));
/// ```
///
/// # Errors
/// As [`from_json_reply_with_options`], and `Constraint` when the check refuses.
pub fn from_json_reply_with_check<T: DeserializeOwned>(
    completion: &str,
    options: &ReplyOptions,
    check: impl FnOnce(&T) -> Result<(), String>,
) -> Result<(T, Vec<Repair>), ParseError> {
    let (value, repairs) = from_json_reply_with_options(completion, options)?;
    check(&value).map_err(|why| {
        ParseError::new(
            crate::reply::ParseErrorKind::Constraint,
            None,
            format!("the value reads but is not valid here: {why}"),
        )
        .in_format("one JSON object, as the instructions describe")
    })?;
    Ok((value, repairs))
}

/// [`from_json_reply_with_report`] with the server's finish reason and limits
/// ([`ReplyOptions`]): with [`FinishReason::Length`](crate::FinishReason::Length)
/// a JSON value left open is `Truncated`; with `Stop` it is the model's own
/// malformed JSON (`Syntax`), never called cut off.
///
/// ```
/// use toon_core::{from_json_reply_with_options, FinishReason, ParseErrorKind, ReplyOptions};
/// #[derive(Debug, serde::Deserialize)]
/// struct Capital { capital: String }
/// let stop = ReplyOptions { finish_reason: FinishReason::Stop, ..Default::default() };
/// let err = from_json_reply_with_options::<Capital>("{\"capital\": \"Par", &stop).unwrap_err();
/// assert_eq!(err.kind(), ParseErrorKind::Syntax);
/// ```
///
/// # Errors
/// As [`from_json_reply`], and `LimitExceeded` past a limit.
pub fn from_json_reply_with_options<T: DeserializeOwned>(
    completion: &str,
    options: &ReplyOptions,
) -> Result<(T, Vec<Repair>), ParseError> {
    // A closed JSON value is whole, so only a refusal has the finish reason to weigh.
    crate::reply::decode_json_reply(completion, options).map_err(|e| {
        crate::reply::settle_error(e, completion, options, &|_| None)
            .in_format("one JSON object, as the instructions describe")
    })
}
