//! The line a field path stands on in a JSON reply. Values read from JSON
//! carry no lines, so an error about one (a value of the wrong type, out of
//! range, a missing field) is placed afterwards, from its path, by walking
//! the text to it: only when an error happens, as serde_json computes a line.

use super::json_scan::{Scan, Tok};

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
/// is not plain JSON as far as the walk goes (a comment, a single-quoted
/// string, a key holding `.` or `[`), or the path is the root's.
pub(crate) fn line_of_path(text: &str, from: usize, path: &str) -> Option<usize> {
    if path == "(root)" {
        return None;
    }
    let steps = steps(path)?;
    let mut at = Scan::at(text, from).next().map_or(text.len(), |(at, _)| at);
    for step in &steps {
        match down(&mut Scan::at(text, at), step)? {
            Some(found) => at = found,
            None => break,
        }
    }
    Some(text.get(..at)?.matches('\n').count() + 1)
}

/// The next piece of plain JSON; `None` at the end, or at a comment or a
/// single-quoted string (the text is not plain JSON).
fn piece<'t>(scan: &mut Scan<'t>) -> Option<(usize, Tok<'t>)> {
    scan.next()
        .filter(|(_, tok)| !matches!(tok, Tok::Comment(_) | Tok::Single(_)))
}

/// From the start of a container, where the value `step` names starts:
/// `Some(None)` where the container is whole and has no such value, `None`
/// where the text is not plain JSON. A key written twice is its last value,
/// as the decoder keeps it.
fn down(scan: &mut Scan<'_>, step: &Step<'_>) -> Option<Option<usize>> {
    let (open, close) = match step {
        Step::Key(_) => (b'{', b'}'),
        Step::Index(_) => (b'[', b']'),
    };
    if piece(scan)?.1 != Tok::Open(open) {
        return None;
    }
    let (mut found, mut index) = (None, 0);
    let mut next = piece(scan)?;
    if next.1 == Tok::Close(close) {
        return Some(None);
    }
    loop {
        match *step {
            Step::Key(key) => {
                let Tok::Str(name) = next.1 else {
                    return None;
                };
                // `b.c` or `b[0]` as one key: the path cannot say which.
                if name.starts_with(key)
                    && matches!(name.as_bytes().get(key.len()), Some(b'.' | b'['))
                {
                    return None;
                }
                if piece(scan)?.1 != Tok::Colon {
                    return None;
                }
                next = piece(scan)?;
                if name == key {
                    found = Some(next.0);
                }
            }
            Step::Index(n) if n == index => return Some(Some(next.0)),
            Step::Index(_) => index += 1,
        }
        past(scan, next.1)?;
        match piece(scan)?.1 {
            Tok::Comma => next = piece(scan)?,
            Tok::Close(c) if c == close => return Some(found),
            _ => return None,
        }
        // A comma before the close (mended away before the text was read).
        if next.1 == Tok::Close(close) {
            return Some(found);
        }
    }
}

/// Past the value that begins with `first`.
fn past(scan: &mut Scan<'_>, first: Tok<'_>) -> Option<()> {
    match first {
        Tok::Str(_) | Tok::Word(_) => Some(()),
        Tok::Open(_) => {
            let mut depth = 1;
            while depth > 0 {
                match piece(scan)?.1 {
                    Tok::Open(_) => depth += 1,
                    Tok::Close(_) => depth -= 1,
                    _ => {}
                }
            }
            Some(())
        }
        _ => None,
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
