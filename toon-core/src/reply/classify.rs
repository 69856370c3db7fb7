//! The line classifier both readers of a reply share. Fed a completion's lines
//! in order, it says of each, from the lines before it alone, what stripping
//! takes out of it (reasoning, tool-call wrapper tags) and whether it is a row
//! of a table. `strip` feeds it every line, then settles fences and prose over
//! the whole reply; the stream feeds it each line as it ends. What only a later
//! line shows, a `</think>` closing reasoning the reply never opened, comes as
//! a withdrawal of the lines before it.

use std::borrow::Cow;

use super::layout::{
    first_visible, indent_of, is_blank, may_end_with, may_start_with, table_header, Head,
};
use super::{ParseError, Repair, RepairKind};

pub(crate) const THINK_OPEN: &str = "<think>";
pub(crate) const THINK_CLOSE: &str = "</think>";
pub(crate) const TOOL_TAGS: [&str; 2] = ["<tool_call>", "</tool_call>"];

/// The table a line is a row of: the rows before it, and its header.
pub(crate) type Row = Option<(usize, Head)>;

/// What one line of a reply is.
#[derive(Debug)]
pub(crate) struct Line<'l> {
    /// The line without its reasoning and wrapper tags: all of it where
    /// nothing was taken, empty where it is all reasoning.
    pub text: Cow<'l, str>,
    /// The reasoning blocks the line closed and the tags taken from it.
    pub repairs: Vec<Repair>,
    /// The table the line is a row of.
    pub row: Row,
    /// The line closed reasoning the reply never opened: the lines before
    /// it were reasoning, up to the first `</think>`.
    pub withdraw: Option<Withdraw>,
}

/// Where the reasoning a withdrawal takes back ends.
#[derive(Debug, PartialEq)]
pub(crate) enum Withdraw {
    /// At this line's `</think>`: the rest of the line is read on.
    ThisLine,
    /// At a `</think>` in the middle of an earlier line: the lines between
    /// are the whole reply's to read again.
    Earlier,
}

/// The classifier: what the lines so far leave open.
#[derive(Debug, Default)]
pub(crate) struct Classifier {
    /// The 0-based index of the next line.
    next: usize,
    /// The first significant line.
    first: Option<usize>,
    tables: Tables,
    /// A line opened reasoning, or closed reasoning never opened: how the
    /// reply's reasoning reads is known.
    decided: bool,
    /// The line the open reasoning block began on.
    inside: Option<usize>,
    /// Before it was decided, a `</think>` stood in the middle of a line.
    closed_mid_line: bool,
    /// Tool-call wrappers opened and not yet closed.
    open_tags: usize,
}

impl Classifier {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// For a reply a later `</think>` showed to begin in reasoning: all is
    /// reasoning up to its first `</think>`, wherever that is.
    pub(crate) fn in_reasoning() -> Self {
        Classifier {
            decided: true,
            inside: Some(0),
            ..Self::default()
        }
    }

    /// For a reply with no `</think>` anywhere in it: no line can close
    /// reasoning the reply never opened, so no line is searched for one.
    pub(crate) fn with_no_close() -> Self {
        Classifier {
            decided: true,
            ..Self::default()
        }
    }

    /// Inside the `<think>` block the reply opens with (its first significant
    /// line opened it, and it has not closed).
    pub(crate) fn in_opening_reasoning(&self) -> bool {
        self.inside.is_some() && self.inside == self.first
    }

    /// The next line. A `<think>` or `</think>` counts where it starts a line
    /// that is no table's row; a tool-call tag as [`wrapper_tags`] has it.
    pub(crate) fn line<'l>(&mut self, line: &'l str) -> Line<'l> {
        let i = self.next;
        self.next += 1;
        // The line's first visible byte, found once: it rules out most tags.
        let depth = indent_of(line);
        let lead = first_visible(&line[depth..]);
        let blank = match lead {
            Some(b) if b < 0x80 => false,
            Some(_) => line.trim().is_empty(),
            None => true,
        };
        // As `may_start_with(line, b'<')`: a non-ASCII byte may be a space.
        let may_tag = lead.is_some_and(|b| b == b'<' || b >= 0x80);
        if self.first.is_none() && !blank {
            self.first = Some(i);
        }
        let row = self.tables.row_of(depth, blank);
        let starts = |tag: &str| row.is_none() && may_tag && line.trim_start().starts_with(tag);
        let may_open = starts(THINK_OPEN);
        let mut withdraw = None;
        if !self.decided {
            if may_open {
                self.decided = true;
            } else if starts(THINK_CLOSE) {
                self.decided = true;
                // Tags inside the reasoning wrapped nothing.
                self.open_tags = 0;
                withdraw = Some(if self.closed_mid_line {
                    Withdraw::Earlier
                } else {
                    self.inside = Some(0);
                    Withdraw::ThisLine
                });
            } else if memchr::memchr(b'<', line.as_bytes()).is_some() && line.contains(THINK_CLOSE)
            {
                self.closed_mid_line = true;
            }
        }
        let mut repairs = Vec::new();
        let mut text = self.reasoning(line, i, may_open, &mut repairs);
        let may_wrap = if text.len() == line.len() {
            may_tag || may_end_with(line, b'>')
        } else {
            may_start_with(&text, b'<') || may_end_with(&text, b'>')
        };
        let tags = if may_wrap {
            wrapper_tags(&text, row.is_some(), &mut self.open_tags)
        } else {
            Vec::new()
        };
        for tag in tags {
            text = text.replacen(tag, "", 1).into();
            repairs.push(Repair::new(RepairKind::StrippedToolCall, i + 1, tag));
        }
        if text.len() == line.len() {
            self.tables.push(&text, depth, blank);
        } else {
            self.tables.push(&text, indent_of(&text), is_blank(&text));
        }
        Line {
            text,
            repairs,
            row,
            withdraw,
        }
    }

    /// The line outside its reasoning blocks: those open before it, and those
    /// it opens (`may_open`: it starts with `<think>`).
    fn reasoning<'l>(
        &mut self,
        line: &'l str,
        i: usize,
        may_open: bool,
        repairs: &mut Vec<Repair>,
    ) -> Cow<'l, str> {
        if self.inside.is_none() && !may_open {
            return Cow::Borrowed(line);
        }
        let mut out = String::new();
        let mut rest = line;
        loop {
            match self.inside {
                Some(start) => match rest.find(THINK_CLOSE) {
                    Some(end) => {
                        rest = &rest[end + THINK_CLOSE.len()..];
                        repairs.push(Repair::new(
                            RepairKind::StrippedReasoning,
                            start + 1,
                            format!("reasoning block on lines {}–{}", start + 1, i + 1),
                        ));
                        self.inside = None;
                    }
                    None => {
                        rest = "";
                        break;
                    }
                },
                None => match rest
                    .find(THINK_OPEN)
                    .filter(|&at| may_open && rest[..at].trim().is_empty())
                {
                    Some(open) => {
                        out.push_str(&rest[..open]);
                        rest = &rest[open + THINK_OPEN.len()..];
                        self.inside = Some(i);
                    }
                    None => break,
                },
            }
        }
        out.push_str(rest);
        Cow::Owned(out)
    }

    /// The reply has ended: refused if it ended inside reasoning.
    pub(crate) fn end(&self) -> Result<(), ParseError> {
        match self.inside {
            Some(start) => Err(ParseError::truncated_in_reasoning(
                Some(start + 1),
                "the reply ended inside its reasoning block (`<think>` never closed); raise max_tokens or turn reasoning off",
                "the reasoning block (`<think>`) is never closed",
            )),
            None => Ok(()),
        }
    }
}

/// The rule for a table's rows: a line is one where it is indented and the
/// lines above it, up to the first less indented, are all as indented as it,
/// and that first one is a table header. Kept line by line: the last
/// significant line, and the run of lines at one depth it ends.
#[derive(Debug, Default)]
struct Tables {
    /// The last significant line: its depth, and its header if it is a table's.
    last: Option<(usize, Option<Head>)>,
    /// The run of lines at one depth that ends with `last`: the depth, its
    /// lines, and the line before it.
    run: (usize, usize, Option<(usize, Option<Head>)>),
}

impl Tables {
    /// The table the next line, at `depth`, is a row of.
    fn row_of(&self, depth: usize, blank: bool) -> Row {
        if depth == 0 || blank {
            return None;
        }
        let (above, rows) = match self.last {
            Some(_) if self.run.0 == depth => (self.run.2, self.run.1),
            last => (last, 0),
        };
        match above {
            Some((d, Some(head))) if d < depth => Some((rows, head)),
            _ => None,
        }
    }

    /// The next line, at `depth`, as stripping left it.
    fn push(&mut self, line: &str, depth: usize, blank: bool) {
        if blank {
            return;
        }
        match self.last {
            Some(_) if self.run.0 == depth => self.run.1 += 1,
            last => self.run = (depth, 1, last),
        }
        let head = memchr::memchr(b'[', line.as_bytes()).and_then(|_| table_header(line));
        self.last = Some((depth, head));
    }
}

/// The table line `i` of `lines` is a row of, by the rule the classifier
/// keeps (asked where a reply is refused, so read from the start).
pub(crate) fn row_at(lines: &[Cow<'_, str>], i: usize) -> Row {
    let mut tables = Tables::default();
    for l in &lines[..i] {
        tables.push(l, indent_of(l), is_blank(l));
    }
    let line = lines.get(i)?;
    tables.row_of(indent_of(line), is_blank(line))
}

/// The delimiter and row width of the table that still expects rows after
/// `line`: it is the table's header, or a row (`row`) with more declared.
pub(crate) fn expecting_rows(line: &str, row: Row) -> Option<(char, usize)> {
    match table_header(line) {
        Some((declared, delim, cells)) => (declared > 0).then_some((delim, cells)),
        None => row.and_then(|(rows, (declared, delim, cells))| {
            (rows + 1 < declared).then_some((delim, cells))
        }),
    }
}

/// [`expecting_rows`] after line `i` of `lines`.
pub(crate) fn expecting_rows_at(lines: &[Cow<'_, str>], i: usize) -> Option<(char, usize)> {
    expecting_rows(&lines[i], row_at(lines, i))
}

/// The tool-call tags that wrap this line, to strip: an opening tag that
/// starts the line, and a closing tag that closes a wrapper the reply opened
/// or stands alone on its line. On a row of a table (`row`) only the closing
/// tag of an open wrapper is stripped (`  2,Bob</tool_call>`). Any other tag is
/// data (`note: x</tool_call>` with no wrapper open, `example: <tool_call>`),
/// as it is when the reply reads as it stands. `open` counts the wrappers open.
/// Asked only of a line that may start with `<` or end with `>`.
fn wrapper_tags(line: &str, row: bool, open: &mut usize) -> Vec<&'static str> {
    let t = line.trim();
    let mut out = Vec::new();
    for tag in TOOL_TAGS {
        if !(t.starts_with(tag) || t.ends_with(tag)) {
            continue;
        }
        let closing = tag.starts_with("</");
        let strip = if closing {
            *open > 0 || (t == tag && !row)
        } else {
            !row && t.starts_with(tag)
        };
        if !strip {
            continue;
        }
        if closing {
            *open = open.saturating_sub(1);
        } else {
            *open += 1;
        }
        out.push(tag);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str) -> Vec<Option<usize>> {
        let mut c = Classifier::new();
        text.lines()
            .map(|l| c.line(l).row.map(|(n, _)| n))
            .collect()
    }

    /// The row rule, line by line, against the walk back up the lines that
    /// states it: rows counted before each, a deeper line ending the table.
    #[test]
    fn rows_are_told_from_the_lines_above() {
        // A header at a row's depth counts as a row of the table above it.
        let text = "t[3]{a,b}:\n  1,2\n\n  3,4\n    5,6\n  7,8\nu:\n  x[1]{c}:\n  9\nv[2]{d}:\n  y[1]{e}:\n  8\n";
        assert_eq!(
            rows(text),
            [
                None,
                Some(0),
                None,
                Some(1),
                None,
                None,
                None,
                None,
                None,
                None,
                Some(0),
                Some(1)
            ]
        );
        let lines: Vec<Cow<'_, str>> = text.lines().map(Cow::Borrowed).collect();
        for (i, expected) in rows(text).into_iter().enumerate() {
            assert_eq!(row_at(&lines, i).map(|(n, _)| n), expected, "line {i}");
        }
    }

    #[test]
    fn reasoning_the_reply_never_opened_is_withdrawn() {
        let mut c = Classifier::new();
        assert_eq!(c.line("pondering").text, "pondering");
        let closing = c.line("</think>a: 1");
        assert_eq!(closing.withdraw, Some(Withdraw::ThisLine));
        assert_eq!(closing.text, "a: 1");
        assert_eq!(closing.repairs[0].kind, RepairKind::StrippedReasoning);
        // Decided: a second one is the reply's text.
        assert_eq!(c.line("</think>").withdraw, None);

        let mut c = Classifier::new();
        c.line("done</think> a: 1");
        assert_eq!(c.line("</think>").withdraw, Some(Withdraw::Earlier));
    }

    #[test]
    fn a_tag_on_a_row_is_its_data() {
        let mut c = Classifier::new();
        c.line("t[2]{a}:");
        let row = c.line("  <think>");
        assert_eq!(
            (row.text, row.row.is_some()),
            (Cow::Borrowed("  <think>"), true)
        );
        assert!(!c.in_opening_reasoning());
        let mut c = Classifier::new();
        c.line("<tool_call>");
        assert_eq!(c.line("a: 1</tool_call>").text, "a: 1");
        assert!(c.end().is_ok());
        let mut c = Classifier::new();
        c.line("<think>");
        assert!(c.in_opening_reasoning());
        assert!(c.end().is_err());
    }
}
