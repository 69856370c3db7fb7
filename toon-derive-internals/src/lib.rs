//! The input model shared by `#[derive(Toon)]` and `#[derive(OutputSchema)]`,
//! in stages, as serde_derive and thiserror build theirs:
//!
//! - [`attr`]: the keys of each place (container, field, variant), from
//!   `#[toon]`, `#[serde]`, `#[schemars]` and `#[validate]`; [`doc`]: doc comments;
//! - [`ast`]: the input as a small model of our own;
//! - [`check`]: the rules across that model, one function each;
//! - [`shape`]: the expression describing the type, which both expansions share;
//! - [`fallback`]: the stub impl emitted beside the errors.
//!
//! Every error is collected in a [`ctxt::Ctxt`] and reported at once, at its span.

pub mod ast;
pub mod attr;
pub mod case;
pub mod check;
pub mod constraint;
pub mod ctxt;
pub mod doc;
pub mod fallback;
pub mod shape;
pub mod support;

use syn::DeriveInput;

pub use fallback::Derive;

/// Parses and checks `input` for `derive`: the model, or every error combined.
pub fn parse(input: &DeriveInput, derive: Derive) -> Result<ast::Container<'_>, syn::Error> {
    let cx = ctxt::Ctxt::new();
    let cont = ast::Container::from_ast(&cx, input, derive.name());
    check::check(&cx, &cont, derive.name());
    cx.check().map(|()| cont)
}
