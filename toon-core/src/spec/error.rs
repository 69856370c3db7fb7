//! The spec decoder's error: what went wrong, where, and the text it was read from.

use std::fmt;

/// What kind of problem a [`DecodeError`] reports.
///
/// The kinds follow the specification's list of decoder errors (§14), so a
/// caller can tell a cut-off string from a miscounted array without reading
/// the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// A quoted string or key has no closing quote on its line.
    UnterminatedString,
    /// A backslash escape the specification does not define, or a `\u` escape
    /// that names a lone surrogate or has fewer than four hex digits.
    InvalidEscape,
    /// Text follows the closing quote of a quoted token.
    TextAfterQuote,
    /// A key or header has no colon after it.
    MissingColon,
    /// An array header is malformed: its length, delimiter marker, field list
    /// or what follows its colon.
    InvalidHeader,
    /// A header's field list uses a different delimiter from its brackets.
    DelimiterMismatch,
    /// The number of values, items, rows or entries differs from the declared `[N]`.
    LengthMismatch,
    /// A tabular row has a different number of cells from the header's fields.
    WidthMismatch,
    /// Indentation is not a multiple of the indent size, or uses tabs.
    Indentation,
    /// A line is deeper than any scope that could hold it.
    UnexpectedIndent,
    /// A blank line inside an array's rows or items.
    BlankLineInArray,
    /// Two sibling keys are the same.
    DuplicateKey,
    /// A line that is not a key, a header, a row or an item where one is expected,
    /// or content after a complete root array.
    UnexpectedLine,
    /// Nesting deeper than [`DecodeOptions::max_depth`](crate::spec::DecodeOptions::max_depth).
    DepthLimit,
}

impl DecodeErrorKind {
    /// A short lower-case name, for logs and metrics.
    pub const fn as_str(self) -> &'static str {
        match self {
            DecodeErrorKind::UnterminatedString => "unterminated string",
            DecodeErrorKind::InvalidEscape => "invalid escape",
            DecodeErrorKind::TextAfterQuote => "text after closing quote",
            DecodeErrorKind::MissingColon => "missing colon",
            DecodeErrorKind::InvalidHeader => "invalid header",
            DecodeErrorKind::DelimiterMismatch => "delimiter mismatch",
            DecodeErrorKind::LengthMismatch => "length mismatch",
            DecodeErrorKind::WidthMismatch => "row width mismatch",
            DecodeErrorKind::Indentation => "bad indentation",
            DecodeErrorKind::UnexpectedIndent => "unexpected indentation",
            DecodeErrorKind::BlankLineInArray => "blank line inside array",
            DecodeErrorKind::DuplicateKey => "duplicate key",
            DecodeErrorKind::UnexpectedLine => "unexpected line",
            DecodeErrorKind::DepthLimit => "nesting too deep",
        }
    }
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A TOON document the spec decoder could not read.
///
/// It carries the 1-based line and column (in characters) of the problem, the
/// text of that line, and a message that says what to change.
///
/// ```
/// let err = toon_core::decode("tags[3]: a,b", &Default::default()).unwrap_err();
/// assert_eq!(err.line(), 1);
/// assert_eq!(err.kind(), toon_core::spec::DecodeErrorKind::LengthMismatch);
/// assert!(err.to_string().contains("declares 3 values but has 2"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    kind: DecodeErrorKind,
    line: usize,
    column: usize,
    message: String,
    source_line: String,
}

/// How much of the offending line an error keeps, so a 10 MB line does not become a 10 MB message.
const SNIPPET_CHARS: usize = 80;

impl DecodeError {
    pub(crate) fn new(
        kind: DecodeErrorKind,
        line: usize,
        column: usize,
        message: impl Into<String>,
        source_line: &str,
    ) -> Self {
        let mut snippet: String = source_line.chars().take(SNIPPET_CHARS).collect();
        if source_line.chars().nth(SNIPPET_CHARS).is_some() {
            snippet.push('…');
        }
        DecodeError {
            kind,
            line,
            column,
            message: message.into(),
            source_line: snippet,
        }
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> DecodeErrorKind {
        self.kind
    }

    /// The 1-based line number of the problem (0 for a problem with the whole document).
    pub fn line(&self) -> usize {
        self.line
    }

    /// The 1-based column, in characters, where the problem starts on its line.
    pub fn column(&self) -> usize {
        self.column
    }

    /// The message alone, without the position.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The text of the offending line (at most 80 characters of it).
    pub fn source_line(&self) -> &str {
        &self.source_line
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return f.write_str(&self.message);
        }
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )?;
        if !self.source_line.is_empty() {
            write!(f, "\n  {} | {}", self.line, self.source_line.trim_end())?;
        }
        Ok(())
    }
}

impl std::error::Error for DecodeError {}
