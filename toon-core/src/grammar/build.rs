//! From a shape to its grammar: the TOON that `to_toon` writes for values of the
//! type, line by line at fixed indentation, each value in its own language.
//!
//! A block is written from its key onwards: its first line carries no
//! indentation (the caller puts it there), and every later line starts with a
//! line break and its full indentation. So a struct's fields join with
//! `"\n" + indentation`, and a list item's first field rides on its hyphen line.

use super::ir::{alt, class, lit, opt, repeat, seq, Class, Expr, Grammar};
use super::text;
use super::{Reasoning, DEFAULT_MAX_ITEMS, DEFAULT_MAX_LEN};
use crate::shape::{
    field_list, table_fields, Constraints, EnumShape, FieldShape, Shape, StructShape, TaggedShape,
    TypeNames,
};
use crate::spec::encode::{encode_key, text_literal};

/// How many times a type may stand nested inside itself before its lists
/// must be empty and its optional fields `null`.
const RECURSION: usize = 3;
/// Free-form values: how deep, and how many entries or items at each level.
const ANY_DEPTH: usize = 2;
const ANY_ITEMS: u32 = 4;
/// The longest free key (of a map, or inside a free-form value).
const KEY_LEN: u32 = 64;

/// The bounds in force for one value.
#[derive(Clone, Copy)]
struct Bounds {
    /// Characters of a text value, or of each text item of a list.
    min_len: u32,
    max_len: u32,
    /// Items of a list or entries of a map.
    min_items: u32,
    max_items: u32,
    /// A text value's pattern, and a whole number's range (the field's constraints).
    pattern: Option<&'static str>,
    range: (Option<f64>, Option<f64>),
    /// What each item of the list or value of the map must be (`inner`).
    items: Constraints,
}

impl Bounds {
    /// The bounds of a field: its grammar bounds (`max_len`, `max_items`),
    /// tightened by its constraints (`length` counts a text's characters or a
    /// list's items, `range` a number, `pattern` a text).
    fn of(f: &FieldShape) -> Bounds {
        let c = &f.constraints;
        let mut b = Bounds {
            max_len: f.max_len.unwrap_or(DEFAULT_MAX_LEN),
            max_items: f.max_items.unwrap_or(DEFAULT_MAX_ITEMS),
            items: f.inner,
            ..Bounds::default()
        };
        // A least length above the bound raises it (`FieldShape::most`):
        // every text or list the grammar admits must be one the decoder reads
        // (GBNF holds no least length).
        match f.shape.unwrapped() {
            Shape::String => {
                b.max_len = f.most(Some(DEFAULT_MAX_LEN)).unwrap_or(b.max_len);
                b.min_len = c.min_length.unwrap_or(0);
                b.pattern = c.pattern;
            }
            Shape::List(_) | Shape::Map(_) => {
                b.max_items = f.most(Some(DEFAULT_MAX_ITEMS)).unwrap_or(b.max_items);
                b.min_items = c.min_length.unwrap_or(0);
            }
            Shape::Integer { .. } | Shape::Float { .. } => b.range = (c.min, c.max),
            _ => {}
        }
        b
    }

    /// The bounds of each item of a list (or value of a map): the text bound
    /// stays, tightened by the items' own constraints (`inner`); the list's
    /// own go. A least length above the text bound raises it, as a field's does.
    fn item(self) -> Bounds {
        let c = self.items;
        let most = c.max_length.map_or(self.max_len, |m| m.min(self.max_len));
        Bounds {
            max_len: most.max(c.min_length.unwrap_or(0)),
            min_len: c.min_length.unwrap_or(0),
            pattern: c.pattern,
            range: (c.min, c.max),
            ..Bounds::default()
        }
    }

    /// The counts a list may have: `min_items..=max_items`, none below one
    /// (the empty forms are written on their own).
    fn counts(self) -> std::ops::RangeInclusive<u32> {
        self.min_items.max(1)..=self.max_items
    }
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            min_len: 0,
            max_len: DEFAULT_MAX_LEN,
            min_items: 0,
            max_items: DEFAULT_MAX_ITEMS,
            pattern: None,
            range: (None, None),
            items: Constraints::NONE,
        }
    }
}

/// The grammar of `shape`'s documents, after an optional reasoning block.
pub(crate) fn grammar(shape: &Shape, reasoning: Option<&Reasoning>) -> Grammar {
    let mut b = Builder::new();
    b.g.reserve("root");
    let document = b.document(shape);
    let root = match reasoning {
        Some(r) => seq([opt(b.reasoning(r)), document]),
        None => document,
    };
    b.g.define("root", root);
    b.g
}

/// For a struct at the root, each field's own grammar (its key and value as
/// they stand in the document), by the field's name; nothing for other roots.
pub(crate) fn field_grammars(shape: &Shape) -> Vec<(String, Grammar)> {
    let Shape::Struct(s) = shape.resolve() else {
        return Vec::new();
    };
    s.fields
        .iter()
        .map(|f| {
            let mut b = Builder::new();
            b.g.reserve("root");
            let field = if f.delimited {
                seq([
                    lit(format!("\n<{}>\n", f.name)),
                    b.prose(Bounds::of(f).max_len),
                    lit(format!("</{}>", f.name)),
                ])
            } else {
                b.field(f, 0)
            };
            b.g.define("root", field);
            (f.name.to_owned(), b.g)
        })
        .collect()
}

struct Builder {
    g: Grammar,
    /// The derived types being built (by rule-name stem), outermost first.
    stack: Vec<String>,
    /// Rule-name stems, by type name and what tells two types of one name apart.
    names: TypeNames,
    /// The text patterns met so far, numbered for rule names.
    patterns: Vec<&'static str>,
    /// Unquoted text may not begin with `<`: a root with delimited fields,
    /// whose encoder quotes such text, so no cell reads as a block's tag.
    angle: bool,
}

fn pad(depth: usize) -> String {
    "  ".repeat(depth)
}

/// A line break and the indentation of `depth`.
fn newline(depth: usize) -> Expr {
    lit(format!("\n{}", pad(depth)))
}

/// The derived type a value of this shape is (through lists, options and
/// maps), by its Rust name and resolved shape.
fn derived(shape: &Shape) -> Option<(&'static str, Shape)> {
    match shape {
        Shape::Named { name, shape, .. } => Some((name, shape.get())),
        Shape::List(inner) | Shape::Option(inner) | Shape::Map(inner) => derived(inner),
        _ => None,
    }
}

/// One alternative per count: `[n]` then exactly `n` of something.
fn counted(counts: std::ops::RangeInclusive<u32>, mut each: impl FnMut(u32) -> Expr) -> Vec<Expr> {
    counts.map(&mut each).collect()
}

impl Builder {
    fn new() -> Self {
        Builder {
            g: Grammar::default(),
            stack: Vec::new(),
            names: TypeNames::default(),
            patterns: Vec::new(),
            angle: false,
        }
    }

    /// The reasoning block: its opening tag, at most `max_chars` characters
    /// other than the closing tag's first (so it can close only at its tag),
    /// the closing tag and a line break.
    fn reasoning(&mut self, r: &Reasoning) -> Expr {
        self.rule("reasoning".into(), |_| {
            let mut ranges = vec![('\0', '\u{8}'), ('\u{b}', '\u{1f}')];
            ranges.extend(r.close.chars().next().map(|c| (c, c)));
            let char_ = Class {
                ranges,
                negated: true,
            };
            seq([
                lit(r.open.clone()),
                repeat(class(char_), 0, Some(r.max_chars)),
                lit(format!("{}\n", r.close)),
            ])
        })
    }

    fn rule(&mut self, name: String, build: impl FnOnce(&mut Self) -> Expr) -> Expr {
        if self.g.reserve(&name) {
            let body = build(self);
            self.g.define(&name, body);
        }
        Expr::Rule(name)
    }

    /// A rule-name stem for a type: its name in kebab case, numbered when two
    /// different types share a name.
    fn stem(&mut self, name: &'static str, shape: &Shape) -> String {
        kebab(&self.names.name(name, shape))
    }

    /// How often the type of this rule-name stem is open around here.
    fn depth_of(&self, stem: &str) -> usize {
        self.stack.iter().filter(|s| *s == stem).count()
    }

    /// Whether a value of this shape must stop the recursion here. Types are
    /// told apart by their stems, so `Wrap<Wrap<u8>>` is no recursion.
    fn cut(&mut self, shape: &Shape) -> bool {
        let Some((name, resolved)) = derived(shape) else {
            return false;
        };
        let stem = self.stem(name, &resolved);
        self.depth_of(&stem) >= RECURSION
    }

    /// Whether a required value of this shape is a struct or tagged enum the
    /// recursion stops at, written as an empty object.
    fn cut_object(&mut self, shape: &Shape) -> bool {
        self.cut(shape) && matches!(shape.resolve(), Shape::Struct(_) | Shape::Tagged(_))
    }

    fn document(&mut self, shape: &Shape) -> Expr {
        match shape.resolve() {
            Shape::Struct(s) if s.fields.iter().any(|f| f.delimited) => self.with_prose(&s),
            Shape::Struct(s) => {
                let nested = self.struct_body(&s, 0);
                match self.keyed_struct(lit(""), &s, 0) {
                    Some(keyed) => alt([nested, keyed]),
                    None => nested,
                }
            }
            Shape::Tagged(t) => self.tagged_body(&t, 0),
            Shape::Map(value) => self.entries(&value, 0, Bounds::default()),
            Shape::List(item) => {
                let empty = alt([lit("[]"), lit("[0]:")]);
                alt([
                    empty,
                    self.array(lit(""), &item, 0, Bounds::default(), true),
                ])
            }
            Shape::Option(inner) => alt([lit("null"), self.document(&inner)]),
            Shape::Any => {
                let mut ways = vec![self.any_primitive(), self.any_entries(0, ANY_DEPTH)];
                // A root array, as a keyless header (§5).
                ways.extend(self.any_arrays(0, ANY_DEPTH));
                alt(ways)
            }
            other => self.primitive(&other, Bounds::default()),
        }
    }

    /// A root struct with delimited fields: its TOON lines, then each
    /// delimited field between its tags, as `to_toon` writes them.
    fn with_prose(&mut self, s: &StructShape) -> Expr {
        self.angle = true;
        let (prose, lines): (Vec<FieldShape>, Vec<FieldShape>) =
            s.fields.iter().cloned().partition(|f| f.delimited);
        let lead = !lines.is_empty();
        let mut parts = vec![self.struct_body(
            &StructShape {
                fields: lines,
                ..s.clone()
            },
            0,
        )];
        for (i, f) in prose.iter().enumerate() {
            let newline = if i == 0 && !lead { "" } else { "\n" };
            parts.push(lit(format!("{newline}<{}>\n", f.name)));
            parts.push(self.prose(Bounds::of(f).max_len));
            parts.push(lit(format!("</{}>", f.name)));
        }
        seq(parts)
    }

    /// Up to `max` characters of prose and the line break before the closing
    /// tag: any line, no control character, and no `<`, so that the prose
    /// cannot close its block early (the decoder reads a `<` as written; the
    /// grammar leaves it out). GBNF holds `max` exactly; Lark, which counts
    /// the line break, admits one character more.
    fn prose(&mut self, max: u32) -> Expr {
        self.rule(format!("prose-{max}"), |_| {
            let char_ = super::ir::Class {
                ranges: vec![('\0', '\t'), ('\u{b}', '\u{1f}'), ('<', '<')],
                negated: true,
            };
            Expr::Bounded {
                inner: Box::new(seq([
                    repeat(class(char_), 0, None),
                    class(super::ir::Class::of("\n")),
                ])),
                min: 1,
                max: max + 2,
                pattern: None,
            }
        })
    }

    /// The rule for the object of the derived type `name` at `depth`, built
    /// with the type on the stack (so a recursion knows how deep it is);
    /// `shape` (the type's, resolved) tells two types of one name apart.
    fn object_rule(
        &mut self,
        name: &'static str,
        shape: &Shape,
        depth: usize,
        build: impl FnOnce(&mut Self) -> Expr,
    ) -> Expr {
        let stem = self.stem(name, shape);
        let rule = format!("{stem}-d{depth}-r{}", self.depth_of(&stem));
        self.stack.push(stem);
        let body = self.rule(rule, build);
        self.stack.pop();
        body
    }

    /// A struct's fields at `depth`, in order; an optional field may be left out.
    fn struct_body(&mut self, s: &StructShape, depth: usize) -> Expr {
        if s.fields.is_empty() {
            return lit("");
        }
        self.object_rule(s.name, &Shape::Struct(s.clone()), depth, |b| {
            let parts = s
                .fields
                .iter()
                .map(|f| (b.field(f, depth), f.optional))
                .collect::<Vec<_>>();
            in_order(parts, &newline(depth))
        })
    }

    /// A tagged enum's object at `depth`: the tag first, then the variant's fields.
    fn tagged_body(&mut self, t: &TaggedShape, depth: usize) -> Expr {
        self.object_rule(t.name, &Shape::Tagged(t.clone()), depth, |b| {
            let tag = encode_key(t.tag);
            // Where the recursion stops, a variant that needs a value of a type
            // nested too deeply has no finite value (its empty object would
            // lack a tag or a field): the others remain.
            let finite: Vec<_> = t
                .variants
                .iter()
                .filter(|v| {
                    !v.fields
                        .iter()
                        .any(|f| !f.optional && b.cut_object(&f.shape))
                })
                .collect();
            let variants = if finite.is_empty() {
                t.variants.iter().collect()
            } else {
                finite
            };
            alt(variants.into_iter().map(|v| {
                let mut parts = vec![lit(format!("{tag}: {}", text_literal(v.name)))];
                for f in &v.fields {
                    let field = seq([newline(depth), b.field(f, depth)]);
                    parts.push(if f.optional {
                        repeat(field, 0, Some(1))
                    } else {
                        field
                    });
                }
                seq(parts)
            }))
        })
    }

    fn field(&mut self, f: &FieldShape, depth: usize) -> Expr {
        self.keyed(lit(encode_key(f.name)), &f.shape, depth, Bounds::of(f))
    }

    /// A key and its value, for a value standing at `depth`.
    fn keyed(&mut self, key: Expr, shape: &Shape, depth: usize, b: Bounds) -> Expr {
        let cut = self.cut(shape);
        match shape.resolve() {
            Shape::Option(inner) if inner.is_primitive() => {
                let value = self.primitive(&inner, b);
                seq([key, lit(": "), alt([lit("null"), value])])
            }
            Shape::Option(inner) => {
                let null = seq([key.clone(), lit(": null")]);
                if cut {
                    null
                } else {
                    alt([null, self.keyed(key, &inner, depth, b)])
                }
            }
            Shape::List(item) => {
                let empty = alt([
                    seq([key.clone(), lit(": []")]),
                    seq([key.clone(), lit("[0]:")]),
                ]);
                // `length(max = 0)` leaves only the empty list.
                let full =
                    (!cut && b.max_items > 0).then(|| self.array(key, &item, depth, b, true));
                match full {
                    Some(full) if b.min_items > 0 => full,
                    Some(full) => alt([empty, full]),
                    None => empty,
                }
            }
            Shape::Map(value) => {
                let empty = seq([key.clone(), lit(":")]);
                if cut || b.max_items == 0 {
                    return empty;
                }
                let entries = self.entries(&value, depth + 1, b);
                let mut ways = vec![seq([key.clone(), lit(":"), newline(depth + 1), entries])];
                if b.min_items == 0 {
                    ways.insert(0, empty);
                }
                // Values of one flat struct: the keyed table the encoder writes (§9.5),
                // and where the values allow one, for optional or tagged values.
                let mut tables = self.rows_by_value(&value);
                if let Some(cols) = table_fields(&value) {
                    tables.push((field_list(&cols), self.row(&value, &cols)));
                }
                for (list, row) in tables {
                    let entry = seq([self.free_key(), lit(": "), row]);
                    ways.extend((b.min_items.max(2)..=b.max_items).map(|n| {
                        seq([
                            key.clone(),
                            lit(format!("[{n}:]{list}:")),
                            repeat(seq([newline(depth + 1), entry.clone()]), n, Some(n)),
                        ])
                    }));
                }
                alt(ways)
            }
            // A required field of a type nested in itself too deeply holds no finite
            // value; its empty object keeps the grammar finite.
            Shape::Struct(_) | Shape::Tagged(_) if cut => seq([key, lit(":")]),
            Shape::Struct(s) if s.fields.is_empty() => seq([key, lit(":")]),
            Shape::Struct(s) => {
                let body = self.struct_body(&s, depth + 1);
                let nested = seq([key.clone(), lit(":"), newline(depth + 1), body]);
                match self.keyed_struct(key, &s, depth) {
                    Some(keyed) => alt([nested, keyed]),
                    None => nested,
                }
            }
            Shape::Tagged(t) => {
                let body = self.tagged_body(&t, depth + 1);
                seq([key, lit(":"), newline(depth + 1), body])
            }
            Shape::Any => {
                let rest = self.any_after_key(depth, ANY_DEPTH);
                seq([key, rest])
            }
            other => {
                let value = self.primitive(&other, b);
                seq([key, lit(": "), value])
            }
        }
    }

    /// A non-empty array under `key` (empty at the root or in a list item):
    /// inline for primitives, a table for flat structs where one may stand, else
    /// list items; the count in the header always equals the items that follow.
    fn array(&mut self, key: Expr, item: &Shape, depth: usize, b: Bounds, tabulate: bool) -> Expr {
        if item.is_primitive() {
            let cell = self.primitive(item, b.item());
            return alt(counted(b.counts(), |n| {
                seq([
                    key.clone(),
                    lit(format!("[{n}]: ")),
                    cell.clone(),
                    repeat(seq([lit(","), cell.clone()]), n - 1, Some(n - 1)),
                ])
            }));
        }
        let mut ways = Vec::new();
        if tabulate {
            if let Some(cols) = table_fields(item) {
                let row = self.row(item, &cols);
                return alt(table(&key, &field_list(&cols), row, depth, b));
            }
            for (list, row) in self.rows_by_value(item) {
                ways.extend(table(&key, &list, row, depth, b));
            }
        }
        // Optional objects all `null` are primitives, written inline (§9.1).
        if matches!(item.resolve(), Shape::Option(_)) {
            ways.extend(counted(b.counts(), |n| {
                seq([
                    key.clone(),
                    lit(format!("[{n}]: null")),
                    repeat(lit(",null"), n - 1, Some(n - 1)),
                ])
            }));
        }
        let each = self.list_item(item, depth + 1, b.item());
        ways.extend(counted(b.counts(), |n| {
            seq([
                key.clone(),
                lit(format!("[{n}]:")),
                repeat(each.clone(), n, Some(n)),
            ])
        }));
        alt(ways)
    }

    /// The rows (and their field lists) the encoder writes values of this shape
    /// in when the values allow it (§9.3, §9.5): optional structs when none is
    /// `null`, a tagged enum's values when all have the same keys.
    fn rows_by_value(&mut self, item: &Shape) -> Vec<(String, Expr)> {
        match item.resolve() {
            Shape::Option(inner) => match table_fields(&inner) {
                Some(cols) => vec![(field_list(&cols), self.row(&inner, &cols))],
                None => Vec::new(),
            },
            Shape::Tagged(t) => self.tagged_rows(&t),
            _ => Vec::new(),
        }
    }

    /// The tables a list of a tagged enum's values may be written as: one for
    /// each set of variants with the same keys, all primitive or flat structs
    /// (unit variants share the tag alone), its header the tag and those keys.
    fn tagged_rows(&mut self, t: &TaggedShape) -> Vec<(String, Expr)> {
        let stem = self.stem(t.name, &Shape::Tagged(t.clone()));
        let tag = encode_key(t.tag);
        let mut groups: Vec<(String, Vec<Expr>)> = Vec::new();
        for v in &t.variants {
            let flat = v
                .fields
                .iter()
                .all(|f| f.shape.is_primitive() || f.shape.flat_fields().is_some());
            if !flat {
                continue;
            }
            let keys = field_list(&v.fields);
            let list = match keys.strip_prefix("{}") {
                Some(_) => format!("{{{tag}}}"),
                None => format!("{{{tag},{}", &keys[1..]),
            };
            let mut cells = Vec::new();
            self.cells(&v.fields, &mut cells);
            let mut parts = vec![lit(text_literal(v.name))];
            for cell in cells {
                parts.push(lit(","));
                parts.push(cell);
            }
            match groups.iter_mut().find(|(l, _)| *l == list) {
                Some((_, rows)) => rows.push(seq(parts)),
                None => groups.push((list, vec![seq(parts)])),
            }
        }
        groups
            .into_iter()
            .enumerate()
            .map(|(i, (list, rows))| {
                let row = self.rule(format!("{stem}-row-{}", i + 1), |_| alt(rows));
                (list, row)
            })
            .collect()
    }

    /// A struct whose two or more fields are structs with one field list, as
    /// the keyed table the encoder writes for it (§9.5): its header, then one
    /// row a field, keyed by the field's name, in declaration order.
    fn keyed_struct(&mut self, key: Expr, s: &StructShape, depth: usize) -> Option<Expr> {
        if s.fields.len() < 2 {
            return None;
        }
        let mut entries = Vec::new();
        for f in &s.fields {
            let inner = match f.shape.resolve() {
                Shape::Option(inner) => inner.resolve(),
                other => other,
            };
            let cols = table_fields(&inner)?;
            entries.push((f.name, field_list(&cols), inner, cols));
        }
        let list = entries[0].1.clone();
        if entries.iter().any(|e| e.1 != list) {
            return None;
        }
        let mut parts = vec![key, lit(format!("[{}:]{list}:", s.fields.len()))];
        for (name, _, inner, cols) in entries {
            parts.push(newline(depth + 1));
            parts.push(lit(format!("{}: ", encode_key(name))));
            parts.push(self.row(&inner, &cols));
        }
        Some(seq(parts))
    }

    /// One table row of a flat struct: its cells in column order, a nested
    /// field group's cells in place.
    fn row(&mut self, item: &Shape, cols: &[FieldShape]) -> Expr {
        let Shape::Struct(s) = item.resolve() else {
            unreachable!("table_fields gives the columns of a struct")
        };
        let stem = self.stem(s.name, &Shape::Struct(s.clone()));
        let cols = cols.to_vec();
        self.rule(format!("{stem}-row"), move |b| {
            let mut cells = Vec::new();
            b.cells(&cols, &mut cells);
            let mut parts = Vec::new();
            for (i, cell) in cells.into_iter().enumerate() {
                if i > 0 {
                    parts.push(lit(","));
                }
                parts.push(cell);
            }
            seq(parts)
        })
    }

    fn cells(&mut self, cols: &[FieldShape], out: &mut Vec<Expr>) {
        for c in cols {
            match c.shape.flat_fields() {
                Some(sub) => self.cells(&sub, out),
                None => out.push(self.primitive(&c.shape, Bounds::of(c))),
            }
        }
    }

    /// One list item with its hyphen at `depth`, from the line break before it.
    fn list_item(&mut self, item: &Shape, depth: usize, b: Bounds) -> Expr {
        let lead = lit(format!("\n{}- ", pad(depth)));
        let bare = lit(format!("\n{}-", pad(depth)));
        let inner = Bounds {
            max_items: DEFAULT_MAX_ITEMS,
            ..b
        };
        let cut = self.cut(item);
        match item.resolve() {
            Shape::Struct(_) | Shape::Tagged(_) if cut => bare,
            Shape::Struct(s) if s.fields.is_empty() => bare,
            Shape::Struct(s) => seq([lead, self.struct_body(&s, depth + 1)]),
            Shape::Tagged(t) => seq([lead, self.tagged_body(&t, depth + 1)]),
            Shape::Option(inner_shape) => {
                let null = seq([lead, lit("null")]);
                if cut {
                    null
                } else {
                    alt([null, self.list_item(&inner_shape, depth, b)])
                }
            }
            Shape::List(inner_item) => {
                let empty = seq([lead.clone(), alt([lit("[0]:"), lit("[]")])]);
                if cut {
                    return empty;
                }
                let full = self.array(lit(""), &inner_item, depth, inner, false);
                alt([empty, seq([lead, full])])
            }
            Shape::Map(value) => {
                if cut {
                    return bare;
                }
                let entries = self.entries(&value, depth + 1, b);
                alt([bare, seq([lead, entries])])
            }
            Shape::Any => self.any_item(depth, ANY_DEPTH),
            other => seq([lead, self.primitive(&other, b)]),
        }
    }

    /// A map's entries at `depth`: at least one (or `min_items`), at most `max_items`.
    fn entries(&mut self, value: &Shape, depth: usize, b: Bounds) -> Expr {
        let key = self.free_key();
        let entry = self.keyed(key, value, depth, b.item());
        seq([
            entry.clone(),
            repeat(
                seq([newline(depth), entry]),
                b.min_items.saturating_sub(1),
                Some(b.max_items.saturating_sub(1)),
            ),
        ])
    }

    fn free_key(&mut self) -> Expr {
        self.rule("key".into(), |_| text::free_key(KEY_LEN))
    }

    /// A primitive value: text, a boolean, a number, one of an enum's names,
    /// or `null` for an optional one.
    fn primitive(&mut self, shape: &Shape, b: Bounds) -> Expr {
        match shape.resolve() {
            Shape::String => self.text(b.min_len, b.max_len, b.pattern),
            Shape::Bool => alt([lit("true"), lit("false")]),
            Shape::Integer { min, max } => {
                // The field's range, as whole numbers within the type's own.
                #[allow(clippy::cast_possible_truncation)]
                let (min, max) = (
                    b.range.0.map_or(min, |m| min.max(m.ceil() as i128)),
                    b.range.1.map_or(max, |m| max.min(m.floor() as i128)),
                );
                let name = format!("int-{}-{}", signed(min), signed(max));
                self.rule(name, |_| text::integer(min, max.max(min)))
            }
            // A range with whole, non-negative bounds is held; any other is the
            // decoder's. An `f32` rounds what the model wrote, so its bounds must
            // be `f32`s themselves (whole numbers up to 2^24), for a number within
            // them to round to one within them.
            Shape::Float { bits } => match b.range {
                (Some(lo), Some(hi))
                    if lo >= 0.0
                        && lo < hi
                        && hi < 1e15
                        && (bits == 64 || hi <= 16_777_216.0)
                        && lo.fract() == 0.0
                        && hi.fract() == 0.0 =>
                {
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    let (lo, hi) = (lo as u128, hi as u128);
                    self.rule(format!("number-{lo}-{hi}"), |_| {
                        text::number_between(lo, hi)
                    })
                }
                _ => self.rule("number".into(), |_| text::number()),
            },
            Shape::Enum(e) => self.enumeration(&e),
            Shape::Option(inner) => {
                let value = self.primitive(&inner, b);
                alt([lit("null"), value])
            }
            _ => self.any_primitive(),
        }
    }

    fn enumeration(&mut self, e: &EnumShape) -> Expr {
        let stem = self.stem(e.name, &Shape::Enum(e.clone()));
        let names: Vec<Expr> = e.variants.iter().map(|v| lit(text_literal(v.0))).collect();
        self.rule(format!("enum-{stem}"), |_| alt(names))
    }

    /// Text of `min..=max` characters, matching `pattern` where given:
    /// unquoted where §7.2 allows, or quoted.
    fn text(&mut self, min: u32, max: u32, pattern: Option<&'static str>) -> Expr {
        let stem = match (min, pattern) {
            (0, None) => format!("{max}"),
            (_, None) => format!("{min}-{max}"),
            (_, Some(p)) => format!("{min}-{max}-p{}", self.pattern_id(p)),
        };
        self.rule(format!("text-{stem}"), |b| {
            // Text of no characters at all (`length(max = 0)`) can only be quoted.
            let angle = b.angle;
            let bare = (max > 0).then(|| {
                b.rule(format!("text-bare-{stem}"), |_| Expr::Bounded {
                    inner: Box::new(text::unquoted_of(min.max(1), max, angle)),
                    min: min.max(1),
                    max,
                    pattern: pattern.map(searching),
                })
            });
            let quoted = b.rule(format!("text-quoted-{stem}"), |_| match pattern {
                // Quoted text matching a pattern: its characters as written,
                // no escapes, between the quotes.
                Some(p) => Expr::Bounded {
                    inner: Box::new(text::quoted_plain()),
                    min: min + 2,
                    max: max + 2,
                    pattern: Some(format!("\"{}\"", searching(p))),
                },
                None => text::quoted(min, max),
            });
            match bare {
                Some(bare) => alt([bare, quoted]),
                None => quoted,
            }
        })
    }

    /// A number for each distinct pattern, for rule names.
    fn pattern_id(&mut self, pattern: &'static str) -> usize {
        match self.patterns.iter().position(|p| *p == pattern) {
            Some(i) => i + 1,
            None => {
                self.patterns.push(pattern);
                self.patterns.len()
            }
        }
    }

    /// A free-form primitive.
    fn any_primitive(&mut self) -> Expr {
        self.rule("any-primitive".into(), |b| {
            let number = b.rule("number".into(), |_| text::number());
            let text = b.text(0, DEFAULT_MAX_LEN, None);
            alt([lit("null"), lit("true"), lit("false"), number, text])
        })
    }

    /// What follows a key whose value is free-form: a primitive, an empty or
    /// nested object, an empty, inline or listed array.
    fn any_after_key(&mut self, depth: usize, levels: usize) -> Expr {
        self.rule(format!("any-value-d{depth}-l{levels}"), |b| {
            let prim = b.any_primitive();
            let mut ways = vec![seq([lit(": "), prim]), lit(":"), lit(": []")];
            if levels > 0 {
                let entries = b.any_entries(depth + 1, levels - 1);
                ways.push(seq([lit(":"), newline(depth + 1), entries]));
            }
            ways.extend(b.any_arrays(depth, levels));
            alt(ways)
        })
    }

    /// A free-form non-empty array from its bracket on, its items at
    /// `depth + 1`: inline primitives, or (with `levels` left) list items.
    fn any_arrays(&mut self, depth: usize, levels: usize) -> Vec<Expr> {
        let prim = self.any_primitive();
        let mut ways = counted(1..=ANY_ITEMS, |n| {
            seq([
                lit(format!("[{n}]: ")),
                prim.clone(),
                repeat(seq([lit(","), prim.clone()]), n - 1, Some(n - 1)),
            ])
        });
        if levels > 0 {
            let item = self.any_item(depth + 1, levels - 1);
            ways.extend(counted(1..=ANY_ITEMS, |n| {
                seq([lit(format!("[{n}]:")), repeat(item.clone(), n, Some(n))])
            }));
            // Objects with the same keys and primitive values: the table the
            // encoder writes for them (§9.3), each row as wide as the header.
            let key = self.free_key();
            for width in 1..=ANY_ITEMS {
                let fields = seq([
                    lit("{"),
                    key.clone(),
                    repeat(seq([lit(","), key.clone()]), width - 1, Some(width - 1)),
                    lit("}:"),
                ]);
                let row = seq([
                    prim.clone(),
                    repeat(seq([lit(","), prim.clone()]), width - 1, Some(width - 1)),
                ]);
                ways.extend(counted(1..=ANY_ITEMS, |n| {
                    seq([
                        lit(format!("[{n}]")),
                        fields.clone(),
                        repeat(seq([newline(depth + 1), row.clone()]), n, Some(n)),
                    ])
                }));
            }
        }
        ways
    }

    fn any_entries(&mut self, depth: usize, levels: usize) -> Expr {
        self.rule(format!("any-entries-d{depth}-l{levels}"), |b| {
            let key = b.free_key();
            let value = b.any_after_key(depth, levels);
            let entry = seq([key, value]);
            seq([
                entry.clone(),
                repeat(seq([newline(depth), entry]), 0, Some(ANY_ITEMS - 1)),
            ])
        })
    }

    /// A free-form list item with its hyphen at `depth`.
    fn any_item(&mut self, depth: usize, levels: usize) -> Expr {
        self.rule(format!("any-item-d{depth}-l{levels}"), |b| {
            let lead = format!("\n{}- ", pad(depth));
            let prim = b.any_primitive();
            let mut ways = vec![
                seq([lit(lead.clone()), prim]),
                lit(format!("\n{}-", pad(depth))),
            ];
            if levels > 0 {
                let entries = b.any_entries(depth + 1, levels - 1);
                ways.push(seq([lit(lead), entries]));
            }
            alt(ways)
        })
    }
}

/// Fields in order, joined by `sep`; an optional one may be left out, and the
/// first field written is the one that carries no separator.
fn in_order(parts: Vec<(Expr, bool)>, sep: &Expr) -> Expr {
    let mut ways = Vec::new();
    for (i, (first, optional)) in parts.iter().enumerate() {
        let mut items = vec![first.clone()];
        for (field, opt) in &parts[i + 1..] {
            let joined = seq([sep.clone(), field.clone()]);
            items.push(if *opt {
                repeat(joined, 0, Some(1))
            } else {
                joined
            });
        }
        ways.push(seq(items));
        if !optional {
            break;
        }
    }
    alt(ways)
}

/// A JSON-Schema pattern (a search, anchored only by its own `^` and `$`) as a
/// whole-text regular expression: each top-level alternative anchored by its
/// own `^` and `$` (`^a|b$` is text that begins with `a` or ends with `b`),
/// and `\d`, `\w`, `\s` as the ASCII classes the decoder's `regex_lite`
/// reads them as (llguidance would read them as Unicode).
fn searching(pattern: &str) -> String {
    let pattern = crate::shape::ascii_classes(pattern);
    let ways: Vec<String> = top_level_alternatives(&pattern)
        .into_iter()
        .map(|way| {
            let start = way.strip_prefix('^');
            let body = start.unwrap_or(way);
            let end = body.strip_suffix('$').filter(|b| !b.ends_with('\\'));
            let body = end.unwrap_or(body);
            format!(
                "{}(?:{body}){}",
                if start.is_some() { "" } else { "(?s:.)*" },
                if end.is_some() { "" } else { "(?s:.)*" }
            )
        })
        .collect();
    match ways.as_slice() {
        [one] => one.clone(),
        _ => format!("(?:{})", ways.join("|")),
    }
}

/// The pattern split at each `|` outside groups and classes.
fn top_level_alternatives(pattern: &str) -> Vec<&str> {
    let (mut ways, mut from, mut depth, mut class) = (Vec::new(), 0, 0usize, false);
    let mut chars = pattern.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' if !class => class = true,
            ']' if class => class = false,
            '(' if !class => depth += 1,
            ')' if !class => depth = depth.saturating_sub(1),
            '|' if !class && depth == 0 => {
                ways.push(&pattern[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    ways.push(&pattern[from..]);
    ways
}

fn signed(n: i128) -> String {
    if n < 0 {
        format!("m{}", n.unsigned_abs())
    } else {
        n.to_string()
    }
}

/// A table of `row`s under `key` with the field list `list`: empty, or each
/// count its bounds allow with exactly that many rows.
fn table(key: &Expr, list: &str, row: Expr, depth: usize, b: Bounds) -> Vec<Expr> {
    let mut ways = Vec::new();
    if b.min_items == 0 {
        ways.push(seq([key.clone(), lit(format!("[0]{list}:"))]));
    }
    ways.extend(counted(b.counts(), |n| {
        seq([
            key.clone(),
            lit(format!("[{n}]{list}:")),
            repeat(seq([newline(depth + 1), row.clone()]), n, Some(n)),
        ])
    }));
    ways
}

/// `ComplianceAnalysis` as `compliance-analysis`: a GBNF and Lark rule name.
fn kebab(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 && !out.ends_with('-') {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches('-').to_owned();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("t-{out}")
    } else {
        out
    }
}
