//! Rust type declarations read at run time: the shape a derive would build,
//! for a type that arrives as text (a configuration file, a form a user
//! defines, a program in another language).
//!
//! [`Declarations::parse`] reads structs and enums from Rust source with the
//! derive's own model and checks (`toon-derive-internals`), so a key the
//! derive honours means the same here and a declaration it refuses is
//! refused with the same message, at its line and column. Each type then is
//! a [`RuntimeType`]: its prompt, header, schema, declarations, grammar and
//! tool are byte for byte a derived type's, and a reply is read into a
//! [`serde_json::Value`] by the same reader `from_toon` runs.
//!
//! ```
//! let decls = toon_decl::Declarations::parse(r#"
//!     /// A country and its capital.
//!     struct Capital {
//!         /// The country's name in English.
//!         country: String,
//!         capital: String,
//!     }
//! "#).unwrap();
//! let capital = decls.get("Capital").unwrap();
//! assert!(capital.toon_prompt().contains("country: "));
//! let value = capital.from_toon("country: Peru\ncapital: Lima").unwrap();
//! assert_eq!(value["capital"], "Lima");
//! ```
//!
//! What is read: structs with named fields, newtypes, unit enums and tagged
//! enums, with every `#[toon]`, `#[serde]`, `#[schemars]` and `#[validate]`
//! key the derive reads; fields of the standard types and of types declared
//! in the same text, in any order, recursion included. Items of other kinds
//! (`use`, functions, `impl` blocks) are passed over. Where some type derives
//! `Toon` or `OutputSchema`, only those types are read, so an application's
//! own source file can be read as it is; in a text of declarations alone,
//! with no derive, every struct and enum is.
//!
//! What only running code could say is refused at its line: a generic
//! declaration, a default from a function (`default = "path"`) or from a
//! hand-written `impl Default` (a derived `Default` is read), a doc comment
//! written by a macro other than `concat!` and `include_str!` (whose file is
//! read from the folder [`Declarations::parse_in`] names).
//!
//! Reading keeps some memory for the program's life, as a derived type's
//! descriptions are compiled in: the names and doc comments (each distinct
//! text once), the shape of each recursive type (it refers to itself), and
//! proc-macro2's record of where each text's tokens stand (a long-running
//! program that reads many texts can clear it between reads with
//! `proc_macro2::extra::invalidate_current_thread_spans`). Read a text once
//! and keep its [`Declarations`].
#![warn(missing_docs)]

mod docs;
mod intern;
mod items;
mod types;

use std::fmt;
use std::str::FromStr;

use serde_json::Value;
use syn::spanned::Spanned;
use syn::DeriveInput;
use toon_core::runtime::{FieldNotes, Notes, RuntimeType};
use toon_core::schema::{
    Constraints, Describe, EnumShape, FieldShape, Shape, StructShape, TaggedShape, VariantShape,
};
use toon_derive_internals::ast::{Body, Field, Fill};
use toon_derive_internals::attr::DefaultValue;
use toon_derive_internals::doc::Doc;
use toon_derive_internals::shape::stream_keys;
use toon_derive_internals::Derive;

use intern::{leak, leak_list};
use types::{Declared, Table, View};

/// The types declared in one text, each a [`RuntimeType`].
#[derive(Debug, Clone)]
pub struct Declarations {
    types: Vec<(String, RuntimeType)>,
}

/// One thing wrong with a declaration: where it is and what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Its line, from 1.
    pub line: usize,
    /// Its column, in characters from 1.
    pub column: usize,
    /// What is wrong, in the derive's own words where the derive would refuse it.
    pub message: String,
}

/// Declarations that cannot be read: every [`Diagnostic`], in the order found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclError {
    /// What is wrong, each at its place.
    pub diagnostics: Vec<Diagnostic>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl fmt::Display for DeclError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            d.fmt(f)?;
        }
        Ok(())
    }
}

impl std::error::Error for DeclError {}

fn at(span: proc_macro2::Span, message: impl Into<String>) -> Diagnostic {
    let start = span.start();
    Diagnostic {
        line: start.line,
        column: start.column + 1,
        message: message.into(),
    }
}

fn from_syn(e: syn::Error, out: &mut Vec<Diagnostic>) {
    out.extend(e.into_iter().map(|e| at(e.span(), e.to_string())));
}

impl Declarations {
    /// Reads the structs and enums of `text`.
    ///
    /// # Errors
    /// Every declaration that cannot be read, each at its line and column:
    /// text that is not Rust, what the derive refuses (with its message), a
    /// type no reply is read into, and what only running code could say.
    pub fn parse(text: &str) -> Result<Declarations, DeclError> {
        Declarations::read(text, None)
    }

    /// [`parse`](Self::parse) of the text of a file in `dir`: a doc comment's
    /// `include_str!("..")` is read from there, as the compiler reads it.
    ///
    /// # Errors
    /// As [`parse`](Self::parse).
    pub fn parse_in(text: &str, dir: &std::path::Path) -> Result<Declarations, DeclError> {
        Declarations::read(text, Some(dir))
    }

    fn read(text: &str, dir: Option<&std::path::Path>) -> Result<Declarations, DeclError> {
        match Declarations::parse_each(text, dir) {
            (decls, diagnostics) if diagnostics.is_empty() => Ok(decls),
            (_, diagnostics) => Err(DeclError { diagnostics }),
        }
    }

    /// Reads what can be read of `text`: every type that reads, and a
    /// [`Diagnostic`] for each that does not, and for each type that refers
    /// to one that does not. For an application's source file, where one
    /// type the run-time reading cannot take (a generic one, say) should not
    /// keep the others from being read.
    /// `dir`, where given, is the folder of the text's file, as for
    /// [`parse_in`](Self::parse_in).
    pub fn parse_each(
        text: &str,
        dir: Option<&std::path::Path>,
    ) -> (Declarations, Vec<Diagnostic>) {
        let mut diagnostics = Vec::new();
        let tokens = match proc_macro2::TokenStream::from_str(text) {
            Ok(tokens) => tokens,
            Err(e) => {
                let d = at(e.span(), format!("the text is not Rust: {e}"));
                return (Declarations { types: Vec::new() }, vec![d]);
            }
        };
        let mut inputs: Vec<DeriveInput> = Vec::new();
        for item in items::items(tokens) {
            let end = item.clone().into_iter().last().map(|t| t.span());
            match syn::parse2::<DeriveInput>(item) {
                Ok(input) => inputs.push(input),
                // An item cut short: said where it stops, not at the text's start.
                Err(e) if e.to_string().starts_with("unexpected end of input") => {
                    let place = end.map_or_else(|| e.span().start(), |s| s.end());
                    diagnostics.push(Diagnostic {
                        line: place.line,
                        column: place.column + 1,
                        message: e.to_string(),
                    });
                }
                Err(e) => from_syn(e, &mut diagnostics),
            }
        }
        // In a source file that derives, the types that derive; in a text
        // of declarations alone, every type.
        if inputs.iter().any(|i| derives(i, &["Toon", "OutputSchema"])) {
            inputs.retain(|i| derives(i, &["Toon", "OutputSchema"]));
        }
        let mut table = Table {
            dir: dir.map(std::path::Path::to_path_buf),
            ..Table::default()
        };
        let mut order = Vec::new();
        for input in &inputs {
            let name = input.ident.to_string();
            if table.refused.contains(&name) || table.types.contains_key(&name) {
                // Neither is read: which one is meant would be a guess.
                if let Some(first) = table.types.get(&name) {
                    first.refused.set(true);
                }
                diagnostics.push(at(
                    input.ident.span(),
                    format!("`{name}` is declared twice (a run-time type goes by its name alone, whatever its module): give each type its own name"),
                ));
                continue;
            }
            // The derive's own words: `OutputSchema`'s where only it is derived.
            let derive = if derives(input, &["OutputSchema"]) && !derives(input, &["Toon"]) {
                Derive::OutputSchema
            } else {
                Derive::Toon
            };
            let container = match toon_derive_internals::parse(input, derive) {
                Ok(_) if !input.generics.params.is_empty() => {
                    diagnostics.push(at(
                        input.generics.span(),
                        format!("`{name}` is generic, and a generic declaration is not read at run time: declare the type for each use, with its fields' types written out"),
                    ));
                    None
                }
                Ok(container) => Some(container),
                Err(e) => {
                    from_syn(e, &mut diagnostics);
                    None
                }
            };
            let Some(container) = container else {
                // Kept by name, so that a type referring to it says so.
                table.refused.insert(name);
                continue;
            };
            order.push(name.clone());
            table.types.insert(
                name,
                Declared {
                    container,
                    describe: [Describe::later(), Describe::later()],
                    derives_default: derives(input, &["Default"]),
                    refused: std::cell::Cell::new(false),
                },
            );
        }
        // Until no type is newly refused: a type refused refuses each type
        // that refers to it, on the next round.
        loop {
            let mut notes = Notes::default();
            let before = diagnostics.len();
            for declared in table.types.values_mut() {
                declared.describe = [Describe::later(), Describe::later()];
            }
            let live: Vec<&String> = order
                .iter()
                .filter(|n| !table.types[*n].refused.get())
                .collect();
            // Unit enums first: a field refers to one by its whole shape.
            let (enums, others): (Vec<&String>, Vec<&String>) = live
                .iter()
                .partition(|n| matches!(table.types[**n].container.body, Body::UnitEnum(_)));
            for view in [View::Toon, View::Schema] {
                for name in enums.iter().chain(&others) {
                    let declared = &table.types[*name];
                    if declared.refused.get() {
                        continue;
                    }
                    match own_shape(declared, &table, &mut notes, view) {
                        Ok(Some(shape)) => {
                            declared.describe[view as usize].set(shape);
                        }
                        Ok(None) => {}
                        Err(mut d) => {
                            declared.refused.set(true);
                            diagnostics.append(&mut d);
                        }
                    }
                }
            }
            let mut out = Vec::new();
            for name in &live {
                let declared = &table.types[*name];
                if declared.refused.get() {
                    continue;
                }
                let shape_in = |view: View| match &declared.container.body {
                    Body::Newtype { ty, .. } => types::shape_of(ty, &table, view)
                        .map_err(|types::Unknown(m)| at(ty.span(), m)),
                    _ => Ok(declared.describe[view as usize].get()),
                };
                match (shape_in(View::Toon), shape_in(View::Schema)) {
                    (Ok(toon), Ok(schema)) => out.push((toon, schema, (*name).clone())),
                    (Err(d), _) | (_, Err(d)) => {
                        declared.refused.set(true);
                        diagnostics.push(d);
                    }
                }
            }
            if diagnostics.len() == before {
                // One set of notes, shared by every type of the text.
                let notes = std::sync::Arc::new(notes);
                let types = out
                    .into_iter()
                    .map(|(toon, schema, name)| {
                        let ty =
                            RuntimeType::new(toon, leak(&name), notes.clone()).schema_shape(schema);
                        (name, ty)
                    })
                    .collect();
                diagnostics.sort_by_key(|d| (d.line, d.column));
                diagnostics.dedup();
                return (Declarations { types }, diagnostics);
            }
        }
    }

    /// The type named `name` (its Rust name).
    pub fn get(&self, name: &str) -> Option<&RuntimeType> {
        self.types.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }

    /// The names of the types, in the order declared.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.types.iter().map(|(n, _)| n.as_str())
    }
}

/// Whether the `derive` lists of `input` name one of `traits`.
fn derives(input: &DeriveInput, traits: &[&str]) -> bool {
    input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .filter_map(|a| {
            a.parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            )
            .ok()
        })
        .flatten()
        .any(|p| {
            p.segments
                .last()
                .is_some_and(|s| traits.iter().any(|t| s.ident == t))
        })
}

/// The type's own shape (`None` for a newtype, which has none of its own),
/// its reading notes added to `notes`.
fn own_shape(
    declared: &Declared<'_>,
    table: &Table<'_>,
    notes: &mut Notes,
    view: View,
) -> Result<Option<Shape>, Vec<Diagnostic>> {
    let c = &declared.container;
    let name = leak(&c.input.ident.to_string());
    let doc = doc_text(&c.doc, c.input.ident.span(), table).map_err(|d| vec![d])?;
    let shape = match &c.body {
        Body::Newtype { .. } => return Ok(None),
        Body::Struct(fields) => {
            notes.stream_keys(name, keys_of(std::iter::once(fields.as_slice())));
            let fields = read_fields(declared, fields, table, notes, (name, ""), view)?;
            Shape::Struct(StructShape { name, doc, fields })
        }
        Body::UnitEnum(variants) => {
            let mut docs = Vec::new();
            let mut aliases = Vec::new();
            let mut diagnostics = Vec::new();
            for (i, v) in variants.iter().enumerate() {
                match doc_text(&v.doc, v.ident.span(), table) {
                    Ok(d) => docs.push((leak(&v.wire), d)),
                    Err(d) => diagnostics.push(d),
                }
                aliases.extend(v.attrs.aliases.iter().map(|a| (leak(a), i)));
            }
            if !diagnostics.is_empty() {
                return Err(diagnostics);
            }
            notes.variant_aliases(name, aliases.clone());
            Shape::Enum(EnumShape {
                name,
                doc,
                variants: docs,
                aliases: aliases.into_iter().map(|(a, _)| a).collect(),
            })
        }
        Body::Tagged { tag, variants } => {
            let mut out = Vec::new();
            let mut diagnostics = Vec::new();
            let mut aliases = Vec::new();
            for (i, v) in variants.iter().enumerate() {
                let wire = leak(&v.wire);
                aliases.extend(v.attrs.aliases.iter().map(|a| (leak(a), i)));
                let fields = read_fields(declared, &v.fields, table, notes, (name, wire), view);
                match (doc_text(&v.doc, v.ident.span(), table), fields) {
                    (Ok(doc), Ok(fields)) => out.push(VariantShape {
                        name: wire,
                        doc,
                        fields,
                    }),
                    (d, f) => {
                        diagnostics.extend(d.err());
                        diagnostics.extend(f.err().into_iter().flatten());
                    }
                }
            }
            if !diagnostics.is_empty() {
                return Err(diagnostics);
            }
            notes.variant_aliases(name, aliases);
            notes.stream_keys(name, keys_of(variants.iter().map(|v| v.fields.as_slice())));
            Shape::Tagged(TaggedShape {
                name,
                doc,
                tag: leak(tag),
                variants: out,
            })
        }
    };
    Ok(Some(shape))
}

/// The keys a stream asks about, by the derive's rule ([`stream_keys`]): each
/// key with the variant (0 for a struct) and live field that answers it.
fn keys_of<'f>(
    variants: impl Iterator<Item = &'f [Field<'f>]>,
) -> Vec<(&'static str, usize, usize)> {
    let keyed = variants.enumerate().flat_map(|(v, fields)| {
        fields
            .iter()
            .filter(|f| !f.attrs.skip)
            .enumerate()
            .map(move |(f, field)| (field, (v, f)))
    });
    stream_keys(keyed)
        .into_iter()
        .flat_map(|(_, (v, f), keys)| keys.into_iter().map(move |k| (leak(k), v, f)))
        .collect()
}

/// The shapes and reading notes of a struct's (or variant's) live fields.
fn read_fields(
    declared: &Declared<'_>,
    fields: &[Field<'_>],
    table: &Table<'_>,
    notes: &mut Notes,
    (name, variant): (&'static str, &'static str),
    view: View,
) -> Result<Vec<FieldShape>, Vec<Diagnostic>> {
    let mut shapes = Vec::new();
    let mut reading = Vec::new();
    let mut keys = Vec::new();
    let mut diagnostics = Vec::new();
    for f in fields.iter().filter(|f| !f.attrs.skip) {
        match field(declared, f, table, view) {
            Ok((shape, n)) => {
                keys.push(shape.name);
                keys.extend(n.aliases);
                shapes.push(shape);
                reading.push(n);
            }
            Err(d) => diagnostics.push(d),
        }
    }
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    notes.fields(name, variant, reading);
    if variant.is_empty() {
        notes.keys(name, leak_list(keys));
    }
    Ok(shapes)
}

fn field(
    declared: &Declared<'_>,
    f: &Field<'_>,
    table: &Table<'_>,
    view: View,
) -> Result<(FieldShape, FieldNotes), Diagnostic> {
    let shape =
        types::shape_ref(f.ty, table, view).map_err(|types::Unknown(m)| at(f.ty.span(), m))?;
    // What the compiler refuses of a derived type, by the trait bound its
    // generated code asks of the field.
    let ty = quote::ToTokens::to_token_stream(f.ty).to_string();
    if !f.constraints.is_empty() && !types::measures(f.ty) {
        return Err(at(f.ty.span(), format!("a field constraint cannot measure `{ty}`: `range` bounds a number; `length` a text or a list; `pattern` a text; to bound what a derived type holds, put the constraint on that type's own fields")));
    }
    if !f.inner.is_empty() && !types::has_items(f.ty) {
        return Err(at(f.ty.span(), format!("`inner` constraints cannot reach the items of `{ty}`: `inner` bounds each item of a `Vec` or each value of a map; put the constraint on the field itself, or on the item type's own fields")));
    }
    let missing = match &f.fill {
        Fill::Required => None,
        Fill::Trait => Some(types::default_of(f.ty, table).map_err(|m| at(f.ty.span(), m))?),
        Fill::Path(path) => {
            return Err(at(
                path.span(),
                "`default = \"..\"` calls a function, which is not run at run time: use `#[serde(default)]` with a type whose default is known, or make the field required",
            ))
        }
        Fill::Container => Some(container_default(declared, f, table)?),
    };
    let n = FieldNotes {
        aliases: leak_list(f.attrs.aliases.iter().map(|a| leak(a)).collect()),
        missing,
    };
    let shape = FieldShape {
        name: leak(&f.wire),
        doc: doc_text(&f.doc, f.ident.span(), table)?,
        optional: f.has_default() || types::optional(f.ty, table),
        shape,
        max_len: f.attrs.max_len,
        max_items: f.attrs.max_items,
        delimited: f.attrs.delimited.is_some(),
        constraints: constraints(&f.constraints),
        inner: constraints(&f.inner),
    };
    Ok((shape, n))
}

/// A field's value in its struct's own default (`#[serde(default)]` on the struct).
fn container_default(
    declared: &Declared<'_>,
    f: &Field<'_>,
    table: &Table<'_>,
) -> Result<Value, Diagnostic> {
    let c = &declared.container;
    let span = c.attrs.default.1.unwrap_or_else(|| c.input.ident.span());
    match &c.attrs.default.0 {
        DefaultValue::Path(_) => Err(at(
            span,
            "`default = \"..\"` calls a function, which is not run at run time: derive `Default` and use `#[serde(default)]`, or make the fields required",
        )),
        _ => {
            let name = c.input.ident.to_string();
            let whole = types::declared_default(&name, declared, table).map_err(|m| at(span, m))?;
            Ok(whole.get(&f.wire).cloned().unwrap_or(Value::Null))
        }
    }
}

fn constraints(c: &toon_derive_internals::constraint::Constraints) -> Constraints {
    Constraints::new(
        c.min,
        c.max,
        c.min_length,
        c.max_length,
        c.pattern.as_deref().map(leak),
    )
}

/// A doc comment's text: written out, or by `concat!` and `include_str!`
/// (a file in the declarations' folder, [`Declarations::parse_in`]).
fn doc_text(
    doc: &Doc,
    span: proc_macro2::Span,
    table: &Table<'_>,
) -> Result<&'static str, Diagnostic> {
    let dir = table.dir.as_deref();
    doc.text_with(|e| docs::expand(e, dir)).map(|t| leak(&t)).ok_or_else(|| {
        let why = match dir {
            Some(dir) => format!("its file cannot be read from `{}`", dir.display()),
            None => "a text read with `parse` has no folder to read its file from: use `Declarations::parse_in`".to_owned(),
        };
        at(
            span,
            format!("this doc comment is written by a macro that cannot be read here ({why}); `concat!` of literals and `include_str!` are read"),
        )
    })
}
