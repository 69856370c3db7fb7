//! The declarations prompt: a type and every type it uses, as Rust declarations
//! with their doc comments and wire names, in order of first use.

use crate::shape::{FieldShape, Shape, TypeNames};

pub(crate) fn render(shape: &Shape) -> String {
    let mut r = Renderer::default();
    match shape.resolve() {
        root @ (Shape::Struct(_) | Shape::Enum(_) | Shape::Tagged(_)) => r.declare(&root),
        // A list, map or option of derived types: the reply's type by name,
        // then the types it uses.
        root => {
            let expr = r.type_expr(&root);
            r.out.push(format!("type Reply = {expr};"));
        }
    }
    while let Some(next) = r.pending.pop_front() {
        r.declare(&next);
    }
    r.out.join("\n\n")
}

#[derive(Default)]
struct Renderer {
    out: Vec<String>,
    /// The names declared or queued so far.
    seen: Vec<String>,
    pending: std::collections::VecDeque<Shape>,
    names: TypeNames,
}

fn doc_lines(doc: &str, indent: &str) -> String {
    doc.lines()
        .map(|l| format!("{indent}/// {}\n", l.trim_end()).replace("/// \n", "///\n"))
        .collect()
}

impl Renderer {
    /// The name a derived type is declared by, and whether it is new here.
    fn first_use(&mut self, name: &'static str, shape: &Shape) -> (String, bool) {
        let name = self.names.name(name, shape);
        let new = !self.seen.contains(&name);
        if new {
            self.seen.push(name.clone());
        }
        (name, new)
    }

    fn declare(&mut self, shape: &Shape) {
        let mut text = String::new();
        match shape {
            Shape::Struct(s) => {
                let (name, new) = self.first_use(s.name, shape);
                if !new {
                    return;
                }
                text.push_str(&doc_lines(s.doc, ""));
                text.push_str(&format!("struct {name} {{\n"));
                text.push_str(&self.fields(&s.fields, "    "));
                text.push('}');
            }
            Shape::Enum(e) => {
                let (name, new) = self.first_use(e.name, shape);
                if !new {
                    return;
                }
                text.push_str(&doc_lines(e.doc, ""));
                text.push_str(&format!("enum {name} {{\n"));
                for (name, doc) in &e.variants {
                    text.push_str(&doc_lines(doc, "    "));
                    text.push_str(&format!("    {},\n", as_ident(name)));
                }
                text.push('}');
            }
            Shape::Tagged(t) => {
                let (name, new) = self.first_use(t.name, shape);
                if !new {
                    return;
                }
                text.push_str(&doc_lines(t.doc, ""));
                text.push_str(&format!("#[serde(tag = \"{}\")]\nenum {name} {{\n", t.tag));
                for v in &t.variants {
                    text.push_str(&doc_lines(v.doc, "    "));
                    if v.fields.is_empty() {
                        text.push_str(&format!("    {},\n", as_ident(v.name)));
                    } else {
                        text.push_str(&format!("    {} {{\n", as_ident(v.name)));
                        text.push_str(&self.fields(&v.fields, "        "));
                        text.push_str("    },\n");
                    }
                }
                text.push('}');
            }
            _ => return,
        }
        self.out.push(text);
    }

    fn fields(&mut self, fields: &[FieldShape], indent: &str) -> String {
        let mut text = String::new();
        for f in fields {
            text.push_str(&doc_lines(f.doc, indent));
            // The field's constraints beside it, in the fewest words: `// 0 to 5`.
            let own = crate::shape::constraint_note(&f.shape, &f.constraints);
            let each = crate::prompt::note_of_items(&f.shape, f).map(|n| format!("each {n}"));
            let bound = match (own, each) {
                (Some(o), Some(e)) => format!(" // {o}; {e}"),
                (o, e) => o.or(e).map(|n| format!(" // {n}")).unwrap_or_default(),
            };
            text.push_str(&format!(
                "{indent}{}: {},{bound}\n",
                as_ident(f.name),
                self.type_expr(&f.shape)
            ));
        }
        text
    }

    /// The Rust spelling of a field's type; derived types are queued for declaration.
    fn type_expr(&mut self, shape: &Shape) -> String {
        match shape {
            Shape::String => "String".into(),
            Shape::Bool => "bool".into(),
            Shape::Integer { min, max } => integer_name(*min, *max).into(),
            Shape::Float { bits } => format!("f{bits}"),
            Shape::Any => "serde_json::Value".into(),
            Shape::Option(inner) => format!("Option<{}>", self.type_expr(inner)),
            Shape::List(inner) => format!("Vec<{}>", self.type_expr(inner)),
            Shape::Map(inner) => format!("BTreeMap<String, {}>", self.type_expr(inner)),
            Shape::Named { name, shape, .. } => {
                let shape = shape.get();
                let name = self.names.name(name, &shape);
                if !self.seen.contains(&name) {
                    self.pending.push_back(shape);
                }
                name
            }
            Shape::Struct(s) => self.names.name(s.name, shape),
            Shape::Enum(e) => self.names.name(e.name, shape),
            Shape::Tagged(t) => self.names.name(t.name, shape),
        }
    }
}

fn integer_name(min: i128, max: i128) -> &'static str {
    match (min, max) {
        (0, 255) => "u8",
        (0, 65_535) => "u16",
        (0, 4_294_967_295) => "u32",
        (0, _) => "u64",
        (-128, _) => "i8",
        (-32_768, _) => "i16",
        (-2_147_483_648, _) => "i32",
        _ => "i64",
    }
}

/// A wire name as the declarations show it: bare where it reads as one Rust
/// name, quoted otherwise (`"a,b"`, `"1"`, `"my key"`), so no name reads as
/// two or as a keyword of the declarations.
fn as_ident(name: &str) -> String {
    let mut chars = name.chars();
    let plain = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        name.to_owned()
    } else {
        serde_json::Value::from(name).to_string()
    }
}
