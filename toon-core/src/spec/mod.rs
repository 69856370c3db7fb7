//! The specification's codec: TOON text to the JSON data model and back,
//! exactly as SPEC v4.1 says, with its options and errors.
//!
//! Inside, the engine the reply pipeline is built on, bottom up: `error`,
//! `options` and `equality`; `lines` (the significant lines, their depth) and
//! `lex` (tokens inside a line); `header` (array headers) and `node` (the
//! decoded tree); `decode` and `encode`.

pub(crate) mod decode;
pub(crate) mod encode;
pub(crate) mod equality;
pub(crate) mod error;
pub(crate) mod header;
pub(crate) mod lex;
pub(crate) mod lines;
pub(crate) mod node;
pub(crate) mod options;

pub use decode::decode;
pub use encode::encode;
pub use equality::json_model_eq;
pub use error::{DecodeError, DecodeErrorKind};
pub use options::{DecodeOptions, Delimiter, EncodeOptions};
