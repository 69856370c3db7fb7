//! JSON Schema for constrained decoding, and the declarations as prompt text.

mod declarations;
mod impls;
mod json_schema;
mod tool;

pub use crate::shape::{
    Constraints, Describe, EnumShape, FieldShape, Shape, StructShape, TaggedShape, VariantShape,
};
pub use tool::{json_mode, Tool};
pub(crate) use tool::{name_and_doc, object_root, tool_name};

use serde_json::{json, Value};

pub use json_schema::{strict_form, strict_violations, StrictForm};

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
    /// demands. Doc comments become `description`s (a unit enum's documented
    /// variants as lines `NAME: doc` in the enum's); derived types used in
    /// fields are `$ref`s into `$defs`.
    fn json_schema() -> Value {
        json_schema_of(&Self::__shape())
    }

    /// The declarations of the type and of every type it uses, as Rust with
    /// their doc comments and wire names: the text for the system prompt next
    /// to the schema, because the server keeps only the schema's grammar and
    /// the model never sees its descriptions.
    fn schema_prompt() -> String {
        declarations_of(&Self::__shape())
    }
}

/// [`OutputSchema::json_schema`] of a shape.
pub(crate) fn json_schema_of(shape: &Shape) -> Value {
    json_schema::schema(shape)
}

/// [`OutputSchema::schema_prompt`] of a shape.
pub(crate) fn declarations_of(shape: &Shape) -> String {
    declarations::render(shape)
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
/// In the [`OpenAi`](SchemaDialect::OpenAi) form the schema is in strict
/// mode's form ([`strict_form`]): a keyword strict mode does not take (a
/// text's `length`) is said in the field's description instead, and held by
/// the typed readers, so `strict` stays `true`. Only a schema strict mode
/// cannot express at all (a map or a free-form `serde_json::Value` field) is
/// sent as it is with `strict: false`; [`strict_form`]'s `violations` say why.
///
/// OpenAI takes only an object at a schema's root, so in the
/// [`OpenAi`](SchemaDialect::OpenAi) form a type that is not an object (a
/// list, an enum, an `Option`, a tagged enum's `anyOf`) is wrapped as the one
/// property `value` of an object, as a [`Tool`]'s parameters are; read such a
/// reply as [`Wrapped<T>`](crate::reply::Wrapped). llama-cpp-python's form takes any
/// root and is never wrapped.
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use toon_core::{schema::response_format, OutputSchema, schema::SchemaDialect, Toon};
///
/// /// A country and its capital.
/// #[derive(Toon, OutputSchema)]
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
///
/// // A list is wrapped for OpenAI, and its reply read through the wrapper.
/// let rf = response_format::<Vec<Capital>>(SchemaDialect::OpenAi);
/// assert_eq!(rf["json_schema"]["schema"]["properties"]["value"]["type"], "array");
/// let reply = r#"{"value": [{"country": "Peru", "capital": "Lima"}]}"#;
/// let toon_core::reply::Wrapped(list) = toon_core::from_json_reply::<toon_core::reply::Wrapped<Vec<Capital>>>(reply).unwrap();
/// assert_eq!(list[0].capital, "Lima");
/// # }
/// ```
pub fn response_format<T: OutputSchema>(dialect: SchemaDialect) -> Value {
    let schema = T::json_schema();
    match dialect {
        SchemaDialect::OpenAi => {
            let (name, _) = name_and_doc(&T::__shape());
            let (schema, _) = object_root(schema, name);
            let (schema, strict) = strict_or_not(schema);
            json!({
                "type": "json_schema",
                "json_schema": {
                    // As OpenAI takes a name: `Größe` is `Gre`.
                    "name": tool_name(name),
                    "strict": strict,
                    "schema": schema,
                }
            })
        }
        SchemaDialect::LlamaCppPython => json!({ "type": "json_object", "schema": schema }),
    }
}

/// The schema in strict mode's form and `true`, where strict mode can take
/// it; else the schema as it is and `false`.
pub(crate) fn strict_or_not(schema: Value) -> (Value, bool) {
    let strict = strict_form(&schema);
    if strict.violations.is_empty() {
        (strict.schema, true)
    } else {
        (schema, false)
    }
}
