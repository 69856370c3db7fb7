//! The line a field path stands on in a JSON reply. Values read from JSON
//! carry no lines, so an error about one (a value of the wrong type, out of
//! range, a missing field) is placed afterwards, from its path, by walking
//! the text to it: only when an error happens, as serde_json computes a line.

/// One step of a path: `violations[1].score` is `violations`, `[1]`, `score`.
enum Step<'p> {
    Key(&'p str),
    Index(usize),
}

fn steps(path: &str) -> Option<Vec<Step<'_>>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            out.push(Step::Key(key));
        }
        while !rest.is_empty() {
            let (index, after) = rest.split_once(']')?;
            out.push(Step::Index(index.parse().ok()?));
            rest = after.strip_prefix('[').unwrap_or(after);
        }
    }
    Some(out)
}

/// The 1-based line of `text` holding the value at `path` of the JSON value
/// that begins at byte `from`; where the path's next step is not there (a
/// missing field), the line of the value that lacks it. `None` where the text
/// is not plain JSON as far as the walk goes (a mended reply, a key holding
/// `.` or `[`), or the path is the root's.
pub(crate) fn line_of_path(text: &str, from: usize, path: &str) -> Option<usize> {
    if path == "(root)" {
        return None;
    }
    let steps = steps(path)?;
    let mut walk = Walk {
        b: text.as_bytes(),
        i: from,
    };
    walk.space();
    let mut at = walk.i;
    for step in &steps {
        match walk.step(step)? {
            Some(found) => at = found,
            None => break,
        }
        walk.i = at;
    }
    Some(text.get(..at)?.matches('\n').count() + 1)
}

/// A position in JSON text.
struct Walk<'t> {
    b: &'t [u8],
    i: usize,
}

impl<'t> Walk<'t> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn space(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.space();
        (self.peek() == Some(c)).then(|| self.i += 1)
    }

    /// From the start of a container, where the value `step` names starts:
    /// `Some(None)` where the container is whole and has no such value, `None`
    /// where the text is not plain JSON. A key written twice is its last
    /// value, as the decoder keeps it.
    fn step(&mut self, step: &Step<'_>) -> Option<Option<usize>> {
        match *step {
            Step::Key(key) => {
                self.eat(b'{')?;
                let mut found = None;
                self.space();
                if self.peek() == Some(b'}') {
                    return Some(None);
                }
                loop {
                    self.space();
                    let name = self.string()?;
                    self.eat(b':')?;
                    self.space();
                    if name == key.as_bytes() {
                        found = Some(self.i);
                    }
                    // `b.c` or `b[0]` as one key: the path cannot say which.
                    if name.starts_with(key.as_bytes())
                        && matches!(name.get(key.len()), Some(b'.' | b'['))
                    {
                        return None;
                    }
                    self.value()?;
                    if !self.more(b'}')? {
                        return Some(found);
                    }
                }
            }
            Step::Index(n) => {
                self.eat(b'[')?;
                for _ in 0..n {
                    self.space();
                    if self.peek() == Some(b']') {
                        return Some(None);
                    }
                    self.value()?;
                    if !self.more(b']')? {
                        return Some(None);
                    }
                }
                self.space();
                Some((self.peek() != Some(b']')).then_some(self.i))
            }
        }
    }

    /// After an item of a container: past its comma, `true`, or past the
    /// container's `close`, `false`; `None` where neither follows.
    fn more(&mut self, close: u8) -> Option<bool> {
        self.space();
        let c = self.peek()?;
        self.i += 1;
        match c {
            b',' => Some(true),
            c if c == close => Some(false),
            _ => None,
        }
    }

    /// A string's raw bytes between its quotes (escapes left as written).
    fn string(&mut self) -> Option<&'t [u8]> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.i + 1;
        let mut j = start;
        while j < self.b.len() {
            match self.b[j] {
                b'\\' => j += 2,
                b'"' => {
                    self.i = j + 1;
                    let b: &'t [u8] = self.b;
                    return b.get(start..j);
                }
                _ => j += 1,
            }
        }
        None
    }

    /// Past one value.
    fn value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            open @ (b'{' | b'[') => {
                let close = if open == b'{' { b'}' } else { b']' };
                self.i += 1;
                self.space();
                if self.peek() == Some(close) {
                    self.i += 1;
                    return Some(());
                }
                loop {
                    self.space();
                    if open == b'{' {
                        self.string()?;
                        self.eat(b':')?;
                        self.space();
                    }
                    self.value()?;
                    if !self.more(close)? {
                        return Some(());
                    }
                }
            }
            _ => {
                // A number or a literal: up to what ends it.
                let start = self.i;
                while self
                    .peek()
                    .is_some_and(|c| !matches!(c, b',' | b']' | b'}') && !c.is_ascii_whitespace())
                {
                    self.i += 1;
                }
                (self.i > start).then_some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPLY: &str = "Here it is:\n{\n  \"status\": \"OK\",\n  \"rows\": [\n    {\"id\": 1, \"tags\": [\"a\", \"b\"]},\n    {\n      \"id\": \"two\"\n    }\n  ],\n  \"note\": {}\n}";

    fn line(path: &str) -> Option<usize> {
        line_of_path(REPLY, REPLY.find('{').unwrap(), path)
    }

    #[test]
    fn a_path_is_found_on_its_line() {
        assert_eq!(line("status"), Some(3));
        assert_eq!(line("rows"), Some(4));
        assert_eq!(line("rows[0].tags[1]"), Some(5));
        assert_eq!(line("rows[1].id"), Some(7));
        assert_eq!(line("note"), Some(10));
    }

    #[test]
    fn text_that_is_not_plain_json_has_no_line() {
        let at = |text: &str, path: &str| line_of_path(text, 0, path);
        // A comment (mended), and a key holding a dot.
        assert_eq!(at("{\n  // the id\n  \"y\": 1,\n  \"x\": 2\n}", "x"), None);
        assert_eq!(at("{\"m\": {\"a\": 1,\n \"b.c\": 2}}", "m.b.c"), None);
        // A key written twice: its last value, which the decoder keeps.
        assert_eq!(at("{\n  \"x\": 1,\n  \"x\": \"two\"\n}", "x"), Some(3));
    }

    #[test]
    fn a_missing_step_places_the_value_that_lacks_it() {
        assert_eq!(line("note.text"), Some(10));
        assert_eq!(line("rows[1].name"), Some(6));
        assert_eq!(line("rows[5].id"), Some(4));
        assert_eq!(line("absent"), Some(2));
        assert_eq!(line("(root)"), None);
    }
}
