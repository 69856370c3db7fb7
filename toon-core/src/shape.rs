//! The description of a type that derives `Toon`: what the header, the prompt,
//! the JSON Schema, the grammar and the typed decoder are all built from.

use crate::spec::encode::encode_key;

/// The shape of a value of a Rust type, as TOON sees it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Shape {
    /// Text.
    String,
    /// `true` or `false`.
    Bool,
    /// A whole number within the bounds of its Rust type.
    Integer {
        /// The smallest value the type holds.
        min: i128,
        /// The largest value the type holds.
        max: i128,
    },
    /// A number.
    Float {
        /// The width of its Rust type: 32 (`f32`) or 64 (`f64`).
        bits: u8,
    },
    /// A value or `null`.
    Option(Box<Shape>),
    /// An array.
    List(Box<Shape>),
    /// An object with text keys and values of one shape.
    Map(Box<Shape>),
    /// A struct with named fields.
    Struct(StructShape),
    /// An enum of unit variants, written as one of its names.
    Enum(EnumShape),
    /// An internally tagged enum: an object whose tag field names the variant.
    Tagged(TaggedShape),
    /// Any JSON value (a `serde_json::Value` field).
    Any,
    /// Another type that derives `Toon`, described on demand (so recursive types work).
    Named {
        /// The Rust name of the type.
        name: &'static str,
        /// Its full name ([`std::any::type_name`]), which tells apart two
        /// types of one Rust name and two instances of one generic type
        /// (`Wrap<u8>`, `Wrap<bool>`), and a type met inside itself.
        id: &'static str,
        /// Describes the type.
        shape: Describe,
    },
}

/// How a [`Shape::Named`] type is described on demand: the derived type's own
/// function, or a shape built at run time ([`crate::runtime`]).
#[derive(Clone)]
pub struct Describe(Source);

#[derive(Clone)]
enum Source {
    Fn(fn() -> Shape),
    /// Set once its declaration is read; shared by every reference to it,
    /// the declaration's own fields included, so recursion needs no name table.
    Built(std::sync::Arc<std::sync::OnceLock<Shape>>),
}

impl Describe {
    /// The derived type's description, by its function.
    pub const fn of(f: fn() -> Shape) -> Describe {
        Describe(Source::Fn(f))
    }

    /// A description set later, once ([`Describe::set`]): how a type declared
    /// at run time is referred to before its own fields are read.
    pub fn later() -> Describe {
        Describe(Source::Built(std::sync::Arc::default()))
    }

    /// Sets a [`later`](Describe::later) description; `false` if it was set
    /// already or is a derived type's function.
    pub fn set(&self, shape: Shape) -> bool {
        match &self.0 {
            Source::Built(cell) => cell.set(shape).is_ok(),
            Source::Fn(_) => false,
        }
    }

    /// The shape the type stands for.
    ///
    /// # Panics
    /// If it is a [`later`](Describe::later) description not yet
    /// [`set`](Describe::set): a run-time type is handed out only once all
    /// its declarations are read.
    pub fn get(&self) -> Shape {
        match &self.0 {
            Source::Fn(f) => f(),
            Source::Built(cell) => match cell.get() {
                Some(shape) => shape.clone(),
                None => panic!("a type declared at run time was described before it was read"),
            },
        }
    }
}

impl Describe {
    /// Runs `f` on the shape the type stands for, without a copy where the
    /// shape is kept (a run-time type's); a derived type's is built.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&Shape) -> R) -> R {
        match &self.0 {
            Source::Built(cell) if cell.get().is_some() => f(cell.get().expect("set")),
            _ => f(&self.get()),
        }
    }
}

impl std::fmt::Debug for Describe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Source::Fn(_) => f.write_str("Describe(fn)"),
            Source::Built(_) => f.write_str("Describe(built)"),
        }
    }
}

/// A struct with named fields.
#[derive(Debug, Clone)]
pub struct StructShape {
    /// The Rust name of the type.
    pub name: &'static str,
    /// Its doc comment.
    pub doc: &'static str,
    /// Its fields, in declaration order.
    pub fields: Vec<FieldShape>,
}

/// One field of a struct.
#[derive(Debug, Clone)]
pub struct FieldShape {
    /// The key on the wire (after `rename` / `rename_all`).
    pub name: &'static str,
    /// Its doc comment.
    pub doc: &'static str,
    /// Its shape.
    pub shape: Shape,
    /// May the key be missing (`Option`, or `#[serde(default)]`)?
    pub optional: bool,
    /// `#[toon(max_len = N)]`: the longest text a grammar admits for the field
    /// (or for each text item of its list), in characters.
    pub max_len: Option<u32>,
    /// `#[toon(max_items = N)]`: the most items a grammar admits for the field's list or map.
    pub max_items: Option<u32>,
    /// `#[toon(delimited)]`: a text field of the reply's root struct written
    /// after the TOON lines, between `<name>` and `</name>`, as it is.
    pub delimited: bool,
    /// What the field's values must be (`range`, `length`, `pattern`).
    pub constraints: Constraints,
    /// What each item of the field's list, or value of its map, must be
    /// (`inner(range(..), length(..), pattern = "..")`).
    pub inner: Constraints,
}

impl FieldShape {
    /// The most characters (of a text) or items (of a list or map) the
    /// field admits: its own `max_len` or `max_items` (`default` where it has
    /// none) or its `length`'s most, whichever is tighter, and never below
    /// its `length`'s least, which every bound must admit. `None` for any
    /// other shape, or where nothing bounds it.
    pub(crate) fn most(&self, default: Option<u32>) -> Option<u32> {
        let own = match self.shape.unwrapped() {
            Shape::String => self.max_len,
            Shape::List(_) | Shape::Map(_) => self.max_items,
            _ => return None,
        };
        let c = &self.constraints;
        let most = match (own.or(default), c.max_length) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b)?,
        };
        Some(most.max(c.min_length.unwrap_or(0)))
    }
}

/// What a field's values must be, from `#[toon(range(..), length(..), pattern = "..")]`
/// (or the same keys under `#[schemars]` and `#[validate]`). Carried into the
/// JSON Schema, the prompt, the grammar and the decoder, which refuses a value
/// outside them as [`ParseErrorKind::Constraint`](crate::ParseErrorKind::Constraint).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub struct Constraints {
    /// The smallest number allowed.
    pub min: Option<f64>,
    /// The largest number allowed.
    pub max: Option<f64>,
    /// The fewest characters of a text, or items of a list.
    pub min_length: Option<u32>,
    /// The most characters of a text, or items of a list.
    pub max_length: Option<u32>,
    /// A regular expression a text must match (unanchored, as in JSON Schema).
    pub pattern: Option<&'static str>,
}

impl Constraints {
    /// No constraint at all.
    pub const NONE: Constraints = Constraints {
        min: None,
        max: None,
        min_length: None,
        max_length: None,
        pattern: None,
    };

    /// Constraints with these bounds (for generated code).
    #[doc(hidden)]
    pub const fn new(
        min: Option<f64>,
        max: Option<f64>,
        min_length: Option<u32>,
        max_length: Option<u32>,
        pattern: Option<&'static str>,
    ) -> Constraints {
        Constraints {
            min,
            max,
            min_length,
            max_length,
            pattern,
        }
    }

    /// Whether any constraint is set.
    pub fn is_empty(&self) -> bool {
        *self == Constraints::NONE
    }
}

/// An enum of unit variants.
#[derive(Debug, Clone)]
pub struct EnumShape {
    /// The Rust name of the type.
    pub name: &'static str,
    /// Its doc comment.
    pub doc: &'static str,
    /// Each variant's wire name and doc comment, in declaration order.
    pub variants: Vec<(&'static str, &'static str)>,
    /// Other names the decoder reads as a variant (`#[toon(alias = "..")]`),
    /// never shown to the model.
    pub aliases: Vec<&'static str>,
}

/// An internally tagged enum.
#[derive(Debug, Clone)]
pub struct TaggedShape {
    /// The Rust name of the type.
    pub name: &'static str,
    /// Its doc comment.
    pub doc: &'static str,
    /// The key that names the variant.
    pub tag: &'static str,
    /// Each variant, in declaration order.
    pub variants: Vec<VariantShape>,
}

/// One variant of a tagged enum.
#[derive(Debug, Clone)]
pub struct VariantShape {
    /// The tag's value for this variant.
    pub name: &'static str,
    /// Its doc comment.
    pub doc: &'static str,
    /// Its fields (none for a unit variant).
    pub fields: Vec<FieldShape>,
}

impl Shape {
    /// Follows [`Shape::Named`] to the shape it stands for.
    pub fn resolve(&self) -> Shape {
        match self {
            Shape::Named { shape, .. } => shape.get(),
            other => other.clone(),
        }
    }

    /// [`resolve`](Self::resolve), taking the shape: one that is not
    /// [`Shape::Named`] is itself, not a copy.
    pub(crate) fn into_resolved(self) -> Shape {
        match self {
            Shape::Named { .. } => self.resolve(),
            resolved => resolved,
        }
    }

    /// The shape inside any `Option`s, resolved: what a value of an optional
    /// field is when it is there.
    pub(crate) fn unwrapped(&self) -> Shape {
        let mut inner = self.resolve();
        while let Shape::Option(s) = inner {
            inner = s.resolve();
        }
        inner
    }

    /// A primitive: written in one cell.
    pub fn is_primitive(&self) -> bool {
        match self.resolve() {
            Shape::String
            | Shape::Bool
            | Shape::Integer { .. }
            | Shape::Float { .. }
            | Shape::Enum(_) => true,
            Shape::Option(inner) => inner.is_primitive(),
            _ => false,
        }
    }

    /// The fields of a struct whose fields are all primitives: a table row.
    pub fn flat_fields(&self) -> Option<Vec<FieldShape>> {
        match self.resolve() {
            Shape::Struct(s)
                if s.fields.iter().all(|f| f.shape.is_primitive()) && !s.fields.is_empty() =>
            {
                Some(s.fields)
            }
            _ => None,
        }
    }
}

/// A doc comment the compiler assembled (`#[doc = include_str!("..")]`,
/// `#[doc = concat!(..)]`), without the white space around it: generated code
/// wraps such docs in this, as it trims `///` lines itself.
#[doc(hidden)]
pub const fn trim_doc(doc: &'static str) -> &'static str {
    let bytes = doc.as_bytes();
    let (mut start, mut end) = (0, bytes.len());
    while start < end && bytes[start].is_ascii_whitespace() {
        start += 1;
    }
    while end > start && bytes[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    let (_, tail) = bytes.split_at(start);
    let (middle, _) = tail.split_at(end - start);
    // ASCII white space never splits a character, so the middle is UTF-8.
    match core::str::from_utf8(middle) {
        Ok(s) => s,
        Err(_) => doc,
    }
}

// What a shape looks like on the wire and in words, shared by the prompt, the
// grammar, the schema and the decoder's guide.

/// The names derived types go by in a grammar, a schema's `$defs` or the
/// declarations: the Rust name, and `Name-2`, `Name-3` (a name no Rust type
/// has) for each further type of that name (`Page<User>` and `Page<Order>`,
/// or two `Item`s of two modules), told apart by what they hold one level
/// deep, a nested derived type by its full name ([`Shape::Named`]'s `id`):
/// so a signature is finite, the same wherever the type is met, and tells
/// `Wrap<Wrap<u8>>` from `Wrap<Wrap<bool>>`.
#[derive(Default)]
pub(crate) struct TypeNames {
    known: Vec<(&'static str, String)>,
}

impl TypeNames {
    /// The name of the derived type `name` whose shape (resolved) is `shape`.
    pub(crate) fn name(&mut self, name: &'static str, shape: &Shape) -> String {
        let mut signature = String::new();
        self.sign(shape, &mut signature, true);
        let mut n = 0;
        for (known, s) in &self.known {
            if *known == name {
                n += 1;
                if *s == signature {
                    return numbered(name, n);
                }
            }
        }
        self.known.push((name, signature));
        numbered(name, n + 1)
    }

    /// What a type holds, written out one level deep (`open`), a derived type
    /// below that by the name it goes by.
    fn sign(&mut self, shape: &Shape, out: &mut String, open: bool) {
        use std::fmt::Write;
        match shape {
            Shape::String => out.push('s'),
            Shape::Bool => out.push('b'),
            Shape::Integer { min, max } => {
                let _ = write!(out, "i{min}..{max}");
            }
            Shape::Float { bits } => {
                let _ = write!(out, "f{bits}");
            }
            Shape::Any => out.push('*'),
            Shape::Option(inner) => {
                out.push('?');
                self.sign(inner, out, false);
            }
            Shape::List(inner) => {
                out.push('[');
                self.sign(inner, out, false);
                out.push(']');
            }
            Shape::Map(inner) => {
                out.push('{');
                self.sign(inner, out, false);
                out.push('}');
            }
            Shape::Named { id, .. } if !open => out.push_str(id),
            Shape::Named { shape, .. } => self.sign(&shape.get(), out, true),
            Shape::Struct(s) => {
                let _ = write!(out, "{}{{", s.name);
                self.sign_fields(&s.fields, out);
                out.push('}');
            }
            Shape::Enum(e) => {
                let _ = write!(out, "{}(", e.name);
                for (v, _) in &e.variants {
                    let _ = write!(out, "{v},");
                }
                out.push(')');
            }
            Shape::Tagged(t) => {
                let _ = write!(out, "{}<{}>(", t.name, t.tag);
                for v in &t.variants {
                    let _ = write!(out, "{}{{", v.name);
                    self.sign_fields(&v.fields, out);
                    out.push('}');
                }
                out.push(')');
            }
        }
    }

    fn sign_fields(&mut self, fields: &[FieldShape], out: &mut String) {
        use std::fmt::Write;
        for f in fields {
            let _ = write!(
                out,
                "{}:{:?}{:?}{:?}{:?}{}{}=",
                f.name, f.max_len, f.max_items, f.constraints, f.inner, f.optional, f.delimited
            );
            self.sign(&f.shape, out, false);
            out.push(',');
        }
    }
}

fn numbered(name: &str, n: usize) -> String {
    if n == 1 {
        name.to_owned()
    } else {
        format!("{name}-{n}")
    }
}

/// `{a,b,customer{name,country}}`: a table's field list, nested groups for flat struct columns.
pub(crate) fn field_list(fields: &[FieldShape]) -> String {
    let names: Vec<String> = fields
        .iter()
        .map(|f| match f.shape.flat_fields() {
            Some(sub) => format!("{}{}", encode_key(f.name), field_list(&sub)),
            None => encode_key(f.name),
        })
        .collect();
    format!("{{{}}}", names.join(","))
}

/// A table's fields, all primitives or flat structs (nested field groups).
pub(crate) fn table_fields(item: &Shape) -> Option<Vec<FieldShape>> {
    match item.resolve() {
        Shape::Struct(s)
            if !s.fields.is_empty()
                && s.fields
                    .iter()
                    .all(|f| f.shape.is_primitive() || f.shape.flat_fields().is_some()) =>
        {
            Some(s.fields)
        }
        _ => None,
    }
}

/// The name and full name (`id`) of a derived type a field refers to,
/// directly or as list items, optional or map values.
pub(crate) fn named(shape: &Shape) -> Option<(&'static str, &'static str)> {
    match shape {
        Shape::Named { name, id, .. } => Some((name, id)),
        Shape::List(inner) | Shape::Option(inner) | Shape::Map(inner) => named(inner),
        _ => None,
    }
}

/// `0 to 5`, `at least 1`, `at most 80`: a pair of bounds in the fewest words.
pub(crate) fn span_text<T: std::fmt::Display>(min: Option<T>, max: Option<T>) -> Option<String> {
    match (min, max) {
        (Some(a), Some(b)) if a.to_string() == b.to_string() => Some(format!("exactly {a}")),
        (Some(a), Some(b)) => Some(format!("{a} to {b}")),
        (Some(a), None) => Some(format!("at least {a}")),
        (None, Some(b)) => Some(format!("at most {b}")),
        (None, None) => None,
    }
}

/// `at least 1 item`, `at most 80 characters`: a span of a unit, singular for one.
fn counted(span: String, unit: &str) -> String {
    let one = span.ends_with(" 1") && !span.contains(" to ");
    format!("{span} {unit}{}", if one { "" } else { "s" })
}

/// A field's constraints in the fewest words, for the prompts: `0 to 5`,
/// `at most 80 characters`, `matching `^R-\d+$``, `1 to 5 items`.
pub(crate) fn constraint_note(shape: &Shape, c: &Constraints) -> Option<String> {
    match shape.unwrapped() {
        Shape::Integer { .. } | Shape::Float { .. } => span_text(c.min, c.max),
        Shape::String => {
            let length = span_text(c.min_length, c.max_length).map(|s| counted(s, "character"));
            let pattern = c.pattern.map(|p| format!("matching `{p}`"));
            match (pattern, length) {
                (Some(p), Some(l)) => Some(format!("{p}, {l}")),
                (p, l) => p.or(l),
            }
        }
        Shape::List(_) | Shape::Map(_) => {
            span_text(c.min_length, c.max_length).map(|s| counted(s, "item"))
        }
        // Measured by what it turns out to be, as the decoder measures it.
        Shape::Any => {
            let notes: Vec<String> = [
                span_text(c.min, c.max).map(|s| format!("a number {s}")),
                span_text(c.min_length, c.max_length)
                    .map(|s| format!("a text or list of {s} characters or items")),
                c.pattern.map(|p| format!("a text matching `{p}`")),
            ]
            .into_iter()
            .flatten()
            .collect();
            (!notes.is_empty()).then(|| notes.join("; "))
        }
        _ => None,
    }
}

/// `\d`, `\w` and `\s` (and their negations) written as ASCII classes, inside
/// a class as their ranges; a negation inside a class is left as written.
/// What the decoder's `regex_lite` reads them as, for the artefacts a server
/// compiles (a grammar, a JSON Schema), whose engines may read them as Unicode.
pub(crate) fn ascii_classes(pattern: &str) -> String {
    let (mut out, mut class) = (String::with_capacity(pattern.len()), false);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    out.push(c);
                    break;
                };
                let ranges = match next.to_ascii_lowercase() {
                    'd' => Some("0-9"),
                    'w' => Some("0-9A-Za-z_"),
                    's' => Some("\\t\\n\\x0B\\x0C\\r "),
                    _ => None,
                };
                match ranges {
                    Some(r) if class && next.is_ascii_lowercase() => out.push_str(r),
                    Some(r) if !class => {
                        let not = if next.is_ascii_uppercase() { "^" } else { "" };
                        out.push_str(&format!("[{not}{r}]"));
                    }
                    _ => {
                        out.push(c);
                        out.push(next);
                    }
                }
            }
            '[' if !class => {
                class = true;
                out.push(c);
                // A `]` first in a class (or after `^`) is a literal.
                let mut peek = chars.clone();
                let mut lead = String::new();
                if let Some('^') = peek.clone().next() {
                    lead.push('^');
                    peek.next();
                }
                if let Some(']') = peek.clone().next() {
                    lead.push(']');
                    peek.next();
                }
                if !lead.is_empty() {
                    out.push_str(&lead);
                    chars = peek;
                }
            }
            ']' if class => {
                class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::trim_doc;

    #[test]
    fn trim_doc_drops_surrounding_white_space_only() {
        assert_eq!(
            trim_doc("\n  Émile's rule.\n\nSecond line.\n"),
            "Émile's rule.\n\nSecond line."
        );
        assert_eq!(trim_doc(" \n\t"), "");
        assert_eq!(trim_doc("x"), "x");
        const AT_COMPILE_TIME: &str = trim_doc("  a ");
        assert_eq!(AT_COMPILE_TIME, "a");
    }
}
