//! Types described at run time: a [`Shape`] built from text (the `toon-decl`
//! crate reads Rust declarations into one) gets what a derived type gets, by
//! the same code. [`Dynamic`] is a `Toon` and `OutputSchema` type whose shape
//! is the run-time type in scope, so every generic reader, stream, parser,
//! tool and exchange of this crate reads it: none is restated here.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::constrain::{ItemAt, Items, Measure, Measured};
use super::context::{Cx, Fields};
use super::stream::StreamRow;
use super::{Readers, Toon};
use crate::grammar::GrammarSyntax;
use crate::reply::{ParseError, Reply, ReplyOptions};
use crate::schema::{OutputSchema, SchemaDialect, Tool};
use crate::shape::{FieldShape, Shape, StructShape, TaggedShape};
use crate::spec::node::Node;

/// What reading a declared type takes beyond its [`Shape`], which holds only
/// what the model is shown: the names a key may also go by, the value a
/// missing key takes, and the keys a stream asks each field about. Filled in
/// by whoever builds the shape; a shape with no notes reads every field by
/// its wire name alone, and a missing key as missing.
#[derive(Debug, Clone, Default)]
pub struct Notes {
    fields: HashMap<(&'static str, &'static str), Vec<FieldNotes>>,
    variant_aliases: HashMap<&'static str, Vec<(&'static str, usize)>>,
    stream_keys: HashMap<&'static str, Vec<(&'static str, usize, usize)>>,
    keys: HashMap<&'static str, &'static [&'static str]>,
}

/// How one field of a declared struct or variant is read.
#[derive(Debug, Clone, Default)]
pub struct FieldNotes {
    /// Other keys the field is read from (`#[toon(alias = "..")]`).
    pub aliases: &'static [&'static str],
    /// The value of the field when the reply leaves its key out
    /// (`#[serde(default)]`); `None` where the key is required.
    pub missing: Option<Value>,
}

impl Notes {
    /// How the live fields of the struct `type_name` (or of its variant
    /// `variant`, for a tagged enum; `""` for a struct) are read, in the
    /// order of the shape's fields.
    pub fn fields(
        &mut self,
        type_name: &'static str,
        variant: &'static str,
        fields: Vec<FieldNotes>,
    ) -> &mut Self {
        self.fields.insert((type_name, variant), fields);
        self
    }

    /// Every key the struct `type_name` reads (names and aliases), for a
    /// missing field's error to name the others.
    pub fn keys(&mut self, type_name: &'static str, keys: &'static [&'static str]) -> &mut Self {
        self.keys.insert(type_name, keys);
        self
    }

    /// The aliases of an enum's variants: each alias with the index of the
    /// variant it names.
    pub fn variant_aliases(
        &mut self,
        type_name: &'static str,
        aliases: Vec<(&'static str, usize)>,
    ) -> &mut Self {
        self.variant_aliases.insert(type_name, aliases);
        self
    }

    /// The keys a stream asks a tagged enum about: each key with the variant
    /// and field that read its table. A key no entry names keeps every row
    /// (the stream cannot tell the variant while it reads).
    pub fn stream_keys(
        &mut self,
        type_name: &'static str,
        keys: Vec<(&'static str, usize, usize)>,
    ) -> &mut Self {
        self.stream_keys.insert(type_name, keys);
        self
    }

    fn field_notes(&self, type_name: &'static str, variant: &'static str) -> &[FieldNotes] {
        self.fields
            .get(&(type_name, variant))
            .map_or(&[], Vec::as_slice)
    }
}

/// A type described at run time: its shape, its notes and the name it goes
/// by. It gives what a derived type gives: the prompt, header, schema,
/// declarations, grammar, tool, and the reading of TOON and JSON replies into
/// a [`serde_json::Value`], whole or streamed; anything else generic over
/// `T: Toon` reads it as [`Dynamic`] inside [`enter`](Self::enter).
#[derive(Debug, Clone)]
pub struct RuntimeType {
    shape: Arc<Shape>,
    schema: Arc<Shape>,
    id: &'static str,
    notes: Arc<Notes>,
}

impl RuntimeType {
    /// The type whose shape is `shape` (a [`Shape::Named`] is resolved),
    /// referred to as `id` where it refers to itself, read with `notes`.
    pub fn new(shape: Shape, id: &'static str, notes: impl Into<Arc<Notes>>) -> RuntimeType {
        let shape = Arc::new(shape.into_resolved());
        RuntimeType {
            schema: Arc::clone(&shape),
            shape,
            id,
            notes: notes.into(),
        }
    }

    /// The same type with the shape its schema, declarations and tool are
    /// built from, where it differs: a derived type refers to a unit enum by
    /// name there (a `$defs` entry), and writes it out in the TOON prompt.
    pub fn schema_shape(mut self, schema: Shape) -> RuntimeType {
        self.schema = Arc::new(schema.into_resolved());
        self
    }

    /// Its shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Runs `f` with [`Dynamic`] standing for this type: inside it, any
    /// generic item of the crate (`ToonOutputParser::<Dynamic>`,
    /// `Exchange::<Dynamic>`, `Tool::of::<Dynamic>`) works on this type.
    pub fn enter<R>(&self, f: impl FnOnce() -> R) -> R {
        let frame = Frame {
            shape: Arc::clone(&self.shape),
            schema: Some(Arc::clone(&self.schema)),
            id: self.id,
            notes: Arc::clone(&self.notes),
        };
        within(frame, f)
    }

    /// As [`Toon::toon_prompt`].
    pub fn toon_prompt(&self) -> String {
        crate::prompt::prompt(&self.shape, self.id)
    }

    /// As [`Toon::toon_header`].
    pub fn toon_header(&self) -> String {
        crate::prompt::header(&self.shape, self.id)
    }

    /// As [`Toon::toon_grammar`].
    pub fn toon_grammar(&self, syntax: GrammarSyntax) -> String {
        crate::grammar::toon_grammar(&self.shape, syntax)
    }

    /// As [`Toon::toon_max_reply_bytes`].
    pub fn toon_max_reply_bytes(&self) -> usize {
        crate::grammar::max_reply_bytes(&self.shape)
    }

    /// As [`OutputSchema::json_schema`].
    pub fn json_schema(&self) -> Value {
        crate::schema::json_schema_of(&self.schema)
    }

    /// As [`OutputSchema::schema_prompt`].
    pub fn schema_prompt(&self) -> String {
        crate::schema::declarations_of(&self.schema)
    }

    /// As [`response_format`](crate::schema::response_format).
    pub fn response_format(&self, dialect: SchemaDialect) -> Value {
        self.enter(|| crate::schema::response_format::<Dynamic>(dialect))
    }

    /// As [`Tool::of`].
    pub fn tool(&self) -> Tool {
        self.enter(Tool::of::<Dynamic>)
    }

    /// As [`Toon::from_toon`]: the reply read into the type, as a JSON value.
    ///
    /// # Errors
    /// As [`Toon::from_toon`].
    pub fn from_toon(&self, completion: &str) -> Result<Value, ParseError> {
        self.read(completion, &ReplyOptions::default())
            .map(|r| r.value)
    }

    /// As [`ToonOutputParser::parse_with_report`](crate::ToonOutputParser::parse_with_report)
    /// with `options`: the value and every repair.
    ///
    /// # Errors
    /// As [`Toon::from_toon`], and the finish-reason rule of `options`.
    pub fn read(
        &self,
        completion: &str,
        options: &ReplyOptions,
    ) -> Result<Reply<Value>, ParseError> {
        self.enter(|| super::read::<Dynamic>(completion, options))
            .map(unwrap)
    }

    /// As [`from_json_reply`](crate::from_json_reply) with `options`: a reply
    /// asked for as JSON, read by the same reading.
    ///
    /// # Errors
    /// As [`from_json_reply`](crate::from_json_reply).
    pub fn read_json(
        &self,
        completion: &str,
        options: &ReplyOptions,
    ) -> Result<Reply<Value>, ParseError> {
        self.enter(|| super::read_as::<Dynamic>(completion, options, crate::reply::Format::Json))
            .map(unwrap)
    }

    /// A stream of the reply as the model writes it, as
    /// [`ToonStream`](crate::ToonStream) streams a derived type.
    pub fn stream(&self, options: ReplyOptions) -> RuntimeStream {
        let inner = self.enter(|| super::ToonStream::with_options(options));
        RuntimeStream {
            ty: self.clone(),
            inner,
            partial: Map::new(),
        }
    }
}

fn unwrap(reply: Reply<Dynamic>) -> Reply<Value> {
    Reply {
        value: reply.value.0,
        repairs: reply.repairs,
    }
}

/// [`ToonStream`](crate::ToonStream) of a [`RuntimeType`]. An event's value
/// is read as a declared type by that type's own run-time type, since
/// [`Dynamic`] reads as the type in scope: for a row of violations,
/// `violation.enter(|| event.decode::<Dynamic>())`. The fields read so far
/// are also kept, each read by its declared shape, as the
/// [`PartialStream`](crate::stream::PartialStream) of a derived type keeps
/// them: [`partial`](Self::partial).
#[derive(Debug)]
pub struct RuntimeStream {
    ty: RuntimeType,
    inner: super::ToonStream<Dynamic>,
    partial: Map<String, Value>,
}

impl RuntimeStream {
    /// As [`ToonStream::push`](crate::ToonStream::push).
    pub fn push(&mut self, chunk: &str) -> Vec<super::Event> {
        let (inner, partial) = (&mut self.inner, &mut self.partial);
        self.ty.enter(|| {
            let events = inner.push(chunk);
            fill(partial, &events);
            events
        })
    }

    /// As [`ToonStream::end`](crate::ToonStream::end).
    pub fn end(&mut self) -> Vec<super::Event> {
        let (inner, partial) = (&mut self.inner, &mut self.partial);
        self.ty.enter(|| {
            let events = inner.end();
            fill(partial, &events);
            events
        })
    }

    /// What the reply has given so far, as a partial value of a derived type
    /// shows it: a key for each field the stream has read, its value read by
    /// the field's declared shape (an enum normalised, a row as its type), a
    /// list growing by each element, a delimited text as it arrives; no key
    /// for a field not reached, and no default.
    pub fn partial(&self) -> &Map<String, Value> {
        &self.partial
    }

    /// As [`ToonStream::finish`](crate::ToonStream::finish): the whole reply
    /// read as [`RuntimeType::read`] reads it.
    ///
    /// # Errors
    /// As [`RuntimeType::read`].
    pub fn finish(self) -> Result<Reply<Value>, ParseError> {
        let RuntimeStream { ty, inner, .. } = self;
        ty.enter(|| inner.finish()).map(unwrap)
    }
}

/// Adds `events` to the partial value of the root struct in scope, each
/// value read by its field's shape, as the generated `Streamed::__apply`
/// does for a derived struct.
fn fill(partial: &mut Map<String, Value>, events: &[super::Event]) {
    let frame = top();
    let Shape::Struct(root) = frame.shape.resolve() else {
        return;
    };
    for event in events.iter() {
        let Some(key) = super::partial::key(event) else {
            // Delimited text stands; what the withdrawn lines gave goes.
            let text = |k: &String| root.fields.iter().any(|f| f.delimited && f.name == k);
            partial.retain(|k, _| text(k));
            continue;
        };
        let Some(field) = root.fields.iter().find(|f| f.name == key) else {
            continue;
        };
        match event {
            super::Event::Text { delta, .. } => {
                if let Value::String(text) = partial
                    .entry(field.name)
                    .or_insert_with(|| Value::String(String::new()))
                {
                    text.push_str(delta);
                }
            }
            super::Event::Item { .. } => {
                let Some(item) = list_item(&field.shape) else {
                    continue;
                };
                let read = inside(&frame, item, || {
                    super::partial::item::<Dynamic>(event, super::partial::unchecked)
                });
                // Each element within the field's `inner` constraints.
                let read = read.map(|r| {
                    r.and_then(|item| super::partial::checked(item.value, field.name, &field.inner))
                });
                if let Some(Ok(item)) = read {
                    if let Value::Array(items) = partial
                        .entry(field.name)
                        .or_insert_with(|| Value::Array(Vec::new()))
                    {
                        items.push(item.0);
                    }
                }
            }
            _ => {
                let read = inside(&frame, &field.shape, || {
                    super::partial::field::<Dynamic>(event, super::partial::unchecked)
                })
                .map(|r| {
                    r.and_then(|v| super::partial::checked(v, field.name, &field.constraints))
                });
                if let Some(Ok(value)) = read {
                    partial.insert(field.name.to_owned(), value.0);
                }
            }
        }
    }
}

/// The element of a list field's shape, through `Option`.
fn list_item(shape: &Shape) -> Option<&Shape> {
    match shape {
        Shape::Option(inner) => list_item(inner),
        Shape::List(item) => Some(item),
        _ => None,
    }
}

/// A value of the [`RuntimeType`] in scope ([`RuntimeType::enter`]), as JSON.
///
/// # Panics
/// Its `Toon` and `OutputSchema` items panic outside [`RuntimeType::enter`]:
/// with no type in scope there is no shape to read by.
#[derive(Debug, Clone, PartialEq)]
pub struct Dynamic(pub Value);

/// The type in scope, and the shape of the value being read within it.
#[derive(Clone)]
struct Frame {
    shape: Arc<Shape>,
    /// The root's shape as `OutputSchema` sees it.
    schema: Option<Arc<Shape>>,
    id: &'static str,
    notes: Arc<Notes>,
}

thread_local! {
    static FRAMES: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with `frame` on top; taken off again however `f` ends.
fn within<R>(frame: Frame, f: impl FnOnce() -> R) -> R {
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            FRAMES.with(|s| s.borrow_mut().pop());
        }
    }
    FRAMES.with(|s| s.borrow_mut().push(frame));
    let _pop = Pop;
    f()
}

fn top() -> Frame {
    FRAMES
        .with(|s| s.borrow().last().cloned())
        .unwrap_or_else(|| {
            panic!("`Dynamic` read outside `RuntimeType::enter`: no run-time type is in scope")
        })
}

/// Runs `f` with `shape` as the shape of the value read, in the same type.
fn inside<R>(frame: &Frame, shape: &Shape, f: impl FnOnce() -> R) -> R {
    let inner = Frame {
        shape: Arc::new(shape.clone()),
        schema: None,
        id: frame.id,
        notes: Arc::clone(&frame.notes),
    };
    within(inner, f)
}

impl Toon for Dynamic {
    const __TOON: Readers<Self> = Readers {
        shape_ref: || (*top().shape).clone(),
        missing: || matches!(*top().shape, Shape::Option(_)).then(|| Dynamic(Value::Null)),
        stream_row: |key, row| {
            let frame = top();
            stream_row(&frame, &frame.shape, key, row)
        },
        ..Readers::new(
            || top().shape.resolve(),
            |this| this.0.clone(),
            |node, cx| {
                let frame = top();
                read(&frame, &frame.shape, node, cx).map(Dynamic)
            },
        )
    };

    fn toon_header() -> String {
        let frame = top();
        crate::prompt::header(&frame.shape.resolve(), frame.id)
    }

    fn toon_prompt() -> String {
        let frame = top();
        crate::prompt::prompt(&frame.shape.resolve(), frame.id)
    }
}

impl OutputSchema for Dynamic {
    fn __shape() -> Shape {
        let frame = top();
        frame.schema.unwrap_or(frame.shape).resolve()
    }

    fn __shape_ref() -> Shape {
        let frame = top();
        (*frame.schema.unwrap_or(frame.shape)).clone()
    }

    fn __optional() -> bool {
        matches!(*top().shape, Shape::Option(_))
    }
}

/// What a derived type's generated reader does, by its shape.
fn read(frame: &Frame, shape: &Shape, node: Node<'_>, cx: &mut Cx) -> Result<Value, ParseError> {
    let value = match shape {
        Shape::Named { shape, .. } => return shape.with(|s| read(frame, s, node, cx)),
        Shape::String => Value::String(String::__TOON.from_node(node, cx)?),
        Shape::Bool => Value::Bool(bool::__TOON.from_node(node, cx)?),
        Shape::Integer { min, max } => integer(*min, *max, node, cx)?,
        Shape::Float { bits: 32 } => f32::__TOON.to_value(&f32::__TOON.from_node(node, cx)?),
        Shape::Float { .. } => f64::__TOON.to_value(&f64::__TOON.from_node(node, cx)?),
        Shape::Any => Value::__TOON.from_node(node, cx)?,
        Shape::Option(inner) => inside(frame, inner, || {
            Option::<Dynamic>::__TOON.from_node(node, cx)
        })?
        .map_or(Value::Null, |d| d.0),
        Shape::List(inner) => Value::Array(
            inside(frame, inner, || Vec::<Dynamic>::__TOON.from_node(node, cx))?
                .into_iter()
                .map(|d| d.0)
                .collect(),
        ),
        Shape::Map(inner) => Value::Object(
            inside(frame, inner, || {
                BTreeMap::<String, Dynamic>::__TOON.from_node(node, cx)
            })?
            .into_iter()
            .map(|(k, d)| (k, d.0))
            .collect(),
        ),
        Shape::Struct(s) => read_struct(frame, s, node, cx)?,
        Shape::Enum(e) => {
            let names: Vec<&str> = e.variants.iter().map(|(n, _)| *n).collect();
            let aliases = frame
                .notes
                .variant_aliases
                .get(e.name)
                .map_or(&[][..], Vec::as_slice);
            let i = cx.variant(&node, &names, aliases)?;
            Value::String(named(&names, i, cx)?.to_owned())
        }
        Shape::Tagged(t) => read_tagged(frame, t, node, cx)?,
    };
    Ok(value)
}

/// The variant an alias's index names; an index past the variants (notes
/// built by hand that do not fit the shape) is refused, not a panic.
fn named<'n>(names: &[&'n str], i: usize, cx: &Cx) -> Result<&'n str, ParseError> {
    names.get(i).copied().ok_or_else(|| {
        cx.error(
            crate::reply::ParseErrorKind::InvalidValue,
            format!(
                "the run-time type's notes name variant {i}, and it has {}",
                names.len()
            ),
        )
    })
}

/// A whole number read by the Rust integer type of the shape's bounds.
fn integer(min: i128, max: i128, node: Node<'_>, cx: &mut Cx) -> Result<Value, ParseError> {
    macro_rules! by_bounds {
        ($($t:ty),*) => {
            $(if (min, max) == (<$t>::MIN as i128, <$t>::MAX as i128) {
                return <$t>::__TOON.from_node(node, cx).map(|n| <$t>::__TOON.to_value(&n));
            })*
        };
    }
    by_bounds!(i8, i16, i32, i64, u8, u16, u32, u64);
    // Bounds no Rust integer has: the widest reading, then the bounds.
    let n = i64::__TOON.from_node(node, cx)?;
    if i128::from(n) < min || i128::from(n) > max {
        return Err(cx.error(
            crate::reply::ParseErrorKind::InvalidValue,
            format!(
                "{n} is outside the range of the field: write a whole number from {min} to {max}"
            ),
        ));
    }
    Ok(Value::from(n))
}

fn read_struct(
    frame: &Frame,
    s: &StructShape,
    node: Node<'_>,
    cx: &mut Cx,
) -> Result<Value, ParseError> {
    let keys = frame.notes.keys.get(s.name).copied().unwrap_or(&[]);
    let mut fields = cx.object_keyed(node, s.name, keys)?;
    let notes = frame.notes.field_notes(s.name, "");
    let mut out = Map::new();
    read_fields(frame, &s.fields, notes, &mut fields, cx, &mut out)?;
    cx.ignore_unknown(fields)?;
    Ok(Value::Object(out))
}

fn read_tagged(
    frame: &Frame,
    t: &TaggedShape,
    node: Node<'_>,
    cx: &mut Cx,
) -> Result<Value, ParseError> {
    let mut fields = cx.object(node, t.name)?;
    let names: Vec<&str> = t.variants.iter().map(|v| v.name).collect();
    let aliases = frame
        .notes
        .variant_aliases
        .get(t.name)
        .map_or(&[][..], Vec::as_slice);
    let i = cx.tag(&mut fields, t.tag, &names, aliases)?;
    named(&names, i, cx)?;
    let variant = &t.variants[i];
    let mut out = Map::new();
    out.insert(t.tag.to_owned(), Value::String(variant.name.to_owned()));
    let notes = frame.notes.field_notes(t.name, variant.name);
    read_fields(frame, &variant.fields, notes, &mut fields, cx, &mut out)?;
    cx.ignore_unknown(fields)?;
    Ok(Value::Object(out))
}

/// Each field as the derive's `read_fields` takes it: by name or alias, a
/// missing one from its notes' value, each checked against its constraints.
fn read_fields(
    frame: &Frame,
    shapes: &[FieldShape],
    notes: &[FieldNotes],
    fields: &mut Fields<'_>,
    cx: &mut Cx,
    out: &mut Map<String, Value>,
) -> Result<(), ParseError> {
    let none = FieldNotes::default();
    for (i, f) in shapes.iter().enumerate() {
        let n = notes.get(i).unwrap_or(&none);
        let value = inside(frame, &f.shape, || match &n.missing {
            Some(missing) => cx.field_or_items::<Dynamic>(
                fields,
                f.name,
                n.aliases,
                (&f.constraints, &f.inner),
                || Dynamic(missing.clone()),
            ),
            None => {
                let v = cx.field::<Dynamic>(fields, f.name, n.aliases)?;
                cx.check(&v, f.name, &f.constraints)?;
                cx.check_items(&v, f.name, &f.inner)?;
                Ok(v)
            }
        })?;
        out.insert(f.name.to_owned(), value.0);
    }
    Ok(())
}

/// What the derive's `stream_row` entry answers, by the shape.
fn stream_row(
    frame: &Frame,
    shape: &Shape,
    key: &str,
    row: &mut StreamRow<'_, '_>,
) -> Option<bool> {
    match shape {
        Shape::Named { shape, .. } => shape.with(|s| stream_row(frame, s, key, row)),
        Shape::Option(inner) => inside(frame, inner, || {
            Option::<Dynamic>::__TOON.stream_row(key, row)
        }),
        Shape::List(inner) => inside(frame, inner, || Vec::<Dynamic>::__TOON.stream_row(key, row)),
        Shape::Map(inner) => inside(frame, inner, || {
            BTreeMap::<String, Dynamic>::__TOON.stream_row(key, row)
        }),
        // The keys the notes give (the derive's own rule: a key fields of
        // two types share answers nothing); by name where there are none.
        Shape::Struct(s) => {
            let at = match frame.notes.stream_keys.get(s.name) {
                Some(keys) => keys.iter().find(|(k, _, _)| *k == key)?.2,
                None => s.fields.iter().position(|f| f.name == key)?,
            };
            let field = &s.fields.get(at)?.shape;
            inside(frame, field, || Dynamic::__TOON.stream_row("", row))
        }
        Shape::Tagged(t) => {
            let keys = frame.notes.stream_keys.get(t.name)?;
            let &(_, v, f) = keys.iter().find(|(k, _, _)| *k == key)?;
            let field = &t.variants.get(v)?.fields.get(f)?.shape;
            inside(frame, field, || Dynamic::__TOON.stream_row("", row))
        }
        _ => None,
    }
}

impl Measure for Dynamic {
    fn measure(&self) -> Measured<'_> {
        measure(&self.0, &top().shape)
    }
}

impl Items for Dynamic {
    fn each_item(&self, f: &mut dyn FnMut(ItemAt<'_>, Measured<'_>)) {
        let frame = top();
        let mut shape = frame.shape.resolve();
        while let Shape::Option(inner) = shape {
            shape = inner.resolve();
        }
        match (&self.0, &shape) {
            (Value::Array(items), Shape::List(inner)) => {
                for (i, item) in items.iter().enumerate() {
                    f(ItemAt::Index(i), measure(item, inner));
                }
            }
            // In key order, as a map's items are checked.
            (Value::Object(map), Shape::Map(inner)) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                for k in keys {
                    f(ItemAt::Key(k), measure(&map[k], inner));
                }
            }
            _ => {}
        }
    }
}

/// What a constraint measures in `value`, as the Rust type of `shape`
/// measures it: a free-form value as `serde_json::Value` does.
fn measure<'v>(value: &'v Value, shape: &Shape) -> Measured<'v> {
    match (shape.resolve(), value) {
        (Shape::Any, v) => v.measure(),
        (Shape::Option(_), Value::Null) => Measured::Nothing,
        (Shape::Option(inner), v) => measure(v, &inner),
        (Shape::List(_), Value::Array(a)) => Measured::Items(a.len()),
        (Shape::Map(_), Value::Object(m)) => Measured::Items(m.len()),
        (Shape::String, Value::String(s)) => Measured::Text(s),
        (Shape::Integer { .. } | Shape::Float { .. }, Value::Number(n)) => {
            n.as_f64().map_or(Measured::Nothing, Measured::Number)
        }
        _ => Measured::Nothing,
    }
}
