//! Repairs to the layout of the text: shifted or non-two-space indentation, and
//! headers missing their colon; and what the stages tell lines by (blank, a
//! comment, a fence).

use std::borrow::Cow;

use super::{Repair, RepairKind};
use crate::spec::error::DecodeErrorKind;
use crate::spec::header::{parse_header, HeaderParse};
use crate::spec::lex::trim_spaces;

pub(crate) fn indent_of(line: &str) -> usize {
    line.bytes().take_while(|&b| b == b' ').count()
}

/// Neither blank nor a comment line.
pub(crate) fn significant(line: &str) -> bool {
    match first_visible(line) {
        Some(b) if b < 0x80 => b != b'#',
        // Non-ASCII at the start: `trim` decides what Unicode calls a space.
        Some(_) => {
            let t = line.trim();
            !t.is_empty() && !t.starts_with('#')
        }
        None => false,
    }
}

/// The indentation of a [`significant`] line, `None` for any other: one
/// look at the byte after the indentation decides most lines.
pub(crate) fn significant_indent(line: &str) -> Option<usize> {
    let indent = indent_of(line);
    match line.as_bytes().get(indent) {
        Some(&b) if b.is_ascii_graphic() => (b != b'#').then_some(indent),
        None => None,
        // A tab or other space after the indentation, or non-ASCII.
        Some(_) => significant(line).then_some(indent),
    }
}

/// `line.trim().is_empty()`, without decoding characters where the line is ASCII.
pub(crate) fn is_blank(line: &str) -> bool {
    match first_visible(line) {
        Some(b) if b < 0x80 => false,
        Some(_) => line.trim().is_empty(),
        None => true,
    }
}

/// The first byte that is not ASCII white space (as `char::is_whitespace` has it).
pub(crate) fn first_visible(line: &str) -> Option<u8> {
    line.bytes().find(|&b| visible(b))
}

/// Not ASCII white space, as `char::is_whitespace` has it (which counts 0x0B).
fn visible(b: u8) -> bool {
    !(b.is_ascii_whitespace() || b == 0x0B)
}

/// Can the line, trimmed as `str::trim` trims, start with `b` (an ASCII byte)?
/// Decided from its first visible byte: a non-ASCII one may be a Unicode
/// space, so it says maybe. The stages ask it of every line before trimming.
pub(crate) fn may_start_with(line: &str, b: u8) -> bool {
    first_visible(line).is_some_and(|x| x == b || x >= 0x80)
}

/// As [`may_start_with`], for the line's last visible byte.
pub(crate) fn may_end_with(line: &str, b: u8) -> bool {
    line.bytes()
        .rev()
        .find(|&x| visible(x))
        .is_some_and(|x| x == b || x >= 0x80)
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Drops the first `n` bytes of a line; a borrowed line stays borrowed.
fn cut_front(line: &mut Cow<'_, str>, n: usize) {
    match line {
        Cow::Borrowed(s) => *s = &s[n..],
        Cow::Owned(s) => {
            s.drain(..n);
        }
    }
}

/// Removes a constant shift from every line and finds the indentation unit;
/// returns the shift removed and the indent size to decode with.
///
/// The unit is the greatest common divisor of the indents, so a document
/// indented by 4 (or 3, or 8) throughout decodes with that unit. Lines that fit
/// no single unit are left as they are: the decoder then refuses them as
/// ambiguous nesting rather than guess.
pub(crate) fn relevel(lines: &mut [Cow<'_, str>], repairs: &mut Vec<Repair>) -> (usize, usize) {
    // One pass finds the shift (the smallest indent) and the unit: the gcd of
    // the indents less the shift, which is the gcd of their distances from
    // the first indent (the shift is one of them).
    let (mut first, mut shift, mut unit) = (None, usize::MAX, 0);
    for (i, line) in lines.iter().enumerate() {
        if let Some(indent) = significant_indent(line) {
            let &mut (_, base) = first.get_or_insert((i, indent));
            shift = shift.min(indent);
            unit = gcd(unit, indent.abs_diff(base));
        }
    }
    let Some((first, _)) = first else {
        return (0, 2);
    };
    if shift > 0 {
        for line in lines.iter_mut().filter(|l| significant(l)) {
            cut_front(line, shift);
        }
        repairs.push(Repair::new(
            RepairKind::Reindented,
            first + 1,
            format!("whole document shifted right by {shift} space(s)"),
        ));
    }
    if unit <= 2 {
        return (shift, 2);
    }
    let first = lines
        .iter()
        .position(|l| significant_indent(l).is_some_and(|d| d > 0))
        .unwrap_or(0);
    repairs.push(Repair::new(
        RepairKind::Reindented,
        first + 1,
        format!("indentation unit of {unit} spaces read as one level"),
    ));
    (shift, unit)
}

/// Re-levels every line to two spaces a level, reading its depth from the lines
/// around it: deeper than the line before is one level deeper, and a line that
/// steps back must land on the indentation of an enclosing line. This reads
/// replies whose units vary (a list item's fields aligned under its first
/// field, say). The lines were written `shift` spaces deeper than they
/// stand (as [`relevel`] leaves them). Returns the first line moved from where
/// it was written, or the line whose dedent matches no enclosing level.
pub(crate) fn relevel_by_context(lines: &mut [Cow<'_, str>], shift: usize) -> Result<usize, usize> {
    let mut stack: Vec<usize> = Vec::new();
    let mut first_moved = None;
    for (i, line) in lines.iter_mut().enumerate() {
        if !significant(line) {
            continue;
        }
        let indent = indent_of(line);
        let mut popped = false;
        while stack.last().is_some_and(|&top| top > indent) {
            stack.pop();
            popped = true;
        }
        match stack.last() {
            Some(&top) if top == indent => {}
            Some(_) if popped => return Err(i + 1),
            None if popped => return Err(i + 1),
            _ => stack.push(indent),
        }
        let depth = stack.len() - 1;
        if depth * 2 != indent + shift {
            first_moved.get_or_insert(i + 1);
        }
        if depth * 2 != indent {
            *line = format!("{}{}", "  ".repeat(depth), &line[indent..]).into();
        }
    }
    Ok(first_moved.unwrap_or(1))
}

/// What a prompt of ours could show for "the number of items": `toon_prompt`
/// writes `[N]`; models also copy it as `[n]`, `[#]` or `[count]`.
const PLACEHOLDERS: [&str; 4] = ["N", "n", "#", "count"];

/// Is `word` (what a header's brackets hold, its delimiter aside) the
/// prompt's placeholder for a count?
pub(crate) fn is_placeholder(word: &str) -> bool {
    PLACEHOLDERS.iter().any(|p| p.eq_ignore_ascii_case(word))
}

/// `violations[N]{a,b}:` → `violations[1]{a,b}:`, and likewise on inline lists
/// and list-item headers, with or without the colon: the prompt's placeholder
/// for the count is replaced by a count the decoder then corrects to the items
/// that follow. Returns the lines changed, whose count correction this repair
/// already reports.
pub(crate) fn count_placeholders(
    lines: &mut [Cow<'_, str>],
    repairs: &mut Vec<Repair>,
) -> Vec<usize> {
    let mut changed = Vec::new();
    for (i, line) in lines.iter_mut().enumerate() {
        // Most lines are rows with no bracket at all: one byte search passes them.
        if memchr::memchr(b'[', line.as_bytes()).is_none() || !significant(line) {
            continue;
        }
        let indent = indent_of(line);
        let body = &line[indent..];
        let lead = if body.starts_with("- ") { 2 } else { 0 };
        let head = &body[lead..];
        // The bracket must open before any colon or quote: a header, not a value.
        let Some(open) = head
            .find(['[', ':', '"'])
            .filter(|&o| head.as_bytes()[o] == b'[')
        else {
            continue;
        };
        let Some(close) = head[open..].find(']').map(|c| open + c) else {
            continue;
        };
        // A header's bracket follows a key (no delimiter before it) and is
        // followed by its field list, its colon or nothing: `read a[n] first`
        // in a row is text, and stays as written.
        let rest = &head[close + 1..];
        if head[..open].contains([',', '|', '\t'])
            || !(rest.is_empty() || rest.starts_with(['{', ':']))
        {
            continue;
        }
        let inside = &head[open + 1..close];
        let (word, delim) = match inside.strip_suffix(['|', '\t']) {
            Some(w) => (w, &inside[w.len()..]),
            None => (inside, ""),
        };
        if !is_placeholder(word) {
            continue;
        }
        let at = indent + lead + open;
        // One, not zero: a header over no values then shows as one (see
        // `decode_repaired`), never read as "none".
        let fixed = format!(
            "{}[1{delim}]{}",
            &line[..at],
            &line[indent + lead + close + 1..]
        );
        repairs.push(Repair::new(
            RepairKind::CompletedHeader,
            i + 1,
            format!("`[{word}]` is the prompt's placeholder for the count: the items that follow were counted"),
        ));
        *line = fixed.into();
        changed.push(i + 1);
    }
    changed
}

/// `violations[2]{a,b}` at the top level → `violations[2]{a,b}:`.
pub(crate) fn add_header_colons(lines: &mut [Cow<'_, str>], repairs: &mut Vec<Repair>) {
    for (i, line) in lines.iter_mut().enumerate() {
        // Most lines are indented rows: the indent rules them out first.
        if indent_of(line) == 0 && significant(line) {
            add_header_colon(line, i + 1, repairs);
        }
    }
}

/// One line's header without its colon (`violations[2]{a,b}`) gets it back,
/// if that makes it a header.
pub(crate) fn add_header_colon(line: &mut Cow<'_, str>, number: usize, repairs: &mut Vec<Repair>) {
    let indent = indent_of(line);
    let content = line[indent..].trim_end_matches(' ');
    if let HeaderParse::Malformed(e) = parse_header(content, 64) {
        if e.kind == DecodeErrorKind::MissingColon && e.offset == content.len() {
            let fixed = format!("{content}:");
            if matches!(parse_header(&fixed, 64), HeaderParse::Header(_)) {
                repairs.push(Repair::new(
                    RepairKind::AddedColon,
                    number,
                    format!("`{}` had no colon", crate::spec::lex::clip(content)),
                ));
                *line = format!("{}{fixed}", &line[..indent]).into();
            }
        }
    }
}

/// A markdown fence: three backticks and at most a language word (```` ```toon ````).
/// Anything more on the line (```` ```,HIGH ````) is data, not a fence.
pub(crate) fn is_fence(line: &str) -> bool {
    may_start_with(line, b'`')
        && line.trim().strip_prefix("```").is_some_and(|info| {
            info.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '.' | '-'))
        })
}

/// Lines among a table's rows that begin with `#`. The specification reads
/// them as comments, which in a reply leaves a row the model wrote out and has
/// its count corrected down over it, with no word of the line. Where the
/// header's count says they are rows (the other rows fall short of it by
/// exactly their number), each is read as one, its first cell quoted (`#4` is
/// that text either way); where the other rows alone make the count, they are
/// comments; otherwise each is reported as a dropped row, with its text.
pub(crate) fn hash_rows(lines: &mut [Cow<'_, str>], repairs: &mut Vec<Repair>) {
    let mut i = 0;
    while i < lines.len() {
        let header =
            memchr::memchr(b'[', lines[i].as_bytes()).and_then(|_| table_header(&lines[i]));
        let Some((declared, delim, _)) = header else {
            i += 1;
            continue;
        };
        let (margin, mut plain, mut hashed, mut rows_at) =
            (indent_of(&lines[i]), 0, Vec::new(), None);
        let mut j = i + 1;
        while j < lines.len() {
            let line = &lines[j];
            let indent = indent_of(line);
            // Past the indentation, which is blank in any case.
            let body = &line[indent..];
            if is_blank(body) {
                j += 1;
                continue;
            }
            if indent <= margin {
                break;
            }
            if body.starts_with('#') {
                hashed.push(j);
            } else if *rows_at.get_or_insert(indent) == indent {
                plain += 1;
            }
            j += 1;
        }
        if !hashed.is_empty() && plain != declared {
            for &h in &hashed {
                let line = &lines[h];
                let indent = indent_of(line);
                let body = &line[indent..];
                if plain + hashed.len() == declared {
                    let cut = body.find(delim).unwrap_or(body.len());
                    let row = format!(
                        "{}{}{}",
                        &line[..indent],
                        crate::spec::encode::quote(body[..cut].trim_end()),
                        &body[cut..]
                    );
                    repairs.push(Repair::new(
                        RepairKind::HashRow,
                        h + 1,
                        format!("`{}`: a row that begins with `#`", body.trim_end()),
                    ));
                    lines[h] = row.into();
                } else {
                    repairs.push(Repair::new(
                        RepairKind::DroppedRow,
                        h + 1,
                        format!(
                            "`{}`: a line among the rows that begins with `#`, read as a comment",
                            body.trim_end()
                        ),
                    ));
                }
            }
        }
        i = j.max(i + 1);
    }
}

/// A table header: the rows it declares, its delimiter and the cells of a row.
pub(crate) type Head = (usize, char, usize);

/// The table header on `line`, if it is one (with a field list; also on a
/// list item's hyphen line, `- rows[2]{a}:`).
pub(crate) fn table_header(line: &str) -> Option<Head> {
    let content = trim_spaces(line);
    let content = content.strip_prefix("- ").unwrap_or(content);
    match parse_header(content, 8) {
        HeaderParse::Header(h) => {
            let cells = crate::spec::header::Field::leaf_count(h.fields.as_deref()?);
            Some((h.length, h.delim, cells))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<Cow<'_, str>> {
        s.split('\n').map(Cow::Borrowed).collect()
    }

    /// One look past the indentation, the same answer as asking
    /// `significant` and `indent_of` apart.
    #[test]
    fn significant_indent_agrees() {
        for line in [
            "",
            "   ",
            "a: 1",
            "  a",
            "  # note",
            "#x",
            "\ta",
            "  \t# c",
            "  \u{3000}x",
            "  \u{3000}",
            " \r",
            "  ü: 1",
            "\u{b}",
        ] {
            let apart = significant(line).then(|| indent_of(line));
            assert_eq!(significant_indent(line), apart, "{line:?}");
        }
    }

    #[test]
    fn shift_and_unit() {
        let mut r = Vec::new();
        let mut l = lines("    a:\n        b: 1\n    c: 2");
        assert_eq!(relevel(&mut l, &mut r).1, 4);
        assert_eq!(l, lines("a:\n    b: 1\nc: 2"));
        assert_eq!(r.len(), 2);

        let mut r = Vec::new();
        let mut l = lines("a:\n  b:\n    c: 1");
        assert_eq!(relevel(&mut l, &mut r).1, 2);
        assert!(r.is_empty());
    }

    /// Lines re-levelled by their shift first, then by the lines around
    /// them: the same depths, and the first line counts as moved, as it
    /// was written `shift` spaces deep.
    #[test]
    fn context_after_a_shift() {
        let text = "  result:\n      status: ok\n      details:\n         reason: met";
        let mut shifted = lines(text);
        assert_eq!(relevel(&mut shifted, &mut Vec::new()), (2, 2));
        assert_eq!(relevel_by_context(&mut shifted, 2), Ok(1));
        assert_eq!(
            shifted,
            lines("result:\n  status: ok\n  details:\n    reason: met")
        );
        let mut at_margin = lines("result:\n  status: ok\n  details:\n     reason: met");
        assert_eq!(relevel_by_context(&mut at_margin, 0), Ok(4));

        let read = crate::reply::read(text, &crate::reply::ReplyOptions::default()).unwrap();
        let reindented: Vec<_> = read
            .repairs
            .iter()
            .filter(|r| r.kind == RepairKind::Reindented)
            .map(|r| (r.line, r.detail.as_str()))
            .collect();
        assert_eq!(
            reindented,
            [(
                1,
                "indentation read level by level from the lines around it"
            )]
        );
    }

    #[test]
    fn placeholders() {
        let mut r = Vec::new();
        let mut l =
            lines("v[N]{a,b}:\n  1,2\ntags[n]: x,y\n  - k[#]:\nnote: see [N]\nw[count|]{a}");
        assert_eq!(count_placeholders(&mut l, &mut r), vec![1, 3, 4, 6]);
        assert_eq!(l[0], "v[1]{a,b}:");
        assert_eq!(l[2], "tags[1]: x,y");
        assert_eq!(l[3], "  - k[1]:");
        assert_eq!(l[4], "note: see [N]", "a value is data");
        assert_eq!(l[5], "w[1|]{a}");
        assert!(r.iter().all(|r| r.kind == RepairKind::CompletedHeader));
    }

    #[test]
    fn colons() {
        let mut r = Vec::new();
        let mut l = lines("v[2]{a,b}\n  1,2\ntags[1] x");
        add_header_colons(&mut l, &mut r);
        assert_eq!(l[0], "v[2]{a,b}:");
        assert_eq!(l[2], "tags[1] x");
        assert_eq!(r.len(), 1);
    }
}
