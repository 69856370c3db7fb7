//! A `Shape` as JSON Schema (draft 2020-12), and the check of OpenAI's strict-mode rules.

use serde_json::{json, Map, Value};

use crate::shape::{Constraints, EnumShape, FieldShape, Shape, TypeNames};

/// The schema of a root shape: the root inline, the derived types it uses in `$defs`.
pub(crate) fn schema(shape: &Shape) -> Value {
    let root = shape.resolve();
    let mut names = TypeNames::default();
    let root_name = type_name(&root).map(|n| names.name(n, &root));
    let mut b = Builder {
        defs: Map::new(),
        root: root_name,
        names,
    };
    let mut out = b.body(&root);
    if !b.defs.is_empty() {
        out["$defs"] = Value::Object(b.defs);
    }
    out
}

fn type_name(shape: &Shape) -> Option<&'static str> {
    match shape {
        Shape::Struct(s) => Some(s.name),
        Shape::Tagged(t) => Some(t.name),
        Shape::Enum(e) => Some(e.name),
        _ => None,
    }
}

struct Builder {
    defs: Map<String, Value>,
    /// The root's name, if it is a derived type.
    root: Option<String>,
    names: TypeNames,
}

impl Builder {
    /// The schema of a field's shape: a `$ref` for a derived type.
    fn node(&mut self, shape: &Shape) -> Value {
        let Shape::Named { name, shape, .. } = shape else {
            return self.body(shape);
        };
        let body = shape.get();
        let key = self.names.name(name, &body);
        if self.root.as_ref() == Some(&key) {
            return json!({ "$ref": "#" }); // the root refers to itself
        }
        if !self.defs.contains_key(&key) {
            // A placeholder first, so a recursive type finds itself defined.
            self.defs.insert(key.clone(), Value::Null);
            let body = self.body(&body);
            self.defs.insert(key.clone(), body);
        }
        json!({ "$ref": format!("#/$defs/{key}") })
    }

    fn body(&mut self, shape: &Shape) -> Value {
        match shape {
            Shape::String => json!({ "type": "string" }),
            Shape::Bool => json!({ "type": "boolean" }),
            Shape::Integer { min, max } => {
                let mut o = Map::new();
                o.insert("type".into(), "integer".into());
                if let Some(min) = lower(*min) {
                    o.insert("minimum".into(), min);
                }
                if let Some(max) = upper(*max) {
                    o.insert("maximum".into(), max);
                }
                Value::Object(o)
            }
            // A float has no bounds of its own here: llguidance (1.9) cannot
            // compile a range whose end is past about 1e16, as `f32::MAX` is,
            // and refused the whole schema for one `f32` field. Past
            // `f32::MAX` both readers refuse the number by name.
            Shape::Float { .. } => json!({ "type": "number" }),
            Shape::Any => json!({}),
            Shape::Option(inner) => nullable(self.node(inner)),
            Shape::List(inner) => json!({ "type": "array", "items": self.node(inner) }),
            Shape::Map(inner) => {
                json!({ "type": "object", "additionalProperties": self.node(inner) })
            }
            Shape::Struct(s) => self.object(s.doc, None, &s.fields),
            Shape::Enum(e) => with_description(
                json!({ "type": "string", "enum": e.variants.iter().map(|v| v.0).collect::<Vec<_>>() }),
                &enum_description(e),
            ),
            Shape::Tagged(t) => {
                let variants: Vec<Value> = t
                    .variants
                    .iter()
                    .map(|v| self.object(v.doc, Some((t.tag, v.name)), &v.fields))
                    .collect();
                with_description(json!({ "anyOf": variants }), t.doc)
            }
            named @ Shape::Named { .. } => self.node(named),
        }
    }

    /// A closed object: properties in declaration order, every one required.
    fn object(&mut self, doc: &str, tag: Option<(&str, &str)>, fields: &[FieldShape]) -> Value {
        let mut properties = Map::new();
        if let Some((key, name)) = tag {
            properties.insert(key.to_owned(), json!({ "type": "string", "const": name }));
        }
        for f in fields {
            let node = constrained(self.node(&f.shape), &f.shape, &f.constraints);
            let node = constrained_items(node, &f.shape, &f.inner);
            properties.insert(f.name.to_owned(), with_description(node, f.doc));
        }
        let required: Vec<&String> = properties.keys().collect();
        let out = json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        });
        with_description(out, doc)
    }
}

/// A field's schema with its constraints: `minimum`/`maximum` on numbers
/// (tightening an integer type's own bounds), `minLength`/`maxLength` and
/// `pattern` on text, `minItems`/`maxItems` on lists; for an optional field, on
/// the schema beside `null`.
fn constrained(mut schema: Value, shape: &Shape, c: &Constraints) -> Value {
    if c.is_empty() {
        return schema;
    }
    let inner = shape.unwrapped();
    // The schema that is not `null`: the object itself, or an `anyOf` branch.
    let target = match schema.get_mut("anyOf").and_then(Value::as_array_mut) {
        Some(branches) => match branches
            .iter_mut()
            .find(|b| b.get("type") != Some(&json!("null")))
        {
            Some(b) => b,
            None => return schema,
        },
        None => &mut schema,
    };
    let Some(o) = target.as_object_mut() else {
        return schema;
    };
    let number = |n: f64| -> Value {
        if n.fract() == 0.0 && n.abs() < 9.0e15 {
            // An integral bound is written as an integer.
            #[allow(clippy::cast_possible_truncation)]
            Value::from(n as i64)
        } else {
            Value::from(n)
        }
    };
    let tighter = |current: Option<&Value>, new: f64, lower: bool| -> Value {
        match current.and_then(Value::as_f64) {
            Some(old) if (lower && old > new) || (!lower && old < new) => {
                current.cloned().unwrap_or(Value::Null)
            }
            _ => number(new),
        }
    };
    // A free-form value is measured by what it turns out to be, as the
    // decoder measures it; each keyword applies to its own JSON type.
    let any = matches!(inner, Shape::Any);
    if any {
        for (key, n) in [("minItems", c.min_length), ("maxItems", c.max_length)] {
            if let Some(n) = n {
                o.insert(key.into(), n.into());
            }
        }
    }
    match inner {
        Shape::Integer { .. } | Shape::Float { .. } | Shape::Any => {
            if let Some(min) = c.min {
                let v = tighter(o.get("minimum"), min, true);
                o.insert("minimum".into(), v);
            }
            if let Some(max) = c.max {
                let v = tighter(o.get("maximum"), max, false);
                o.insert("maximum".into(), v);
            }
            if any {
                text_keywords(o, c);
            }
        }
        Shape::String => text_keywords(o, c),
        Shape::List(_) | Shape::Map(_) => {
            let (lo, hi) = if matches!(inner, Shape::List(_)) {
                ("minItems", "maxItems")
            } else {
                ("minProperties", "maxProperties")
            };
            if let Some(n) = c.min_length {
                o.insert(lo.into(), n.into());
            }
            if let Some(n) = c.max_length {
                o.insert(hi.into(), n.into());
            }
        }
        _ => {}
    }
    schema
}

/// A field's schema with its items' constraints (`inner`): on the schema of
/// each item of a list (`items`) or value of a map (`additionalProperties`),
/// as [`constrained`] puts a field's own; for an optional field, in the
/// branch beside `null`.
fn constrained_items(mut schema: Value, shape: &Shape, c: &Constraints) -> Value {
    let (key, item) = match shape.unwrapped() {
        _ if c.is_empty() => return schema,
        Shape::List(item) => ("items", item),
        Shape::Map(item) => ("additionalProperties", item),
        _ => return schema,
    };
    let target = match schema.get_mut("anyOf").and_then(Value::as_array_mut) {
        Some(branches) => branches
            .iter_mut()
            .find(|b| b.get("type") != Some(&json!("null"))),
        None => Some(&mut schema),
    };
    if let Some(items) = target.and_then(|t| t.get_mut(key)) {
        let own = std::mem::take(items);
        *items = constrained(own, &item, c);
    }
    schema
}

/// A text's length and pattern.
fn text_keywords(o: &mut serde_json::Map<String, Value>, c: &Constraints) {
    if let Some(n) = c.min_length {
        o.insert("minLength".into(), n.into());
    }
    if let Some(n) = c.max_length {
        o.insert("maxLength".into(), n.into());
    }
    if let Some(p) = c.pattern {
        // As the decoder reads it: llguidance takes `\s` for any Unicode space.
        o.insert("pattern".into(), crate::shape::ascii_classes(p).into());
    }
}

/// An integer type's least value as a bound, but for `i64`'s and `isize`'s:
/// llguidance (1.9) overflows on a lower bound at `i64`'s end and refuses the
/// schema, and no model writes a number that far down.
fn lower(n: i128) -> Option<Value> {
    i64::try_from(n)
        .ok()
        .filter(|&n| n > i64::MIN + 1)
        .map(Value::from)
}

/// An integer type's largest value as a bound.
fn upper(n: i128) -> Option<Value> {
    u64::try_from(n).ok().map(Value::from)
}

/// `{"type": "string"}` → `{"type": ["string", "null"]}`; anything else → `anyOf` with null.
fn nullable(schema: Value) -> Value {
    let simple = schema
        .as_object()
        .is_some_and(|o| o.len() == 1 && o.get("type").is_some_and(Value::is_string));
    if simple {
        json!({ "type": [schema["type"].clone(), "null"] })
    } else {
        json!({ "anyOf": [schema, { "type": "null" }] })
    }
}

/// The schema with a description; a `$ref` takes none beside it in OpenAI's
/// strict mode ("$ref cannot have keywords"), so it is described as the one
/// branch of an `anyOf`.
/// An enum's doc comment, then each documented variant as `NAME: its doc`:
/// a plain `enum` keeps strict mode's limits and the same grammar, while the
/// model that reads the schema still learns what each value means.
fn enum_description(e: &EnumShape) -> String {
    let variants: Vec<String> = e
        .variants
        .iter()
        .filter(|(_, doc)| !doc.is_empty())
        .map(|(name, doc)| {
            format!(
                "{name}: {}",
                doc.split_whitespace().collect::<Vec<_>>().join(" ")
            )
        })
        .collect();
    match (e.doc.is_empty(), variants.is_empty()) {
        (_, true) => e.doc.to_owned(),
        (true, false) => variants.join("\n"),
        (false, false) => format!("{}\n\n{}", e.doc, variants.join("\n")),
    }
}

fn with_description(mut schema: Value, doc: &str) -> Value {
    if doc.is_empty() {
        return schema;
    }
    if schema.get("$ref").is_some() {
        schema = json!({ "anyOf": [schema] });
    }
    if let Some(o) = schema.as_object_mut() {
        o.insert("description".into(), Value::String(doc.to_owned()));
    }
    schema
}

/// A schema in the form OpenAI's strict mode takes, and what was moved to get
/// there: see [`strict_form`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct StrictForm {
    /// The schema with every keyword strict mode does not take moved into its
    /// node's `description`.
    pub schema: Value,
    /// What moved, one line each: where (a JSON Pointer into the schema), the
    /// keyword and its value (`#/properties/title: maxLength 32`).
    pub moved: Vec<String>,
    /// What strict mode cannot take even so (a map with free keys, a
    /// free-form value): empty when `schema` meets its rules
    /// ([`strict_violations`] of `schema`).
    pub violations: Vec<String>,
}

/// The schema as OpenAI's strict mode takes it: each keyword strict mode does
/// not take (a text's `minLength` and `maxLength`) is left out and said in its
/// node's `description` instead (`At most 32 characters.`), so that the
/// model still reads it and the request stays strict. The typed readers
/// ([`from_json_reply`](crate::from_json_reply),
/// [`Tool::read`](crate::schema::Tool::read)) hold the moved keywords, as the
/// type's constraints, whatever the server did with them.
///
/// ```
/// use serde_json::json;
/// use toon_core::schema::strict_form;
/// let schema = json!({"type": "object", "properties": {
///     "title": {"type": "string", "description": "The bug's title.", "maxLength": 32}},
///     "required": ["title"], "additionalProperties": false});
/// let strict = strict_form(&schema);
/// assert_eq!(strict.schema["properties"]["title"], json!({"type": "string", "description": "The bug's title. At most 32 characters."}));
/// assert_eq!(strict.moved, ["#/properties/title: maxLength 32"]);
/// assert!(strict.violations.is_empty());
/// ```
pub fn strict_form(schema: &Value) -> StrictForm {
    let mut schema = schema.clone();
    let mut moved = Vec::new();
    move_keywords(&mut schema, "#", &mut moved);
    let violations = strict_violations(&schema);
    StrictForm {
        schema,
        moved,
        violations,
    }
}

/// Moves the keywords strict mode does not take out of `s` and every schema
/// under it, each said in its node's description.
fn move_keywords(s: &mut Value, at: &str, moved: &mut Vec<String>) {
    let Some(o) = s.as_object_mut() else { return };
    let (least, most) = (o.remove("minLength"), o.remove("maxLength"));
    let chars = |n: &Value| match n.as_u64() {
        Some(1) => "1 character".to_owned(),
        _ => format!("{n} characters"),
    };
    let said = match (&least, &most) {
        (Some(a), Some(b)) if a == b => Some(format!("Exactly {}.", chars(a))),
        (Some(a), Some(b)) => Some(format!("From {a} to {}.", chars(b))),
        (Some(a), None) => Some(format!("At least {}.", chars(a))),
        (None, Some(b)) => Some(format!("At most {}.", chars(b))),
        (None, None) => None,
    };
    for (keyword, value) in [("minLength", &least), ("maxLength", &most)] {
        if let Some(v) = value {
            moved.push(format!("{at}: {keyword} {v}"));
        }
    }
    if let Some(said) = said {
        let description = match o.get("description").and_then(Value::as_str) {
            Some(d) if !d.is_empty() => format!("{d} {said}"),
            _ => said,
        };
        o.insert("description".into(), Value::String(description));
    }
    for (key, v) in o.iter_mut() {
        match (key.as_str(), v) {
            ("properties" | "$defs", Value::Object(children)) => {
                for (name, child) in children.iter_mut() {
                    move_keywords(child, &format!("{at}/{key}/{name}"), moved);
                }
            }
            ("items" | "additionalProperties", child @ Value::Object(_)) => {
                move_keywords(child, &format!("{at}/{key}"), moved);
            }
            ("anyOf", Value::Array(branches)) => {
                for (i, child) in branches.iter_mut().enumerate() {
                    move_keywords(child, &format!("{at}/anyOf/{i}"), moved);
                }
            }
            _ => {}
        }
    }
}

/// The keywords OpenAI's strict mode accepts that this crate emits.
const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "description",
    "minimum",
    "maximum",
    "pattern",
    "minItems",
    "maxItems",
];
/// Documented strict-mode limits: nesting depth, total properties, enum values.
const MAX_DEPTH: usize = 10;
const MAX_PROPERTIES: usize = 5000;
const MAX_ENUM_VALUES: usize = 1000;

/// The ways a schema breaks OpenAI's strict-mode rules; empty when it meets them.
///
/// The rules: the root is an object (not `anyOf`); every object has
/// `additionalProperties: false` and lists every property in `required`; every
/// schema names its type (or is a `$ref`, `anyOf`, `enum` or `const`); only the
/// supported keywords appear; objects nest at most 10 deep; at most 5,000
/// properties and 1,000 enum values in all. A map field (`additionalProperties`
/// with a schema) and a free-form `serde_json::Value` field (`{}`) break them.
pub fn strict_violations(schema: &Value) -> Vec<String> {
    let mut c = Checker::default();
    if schema.get("type") != Some(&json!("object")) {
        c.out.push(
            "the root must be an object (`\"type\": \"object\"`), not a union or another type"
                .into(),
        );
    }
    c.walk(schema, "#", 0);
    if let Some(defs) = schema.get("$defs").and_then(Value::as_object) {
        for (name, def) in defs {
            c.walk(def, &format!("#/$defs/{name}"), 0);
        }
    }
    if c.properties > MAX_PROPERTIES {
        c.out.push(format!(
            "{} properties in all, over the limit of {MAX_PROPERTIES}",
            c.properties
        ));
    }
    if c.enum_values > MAX_ENUM_VALUES {
        c.out.push(format!(
            "{} enum values in all, over the limit of {MAX_ENUM_VALUES}",
            c.enum_values
        ));
    }
    c.out
}

#[derive(Default)]
struct Checker {
    out: Vec<String>,
    properties: usize,
    enum_values: usize,
}

impl Checker {
    fn walk(&mut self, s: &Value, at: &str, depth: usize) {
        let Some(o) = s.as_object() else {
            self.out.push(format!("{at}: a schema must be an object"));
            return;
        };
        for key in o.keys().filter(|k| !STRICT_KEYWORDS.contains(&k.as_str())) {
            self.out.push(format!(
                "{at}: keyword `{key}` is not supported in strict mode"
            ));
        }
        if !["type", "$ref", "anyOf", "enum", "const"]
            .iter()
            .any(|k| o.contains_key(*k))
        {
            self.out.push(format!(
                "{at}: a schema must name its type; free-form values (`{{}}`) are not allowed"
            ));
        }
        if o.contains_key("$ref") && o.len() > 1 {
            self.out.push(format!(
                "{at}: a `$ref` cannot have other keywords beside it; put it in an `anyOf` of one branch"
            ));
        }
        if let Some(e) = o.get("enum").and_then(Value::as_array) {
            self.enum_values += e.len();
        }
        let is_object = o.get("type") == Some(&json!("object")) || o.contains_key("properties");
        if is_object {
            if depth >= MAX_DEPTH {
                self.out
                    .push(format!("{at}: objects nest deeper than {MAX_DEPTH} levels"));
            }
            if o.get("additionalProperties") != Some(&Value::Bool(false)) {
                self.out.push(format!(
                    "{at}: objects must have `additionalProperties: false` (a map with free keys cannot be expressed)"
                ));
            }
            let props = o.get("properties").and_then(Value::as_object);
            let required: Vec<&str> = o
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for key in props.into_iter().flat_map(|p| p.keys()) {
                self.properties += 1;
                if !required.contains(&key.as_str()) {
                    self.out.push(format!(
                        "{at}: property `{key}` must be listed in `required`"
                    ));
                }
            }
        }
        let next = depth + usize::from(is_object);
        if let Some(props) = o.get("properties").and_then(Value::as_object) {
            for (k, v) in props {
                self.walk(v, &format!("{at}/properties/{k}"), next);
            }
        }
        if let Some(items) = o.get("items") {
            self.walk(items, &format!("{at}/items"), next);
        }
        if let Some(Value::Object(_)) = o.get("additionalProperties") {
            self.walk(
                &o["additionalProperties"],
                &format!("{at}/additionalProperties"),
                next,
            );
        }
        if let Some(any) = o.get("anyOf").and_then(Value::as_array) {
            for (i, v) in any.iter().enumerate() {
                self.walk(v, &format!("{at}/anyOf/{i}"), depth);
            }
        }
    }
}
