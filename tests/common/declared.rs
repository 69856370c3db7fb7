//! A test file's own types, derived and declared at run time (`toon-decl`
//! reading the file's source): every artefact of each must agree, and every
//! type the file derives must be listed, so that a type added is checked.

use std::marker::PhantomData;

use serde_json::Value;
use toon_core::runtime::RuntimeType;
use toon_core::schema::{response_format, FieldShape, SchemaDialect, Shape, Tool};
use toon_core::{GrammarSyntax, OutputSchema, Toon};

/// A derived type's artefacts.
pub struct Derived {
    pub name: &'static str,
    toon: Option<([String; 5], usize)>,
    schema: Option<[Value; 5]>,
    declarations: Option<String>,
}

/// What `OutputSchema` gives, where the type derives it.
pub struct Probe<T>(PhantomData<T>);

impl<T> Probe<T> {
    pub fn new() -> Self {
        Probe(PhantomData)
    }
}

pub trait SchemaOf {
    fn schema(&self) -> Option<([Value; 5], String)>;
}

impl<T: OutputSchema> SchemaOf for Probe<T> {
    fn schema(&self) -> Option<([Value; 5], String)> {
        let tool = Tool::of::<T>();
        Some((
            [
                T::json_schema(),
                response_format::<T>(SchemaDialect::OpenAi),
                response_format::<T>(SchemaDialect::LlamaCppPython),
                tool.openai(),
                tool.anthropic(),
            ],
            T::schema_prompt(),
        ))
    }
}

pub trait ToonOf {
    fn toon(&self) -> Option<([String; 5], usize)>;
}

impl<T: Toon> ToonOf for Probe<T> {
    fn toon(&self) -> Option<([String; 5], usize)> {
        Some((
            [
                written(&T::__TOON.shape()),
                T::toon_prompt(),
                T::toon_header(),
                T::toon_grammar(GrammarSyntax::Gbnf),
                T::toon_grammar(GrammarSyntax::Lark),
            ],
            T::toon_max_reply_bytes(),
        ))
    }
}

/// The fallback where the type does not derive `Toon`.
pub trait NoToon {
    fn toon(&self) -> Option<([String; 5], usize)> {
        None
    }
}

impl<T> NoToon for &Probe<T> {}

/// The fallback where the type does not derive `OutputSchema`.
pub trait NoSchema {
    fn schema(&self) -> Option<([Value; 5], String)> {
        None
    }
}

impl<T> NoSchema for &Probe<T> {}

impl Derived {
    pub fn of(
        name: &'static str,
        toon: Option<([String; 5], usize)>,
        schema: Option<([Value; 5], String)>,
    ) -> Derived {
        let (schema, declarations) = schema.unzip();
        // A type in a module goes by its own name (`same_name :: Value`).
        let name = name.rsplit("::").next().unwrap_or(name).trim();
        Derived {
            name,
            toon,
            schema,
            declarations,
        }
    }

    fn agrees(&self, rt: &RuntimeType) {
        let name = self.name;
        if let Some((toon, bytes)) = &self.toon {
            let got = [
                written(rt.shape()),
                rt.toon_prompt(),
                rt.toon_header(),
                rt.toon_grammar(GrammarSyntax::Gbnf),
                rt.toon_grammar(GrammarSyntax::Lark),
            ];
            let whats = ["shape", "prompt", "header", "GBNF", "Lark"];
            for (what, (a, b)) in whats.iter().zip(got.iter().zip(toon)) {
                assert_eq!(a, b, "{name}: {what}");
            }
            assert_eq!(rt.toon_max_reply_bytes(), *bytes, "{name}: bytes");
        }
        if let (Some(schema), Some(declarations)) = (&self.schema, &self.declarations) {
            let tool = rt.tool();
            let got = [
                rt.json_schema(),
                rt.response_format(SchemaDialect::OpenAi),
                rt.response_format(SchemaDialect::LlamaCppPython),
                tool.openai(),
                tool.anthropic(),
            ];
            let whats = [
                "schema",
                "OpenAI form",
                "llama-cpp-python form",
                "OpenAI tool",
                "Anthropic tool",
            ];
            for (what, (a, b)) in whats.iter().zip(got.iter().zip(schema)) {
                assert_eq!(a, b, "{name}: {what}");
            }
            assert_eq!(&rt.schema_prompt(), declarations, "{name}: declarations");
        }
    }
}

/// `Derived` of each type, with its schema where it derives `OutputSchema`.
#[macro_export]
macro_rules! derived {
    ($($t:ty),* $(,)?) => {
        [$({
            #[allow(unused_imports)]
            use $crate::common::declared::{NoSchema as _, NoToon as _, SchemaOf as _, ToonOf as _};
            $crate::common::declared::Derived::of(
                stringify!($t),
                (&$crate::common::declared::Probe::<$t>::new()).toon(),
                (&$crate::common::declared::Probe::<$t>::new()).schema(),
            )
        }),*]
    };
}

/// Reads `source` and checks each of `derived` against its declaration;
/// `derived` must name every type the source declares.
pub fn agree(source: &str, derived: &[Derived]) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let decls = toon_decl::Declarations::parse_in(source, &dir).unwrap_or_else(|e| panic!("{e}"));
    let mut declared: Vec<&str> = decls.names().collect();
    let mut listed: Vec<&str> = derived.iter().map(|d| d.name).collect();
    declared.sort_unstable();
    listed.sort_unstable();
    assert_eq!(
        listed, declared,
        "the types listed are the types the file declares"
    );
    for d in derived {
        d.agrees(decls.get(d.name).unwrap());
    }
}

/// [`agree`] for a source some of whose types the run-time reading refuses
/// (a generic type, a default from a function): `derived` names every type
/// that reads.
pub fn agree_each(source: &str, derived: &[Derived]) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let (decls, diagnostics) = toon_decl::Declarations::parse_each(source, Some(&dir));
    assert!(!diagnostics.is_empty(), "every type reads: use `agree`");
    let mut read: Vec<&str> = decls.names().collect();
    let mut listed: Vec<&str> = derived.iter().map(|d| d.name).collect();
    read.sort_unstable();
    listed.sort_unstable();
    assert_eq!(listed, read, "the types listed are the types that read");
    for d in derived {
        d.agrees(decls.get(d.name).unwrap());
    }
}

/// A shape written out in full, each named type once, with everything but
/// the full Rust name (`id`), which a run-time type has not: two shapes are
/// the same where these are.
pub fn written(shape: &Shape) -> String {
    let mut out = String::new();
    write_shape(shape, &mut Vec::new(), &mut out);
    out
}

fn write_shape(shape: &Shape, seen: &mut Vec<&'static str>, out: &mut String) {
    use std::fmt::Write;
    match shape {
        Shape::Named { name, shape, .. } => {
            let _ = write!(out, "@{name}");
            if !seen.contains(name) {
                seen.push(name);
                out.push('=');
                write_shape(&shape.get(), seen, out);
            }
        }
        Shape::Option(inner) => {
            out.push('?');
            write_shape(inner, seen, out);
        }
        Shape::List(inner) => {
            out.push('[');
            write_shape(inner, seen, out);
            out.push(']');
        }
        Shape::Map(inner) => {
            out.push('{');
            write_shape(inner, seen, out);
            out.push('}');
        }
        Shape::Struct(s) => {
            let _ = write!(out, "struct {} {:?} (", s.name, s.doc);
            write_fields(&s.fields, seen, out);
            out.push(')');
        }
        Shape::Tagged(t) => {
            let _ = write!(out, "tagged {} {:?} {} (", t.name, t.doc, t.tag);
            for v in &t.variants {
                let _ = write!(out, "{} {:?} (", v.name, v.doc);
                write_fields(&v.fields, seen, out);
                out.push_str(") ");
            }
            out.push(')');
        }
        other => {
            let _ = write!(out, "{other:?}");
        }
    }
}

fn write_fields(fields: &[FieldShape], seen: &mut Vec<&'static str>, out: &mut String) {
    use std::fmt::Write;
    for f in fields {
        let _ = write!(
            out,
            "{} {:?} {} {:?} {:?} {} {:?} {:?}: ",
            f.name, f.doc, f.optional, f.max_len, f.max_items, f.delimited, f.constraints, f.inner
        );
        write_shape(&f.shape, seen, out);
        out.push_str(", ");
    }
}
