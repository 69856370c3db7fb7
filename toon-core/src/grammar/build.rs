//! From a shape to its grammar: the TOON that `to_toon` writes for values of the
//! type, line by line at fixed indentation, each value in its own language.
//!
//! A block is written from its key onwards: its first line carries no
//! indentation (the caller puts it there), and every later line starts with a
//! line break and its full indentation. So a struct's fields join with
//! `"\n" + indentation`, and a list item's first field rides on its hyphen line.

use std::collections::HashMap;

use super::ir::{alt, lit, repeat, seq, Expr, Grammar};
use super::text;
use super::{DEFAULT_MAX_ITEMS, DEFAULT_MAX_LEN};
use crate::encode::{encode_key, needs_quotes, quote};
use crate::typed::render::{field_list, named, table_fields};
use crate::typed::{EnumShape, FieldShape, Shape, StructShape, TaggedShape};

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
    max_len: u32,
    max_items: u32,
}

impl Bounds {
    fn of(f: &FieldShape) -> Bounds {
        Bounds {
            max_len: f.max_len.unwrap_or(DEFAULT_MAX_LEN),
            max_items: f.max_items.unwrap_or(DEFAULT_MAX_ITEMS),
        }
    }
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            max_len: DEFAULT_MAX_LEN,
            max_items: DEFAULT_MAX_ITEMS,
        }
    }
}

pub(crate) fn grammar(shape: &Shape) -> Grammar {
    let mut b = Builder {
        g: Grammar::default(),
        stack: Vec::new(),
        names: HashMap::new(),
    };
    b.g.reserve("root");
    let root = b.document(shape);
    b.g.define("root", root);
    b.g
}

struct Builder {
    g: Grammar,
    /// The derived types being built, outermost first.
    stack: Vec<&'static str>,
    /// Rule-name stems, by type name and what tells two types of one name apart.
    names: HashMap<(&'static str, String), String>,
}

fn pad(depth: usize) -> String {
    "  ".repeat(depth)
}

/// A line break and the indentation of `depth`.
fn newline(depth: usize) -> Expr {
    lit(format!("\n{}", pad(depth)))
}

/// A text as the encoder writes it in a value or a cell.
fn text_literal(s: &str) -> String {
    if needs_quotes(s, ',') {
        quote(s)
    } else {
        s.to_owned()
    }
}

/// `max` alternatives, one per count: `[n]` then exactly `n` of something.
fn counted(max: u32, mut each: impl FnMut(u32) -> Expr) -> Vec<Expr> {
    (1..=max).map(&mut each).collect()
}

impl Builder {
    fn rule(&mut self, name: String, build: impl FnOnce(&mut Self) -> Expr) -> Expr {
        if self.g.reserve(&name) {
            let body = build(self);
            self.g.define(&name, body);
        }
        Expr::Rule(name)
    }

    /// A rule-name stem for a type: its name in kebab case, numbered when two
    /// different types share a name.
    fn stem(&mut self, name: &'static str, signature: String) -> String {
        if let Some(stem) = self.names.get(&(name, signature.clone())) {
            return stem.clone();
        }
        let base = kebab(name);
        let taken = self.names.keys().filter(|(n, _)| *n == name).count();
        let stem = if taken == 0 {
            base
        } else {
            format!("{base}-{}", taken + 1)
        };
        self.names.insert((name, signature), stem.clone());
        stem
    }

    fn depth_of(&self, name: &str) -> usize {
        self.stack.iter().filter(|n| **n == name).count()
    }

    /// Whether a value of this shape must stop the recursion here.
    fn cut(&self, shape: &Shape) -> bool {
        named(shape).is_some_and(|n| self.depth_of(n) >= RECURSION)
    }

    fn document(&mut self, shape: &Shape) -> Expr {
        match shape.resolve() {
            Shape::Struct(s) => self.struct_body(&s, 0),
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
                let prim = self.any_primitive();
                alt([prim, self.any_entries(0, ANY_DEPTH)])
            }
            other => self.primitive(&other, Bounds::default()),
        }
    }

    /// The rule for the object of the derived type `name` at `depth`, built
    /// with the type on the stack (so a recursion knows how deep it is);
    /// `members` (its field or variant names) tell two types of one name apart.
    fn object_rule<'m>(
        &mut self,
        name: &'static str,
        members: impl Iterator<Item = &'m str>,
        depth: usize,
        build: impl FnOnce(&mut Self) -> Expr,
    ) -> Expr {
        let stem = self.stem(name, members.collect::<Vec<_>>().join(","));
        let rule = format!("{stem}-d{depth}-r{}", self.depth_of(name));
        self.stack.push(name);
        let body = self.rule(rule, build);
        self.stack.pop();
        body
    }

    /// A struct's fields at `depth`, in order; an optional field may be left out.
    fn struct_body(&mut self, s: &StructShape, depth: usize) -> Expr {
        if s.fields.is_empty() {
            return lit("");
        }
        self.object_rule(s.name, s.fields.iter().map(|f| f.name), depth, |b| {
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
        self.object_rule(t.name, t.variants.iter().map(|v| v.name), depth, |b| {
            let tag = encode_key(t.tag);
            alt(t.variants.iter().map(|v| {
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
                if cut {
                    empty
                } else {
                    let full = self.array(key, &item, depth, b, true);
                    alt([empty, full])
                }
            }
            Shape::Map(value) => {
                let empty = seq([key.clone(), lit(":")]);
                if cut {
                    return empty;
                }
                let entries = self.entries(&value, depth + 1, b);
                let mut ways = vec![
                    empty,
                    seq([key.clone(), lit(":"), newline(depth + 1), entries]),
                ];
                // Values of one flat struct: the keyed table the encoder writes (§9.5).
                if let Some(cols) = table_fields(&value) {
                    let row = self.row(&value, &cols);
                    let list = field_list(&cols);
                    let entry = seq([self.free_key(), lit(": "), row]);
                    ways.extend((2..=b.max_items).map(|n| {
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
                seq([key, lit(":"), newline(depth + 1), body])
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
            let cell = self.primitive(item, b);
            return alt(counted(b.max_items, |n| {
                seq([
                    key.clone(),
                    lit(format!("[{n}]: ")),
                    cell.clone(),
                    repeat(seq([lit(","), cell.clone()]), n - 1, Some(n - 1)),
                ])
            }));
        }
        if tabulate {
            if let Some(cols) = table_fields(item) {
                let row = self.row(item, &cols);
                let list = field_list(&cols);
                let mut ways = vec![seq([key.clone(), lit(format!("[0]{list}:"))])];
                ways.extend(counted(b.max_items, |n| {
                    seq([
                        key.clone(),
                        lit(format!("[{n}]{list}:")),
                        repeat(seq([newline(depth + 1), row.clone()]), n, Some(n)),
                    ])
                }));
                return alt(ways);
            }
        }
        let each = self.list_item(item, depth + 1, b);
        alt(counted(b.max_items, |n| {
            seq([
                key.clone(),
                lit(format!("[{n}]:")),
                repeat(each.clone(), n, Some(n)),
            ])
        }))
    }

    /// One table row of a flat struct: its cells in column order, a nested
    /// field group's cells in place.
    fn row(&mut self, item: &Shape, cols: &[FieldShape]) -> Expr {
        let Shape::Struct(s) = item.resolve() else {
            unreachable!("table_fields gives the columns of a struct")
        };
        let signature = s
            .fields
            .iter()
            .map(|f| f.name)
            .collect::<Vec<_>>()
            .join(",");
        let stem = self.stem(s.name, signature);
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

    /// A map's entries at `depth`: at least one, at most `max_items`.
    fn entries(&mut self, value: &Shape, depth: usize, b: Bounds) -> Expr {
        let key = self.free_key();
        let entry = self.keyed(key, value, depth, b);
        seq([
            entry.clone(),
            repeat(
                seq([newline(depth), entry]),
                0,
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
            Shape::String => self.text(b.max_len),
            Shape::Bool => alt([lit("true"), lit("false")]),
            Shape::Integer { min, max } => {
                let name = format!("int-{}-{}", signed(min), signed(max));
                self.rule(name, |_| text::integer(min, max))
            }
            Shape::Float => self.rule("number".into(), |_| text::number()),
            Shape::Enum(e) => self.enumeration(&e),
            Shape::Option(inner) => {
                let value = self.primitive(&inner, b);
                alt([lit("null"), value])
            }
            _ => self.any_primitive(),
        }
    }

    fn enumeration(&mut self, e: &EnumShape) -> Expr {
        let signature = e.variants.iter().map(|v| v.0).collect::<Vec<_>>().join(",");
        let stem = self.stem(e.name, signature);
        let names: Vec<Expr> = e.variants.iter().map(|v| lit(text_literal(v.0))).collect();
        self.rule(format!("enum-{stem}"), |_| alt(names))
    }

    /// Text of at most `max` characters: unquoted where §7.2 allows, or quoted.
    fn text(&mut self, max: u32) -> Expr {
        self.rule(format!("text-{max}"), |b| {
            let bare = b.rule(format!("text-bare-{max}"), |_| Expr::Bounded {
                inner: Box::new(text::unquoted()),
                max,
            });
            let quoted = b.rule(format!("text-quoted-{max}"), |_| text::quoted(max));
            alt([bare, quoted])
        })
    }

    /// A free-form primitive.
    fn any_primitive(&mut self) -> Expr {
        self.rule("any-primitive".into(), |b| {
            let number = b.rule("number".into(), |_| text::number());
            let text = b.text(DEFAULT_MAX_LEN);
            alt([lit("null"), lit("true"), lit("false"), number, text])
        })
    }

    /// What follows a key whose value is free-form: a primitive, an empty or
    /// nested object, an empty, inline or listed array.
    fn any_after_key(&mut self, depth: usize, levels: usize) -> Expr {
        self.rule(format!("any-value-d{depth}-l{levels}"), |b| {
            let prim = b.any_primitive();
            let mut ways = vec![seq([lit(": "), prim.clone()]), lit(":"), lit(": []")];
            ways.extend(counted(ANY_ITEMS, |n| {
                seq([
                    lit(format!("[{n}]: ")),
                    prim.clone(),
                    repeat(seq([lit(","), prim.clone()]), n - 1, Some(n - 1)),
                ])
            }));
            if levels > 0 {
                let entries = b.any_entries(depth + 1, levels - 1);
                ways.push(seq([lit(":"), newline(depth + 1), entries]));
                let item = b.any_item(depth + 1, levels - 1);
                ways.extend(counted(ANY_ITEMS, |n| {
                    seq([lit(format!("[{n}]:")), repeat(item.clone(), n, Some(n))])
                }));
            }
            alt(ways)
        })
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

fn signed(n: i128) -> String {
    if n < 0 {
        format!("m{}", n.unsigned_abs())
    } else {
        n.to_string()
    }
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
