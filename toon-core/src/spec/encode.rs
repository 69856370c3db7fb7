//! The spec encoder: `serde_json::Value` to TOON, choosing each value's form
//! from its shape and position (§9) as the specification requires.

use serde_json::{Map, Number, Value};

use crate::spec::lex::number_shape;
use crate::spec::options::EncodeOptions;

/// Encodes a JSON value as a TOON document.
///
/// The output is conforming TOON: LF line endings, no trailing spaces or
/// newline, canonical numbers, minimal quoting, and the tabular form wherever
/// an array of objects (or an object of objects) is uniform. An empty object
/// encodes as the empty document. An `indent_size` of 0 is treated as 1.
///
/// ```
/// use serde_json::json;
/// let value = json!({"violations": [
///     {"category": "privacy", "severity": "HIGH"},
///     {"category": "safety", "severity": "LOW"},
/// ]});
/// let text = toon_core::encode(&value, &Default::default());
/// assert_eq!(text, "violations[2]{category,severity}:\n  privacy,HIGH\n  safety,LOW");
/// ```
pub fn encode(value: &Value, options: &EncodeOptions) -> String {
    encode_with(value, options, false)
}

/// [`encode`], with `angle` quoting every text that begins with `<` too: the
/// TOON lines of a reply with delimited fields, where an indented line
/// beginning with a field's tag may open its block.
pub(crate) fn encode_with(value: &Value, options: &EncodeOptions, angle: bool) -> String {
    let mut e = Encoder {
        out: String::new(),
        indent: options.indent_size.max(1),
        delim: options.delimiter.as_char(),
        symbol: options.delimiter.header_symbol(),
        angle,
        next: Vec::new(),
    };
    match value {
        // Asked only of two or more values: a chain of one-key objects would
        // otherwise be walked to its end at every level.
        Value::Object(map) if map.len() >= 2 => match uniform_fields(map.values(), 0) {
            Some(fields) => e.keyed(None, map, &fields, 0, Lead::Pad(0)),
            None => e.fields(map, 0),
        },
        Value::Object(map) => e.fields(map, 0),
        Value::Array(items) if items.is_empty() => e.line(Lead::Pad(0), "[]"),
        Value::Array(items) => e.array(None, items, 0, Lead::Pad(0), true),
        // A document must not start with U+FEFF, which decoders remove as a
        // byte-order mark (SPEC 4.1 §12); quoting keeps the character as data.
        Value::String(s) if s.starts_with('\u{feff}') => e.line(Lead::Pad(0), &quote(s)),
        other => {
            let text = e.primitive(other);
            e.line(Lead::Pad(0), &text);
        }
    }
    e.drain();
    e.out
}

/// A column of a tabular header: a leaf, or a nested field group.
struct Column<'v> {
    name: &'v str,
    children: Option<Vec<Column<'v>>>,
}

/// Field groups nest at most this deep in a header the encoder writes; deeper
/// uniform objects take the list form, which is walked without recursion.
const MAX_GROUP_DEPTH: usize = 32;

/// What precedes the text on a line: indentation to a depth, or that and a
/// list item's `- `.
#[derive(Clone, Copy)]
enum Lead {
    Pad(usize),
    Item(usize),
}

/// A part of the document still to be written, in document order. Nesting
/// is walked with a stack of these, not with calls, so a value of any depth
/// is encoded within a fixed stack.
enum Task<'v> {
    Fields(&'v Map<String, Value>, usize),
    Field(&'v str, &'v Value, usize, Lead),
    Item(&'v Value, usize),
}

struct Encoder<'v> {
    out: String,
    indent: usize,
    delim: char,
    symbol: &'static str,
    /// Quote text that begins with `<` (see [`encode_with`]).
    angle: bool,
    /// What the part being written leaves to follow it, in order.
    next: Vec<Task<'v>>,
}

impl<'v> Encoder<'v> {
    /// Writes the parts left to follow, each before what it leaves in turn.
    fn drain(&mut self) {
        let mut stack: Vec<Task<'v>> = Vec::new();
        stack.extend(self.next.drain(..).rev());
        while let Some(task) = stack.pop() {
            match task {
                Task::Fields(map, depth) => self.fields(map, depth),
                Task::Field(key, value, depth, lead) => self.field(key, value, depth, lead),
                Task::Item(item, depth) => self.list_item(item, depth),
            }
            stack.extend(self.next.drain(..).rev());
        }
    }

    fn line(&mut self, lead: Lead, text: &str) {
        if !self.out.is_empty() {
            self.out.push('\n');
        }
        let (depth, hyphen) = match lead {
            Lead::Pad(depth) => (depth, false),
            Lead::Item(depth) => (depth, true),
        };
        for _ in 0..depth * self.indent {
            self.out.push(' ');
        }
        if hyphen {
            self.out.push_str("- ");
        }
        self.out.push_str(text);
    }

    fn fields(&mut self, map: &'v Map<String, Value>, depth: usize) {
        for (key, value) in map {
            self.next
                .push(Task::Field(key, value, depth, Lead::Pad(depth)));
        }
    }

    /// One object field standing at `depth`; `lead` is what precedes the key on
    /// its line (the indentation, or a list item's `- `).
    fn field(&mut self, key: &str, value: &'v Value, depth: usize, lead: Lead) {
        let key = encode_key(key);
        match value {
            Value::Array(items) if items.is_empty() => self.line(lead, &format!("{key}: []")),
            Value::Array(items) => self.array(Some(&key), items, depth, lead, false),
            Value::Object(map) if map.is_empty() => self.line(lead, &format!("{key}:")),
            Value::Object(map) => match (map.len() >= 2)
                .then(|| uniform_fields(map.values(), 0))
                .flatten()
            {
                Some(fields) => self.keyed(Some(&key), map, &fields, depth, lead),
                None => {
                    self.line(lead, &format!("{key}:"));
                    self.next.push(Task::Fields(map, depth + 1));
                }
            },
            primitive => {
                let text = self.primitive(primitive);
                self.line(lead, &format!("{key}: {text}"));
            }
        }
    }

    /// A non-empty array under `key` (or keyless at the root or in a list item).
    fn array(
        &mut self,
        key: Option<&str>,
        items: &'v [Value],
        depth: usize,
        lead: Lead,
        may_tabulate: bool,
    ) {
        let head = format!("{}[{}{}]", key.unwrap_or(""), items.len(), self.symbol);
        if items.iter().all(is_primitive) {
            let cells: Vec<String> = items.iter().map(|v| self.primitive(v)).collect();
            let sep = self.delim.to_string();
            return self.line(lead, &format!("{head}: {}", cells.join(&sep)));
        }
        // A keyless table is valid only at the root: in a list item the list form is required (§9.4).
        if may_tabulate || key.is_some() {
            if let Some(columns) = uniform_fields(items, 0) {
                self.line(lead, &format!("{head}{}:", self.field_list(&columns)));
                for item in items {
                    let row = self.row(item, &columns);
                    self.line(Lead::Pad(depth + 1), &row);
                }
                return;
            }
        }
        self.line(lead, &format!("{head}:"));
        for item in items {
            self.next.push(Task::Item(item, depth + 1));
        }
    }

    /// An object in keyed tabular form (§9.5).
    fn keyed(
        &mut self,
        key: Option<&str>,
        map: &Map<String, Value>,
        columns: &[Column<'_>],
        depth: usize,
        lead: Lead,
    ) {
        let head = format!(
            "{}[{}:{}]{}:",
            key.unwrap_or(""),
            map.len(),
            self.symbol,
            self.field_list(columns)
        );
        self.line(lead, &head);
        for (entry, value) in map {
            let row = self.row(value, columns);
            self.line(
                Lead::Pad(depth + 1),
                &format!("{}: {row}", encode_key(entry)),
            );
        }
    }

    /// One list item whose hyphen stands at `depth` (§9.4, §10).
    fn list_item(&mut self, item: &'v Value, depth: usize) {
        let lead = Lead::Item(depth);
        match item {
            Value::Array(inner) if inner.is_empty() => {
                self.line(lead, &format!("[0{}]:", self.symbol))
            }
            Value::Array(inner) => self.array(None, inner, depth, lead, false),
            Value::Object(map) if map.is_empty() => self.line(Lead::Pad(depth), "-"),
            Value::Object(map) => {
                // The first field rides on the hyphen line and stands one level
                // deeper; what it leaves to follow comes before the other fields.
                let mut entries = map.iter();
                if let Some((key, value)) = entries.next() {
                    self.field(key, value, depth + 1, lead);
                }
                for (key, value) in entries {
                    self.next
                        .push(Task::Field(key, value, depth + 1, Lead::Pad(depth + 1)));
                }
            }
            primitive => {
                let text = self.primitive(primitive);
                self.line(lead, &text);
            }
        }
    }

    fn field_list(&self, columns: &[Column<'_>]) -> String {
        let names: Vec<String> = columns
            .iter()
            .map(|c| match &c.children {
                Some(sub) => format!("{}{}", encode_key(c.name), self.field_list(sub)),
                None => encode_key(c.name),
            })
            .collect();
        format!("{{{}}}", names.join(&self.delim.to_string()))
    }

    fn row(&self, value: &Value, columns: &[Column<'_>]) -> String {
        let mut cells = Vec::new();
        self.cells(value, columns, &mut cells);
        cells.join(&self.delim.to_string())
    }

    fn cells(&self, value: &Value, columns: &[Column<'_>], out: &mut Vec<String>) {
        for c in columns {
            let v = &value[c.name];
            match &c.children {
                Some(sub) => self.cells(v, sub, out),
                None => out.push(self.primitive(v)),
            }
        }
    }

    fn primitive(&self, value: &Value) -> String {
        match value {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => format_number(n),
            Value::String(s)
                if needs_quotes(s, self.delim) || (self.angle && s.starts_with('<')) =>
            {
                quote(s)
            }
            Value::String(s) => s.clone(),
            // Only primitives reach here; the form rules route arrays and objects elsewhere.
            Value::Array(_) | Value::Object(_) => "null".into(),
        }
    }
}

fn is_primitive(v: &Value) -> bool {
    !matches!(v, Value::Array(_) | Value::Object(_))
}

/// The columns shared by a set of values, if they are all non-empty objects with the
/// same keys and every column is all primitives or itself uniform (§9.3's detection).
/// `depth` counts the field groups around these values; past
/// [`MAX_GROUP_DEPTH`] none is formed.
fn uniform_fields<'v>(
    values: impl IntoIterator<Item = &'v Value>,
    depth: usize,
) -> Option<Vec<Column<'v>>> {
    if depth > MAX_GROUP_DEPTH {
        return None;
    }
    let objects: Vec<&Map<String, Value>> = values
        .into_iter()
        .map(Value::as_object)
        .collect::<Option<_>>()?;
    uniform_columns(&objects, depth)
}

fn uniform_columns<'v>(
    objects: &[&'v Map<String, Value>],
    depth: usize,
) -> Option<Vec<Column<'v>>> {
    let first = *objects.first()?;
    if first.is_empty() {
        return None;
    }
    if !objects
        .iter()
        .all(|o| o.len() == first.len() && first.keys().all(|k| o.contains_key(k)))
    {
        return None;
    }
    first
        .keys()
        .map(|key| {
            let column: Vec<&Value> = objects.iter().map(|o| &o[key.as_str()]).collect();
            if column.iter().all(|v| is_primitive(v)) {
                Some(Column {
                    name: key,
                    children: None,
                })
            } else {
                uniform_fields(column, depth + 1).map(|sub| Column {
                    name: key,
                    children: Some(sub),
                })
            }
        })
        .collect()
}

/// Canonical decimal within `1e-6 <= |n| < 1e21`, exponent form outside it (§2).
fn format_number(n: &Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    if !f.is_finite() {
        return "null".into();
    }
    if f == 0.0 {
        return "0".into();
    }
    if (1e-6..1e21).contains(&f.abs()) {
        // Rust's `Display` for f64 is the shortest text that reads back to the
        // same value, and never uses an exponent.
        return format!("{f}");
    }
    let s = format!("{f:e}");
    match s.split_once('e') {
        Some((mantissa, exp)) if !exp.starts_with('-') => format!("{mantissa}e+{exp}"),
        _ => s,
    }
}

/// §7.2: when a string value must be quoted.
pub(crate) fn needs_quotes(s: &str, delim: char) -> bool {
    s.is_empty()
        || s.starts_with([' ', '\t'])
        || s.ends_with([' ', '\t'])
        || matches!(s, "true" | "false" | "null")
        || number_shape(s, true).is_some()
        || s.starts_with(['-', '#'])
        || s.chars().any(|c| {
            matches!(c, ':' | '"' | '\\' | '[' | ']' | '{' | '}') || (c as u32) < 0x20 || c == delim
        })
}

/// A text as the encoder writes it as a value or a cell of the default
/// delimiter: bare, or quoted where §7.2 says.
pub(crate) fn text_literal(s: &str) -> String {
    if needs_quotes(s, ',') {
        quote(s)
    } else {
        s.to_owned()
    }
}

/// §7.3: keys matching `^[A-Za-z_][A-Za-z0-9_.]*$` go bare, all others quoted.
pub(crate) fn encode_key(key: &str) -> String {
    let mut chars = key.chars();
    let bare = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    if bare {
        key.to_owned()
    } else {
        quote(key)
    }
}

/// Quotes and escapes a string per §7.1.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_canonical() {
        let f = |x: f64| format_number(&Number::from_f64(x).unwrap());
        assert_eq!(f(1.5), "1.5");
        assert_eq!(f(-0.0), "0");
        assert_eq!(f(1e-6), "0.000001");
        assert_eq!(f(1e20), "100000000000000000000");
        assert_eq!(f(1e21), "1e+21");
        assert_eq!(f(1.5e-7), "1.5e-7");
        assert_eq!(f(0.1 + 0.2), "0.30000000000000004");
    }

    #[test]
    fn quoting() {
        for s in [
            "", " a", "true", "42", "+1", "05", "1e-6", "a:b", "-x", "#x", "a,b", "[x]",
        ] {
            assert!(needs_quotes(s, ','), "{s:?}");
        }
        for s in ["hello world", "a|b", "café", "1.2.3", "x-y"] {
            assert!(!needs_quotes(s, ','), "{s:?}");
        }
        assert!(needs_quotes("a|b", '|'));
        assert_eq!(quote("a\u{1}\"\\"), "\"a\\u0001\\\"\\\\\"");
        assert_eq!(encode_key("my-key"), "\"my-key\"");
        assert_eq!(encode_key("a.b_c1"), "a.b_c1");
    }
}
