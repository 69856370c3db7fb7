//! Stripping what surrounds the document in a model's reply: reasoning blocks,
//! tool-call wrappers, markdown fences and prose.
//!
//! Stripped text is blanked, never removed, so every line keeps its number and
//! errors and repairs point at the line of the completion.

use crate::reply::layout::{is_blank, is_fence, table_header};
use std::borrow::Cow;

use super::beside::{answer_beside, holds_data, Keys};
use super::classify::{expecting_rows, Classifier, Row, THINK_CLOSE, THINK_OPEN, TOOL_TAGS};
use super::{Guide, ParseError, ParseErrorKind, Repair, RepairKind};
use crate::spec::header::{parse_header, HeaderParse};
use crate::spec::lex::{find_unquoted, split_unquoted, trim_spaces};

/// Whether the reply needs stripping before it can be read as it stands, even
/// when it happens to parse: it opens with reasoning or with a JSON object, its
/// first line is a sentence, or a line starts with a fence, `</think>` or a
/// tool-call tag. Markers are recognised only where models put them, so data
/// that merely contains the same characters is never touched.
pub(crate) fn needs_stripping(completion: &str) -> bool {
    let start = completion.trim_start();
    start.starts_with(THINK_OPEN)
        || start.starts_with('{')
        // A JSON array on one line is also a TOON string; it is meant as JSON.
        || (start.starts_with('[')
            && (!super::json::is_toon_bracket(start.lines().next().unwrap_or_default())
                || super::json::one_number_array(start.trim_end()))
            && serde_json::from_str::<serde::de::IgnoredAny>(start).is_ok())
        || completion
            .lines()
            .find(|l| !is_blank(l))
            .is_some_and(|first| {
                let next = completion
                    .lines()
                    .skip_while(|l| *l != first)
                    .skip(1)
                    .find(|l| !is_blank(l));
                is_sentence_label(first, next)
            })
        || marker_lines(completion).any(|t| {
            t.starts_with(THINK_CLOSE) || is_fence(t) || TOOL_TAGS.iter().any(|tag| t.starts_with(tag))
        })
}

/// Each line that starts, after its indentation, with `<` or a backtick (where
/// every wrapper marker starts), from that character on. Found with `memchr`
/// instead of walking every line, in time linear in the text: a line is looked
/// at only from its first such character.
fn marker_lines(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let (mut scanned, mut line_start, mut seen_on_line) = (0, 0, false);
    memchr::memchr2_iter(b'<', b'`', bytes).filter_map(move |i| {
        if let Some(nl) = memchr::memrchr(b'\n', &bytes[scanned..i]) {
            line_start = scanned + nl + 1;
            seen_on_line = false;
        }
        scanned = i;
        // A second marker character on a line has the first before it.
        let first = !std::mem::replace(&mut seen_on_line, true);
        (first && text[line_start..i].trim().is_empty()).then(|| {
            let end = memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |n| i + n);
            &text[i..end]
        })
    })
}

/// `Here is the analysis:` — a sentence ending in a colon with nothing nested
/// under it reads as TOON (a key with an empty object) but is prose.
fn is_sentence_label(line: &str, next: Option<&str>) -> bool {
    let content = trim_spaces(line);
    let indent = line.len() - line.trim_start_matches(' ').len();
    let Some(colon) = find_unquoted(content, |c| c == ':') else {
        return false;
    };
    let key = &content[..colon];
    let nested = next.is_some_and(|n| n.len() - n.trim_start_matches(' ').len() > indent);
    !key.starts_with('"')
        && key.contains(' ')
        && trim_spaces(&content[colon + 1..]).is_empty()
        && !nested
}

/// Returns the lines of the document inside `completion`, stripped lines blank:
/// the one line buffer the repairs work on, each line borrowed from the
/// completion until a repair rewrites it.
pub(crate) fn strip<'c>(
    completion: &'c str,
    repairs: &mut Vec<Repair>,
    guide: Option<&dyn Guide>,
) -> Result<Vec<Cow<'c, str>>, ParseError> {
    let (mut lines, rows) = classify(completion, repairs)?;
    if !strip_fences(&mut lines, &rows, repairs, guide)? {
        strip_leading_prose(&mut lines, repairs, guide)?;
        // After a JSON value the JSON reader finds where it ends; a line of a
        // string with raw line breaks (`Second paragraph."}`) is not prose.
        if !super::json::looks_like_json(&lines) {
            strip_trailing_prose(&mut lines, &rows, repairs, guide);
        }
    }
    Ok(lines)
}

/// Each line through the classifier: its reasoning and wrapper tags blanked
/// (each line keeps its number), and the table each is a row of. Reasoning
/// blocks are reported before the tags, as they are stripped first.
fn classify<'c>(
    completion: &'c str,
    repairs: &mut Vec<Repair>,
) -> Result<(Vec<Cow<'c, str>>, Vec<Row>), ParseError> {
    let count = memchr::memchr_iter(b'\n', completion.as_bytes()).count() + 1;
    // One search of the whole reply spares most replies one of each line.
    let mut classifier =
        if memchr::memmem::find(completion.as_bytes(), THINK_CLOSE.as_bytes()).is_some() {
            Classifier::new()
        } else {
            Classifier::with_no_close()
        };
    'read: loop {
        let (mut lines, mut rows) = (Vec::with_capacity(count), Vec::with_capacity(count));
        let mut tags = Vec::new();
        let mut reasoning = Vec::new();
        for l in crate::spec::lines::raw_lines(completion) {
            let l = l.strip_suffix('\r').unwrap_or(l);
            let line = classifier.line(l);
            if line.withdraw.is_some() {
                // The reply began in reasoning: read again, knowing it.
                classifier = Classifier::in_reasoning();
                continue 'read;
            }
            for r in line.repairs {
                match r.kind {
                    RepairKind::StrippedReasoning => reasoning.push(r),
                    _ => tags.push(r),
                }
            }
            lines.push(line.text);
            rows.push(line.row);
        }
        classifier.end()?;
        repairs.extend(reasoning);
        repairs.extend(tags);
        return Ok((lines, rows));
    }
}

/// Where the `<think>` block a reply opens with (its first significant line)
/// ends in `completion`: after its `</think>`, or at the end where it never
/// closes; `None` for a reply that does not open with one. What lies before
/// is not the answer's. (Reasoning a chat template opened shows only its
/// `</think>`, which a stream cannot know of until it comes: not counted.)
pub(crate) fn opening_reasoning_end(completion: &str) -> Option<usize> {
    let (start, first) =
        crate::spec::lines::raw_line_spans(completion).find(|(_, l)| !is_blank(l))?;
    let opening = first.trim_start();
    opening.strip_prefix(THINK_OPEN)?;
    let from = start + (first.len() - opening.len()) + THINK_OPEN.len();
    Some(
        completion[from..]
            .find(THINK_CLOSE)
            .map_or(completion.len(), |end| from + end + THINK_CLOSE.len()),
    )
}

/// Keeps only the fenced block, if there is one: its fences and the prose
/// around it are blanked. A block whose closing fence never came runs to the
/// end. An empty block before another is skipped; a second block of data
/// (fenced bare, `toon` or `json`) after the first is a second document, and
/// taking either would be a guess: refused.
fn strip_fences(
    lines: &mut [Cow<'_, str>],
    rows: &[Row],
    repairs: &mut Vec<Repair>,
    guide: Option<&dyn Guide>,
) -> Result<bool, ParseError> {
    // A cell of backticks is data in a table; once its rows are all there, a
    // fence indented like them closes the block.
    let expected = |i: usize| rows[i].is_some_and(|(n, (declared, _, _))| n < declared);
    let fence = |lines: &[Cow<'_, str>], i: usize| is_fence(&lines[i]) && !expected(i);
    let mut from = 0;
    loop {
        let Some(open) = (from..lines.len()).find(|&i| fence(lines, i)) else {
            return Ok(from > 0);
        };
        let close = (open + 1..lines.len()).find(|&i| fence(lines, i));
        let Some(close) = close else {
            // A lone fence is stripped only where its role is plain: first (an opening
            // that never closed) or last (a closing whose opening was left out). One in
            // the middle of the text could split a document; it is left for the
            // decoder to refuse rather than have half the reply read as prose.
            let significant: Vec<usize> =
                (0..lines.len()).filter(|&i| !is_blank(&lines[i])).collect();
            let role = if significant.first() == Some(&open) {
                "opening fence (never closed)"
            } else if significant.last() == Some(&open) {
                "closing fence (no opening fence)"
            } else {
                return Ok(from > 0);
            };
            repairs.push(Repair::new(RepairKind::StrippedFence, open + 1, role));
            lines[open] = Cow::Borrowed("");
            return Ok(true);
        };
        let next = (close + 1..lines.len()).find(|&i| fence(lines, i));
        // A block of another language (a ```` ```python ```` example) before a
        // block of data is not the reply's: it is passed over, and blanked
        // with the prose before the block that is.
        if !holds_data(&lines[open]) && next.is_some_and(|i| holds_data(&lines[i])) {
            from = close + 1;
            continue;
        }
        if (open + 1..close).all(|i| is_blank(&lines[i])) && next.is_some() {
            repairs.push(Repair::new(
                RepairKind::StrippedFence,
                open + 1,
                "an empty fenced block",
            ));
            lines[open] = Cow::Borrowed("");
            lines[close] = Cow::Borrowed("");
            from = close + 1;
            continue;
        }
        if let Some(second) = next.filter(|&i| holds_data(&lines[i])) {
            return Err(ParseError::new(
                ParseErrorKind::Syntax,
                Some(second + 1),
                format!(
                    "the reply holds two fenced blocks, from line {} and from line {}, and which one is the answer is not known; write the answer in one block",
                    open + 1,
                    second + 1
                ),
            )
            .whole());
        }
        // Outside the block, an answer of its own is a second document, as
        // a second block would be.
        let other = [0..open, close + 1..lines.len()]
            .into_iter()
            .find_map(|side| answer_beside(lines, side, Keys::Guide(guide), true));
        if let Some(other) = other {
            return Err(ParseError::new(
                ParseErrorKind::Syntax,
                Some(other + 1),
                format!(
                    "the reply holds an answer in the fenced block from line {} and another outside it, from line {}, and which one is the answer is not known; write the answer once, in one block",
                    open + 1,
                    other + 1
                ),
            )
            .whole());
        }
        blank_prose(&mut lines[..open], 0, repairs, "before the fenced block");
        repairs.push(Repair::new(
            RepairKind::StrippedFence,
            open + 1,
            format!("opening fence {}", lines[open].trim()),
        ));
        lines[open] = Cow::Borrowed("");
        repairs.push(Repair::new(
            RepairKind::StrippedFence,
            close + 1,
            "closing fence",
        ));
        lines[close] = Cow::Borrowed("");
        blank_prose(
            &mut lines[close + 1..],
            close + 1,
            repairs,
            "after the fenced block",
        );
        return Ok(true);
    }
}

fn blank_prose(lines: &mut [Cow<'_, str>], offset: usize, repairs: &mut Vec<Repair>, where_: &str) {
    let Some(first) = lines.iter().position(|l| !is_blank(l)) else {
        return;
    };
    let count = lines.iter().filter(|l| !is_blank(l)).count();
    repairs.push(Repair::new(
        RepairKind::StrippedProse,
        offset + first + 1,
        format!("{count} line(s) of prose {where_}"),
    ));
    for l in lines.iter_mut() {
        *l = Cow::Borrowed("");
    }
}

/// Blanks prose before the first line that can start a document: a header, a
/// `key: value` line with an identifier key, or the opening of a JSON value.
///
/// A reply that opens with a sentence label (`Here is the analysis:`) and
/// holds no document after it introduced an answer that never came: refused,
/// never read as a key over an empty object.
fn strip_leading_prose(
    lines: &mut [Cow<'_, str>],
    repairs: &mut Vec<Repair>,
    guide: Option<&dyn Guide>,
) -> Result<(), ParseError> {
    let starts = |l: &str| starts_document(l) || guide.is_some_and(|g| g.starts_document(l));
    let Some(start) = lines.iter().position(|l| starts(l)) else {
        let mut significant = (0..lines.len()).filter(|&i| !is_blank(&lines[i]));
        if let Some(first) = significant.next() {
            let next = significant.next().map(|i| &*lines[i]);
            if is_sentence_label(&lines[first], next) {
                return Err(ParseError::new(
                    ParseErrorKind::Syntax,
                    Some(first + 1),
                    format!(
                        "the reply introduces an answer (`{}`) but holds none after it",
                        crate::spec::lex::clip(lines[first].trim())
                    ),
                ));
            }
        }
        return Ok(());
    };
    blank_prose(&mut lines[..start], 0, repairs, "before the document");
    Ok(())
}

/// Blanks closing prose after the document ("Let me know if you need more!"):
/// a final run of lines at the left margin, with no colon and a space in each,
/// whose last line ends a sentence or that a blank line sets apart. Such lines
/// could never be part of a TOON object; a single cut-off token (`complianc`) is
/// not prose and is left for the decoder to refuse as truncated. A line that
/// starts with a key the type knows (`spoken_response One problem.`) is the
/// document's, missing its colon.
fn strip_trailing_prose(
    lines: &mut [Cow<'_, str>],
    rows: &[Row],
    repairs: &mut Vec<Repair>,
    guide: Option<&dyn Guide>,
) {
    let significant: Vec<usize> = (0..lines.len()).filter(|&i| !is_blank(&lines[i])).collect();
    let prose_like = |i: usize| {
        let t = lines[i].trim_end();
        !t.starts_with(' ')
            && t.contains(' ')
            && find_unquoted(t, |c| c == ':').is_none()
            && !t.starts_with(['-', '"', '[', '{', '#'])
            && !guide.is_some_and(|g| g.starts_document(t))
    };
    let Some(&last) = significant.last() else {
        return;
    };
    if !prose_like(last) {
        return;
    }
    let run: Vec<usize> = significant
        .iter()
        .rev()
        .copied()
        .take_while(|&i| prose_like(i))
        .collect();
    let first = *run.last().unwrap_or(&last);
    let set_apart = first > 0 && is_blank(&lines[first - 1]);
    let ends_sentence = lines[last].trim_end().ends_with(['.', '!', '?']);
    // Never the whole reply: that is prose, not a document with prose after it.
    if !(set_apart || ends_sentence) || significant.first() == Some(&first) {
        return;
    }
    // Under a table that expects rows (after its header or a row, blank
    // lines aside), lines holding its delimiter are its rows written without
    // their indentation: for the decoder to read or refuse, never to drop. A
    // row of one cell holds none, so under such a table no line is prose.
    let above = (0..first).rev().find(|&i| !is_blank(&lines[i]));
    let under_table = above
        .and_then(|above| expecting_rows(&lines[above], rows[above]))
        .is_some_and(|(delim, cells)| {
            cells == 1
                || run
                    .iter()
                    .all(|&i| find_unquoted(&lines[i], |c| c == delim).is_some())
        });
    // Past the rows its header declares too, lines of exactly a table's
    // width are rows more than it declared, not prose: dropping them would
    // lose records. Of three cells or more (a sentence with one comma is as
    // likely prose as a row of two), and none after the first begun with a
    // space, as a sentence's words after its commas are, unless the table's
    // own rows are written so.
    let spaced = |line: &str, delim: char| {
        let mut rest = line;
        while let Some(at) = find_unquoted(rest, |c| c == delim) {
            rest = &rest[at + delim.len_utf8()..];
            if rest.starts_with(' ') {
                return true;
            }
        }
        false
    };
    let rows_past_count = above
        .and_then(|above| {
            let head = table_header(&lines[above]).or(rows[above].map(|(_, head)| head))?;
            Some((head, spaced(trim_spaces(&lines[above]), head.1)))
        })
        .is_some_and(|((_, delim, cells), rows_spaced)| {
            cells > 2
                && run.iter().all(|&i| {
                    let line = lines[i].trim_end();
                    (rows_spaced || !spaced(line, delim))
                        && split_unquoted(line, delim).count() == cells
                })
        });
    if under_table || rows_past_count {
        return;
    }
    repairs.push(Repair::new(
        RepairKind::StrippedProse,
        first + 1,
        format!("{} line(s) of prose after the document", run.len()),
    ));
    for l in &mut lines[first..] {
        *l = Cow::Borrowed("");
    }
}

pub(crate) fn starts_document(line: &str) -> bool {
    let content = trim_spaces(line);
    if content.is_empty() {
        return false;
    }
    if content.starts_with('{') || content.starts_with('[') || content.starts_with('"') {
        return true;
    }
    match parse_header(content, 8) {
        HeaderParse::Header(_) => return true,
        HeaderParse::Malformed(e)
            if e.kind == crate::spec::error::DecodeErrorKind::MissingColon =>
        {
            return true
        }
        _ => {}
    }
    // A header with the prompt's placeholder for its count (`items[N]{a,b}:`).
    if let Some((key, rest)) = content.split_once('[') {
        let inside = rest.split_once(']').map_or("", |(inside, _)| inside);
        if !key.contains([' ', ':', '"'])
            && super::layout::is_placeholder(inside.trim_end_matches(['|', '\t']))
        {
            return true;
        }
    }
    let Some(colon) = find_unquoted(content, |c| c == ':') else {
        return false;
    };
    // A key is one word, in any script (`größe: 5` as much as `size: 5`);
    // prose before a colon has spaces.
    let key = trim_spaces(&content[..colon]);
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::ParseErrorKind;

    fn run(s: &str) -> (String, Vec<RepairKind>) {
        let mut r = Vec::new();
        let lines = strip(s, &mut r, None).unwrap();
        (lines.join("\n"), r.into_iter().map(|r| r.kind).collect())
    }

    #[test]
    fn marker_lines_are_the_lines_a_marker_starts() {
        let text = "a: 1\n  ```toon\nx: <b> `c`\n\t</think>\r\n`\n<";
        let found: Vec<&str> = marker_lines(text).collect();
        assert_eq!(found, ["```toon", "</think>\r", "`", "<"]);
        let expected: Vec<&str> = text
            .split('\n')
            .map(str::trim_start)
            .filter(|l| l.starts_with(['<', '`']))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn keeps_line_numbers() {
        let (text, kinds) = run("Sure!\n```toon\na: 1\n```\nHope it helps.");
        assert_eq!(text, "\n\na: 1\n\n");
        assert_eq!(
            kinds,
            [
                RepairKind::StrippedProse,
                RepairKind::StrippedFence,
                RepairKind::StrippedFence,
                RepairKind::StrippedProse
            ]
        );
    }

    #[test]
    fn reasoning_blocks() {
        assert_eq!(run("<think>hmm\nok</think>\na: 1").0, "\n\na: 1");
        assert_eq!(run("pondering\n</think>a: 1").0, "\na: 1");
        let mut r = Vec::new();
        let e = strip("<think>still thinking", &mut r, None).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::Truncated);
    }

    #[test]
    fn prose_before_a_document() {
        assert_eq!(
            run("Here is the analysis you asked for:\nstatus: OK").0,
            "\nstatus: OK"
        );
        assert_eq!(
            run("Result below.\nv[2]{a,b}\n  1,2").0,
            "\nv[2]{a,b}\n  1,2"
        );
    }
}
