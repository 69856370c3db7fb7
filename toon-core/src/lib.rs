//! Typed output from language models, in TOON.
//!
//! One Rust type gives the format shown to the model, the decoder that reads the
//! reply, the JSON Schema for servers that constrain decoding, and the prompt
//! text that says what each field means.
//!
//! - [`Toon`] (derive it): [`Toon::toon_prompt`] for the system prompt,
//!   [`Toon::from_toon`] to read the reply (tolerant of the mistakes listed on
//!   [`RepairKind`], refusing with a [`ParseError`] what it cannot read without
//!   guessing), [`Toon::to_toon`] for few-shot examples; [`ToonOutputParser`].
//! - [`Toon::toon_grammar`]: the grammar (GBNF or Lark, [`GrammarSyntax`]) of
//!   exactly the type's TOON, every text and list bounded, for servers that
//!   constrain sampling; [`constrain_request`] puts it in a chat request in the
//!   server's own field ([`GrammarServer`]).
//! - Field constraints (`#[toon(range(..), length(..), pattern = "..")]`, also
//!   read from `#[schemars]` and `#[validate]`), carried into every artefact and
//!   refused by the decoder as [`ParseErrorKind::Constraint`]; the caller's own
//!   check ([`ToonOutputParser::validate`]); the retry turn
//!   ([`ParseError::retry_prompt`], [`ToonOutputParser::parse_with_retries`]).
//! - How a reply ended ([`FinishReason`], [`ReplyOptions::finish_reason`])
//!   decides whether a reply that stops short is [`ParseErrorKind::Truncated`].
//! - [`OutputSchema`] (derive it): [`OutputSchema::json_schema`] and
//!   [`OutputSchema::schema_prompt`]; [`from_json_reply`] reads a JSON reply
//!   into a `Toon` type with its own decoder, as `from_toon` reads TOON.
//! - [`decode`] and [`encode`]: the specification's decoder and encoder over
//!   the JSON data model (`serde_json::Value`, key order preserved);
//!   [`decode_reply`]: the tolerant decoder for model replies without a type.
//!
//! The rest is in modules: [`spec`] (the codec's options and errors),
//! [`reply`] (the reply decoder's entry points with options and reports, the
//! JSON path), [`schema`] (JSON Schema, `response_format`, tools, the type's
//! [`Shape`](schema::Shape)), [`grammar`] (grammar options and bounds),
//! [`request`] (constrained requests and reading the reply's text),
//! [`exchange`] (a typed ask with no I/O: every request body of a mechanism
//! and a server, each response read into the type, the next body after a
//! refusal), [`stream`] (events of a [`ToonStream`]) and [`retry`] (the
//! retry loop's turns and outcome).
//!
//! ```
//! # #[cfg(feature = "derive")] {
//! use toon_core::{OutputSchema, Toon};
//!
//! /// A country and its capital city.
//! #[derive(Debug, PartialEq, Toon, OutputSchema)]
//! struct Capital {
//!     /// The country's name in English.
//!     country: String,
//!     /// The capital city of that country; a city, never the country's own name.
//!     capital: String,
//! }
//!
//! // The TOON path: the prompt snippet and the tolerant decoder.
//! assert!(Capital::toon_prompt().contains("capital: <text>"));
//! let c = Capital::from_toon("```toon\ncountry: France\ncapital: Paris\n```").unwrap();
//! assert_eq!(c.capital, "Paris");
//!
//! // The JSON-Schema path: the schema for the server, the declarations for the model.
//! assert_eq!(Capital::json_schema()["required"], serde_json::json!(["country", "capital"]));
//! assert!(Capital::schema_prompt().contains("/// The country's name in English.\n    country: String,"));
//! # }
//! ```
//!
//! # How a reply is read
//!
//! The modules are layers, each importing only its own and those below it: lines and
//! tokens (`lines`, `lex`), headers and the decoded tree (`header`, `node`,
//! where every entry, item and row carries its line), the specification's
//! decoder and encoder, the type's [`Shape`](schema::Shape) and what is built from it (prompt,
//! schema, grammar), the reply pipeline (its repair stages in a fixed order over
//! one buffer of lines borrowed from the completion, then a decode of the
//! repaired text, where the text as it stands did not decode), and typed
//! reading. A table row is read straight into its struct, cell by header
//! position, each unquoted cell from its token as the field's type wants it,
//! where every cell reads as it stands; any other row takes the full path,
//! which repairs, reports or refuses it, each error and repair placed on its
//! line as it is made. A clean reply is read once. The stream ([`ToonStream`])
//! sorts each line as it ends; a clean row arrives as a
//! [`stream::Element`] that keeps its text until read, any other line is read
//! through the same pipeline and carries its repairs, and a row the type
//! cannot read (which the whole reply drops) has no event. `finish` runs the
//! decode `from_toon` runs, on the text the stream kept.
//!
//! # Specification version
//!
//! `toon-spec: 4.1`. The decoder follows SPEC v4.1 (working draft of
//! 2026-07-26) and passes the whole v4.0 conformance suite. Where 4.1 changes
//! decoding, 4.1 is followed:
//! - a byte-order mark at the start of the document is removed;
//! - trailing spaces at the end of a line are not content (so `- ` alone is the
//!   empty-object list item);
//! - text after the closing quote of a quoted token is an error, wherever the
//!   token stands;
//! - `- []` is accepted as an empty inner array;
//! - `key[]:` is a malformed header (strict error).
//!
//! # Numbers
//!
//! Integers that fit `i64` or `u64` decode exactly; every other number decodes
//! to the nearest `f64`, and an integral `f64` within the `i64` range is folded
//! to that integer (`1.0`, `1e3` and `-0` decode as `1`, `1000` and `0`). A
//! numeric token whose magnitude overflows or underflows `f64` (`1e400`) decodes
//! as the string it is, so nothing is silently rounded to infinity or zero.
//! The encoder writes numbers in canonical decimal form within
//! `1e-6 <= |n| < 1e21` and in exponent form (`1e+21`, `1.5e-7`) outside it.
#![warn(missing_docs)]

/// What generated code reaches; not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::shape::{
        trim_doc, Constraints, EnumShape, FieldShape, StructShape, TaggedShape, VariantShape,
    };
    pub use crate::spec::node::{Node, Scalar};
    pub use crate::typed::{
        CellCheck, Cx, Fields, ItemAt, Items, Measure, Measured, Readers, RowCells, StreamRow,
    };
    /// What a field's description asks of its type, by the trait a derive
    /// implements: `by_toon::shape_ref::<T>()` or `by_schema::shape_ref::<T>()`.
    pub mod by_toon {
        use crate::schema::Shape;
        use crate::Toon;
        /// `T`'s shape.
        pub fn shape<T: Toon>() -> Shape {
            T::__TOON.shape()
        }
        /// How a field of type `T` refers to it.
        pub fn shape_ref<T: Toon>() -> Shape {
            T::__TOON.shape_ref()
        }
        /// May a field of type `T` be missing?
        pub fn optional<T: Toon>() -> bool {
            T::__TOON.optional()
        }
    }
    /// [`by_toon`]'s entries, of an [`OutputSchema`](crate::OutputSchema) type.
    pub mod by_schema {
        use crate::schema::{OutputSchema, Shape};
        /// `T`'s shape.
        pub fn shape<T: OutputSchema>() -> Shape {
            T::__shape()
        }
        /// How a field of type `T` refers to it.
        pub fn shape_ref<T: OutputSchema>() -> Shape {
            T::__shape_ref()
        }
        /// May a field of type `T` be missing?
        pub fn optional<T: OutputSchema>() -> bool {
            T::__optional()
        }
    }
    pub use serde_json::{Map, Value};
    /// What a generated partial value and its events call.
    pub mod partial {
        pub use crate::typed::partial::{
            checked, extend, field, grow, item, key, set, shown, shown_item, shown_slot, text,
            unchecked, Check, Grow,
        };
    }
}

pub mod exchange;
pub mod grammar;
mod prompt;
pub mod reply;
pub mod request;
pub mod schema;
mod shape;
mod typed;

pub mod spec;

/// Streaming replies: typed records as the model writes them (see
/// [`ToonStream`]).
pub mod stream {
    pub use crate::typed::{
        Element, Event, Item, Partial, PartialStream, Streamed, ToonEvents, ToonStream, Update,
    };
}

/// Types described at run time: a [`Shape`](schema::Shape) built from text
/// gets the prompt, schema, grammar, tool and readers a derived type gets
/// (see [`RuntimeType`](runtime::RuntimeType)).
pub mod runtime {
    pub use crate::typed::runtime::{Dynamic, FieldNotes, Notes, RuntimeStream, RuntimeType};
}

/// Asking again: the turns of a retry loop and what it returns (see
/// [`ToonOutputParser::parse_with_retries`](crate::ToonOutputParser::parse_with_retries)).
pub mod retry {
    pub use crate::typed::{Attempt, Measures, Retried, RetryError, Turn};
}

pub use grammar::GrammarSyntax;
pub use reply::{
    decode_reply, FinishReason, ParseError, ParseErrorKind, Repair, RepairKind, Reply, ReplyOptions,
};
pub use request::{constrain_request, GrammarServer};
pub use schema::OutputSchema;
/// Derives [`OutputSchema`]; the shapes and keys it takes are those of [`macro@Toon`].
#[cfg(feature = "derive")]
pub use schema_derive::OutputSchema;
pub use spec::{decode, encode};
/// Derives [`Toon`] for a struct with named fields, a newtype struct (or a
/// one-field struct marked `transparent`), an enum of unit variants, or an
/// internally tagged enum (`#[toon(tag = "kind")]` or `#[serde(tag = "kind")]`).
///
/// Serde's keys that change what serde reads are followed or refused at their
/// span, so serde and the derives read one shape: followed are `rename` and
/// `rename_all` in both forms (the deserialize name is the one the model
/// writes), `rename_all_fields`, `alias`, `default` (also `default = "path"`,
/// and on the struct), `skip`, `skip_deserializing`, `tag` and `transparent`;
/// refused are `flatten`, `untagged`, `content`, `with`, `deserialize_with`,
/// `from`, `try_from`, `remote`, the identifier enums, `other` and skipped
/// variants. `#[toon(..)]` takes the same keys in the same places, plus `crate`,
/// `max_len`, `max_items`, `range`, `length`, `pattern` and `delimited` (a
/// `String` field written after the TOON lines between `<name>` and `</name>`,
/// see docs/types.md), and `partial` on a struct with `stream(done)` on its
/// fields (the value a [`PartialStream`](stream::PartialStream) fills as the
/// reply streams, see docs/streaming.md); a key in the wrong
/// place is an error saying where it belongs. Doc comments, including
/// `#[doc = include_str!(..)]` and `#[doc = concat!(..)]`, become descriptions.
#[cfg(feature = "derive")]
pub use toon_derive::Toon;
pub use typed::{from_json_reply, Toon, ToonOutputParser, ToonStream};
