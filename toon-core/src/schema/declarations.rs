//! The declarations prompt: a type and every type it uses, as Rust declarations
//! with their doc comments and wire names, in order of first use.

use crate::shape::{FieldShape, Shape};

pub(crate) fn render(shape: &Shape) -> String {
    let mut r = Renderer::default();
    r.declare(&shape.resolve());
    while let Some(next) = r.pending.pop_front() {
        r.declare(&next);
    }
    r.out.join("\n\n")
}

#[derive(Default)]
struct Renderer {
    out: Vec<String>,
    seen: Vec<&'static str>,
    pending: std::collections::VecDeque<Shape>,
}

fn doc_lines(doc: &str, indent: &str) -> String {
    doc.lines()
        .map(|l| format!("{indent}/// {}\n", l.trim_end()).replace("/// \n", "///\n"))
        .collect()
}

impl Renderer {
    fn declare(&mut self, shape: &Shape) {
        let mut text = String::new();
        match shape {
            Shape::Struct(s) => {
                if self.seen.contains(&s.name) {
                    return;
                }
                self.seen.push(s.name);
                text.push_str(&doc_lines(s.doc, ""));
                text.push_str(&format!("struct {} {{\n", s.name));
                text.push_str(&self.fields(&s.fields, "    "));
                text.push('}');
            }
            Shape::Enum(e) => {
                if self.seen.contains(&e.name) {
                    return;
                }
                self.seen.push(e.name);
                text.push_str(&doc_lines(e.doc, ""));
                text.push_str(&format!("enum {} {{\n", e.name));
                for (name, doc) in &e.variants {
                    text.push_str(&doc_lines(doc, "    "));
                    text.push_str(&format!("    {name},\n"));
                }
                text.push('}');
            }
            Shape::Tagged(t) => {
                if self.seen.contains(&t.name) {
                    return;
                }
                self.seen.push(t.name);
                text.push_str(&doc_lines(t.doc, ""));
                text.push_str(&format!(
                    "#[serde(tag = \"{}\")]\nenum {} {{\n",
                    t.tag, t.name
                ));
                for v in &t.variants {
                    text.push_str(&doc_lines(v.doc, "    "));
                    if v.fields.is_empty() {
                        text.push_str(&format!("    {},\n", v.name));
                    } else {
                        text.push_str(&format!("    {} {{\n", v.name));
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
            let bound = crate::shape::constraint_note(&f.shape, &f.constraints)
                .map(|n| format!(" // {n}"))
                .unwrap_or_default();
            text.push_str(&format!(
                "{indent}{}: {},{bound}\n",
                f.name,
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
            Shape::Float => "f64".into(),
            Shape::Any => "serde_json::Value".into(),
            Shape::Option(inner) => format!("Option<{}>", self.type_expr(inner)),
            Shape::List(inner) => format!("Vec<{}>", self.type_expr(inner)),
            Shape::Map(inner) => format!("BTreeMap<String, {}>", self.type_expr(inner)),
            Shape::Named { name, shape } => {
                if !self.seen.contains(name) {
                    self.pending.push_back(shape());
                }
                (*name).to_owned()
            }
            Shape::Struct(s) => s.name.into(),
            Shape::Enum(e) => e.name.into(),
            Shape::Tagged(t) => t.name.into(),
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
