//! The skeleton (`toon_header`) and the prompt snippet (`toon_prompt`) of a shape.

use crate::shape::{
    constraint_note as note, field_list, named, table_fields, Constraints, EnumShape, FieldShape,
    Shape,
};
use crate::spec::encode::{encode_key, quote, text_literal};

/// The placeholder for a primitive's value.
fn placeholder(shape: &Shape) -> String {
    placeholder_with(shape, &Constraints::NONE)
}

/// The placeholder with the field's constraints beside the kind of value:
/// `<integer 0 to 5>`, `<text, at most 80 characters>`.
fn placeholder_with(shape: &Shape, c: &Constraints) -> String {
    let with = |kind: &str, sep: &str| match note(shape, c) {
        Some(n) => format!("<{kind}{sep}{n}>"),
        None => format!("<{kind}>"),
    };
    match shape.resolve() {
        Shape::String => with("text", ", "),
        Shape::Bool => "<true|false>".into(),
        Shape::Integer { .. } => with("integer", " "),
        Shape::Float { .. } => with("number", " "),
        Shape::Enum(e) => choices(e.variants.iter().map(|v| v.0)),
        // `null` once, for an `Option` of an `Option` too.
        Shape::Option(inner) if matches!(inner.resolve(), Shape::Option(_)) => {
            placeholder_with(&inner, c)
        }
        Shape::Option(inner) => format!("{} or null", placeholder_with(&inner, c)),
        Shape::Any => with("value", ": "),
        _ => "<value>".into(),
    }
}

/// `<a|b>`: each name as the encoder writes it (`"1"` for a name that reads as
/// a number), and quoted where it holds a `|` or a bracket, which would
/// otherwise read as more than one name.
fn choices<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<String> = names
        .map(|n| {
            if n.contains(['|', '<', '>']) {
                quote(n)
            } else {
                text_literal(n)
            }
        })
        .collect();
    format!("<{}>", names.join("|"))
}

struct Out {
    lines: Vec<String>,
    comments: bool,
    /// The named types being rendered (by full name), so a recursive type is shown once.
    stack: Vec<&'static str>,
}

impl Out {
    fn comment(&mut self, depth: usize, text: &str) {
        if self.comments && !text.is_empty() {
            for line in text.lines() {
                self.lines
                    .push(format!("{}# {}", "  ".repeat(depth), line.trim()));
            }
        }
    }

    /// A line of the form itself, as a comment: shown in the skeleton too.
    fn marker(&mut self, depth: usize, text: &str) {
        let comments = std::mem::replace(&mut self.comments, true);
        self.comment(depth, text);
        self.comments = comments;
    }

    /// A delimited field of the root: its block after the TOON lines.
    fn delimited(&mut self, f: &FieldShape) {
        self.comment(
            0,
            &join_doc(
                f.doc,
                &format!(
                    "After the lines above, between <{0}> and </{0}>: as many lines as needed, as plain text, no quoting.",
                    f.name
                ),
            ),
        );
        self.lines.push(format!("<{}>", f.name));
        self.lines.push(placeholder_with(&f.shape, &held(f)));
        self.lines.push(format!("</{}>", f.name));
    }

    fn fields(&mut self, fields: &[FieldShape], depth: usize) {
        for f in fields {
            self.field(f, depth);
        }
    }

    fn field(&mut self, f: &FieldShape, depth: usize) {
        let pad = "  ".repeat(depth);
        let key = encode_key(f.name);
        // Told apart by full name: another type of the same Rust name is no recursion.
        if let Some((name, _)) = named(&f.shape).filter(|(_, id)| self.stack.contains(id)) {
            // A recursive type: its shape is already shown above.
            self.comment(
                depth,
                &join_doc(f.doc, &format!("Same shape as {name}, nested.")),
            );
            let suffix = if matches!(f.shape, Shape::List(_)) {
                "[N]"
            } else {
                ""
            };
            self.lines.push(format!("{pad}{key}{suffix}:"));
            return;
        }
        let pushed = named(&f.shape).map(|(_, id)| self.stack.push(id)).is_some();
        self.field_body(f, depth, &pad, &key);
        if pushed {
            self.stack.pop();
        }
    }

    fn field_body(&mut self, f: &FieldShape, depth: usize, pad: &str, key: &str) {
        let shape = f.shape.resolve();
        // An optional object or list is shown as its value, and said to be optional.
        let (shape, optional) = match shape {
            Shape::Option(inner) if !inner.is_primitive() => (inner.resolve(), true),
            other => (other, false),
        };
        // A field without a doc comment shows its type's.
        // The field's doc and its type's (for a list, the items' type): the
        // model sees every description the schema carries.
        let own = type_doc(&shape);
        let mut doc = if own == f.doc {
            f.doc.to_owned()
        } else {
            join_doc(f.doc, own)
        };
        // An enum's values and their docs, also of an optional enum, a list's
        // items or a map's values.
        if let Some(e) = enum_within(&shape) {
            if self.comments {
                doc = join_doc(&doc, &format!("One of: {}.", allowed(&e)));
            }
        }
        let held = held(f);
        if let (Shape::List(_) | Shape::Map(_), Some(n)) = (&shape, note(&shape, &held)) {
            doc = join_doc(&doc, &format!("{}.", capitalized(&n)));
        }
        // What each item or value must be (`inner`).
        if let (Shape::List(item) | Shape::Map(item), Some(n)) = (&shape, note_of_items(&shape, f))
        {
            let what = if item.is_primitive() {
                "Each"
            } else {
                "Each item"
            };
            doc = join_doc(&doc, &format!("{what}: {n}."));
        }
        if optional && self.comments {
            doc = join_doc(&doc, &format!("May be `null` (`{key}: null`)."));
        }
        // A list that must hold items has no empty form to show.
        if let (Shape::List(item), None | Some(0)) = (&shape, f.constraints.min_length) {
            let none = match table_fields(item) {
                Some(cols) => format!("{key}[0]{}:", field_list(&cols)),
                None => format!("{key}[0]:"),
            };
            doc = join_doc(&doc, &format!("If there are none, write `{none}`."));
        }
        // Items or values that may be null, where the placeholder cannot say so.
        match &shape {
            Shape::List(inner) | Shape::Map(inner)
                if matches!(inner.resolve(), Shape::Option(_)) && !inner.is_primitive() =>
            {
                let what = if matches!(shape, Shape::List(_)) {
                    "An item"
                } else {
                    "A value"
                };
                doc = join_doc(&doc, &format!("{what} may be `null`."));
            }
            _ => {}
        }
        self.comment(depth, &doc);
        let head = format!("{pad}{key}");
        match &shape {
            Shape::Struct(_) | Shape::Tagged(_) | Shape::Map(_) | Shape::List(_) => {
                self.value(&head, &shape, depth);
            }
            other => self
                .lines
                .push(format!("{head}: {}", placeholder_with(other, &held))),
        }
    }

    /// A value that is not one cell, written after `head` (`{pad}key`, or
    /// `{pad}` alone for a root list): a list's header and items, or an
    /// object's `head:` line and its lines below.
    fn value(&mut self, head: &str, shape: &Shape, depth: usize) {
        match shape {
            Shape::List(item) => {
                if let Some(cols) = table_fields(item) {
                    self.column_docs(depth, &cols);
                    self.lines.push(format!("{head}[N]{}:", field_list(&cols)));
                    if self.comments {
                        let row = cells(&cols).join(",");
                        self.lines.push(format!("{}  {row}", "  ".repeat(depth)));
                    }
                } else if item.is_primitive() {
                    let p = placeholder(item);
                    self.lines.push(format!("{head}[N]: {p},{p}"));
                } else {
                    self.lines.push(format!("{head}[N]:"));
                    self.item(item, depth + 1);
                }
            }
            Shape::Map(_) | Shape::Struct(_) | Shape::Tagged(_) => {
                self.lines.push(format!("{head}:"));
                self.body(shape, depth + 1);
            }
            other => self.lines.push(format!("{head}: {}", placeholder(other))),
        }
    }

    /// One item of a list that is not written inline, after its hyphen: a
    /// list's header, or an object's lines with the first on the hyphen line.
    fn item(&mut self, item: &Shape, depth: usize) {
        let pad = "  ".repeat(depth);
        // An optional item is shown as its value (the list's doc says it may be null).
        let item = match item.resolve() {
            Shape::Option(inner) => inner.resolve(),
            other => other,
        };
        match item {
            Shape::List(_) => self.value(&format!("{pad}- "), &item, depth),
            _ => {
                let start = self.lines.len();
                self.body(&item, depth + 1);
                // The first field rides on the hyphen line, its comments
                // above it at the hyphen's indentation.
                if let Some(first) = self.lines[start..]
                    .iter()
                    .position(|l| !l.trim_start().starts_with('#'))
                {
                    for line in &mut self.lines[start..=start + first] {
                        let text = line.trim_start();
                        let mark = if text.starts_with('#') { "" } else { "- " };
                        *line = format!("{pad}{mark}{text}");
                    }
                }
            }
        }
    }

    /// The lines inside an object of this shape: a struct's fields, or a tagged
    /// enum's tag followed by each variant's fields under a `# if tag is …` line.
    fn body(&mut self, shape: &Shape, depth: usize) {
        match shape.resolve() {
            Shape::Struct(s) => self.fields(&s.fields, depth),
            Shape::Tagged(t) => {
                let pad = "  ".repeat(depth);
                let names = choices(t.variants.iter().map(|v| v.name));
                self.lines
                    .push(format!("{pad}{}: {names}", encode_key(t.tag)));
                for v in &t.variants {
                    // Also in the skeleton: without it, every variant's fields
                    // would read as fields of one object.
                    let is = format!("If {} is {}:", t.tag, text_literal(v.name));
                    let doc = if self.comments {
                        join_doc(&is, v.doc)
                    } else {
                        is
                    };
                    self.marker(depth, &doc);
                    self.fields(&v.fields, depth);
                }
            }
            // Its values under `<key>`, an object's fields below it.
            Shape::Map(value) => {
                let pad = "  ".repeat(depth);
                let value = match value.resolve() {
                    Shape::Option(inner) if !inner.is_primitive() => inner.resolve(),
                    other => other,
                };
                if value.is_primitive() {
                    self.lines
                        .push(format!("{pad}<key>: {}", placeholder(&value)));
                } else {
                    self.value(&format!("{pad}<key>"), &value, depth);
                }
            }
            _ => {}
        }
    }

    /// One comment line per documented column, before a table's header.
    fn column_docs(&mut self, depth: usize, cols: &[FieldShape]) {
        if self.comments {
            self.columns_under(depth, "", cols);
        }
    }

    /// The columns of a table, or of a field group in it (`who{name,qty}`),
    /// each named by its path from the row: `who.name`.
    fn columns_under(&mut self, depth: usize, prefix: &str, cols: &[FieldShape]) {
        for c in cols {
            // A column without a doc comment shows its type's.
            let mut doc = if c.doc.is_empty() {
                type_doc(&c.shape).to_owned()
            } else {
                c.doc.to_owned()
            };
            if let Some(e) = enum_within(&c.shape) {
                doc = join_doc(&doc, &format!("One of: {}.", allowed(&e)));
            }
            if let Some(n) = note(&c.shape, &held(c)) {
                doc = join_doc(&doc, &format!("{}.", capitalized(&n)));
            }
            if !doc.is_empty() {
                let line = format!("  {prefix}{}: {}", c.name, doc.replace('\n', " "));
                self.comment(depth, &line);
            }
            // A field group's own columns, whose constraints the decoder holds too.
            if let Shape::Struct(group) = c.shape.resolve() {
                self.columns_under(depth, &format!("{prefix}{}.", c.name), &group.fields);
            }
        }
    }
}

/// A table row's cells, a field group's spelled out in its place:
/// `<text>,<HIGH|LOW>,<integer> or null` is ambiguous in a row, so an
/// optional cell says `null` inside its brackets.
fn cells(cols: &[FieldShape]) -> Vec<String> {
    cols.iter()
        .flat_map(|c| match c.shape.flat_fields() {
            Some(group) => cells(&group),
            None => vec![cell(&c.shape)],
        })
        .collect()
}

fn cell(shape: &Shape) -> String {
    match shape.resolve() {
        Shape::Option(inner) => {
            let p = cell(&inner);
            let inside = &p[..p.len() - 1];
            match inner.resolve() {
                Shape::Enum(_) | Shape::Bool => format!("{inside}|null>"),
                _ => format!("{inside} or null>"),
            }
        }
        other => placeholder(&other),
    }
}

/// What each item of a field's list, or value of its map, must be, in the
/// fewest words (`1 to 5`), where the field says (`inner`).
pub(crate) fn note_of_items(shape: &Shape, f: &FieldShape) -> Option<String> {
    match shape.unwrapped() {
        Shape::List(item) | Shape::Map(item) => note(&item, &f.inner),
        _ => None,
    }
}

/// The bounds the model is held to: the field's constraints, with its own
/// grammar bounds (`max_len`, `max_items`; not the defaults) where they are
/// tighter, so that a reply is not cut at a bound it was never told of.
fn held(f: &FieldShape) -> Constraints {
    let mut c = f.constraints;
    if let Some(most) = f.most(None) {
        c.max_length = Some(most);
    }
    c
}

/// The doc comment of the type a field holds (of the items, for a list).
fn type_doc(shape: &Shape) -> &'static str {
    match shape.resolve() {
        Shape::Struct(s) => s.doc,
        Shape::Enum(e) => e.doc,
        Shape::Tagged(t) => t.doc,
        Shape::List(item) | Shape::Option(item) | Shape::Map(item) => type_doc(&item),
        _ => "",
    }
}

/// The enum a value of this shape is, or an optional one, a list's items or
/// a map's values are.
fn enum_within(shape: &Shape) -> Option<EnumShape> {
    match shape.resolve() {
        Shape::Enum(e) => Some(e),
        Shape::List(inner) | Shape::Option(inner) | Shape::Map(inner) => enum_within(&inner),
        _ => None,
    }
}

fn allowed(e: &EnumShape) -> String {
    e.variants
        .iter()
        .map(|(name, doc)| {
            let name = text_literal(name);
            if doc.is_empty() {
                name
            } else {
                format!("{name} ({doc})")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().collect::<String>() + chars.as_str()
    })
}

fn join_doc(doc: &str, extra: &str) -> String {
    match (doc.is_empty(), extra.is_empty()) {
        (true, _) => extra.to_owned(),
        (_, true) => doc.to_owned(),
        _ => format!("{} {extra}", doc.trim_end()),
    }
}

/// The lines of `shape`'s form; `id` is the root type's full name.
fn render(shape: &Shape, id: &'static str, comments: bool) -> Vec<String> {
    let mut out = Out {
        lines: Vec::new(),
        comments,
        stack: vec![id],
    };
    match shape.resolve() {
        Shape::Struct(s) => {
            out.comment(0, s.doc);
            let (prose, lines): (Vec<FieldShape>, Vec<FieldShape>) =
                s.fields.into_iter().partition(|f| f.delimited);
            out.fields(&lines, 0);
            for f in &prose {
                out.delimited(f);
            }
        }
        Shape::Tagged(t) => {
            out.comment(0, t.doc);
            out.body(shape, 0);
        }
        list @ Shape::List(_) => out.value("", &list, 0),
        Shape::Map(_) => out.body(shape, 0),
        other => out.lines.push(placeholder(&other)),
    }
    out.lines
}

/// The skeleton of `shape`, the type whose full name is `id`.
pub(crate) fn header(shape: &Shape, id: &'static str) -> String {
    render(shape, id, false).join("\n")
}

/// The prompt for `shape`, the type whose full name is `id`.
pub(crate) fn prompt(shape: &Shape, id: &'static str) -> String {
    let mut lines = vec![
        "# Answer in TOON, in exactly this shape. Replace [N] with the number of rows; one row per line.".to_owned(),
        "# Quote text that contains a comma, a colon or a quote, or that reads as a number, true, false or null: \"like, this\", \"null\".".to_owned(),
    ];
    lines.extend(render(shape, id, true));
    lines.join("\n")
}
