//! The report of repairs: what the tolerant decoders changed, and on which line.

use std::fmt;

/// A kind of formatting mistake the reply decoders repair.
///
/// The list is fixed and documented: every repair keeps the model's data as
/// written (cell texts, numbers and keys survive byte for byte); only the
/// formatting around it is mended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RepairKind {
    /// Prose before the document, after a fenced block or a JSON value, or
    /// closing the document (margin lines with no colon that end a sentence or
    /// stand apart), was dropped.
    StrippedProse,
    /// A markdown fence (```` ```toon ````, ```` ```json ````, ```` ``` ````) was dropped.
    StrippedFence,
    /// A reasoning block (`<think>…</think>`, or reasoning that ends in a bare
    /// `</think>`) was dropped.
    StrippedReasoning,
    /// A `<tool_call>` or `</tool_call>` wrapper was dropped.
    StrippedToolCall,
    /// A declared `[N]` that disagreed with the values present was corrected
    /// (never to zero: a header over no values is refused, not read as none).
    CorrectedLength,
    /// A header written without its colon got it back; with a type, also a
    /// known key written without its colon.
    AddedColon,
    /// Shifted, or four-space (or other uniform) indentation was re-levelled.
    Reindented,
    /// A blank line between rows or list items was dropped.
    DroppedBlankLine,
    /// A malformed row inside a table was dropped (its line is in the report).
    DroppedRow,
    /// Objects written as `key: value` blocks under an array header were read as table rows.
    RecordsToTable,
    /// The reply was JSON, not TOON, and was read as JSON.
    ReadJson,
    /// Extra cells from an unquoted delimiter inside a text cell were joined back,
    /// where only one text column could take them (see the repair table in docs/replies.md).
    RejoinedCells,
    /// An optional cell left out of a row, where only that column could be the
    /// missing one, was read as null.
    FilledCell,
    /// A number or boolean the model quoted was read as the number or boolean,
    /// or a number or boolean written bare was read as the text the field
    /// wants, exactly as written (or a whole number, boolean or `null` as the
    /// enum variant of that name).
    UnquotedScalar,
    /// An enum value in the wrong letter case, or with `_`, `-` or a space for
    /// another of them, was matched to its one variant.
    EnumCase,
    /// A header without `[N]` or without its field list was completed from the
    /// type or from the items that follow; a prompt's placeholder (`[N]`) was
    /// counted; a header naming the first few columns was widened.
    CompletedHeader,
    /// A key the type does not have was ignored (an object with none of the
    /// type's keys is refused instead).
    IgnoredKey,
    /// A single value where the type wants a list was read as a list of one
    /// (never an empty object).
    WrappedInList,
    /// JSON: a comma before a closing `}` or `]` was dropped.
    TrailingComma,
    /// JSON: a `//` or `/* */` comment was dropped.
    StrippedComment,
    /// JSON: Python's `True`, `False` or `None` was read as `true`, `false` or `null`.
    PythonLiteral,
    /// JSON: a single-quoted string or key was read as the same text in double quotes.
    SingleQuotes,
    /// JSON: an unquoted key was read as the same key quoted.
    QuotedKey,
    /// JSON: a raw line break inside a string was read as the line break it is.
    EscapedLineBreak,
    /// A line among a table's rows that begins with `#`, which the
    /// specification reads as a comment, was read as the row the header's
    /// count says it is (its first cell, `#4`, is that text either way).
    HashRow,
}

impl RepairKind {
    /// A short snake_case name, stable for dashboards.
    pub const fn as_str(self) -> &'static str {
        match self {
            RepairKind::StrippedProse => "stripped_prose",
            RepairKind::StrippedFence => "stripped_fence",
            RepairKind::StrippedReasoning => "stripped_reasoning",
            RepairKind::StrippedToolCall => "stripped_tool_call",
            RepairKind::CorrectedLength => "corrected_length",
            RepairKind::AddedColon => "added_colon",
            RepairKind::Reindented => "reindented",
            RepairKind::DroppedBlankLine => "dropped_blank_line",
            RepairKind::DroppedRow => "dropped_row",
            RepairKind::RecordsToTable => "records_to_table",
            RepairKind::ReadJson => "read_json",
            RepairKind::RejoinedCells => "rejoined_cells",
            RepairKind::FilledCell => "filled_cell",
            RepairKind::UnquotedScalar => "unquoted_scalar",
            RepairKind::EnumCase => "enum_case",
            RepairKind::CompletedHeader => "completed_header",
            RepairKind::IgnoredKey => "ignored_key",
            RepairKind::WrappedInList => "wrapped_in_list",
            RepairKind::TrailingComma => "trailing_comma",
            RepairKind::StrippedComment => "stripped_comment",
            RepairKind::PythonLiteral => "python_literal",
            RepairKind::SingleQuotes => "single_quotes",
            RepairKind::QuotedKey => "quoted_key",
            RepairKind::EscapedLineBreak => "escaped_line_break",
            RepairKind::HashRow => "hash_row",
        }
    }
}

impl fmt::Display for RepairKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One repair: what kind, on which line of the completion, and a word on what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Repair {
    /// The kind of mistake repaired.
    pub kind: RepairKind,
    /// The 1-based line of the completion it was on.
    pub line: usize,
    /// What was changed, for a person reading the log.
    pub detail: String,
}

impl Repair {
    pub(crate) fn new(kind: RepairKind, line: usize, detail: impl Into<String>) -> Self {
        Repair {
            kind,
            line,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for Repair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {} ({})", self.line, self.kind, self.detail)
    }
}

/// A decoded reply together with the repairs it needed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Reply<T> {
    /// The value read from the reply.
    pub value: T,
    /// Every repair applied, sorted by line; empty for a reply that was valid as written.
    pub repairs: Vec<Repair>,
}
