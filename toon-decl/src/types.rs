//! A field's Rust type as a shape, and the value `Default::default()` gives
//! it: the standard types as `toon-core` implements them, and the types
//! declared in the same text.

use std::collections::HashMap;

use serde_json::Value;
use syn::{PathArguments, Type};
use toon_core::schema::{Describe, Shape};
use toon_core::Toon;
use toon_derive_internals::ast::{Body, Container};

use crate::intern::leak;

/// A declared type, as its fields refer to it.
pub(crate) struct Declared<'a> {
    pub container: Container<'a>,
    /// Set once the type's own shape is built, as `Toon` sees it and as
    /// `OutputSchema` does; recursion refers to it before.
    pub describe: [Describe; 2],
    /// `#[derive(Default)]` is among its derives.
    pub derives_default: bool,
    /// Its declaration, or a type it refers to, cannot be read.
    pub refused: std::cell::Cell<bool>,
}

/// How a derive sees the fields' types: `OutputSchema` refers to a unit
/// enum by name (a `$defs` entry), `Toon` writes it out where it is used.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum View {
    Toon = 0,
    Schema = 1,
}

/// The declarations of one text, by Rust name, and the names of those
/// refused outright.
#[derive(Default)]
pub(crate) struct Table<'a> {
    pub types: HashMap<String, Declared<'a>>,
    pub refused: std::collections::HashSet<String>,
    /// The folder a doc comment's `include_str!` is read from.
    pub dir: Option<std::path::PathBuf>,
    /// The newtypes and defaults being described, outermost first: one met
    /// again holds itself, which no value can.
    pub visiting: std::cell::RefCell<Vec<String>>,
}

impl Table<'_> {
    /// Runs `f` with `name` being described; an error where it already is.
    fn visit<T>(
        &self,
        name: &str,
        what: &str,
        f: impl FnOnce() -> Result<T, String>,
    ) -> Result<T, String> {
        if self.visiting.borrow().iter().any(|n| n == name) {
            let path = self.visiting.borrow().join("` holds `");
            return Err(format!(
                "`{path}` holds `{name}` again, so no value of `{name}` ends: {what}"
            ));
        }
        self.visiting.borrow_mut().push(name.to_owned());
        let out = f();
        self.visiting.borrow_mut().pop();
        out
    }

    /// The declared type `name`, or why a field cannot refer to it.
    fn get(&self, name: &str, ty: &Type) -> Result<&Declared<'_>, Unknown> {
        match self.types.get(name) {
            Some(d) if !d.refused.get() => Ok(d),
            Some(_) => Err(Unknown(refused_by_name(name))),
            None if self.refused.contains(name) => Err(Unknown(refused_by_name(name))),
            None => Err(unknown(ty)),
        }
    }
}

fn refused_by_name(name: &str) -> String {
    format!("`{name}` cannot be read at run time (its own declaration says why), so neither can this field")
}

/// A type the declarations cannot read, with what to write instead.
pub(crate) struct Unknown(pub String);

/// The Rust name of a one-segment-or-path type and its generic arguments.
fn path_of(ty: &Type) -> Option<(String, Vec<&Type>)> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    if matches!(last.arguments, PathArguments::Parenthesized(_)) {
        return None;
    }
    let args = toon_derive_internals::check::type_args(last);
    Some((last.ident.to_string(), args))
}

/// A path of one segment (`Value`, not `serde_json::Value`).
fn is_bare(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.len() == 1)
}

const STANDARD: &str = "String, bool, the integers up to 64 bits, f32, f64, Option, Vec, Box, \
    HashMap or BTreeMap with String keys, serde_json::Value, or a type declared in the same text";

fn unknown(ty: &Type) -> Unknown {
    let text = quote_type(ty);
    Unknown(format!(
        "`{text}` is not a type a reply is read into at run time: use {STANDARD}"
    ))
}

fn quote_type(ty: &Type) -> String {
    use quote::ToTokens;
    ty.to_token_stream()
        .to_string()
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
}

/// How a field of type `ty` refers to it (its `shape_ref`).
pub(crate) fn shape_ref(ty: &Type, table: &Table<'_>, view: View) -> Result<Shape, Unknown> {
    describe(ty, table, view, true)
}

/// The type's own description (its `shape`).
pub(crate) fn shape_of(ty: &Type, table: &Table<'_>, view: View) -> Result<Shape, Unknown> {
    describe(ty, table, view, false)
}

fn describe(ty: &Type, table: &Table<'_>, view: View, by_ref: bool) -> Result<Shape, Unknown> {
    let Some((name, args)) = path_of(ty) else {
        return Err(unknown(ty));
    };
    let one = |args: &[&Type]| -> Result<Shape, Unknown> {
        match args {
            [inner] => shape_ref(inner, table, view),
            _ => Err(unknown(ty)),
        }
    };
    let shape = match (name.as_str(), args.len()) {
        ("String", 0) => String::__TOON.shape(),
        ("bool", 0) => bool::__TOON.shape(),
        ("i8", 0) => i8::__TOON.shape(),
        ("i16", 0) => i16::__TOON.shape(),
        ("i32", 0) => i32::__TOON.shape(),
        ("i64", 0) => i64::__TOON.shape(),
        ("isize", 0) => isize::__TOON.shape(),
        ("u8", 0) => u8::__TOON.shape(),
        ("u16", 0) => u16::__TOON.shape(),
        ("u32", 0) => u32::__TOON.shape(),
        ("u64", 0) => u64::__TOON.shape(),
        ("usize", 0) => usize::__TOON.shape(),
        ("f32", 0) => f32::__TOON.shape(),
        ("f64", 0) => f64::__TOON.shape(),
        // `serde_json::Value`, or a bare `Value` where the text declares none.
        ("Value", 0)
            if !is_bare(ty)
                || !(table.types.contains_key("Value") || table.refused.contains("Value")) =>
        {
            Shape::Any
        }
        ("Option", 1) => Shape::Option(Box::new(one(&args)?)),
        ("Vec", 1) => Shape::List(Box::new(one(&args)?)),
        ("Box", 1) => describe(args[0], table, view, by_ref)?,
        ("HashMap" | "BTreeMap", 2)
            if path_of(args[0]).is_some_and(|(k, a)| k == "String" && a.is_empty()) =>
        {
            Shape::Map(Box::new(shape_ref(args[1], table, view)?))
        }
        (_, 0) => declared_shape(&name, table.get(&name, ty)?, table, view, by_ref)?,
        // A generic declaration's use: refused with the declaration.
        _ if table.types.contains_key(&name) || table.refused.contains(&name) => {
            return Err(Unknown(refused_by_name(&name)))
        }
        _ => return Err(unknown(ty)),
    };
    Ok(shape)
}

/// A declared type: a struct or tagged enum by name where a field refers to
/// it, a newtype as its inner type, a unit enum as itself (by name, in the
/// schema's view).
fn declared_shape(
    name: &str,
    declared: &Declared<'_>,
    table: &Table<'_>,
    view: View,
    by_ref: bool,
) -> Result<Shape, Unknown> {
    let own = &declared.describe[view as usize];
    match &declared.container.body {
        Body::Newtype { ty, .. } => table
            .visit(
                name,
                "give one of them a field the others do not hold",
                || describe(ty, table, view, by_ref).map_err(|Unknown(m)| m),
            )
            .map_err(Unknown),
        Body::UnitEnum(_) if view == View::Toon => Ok(own.get()),
        _ if by_ref => Ok(Shape::Named {
            name: leak(name),
            id: leak(name),
            shape: own.clone(),
        }),
        _ => Ok(own.get()),
    }
}

/// May a field of type `ty` be missing (its `optional`): an `Option`, or a
/// newtype or box of one.
pub(crate) fn optional(ty: &Type, table: &Table<'_>) -> bool {
    match path_of(ty) {
        Some((name, args)) => match (name.as_str(), args.as_slice()) {
            ("Option", [_]) => true,
            ("Box", [inner]) => optional(inner, table),
            (_, []) => match table.types.get(&name).map(|d| &d.container.body) {
                Some(Body::Newtype { ty, .. }) => table
                    .visit(&name, "", || Ok(optional(ty, table)))
                    .unwrap_or(false),
                _ => false,
            },
            _ => false,
        },
        None => false,
    }
}

/// What `Default::default()` gives a field of type `ty`, as the type writes
/// it; an error where only running code could say (a hand-written `impl Default`).
pub(crate) fn default_of(ty: &Type, table: &Table<'_>) -> Result<Value, String> {
    let Some((name, args)) = path_of(ty) else {
        return Err(unknown(ty).0);
    };
    Ok(match (name.as_str(), args.as_slice()) {
        ("String", []) => Value::String(String::new()),
        ("bool", []) => Value::Bool(false),
        ("i8" | "i16" | "i32" | "i64" | "isize" | "u8" | "u16" | "u32" | "u64" | "usize", []) => {
            Value::from(0)
        }
        ("f32", []) => f32::__TOON.to_value(&0.0),
        ("f64", []) => f64::__TOON.to_value(&0.0),
        ("Value", []) if is_bare(ty) && table.types.contains_key("Value") => {
            declared_default("Value", table.get("Value", ty).map_err(|u| u.0)?, table)?
        }
        ("Value" | "Option", _) => Value::Null,
        ("Vec", [_]) => Value::Array(Vec::new()),
        ("HashMap" | "BTreeMap", [_, _]) => Value::Object(serde_json::Map::new()),
        ("Box", [inner]) => default_of(inner, table)?,
        (_, []) => declared_default(&name, table.get(&name, ty).map_err(|u| u.0)?, table)?,
        _ => return Err(unknown(ty).0),
    })
}

/// `Default::default()` of a declared type, which must derive it.
pub(crate) fn declared_default(
    name: &str,
    declared: &Declared<'_>,
    table: &Table<'_>,
) -> Result<Value, String> {
    table.visit(name, "a default that holds itself never ends; make the field an `Option` or leave it out of the default", || {
        own_default(name, declared, table)
    })
}

fn own_default(name: &str, declared: &Declared<'_>, table: &Table<'_>) -> Result<Value, String> {
    if !declared.derives_default {
        return Err(format!(
            "the default of `{name}` comes from its own `impl Default`, which is not run at run time: derive `Default` on `{name}`, or make the field required"
        ));
    }
    let c = &declared.container;
    Ok(match &c.body {
        Body::Newtype { ty, .. } => default_of(ty, table)?,
        Body::Struct(fields) => {
            let mut map = serde_json::Map::new();
            for f in fields.iter().filter(|f| !f.attrs.skip) {
                map.insert(f.wire.clone(), default_of(f.ty, table)?);
            }
            Value::Object(map)
        }
        Body::UnitEnum(_) | Body::Tagged { .. } => {
            let Some(wire) = default_variant(c) else {
                return Err(format!(
                    "`{name}` derives `Default` with no `#[default]` variant"
                ));
            };
            let wire = Value::String(wire.to_owned());
            match &c.body {
                Body::Tagged { tag, .. } => {
                    Value::Object([(tag.clone(), wire)].into_iter().collect())
                }
                _ => wire,
            }
        }
    })
}

/// The wire name of the variant marked `#[default]`.
fn default_variant<'c>(c: &'c Container<'_>) -> Option<&'c str> {
    let (Body::UnitEnum(variants) | Body::Tagged { variants, .. }) = &c.body else {
        return None;
    };
    let syn::Data::Enum(data) = &c.input.data else {
        return None;
    };
    data.variants
        .iter()
        .zip(variants)
        .find(|(v, _)| v.attrs.iter().any(|a| a.path().is_ident("default")))
        .map(|(_, v)| v.wire.as_str())
}

/// Whether a field constraint can measure a value of `ty` (the `Measure`
/// trait's types): what the derives' model finds a kind for (a number, a
/// text, a list or a map), or a free-form `Value`, maybe optional or boxed.
pub(crate) fn measures(ty: &Type) -> bool {
    use toon_derive_internals::check::{kind_of, Kind};
    let free_form = match path_of(ty) {
        Some((name, args)) => match (name.as_str(), args.as_slice()) {
            ("Option" | "Box", [inner]) => return measures(inner),
            ("Value", []) => true,
            _ => false,
        },
        None => false,
    };
    free_form || !matches!(kind_of(ty), Kind::Other)
}

/// Whether `inner` constraints reach the items of `ty` (the `Items` trait's
/// types): a list or a map of measured values, maybe optional or boxed.
pub(crate) fn has_items(ty: &Type) -> bool {
    toon_derive_internals::check::item_of(ty).is_some_and(measures)
}
