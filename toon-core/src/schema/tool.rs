//! A type as a tool: the definition an OpenAI or Anthropic request sends, the
//! `tool_choice` that forces the model to call it, and JSON mode. The call's
//! arguments are read back by the reply layer (`reply/tool_call.rs`).

use serde_json::{json, Map, Value};

use super::OutputSchema;
use crate::shape::Shape;

/// A type's tool definition: name and description from the type (its Rust
/// name and doc comment) unless overridden, parameters from its JSON Schema.
///
/// A root strict mode cannot take as parameters (a tagged enum's `anyOf`, an
/// enum, a list) is wrapped as the one property `value` of an object, and
/// [`read`](Tool::read) unwraps it. `read` reads a [`Toon`](crate::Toon) type
/// with its own decoder (its names, constraints and report, as
/// [`from_json_reply`](crate::from_json_reply)); [`read_serde`](Tool::read_serde)
/// reads any other type with serde.
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use toon_core::{OutputSchema, schema::Tool, Toon};
/// /// A country and its capital city.
/// #[derive(Toon, OutputSchema)]
/// struct Capital { country: String, capital: String }
///
/// let tool = Tool::of::<Capital>();
/// let openai = tool.openai();
/// assert_eq!(openai["function"]["name"], "Capital");
/// assert_eq!(openai["function"]["description"], "A country and its capital city.");
/// assert_eq!(openai["function"]["strict"], true);
/// assert_eq!(tool.openai_choice()["function"]["name"], "Capital");
/// assert_eq!(tool.anthropic()["input_schema"]["required"][1], "capital");
///
/// let response = serde_json::json!({"choices": [{"finish_reason": "tool_calls", "message": {"tool_calls": [
///     {"type": "function", "function": {"name": "Capital", "arguments": "{\"country\": \"Peru\", \"capital\": \"Lima\"}"}}
/// ]}}]});
/// let c: Capital = tool.read(&response).unwrap();
/// assert_eq!(c.capital, "Lima");
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub(crate) name: String,
    description: String,
    parameters: Value,
    /// Whether the type is the one property `value` of the parameters.
    pub(crate) wrapped: bool,
}

impl Tool {
    /// The tool for `T`.
    pub fn of<T: OutputSchema>() -> Tool {
        let (name, doc) = name_and_doc(&T::__shape());
        let (parameters, wrapped) = object_root(T::json_schema(), name);
        Tool {
            name: tool_name(name),
            description: doc.to_owned(),
            parameters,
            wrapped,
        }
    }

    /// The same tool under another name (OpenAI allows letters, digits, `_`
    /// and `-`, at most 64; others are dropped).
    pub fn named(mut self, name: &str) -> Tool {
        self.name = tool_name(name);
        self
    }

    /// The same tool with another description.
    pub fn described(mut self, description: &str) -> Tool {
        self.description = description.to_owned();
        self
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The parameters' JSON Schema (the type's, or the wrapper around it).
    pub fn parameters(&self) -> &Value {
        &self.parameters
    }

    /// OpenAI's function tool: `{"type": "function", "function": {...}}`,
    /// in strict mode: the parameters in [`strict_form`](super::strict_form), a keyword strict
    /// mode does not take (a text's `length`) said in the field's
    /// description and held by [`read`](Tool::read). Only parameters strict
    /// mode cannot express at all (a map or a free-form `serde_json::Value`
    /// field) are sent as they are with `strict: false`;
    /// [`strict_form`](super::strict_form)`(tool.parameters()).violations` says why.
    pub fn openai(&self) -> Value {
        let (parameters, strict) = super::strict_or_not(self.parameters.clone());
        json!({
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": parameters,
                "strict": strict,
            }
        })
    }

    /// OpenAI's `tool_choice` that makes the model call this tool.
    pub fn openai_choice(&self) -> Value {
        json!({"type": "function", "function": {"name": self.name}})
    }

    /// Anthropic's tool: `{"name", "description", "input_schema"}`.
    pub fn anthropic(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "input_schema": self.parameters,
        })
    }

    /// Anthropic's `tool_choice` that makes the model call this tool.
    pub fn anthropic_choice(&self) -> Value {
        json!({"type": "tool", "name": self.name})
    }
}

/// JSON mode without a schema (`response_format: {"type": "json_object"}`):
/// the model is held to some JSON object, and `schema_prompt()` in the system
/// prompt carries the shape.
pub fn json_mode() -> Value {
    json!({"type": "json_object"})
}

/// The type's Rust name and doc comment.
pub(crate) fn name_and_doc(shape: &Shape) -> (&'static str, &'static str) {
    match shape.resolve() {
        Shape::Struct(s) => (s.name, s.doc),
        Shape::Tagged(t) => (t.name, t.doc),
        Shape::Enum(e) => (e.name, e.doc),
        _ => ("answer", ""),
    }
}

/// A name OpenAI takes: letters, digits, `_` and `-`, at most 64, never empty.
pub(crate) fn tool_name(name: &str) -> String {
    let name: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .take(64)
        .collect();
    if name.is_empty() {
        "answer".into()
    } else {
        name
    }
}

/// The schema with an object at its root, as OpenAI's strict mode takes it:
/// as it is, or wrapped (`true`) where it is not an object.
pub(crate) fn object_root(schema: Value, name: &str) -> (Value, bool) {
    if schema.get("type") == Some(&json!("object")) {
        (schema, false)
    } else {
        (wrap(schema, name), true)
    }
}

/// `{"type": "object", "properties": {"value": schema}, ...}`, the schema's
/// `$defs` moved to the new root so its references still resolve. A type that
/// refers to itself (`"$ref": "#"`) moves into `$defs` under its name, since
/// `#` is now the wrapper.
fn wrap(mut schema: Value, name: &str) -> Value {
    let mut defs = schema.as_object_mut().and_then(|o| o.remove("$defs"));
    let own = format!("#/$defs/{name}");
    let recursive = refers_to_root(&schema)
        || defs
            .as_ref()
            .and_then(Value::as_object)
            .is_some_and(|d| d.values().any(refers_to_root));
    if recursive {
        let mut all = match defs.take() {
            Some(Value::Object(d)) => d,
            _ => Map::new(),
        };
        all.insert(name.to_owned(), schema);
        for def in all.values_mut() {
            repoint_root(def, &own);
        }
        defs = Some(Value::Object(all));
        schema = json!({ "$ref": own });
    }
    let mut root = Map::new();
    root.insert("type".into(), json!("object"));
    root.insert("properties".into(), json!({ "value": schema }));
    root.insert("required".into(), json!(["value"]));
    root.insert("additionalProperties".into(), json!(false));
    if let Some(defs) = defs {
        root.insert("$defs".into(), defs);
    }
    Value::Object(root)
}

/// Whether a schema holds a `"$ref": "#"`.
fn refers_to_root(schema: &Value) -> bool {
    match schema {
        Value::Object(o) => o.get("$ref") == Some(&json!("#")) || o.values().any(refers_to_root),
        Value::Array(a) => a.iter().any(refers_to_root),
        _ => false,
    }
}

/// Every `"$ref": "#"` in a schema pointed at `to` instead.
fn repoint_root(schema: &mut Value, to: &str) {
    match schema {
        Value::Object(o) => {
            if o.get("$ref") == Some(&json!("#")) {
                o.insert("$ref".into(), json!(to));
            }
            o.values_mut().for_each(|v| repoint_root(v, to));
        }
        Value::Array(a) => a.iter_mut().for_each(|v| repoint_root(v, to)),
        _ => {}
    }
}
