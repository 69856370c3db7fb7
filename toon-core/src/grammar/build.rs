//! From a shape to its grammar: the TOON that `to_toon` writes for values of the
//! type, line by line at fixed indentation, each value in its own language.
//!
//! A block is written from its key onwards: its first line carries no
//! indentation (the caller puts it there), and every later line starts with a
//! line break and its full indentation. So a struct's fields join with
//! `"\n" + indentation`, and a list item's first field rides on its hyphen line.

use std::collections::HashMap;

use super::ir::{alt, class, lit, repeat, seq, Expr, Grammar};
use super::text;
use super::{DEFAULT_MAX_ITEMS, DEFAULT_MAX_LEN};
use crate::encode::{encode_key, needs_quotes, quote};
use crate::shape::{
    field_list, named, table_fields, EnumShape, FieldShape, Shape, StructShape, TaggedShape,
};

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
}

impl Bounds {
    /// The bounds of a field: its grammar bounds (`max_len`, `max_items`),
    /// tightened by its constraints (`length` counts a text's characters or a
    /// list's items, `range` a number, `pattern` a text).
    fn of(f: &FieldShape) -> Bounds {
        let c = &f.constraints;
        let mut inner = f.shape.resolve();
        while let Shape::Option(s) = inner {
            inner = s.resolve();
        }
        let tighter = |default: u32, bound: Option<u32>| bound.map_or(default, |b| default.min(b));
        let mut b = Bounds {
            max_len: f.max_len.unwrap_or(DEFAULT_MAX_LEN),
            max_items: f.max_items.unwrap_or(DEFAULT_MAX_ITEMS),
            ..Bounds::default()
        };
        match inner {
            Shape::String => {
                // A least length above the bound raises it, as for lists: every
                // text Lark admits must be one the decoder reads (GBNF holds no
                // least length).
                b.max_len = tighter(b.max_len, c.max_length);
                b.min_len = c.min_length.unwrap_or(0);
                b.max_len = b.max_len.max(b.min_len);
                b.pattern = c.pattern;
            }
            Shape::List(_) | Shape::Map(_) => {
                b.max_items = tighter(b.max_items, c.max_length);
                b.min_items = c.min_length.unwrap_or(0);
                b.max_items = b.max_items.max(b.min_items);
            }
            Shape::Integer { .. } | Shape::Float => b.range = (c.min, c.max),
            _ => {}
        }
        b
    }

    /// The bounds of each item of a list: the text bound stays, the list's own go.
    fn item(self) -> Bounds {
        Bounds {
            max_len: self.max_len,
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
        }
    }
}

pub(crate) fn grammar(shape: &Shape) -> Grammar {
    let mut b = Builder {
        g: Grammar::default(),
        stack: Vec::new(),
        names: HashMap::new(),
        patterns: Vec::new(),
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
    /// The text patterns met so far, numbered for rule names.
    patterns: Vec<&'static str>,
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

/// One alternative per count: `[n]` then exactly `n` of something.
fn counted(counts: std::ops::RangeInclusive<u32>, mut each: impl FnMut(u32) -> Expr) -> Vec<Expr> {
    counts.map(&mut each).collect()
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
            Shape::Struct(s) if s.fields.iter().any(|f| f.delimited) => self.with_prose(&s),
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

    /// A root struct with delimited fields: its TOON lines, then each
    /// delimited field between its tags, as `to_toon` writes them.
    fn with_prose(&mut self, s: &StructShape) -> Expr {
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
                let full = (!cut).then(|| self.array(key, &item, depth, b, true));
                match full {
                    Some(full) if b.min_items > 0 => full,
                    Some(full) => alt([empty, full]),
                    None => empty,
                }
            }
            Shape::Map(value) => {
                let empty = seq([key.clone(), lit(":")]);
                if cut {
                    return empty;
                }
                let entries = self.entries(&value, depth + 1, b);
                let mut ways = vec![seq([key.clone(), lit(":"), newline(depth + 1), entries])];
                if b.min_items == 0 {
                    ways.insert(0, empty);
                }
                // Values of one flat struct: the keyed table the encoder writes (§9.5).
                if let Some(cols) = table_fields(&value) {
                    let row = self.row(&value, &cols);
                    let list = field_list(&cols);
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
        if tabulate {
            if let Some(cols) = table_fields(item) {
                let row = self.row(item, &cols);
                let list = field_list(&cols);
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
                return alt(ways);
            }
        }
        let each = self.list_item(item, depth + 1, b.item());
        alt(counted(b.counts(), |n| {
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
            // A range with whole, non-negative bounds is held; any other is the decoder's.
            Shape::Float => match b.range {
                (Some(lo), Some(hi))
                    if lo >= 0.0
                        && lo < hi
                        && hi < 1e15
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
        let signature = e.variants.iter().map(|v| v.0).collect::<Vec<_>>().join(",");
        let stem = self.stem(e.name, signature);
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
            let bare = b.rule(format!("text-bare-{stem}"), |_| Expr::Bounded {
                inner: Box::new(text::unquoted()),
                min: min.max(1),
                max,
                pattern: pattern.map(searching),
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
            alt([bare, quoted])
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
            let mut ways = vec![seq([lit(": "), prim.clone()]), lit(":"), lit(": []")];
            ways.extend(counted(1..=ANY_ITEMS, |n| {
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
                ways.extend(counted(1..=ANY_ITEMS, |n| {
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

/// A JSON-Schema pattern (a search, anchored only by its own `^` and `$`) as a
/// whole-text regular expression.
fn searching(pattern: &str) -> String {
    let start = pattern.strip_prefix('^');
    let body = start.unwrap_or(pattern);
    let end = body.strip_suffix('$').filter(|b| !b.ends_with('\\'));
    let body = end.unwrap_or(body);
    format!(
        "{}(?:{body}){}",
        if start.is_some() { "" } else { "(?s:.)*" },
        if end.is_some() { "" } else { "(?s:.)*" }
    )
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
