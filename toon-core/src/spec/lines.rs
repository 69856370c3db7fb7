//! The lexical pre-pass (§5.1, §12): byte-order mark, line endings, trailing
//! spaces, comment lines, blank lines, and the depth of each line.

use crate::spec::error::{DecodeError, DecodeErrorKind};

/// One non-blank, non-comment line. Its numbers are kept in 32 bits (a reply
/// is never 4 billion lines long, and a longer count saturates), so that a
/// long reply's lines take half the memory to write and read back.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line<'a> {
    /// The line after its indentation, without trailing CR or spaces.
    pub content: &'a str,
    number: u32,
    indent: u32,
    depth: u32,
    /// The blank line directly before this one, 0 for none.
    blank_before: u32,
}

fn narrow(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl<'a> Line<'a> {
    /// 1-based line number in the input.
    pub fn number(&self) -> usize {
        self.number as usize
    }

    /// Leading spaces.
    pub fn indent(&self) -> usize {
        self.indent as usize
    }

    /// Indentation level.
    pub fn depth(&self) -> usize {
        self.depth as usize
    }

    /// The line number of a blank line directly before this one, if any
    /// (comment lines are not blank and do not separate).
    pub fn blank_before(&self) -> Option<usize> {
        (self.blank_before != 0).then_some(self.blank_before as usize)
    }
}

/// The input's lines as `str::split('\n')` gives them, cut at the line breaks
/// a vectorised search finds (a search per line costs less than `split`'s).
pub(crate) fn raw_lines(input: &str) -> impl Iterator<Item = &str> + Clone {
    raw_line_spans(input).map(|(_, line)| line)
}

/// [`raw_lines`], each with the byte offset in `input` where it starts.
pub(crate) fn raw_line_spans(input: &str) -> impl Iterator<Item = (usize, &str)> + Clone {
    let ends = memchr::memchr_iter(b'\n', input.as_bytes()).chain(std::iter::once(input.len()));
    let mut start = 0;
    ends.map(move |end| {
        // Both ends are at a line break or the end of the input: char boundaries.
        let line = (start, &input[start..end]);
        start = end + 1;
        line
    })
}

/// Splits a document into its significant lines.
///
/// Strict mode refuses indentation that is not a multiple of `indent_size` and
/// tabs in indentation; otherwise depth is `floor(spaces / indent_size)` and
/// leading tabs count as one level each. Depths over `max_depth` are refused
/// here, so no later stage can recurse deeper than that.
pub(crate) fn split_lines(
    input: &str,
    indent_size: usize,
    strict: bool,
    max_depth: usize,
) -> Result<Vec<Line<'_>>, DecodeError> {
    if indent_size == 0 {
        return Err(DecodeError::new(
            DecodeErrorKind::Indentation,
            0,
            0,
            "indent_size must be at least 1",
            "",
        ));
    }
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    // Sized once, so a long reply's lines are not copied as the vector grows;
    // at most one line per 16 bytes of input, so blank lines reserve little.
    let breaks = memchr::memchr_iter(b'\n', input.as_bytes()).count();
    let mut out = Vec::with_capacity(breaks.min(input.len() / 16) + 1);
    let mut blank = None;
    for (idx, raw) in raw_lines(input).enumerate() {
        let number = idx + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let line = raw.trim_end_matches(' ');
        let body = line.trim_start_matches(' ');
        let spaces = line.len() - body.len();
        if body.is_empty() {
            blank = Some(number);
            continue;
        }
        if body.starts_with('#') {
            continue; // comment line: removed before everything else, never a scope boundary
        }
        let (indent_units, content) = if body.starts_with('\t') {
            if strict {
                return Err(DecodeError::new(
                    DecodeErrorKind::Indentation,
                    number,
                    spaces + 1,
                    "tab used for indentation; indent with spaces",
                    raw,
                ));
            }
            let content = body.trim_start_matches(['\t', ' ']);
            let tabs = body[..body.len() - content.len()].matches('\t').count();
            let extra_spaces = body.len() - content.len() - tabs;
            ((spaces + extra_spaces) / indent_size + tabs, content)
        } else {
            // `%`, not `is_multiple_of`: the crates build on Rust 1.75.
            #[allow(clippy::manual_is_multiple_of)]
            if strict && spaces % indent_size != 0 {
                return Err(DecodeError::new(
                    DecodeErrorKind::Indentation,
                    number,
                    1,
                    format!(
                        "indented by {spaces} spaces, which is not a multiple of {indent_size}"
                    ),
                    raw,
                ));
            }
            (spaces / indent_size, body)
        };
        if content.is_empty() {
            blank = Some(number);
            continue;
        }
        if indent_units > max_depth {
            return Err(DecodeError::new(
                DecodeErrorKind::DepthLimit,
                number,
                spaces + 1,
                format!(
                    "nested {indent_units} levels deep, past the limit of {max_depth} (the max_depth option)"
                ),
                raw,
            ));
        }
        out.push(Line {
            content,
            number: narrow(number),
            indent: narrow(line.len() - content.len()),
            depth: narrow(indent_units),
            blank_before: blank.take().map_or(0, narrow),
        });
    }
    Ok(out)
}
