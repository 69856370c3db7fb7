//! The input model shared by `#[derive(Toon)]` and `#[derive(OutputSchema)]`:
//! one parser for the `#[toon(...)]` and `#[serde(...)]` keys, doc comments, and
//! the shapes both derives accept, so the two derives cannot disagree about a type.

pub mod ast;
pub mod attr;
pub mod shape;
pub mod support;
