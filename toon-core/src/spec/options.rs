//! Options for the spec decoder and encoder.

/// The character that separates inline array values, tabular cells and field names.
///
/// TOON declares the active delimiter in each array header (`[N]` for comma,
/// `[N|]` for pipe, `[N\t]` for tab); the decoder reads it from there, so this
/// type only chooses what the encoder writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Delimiter {
    /// `,` (the default; the header carries no symbol).
    #[default]
    Comma,
    /// A horizontal tab (U+0009).
    Tab,
    /// `|`.
    Pipe,
}

impl Delimiter {
    /// The delimiter character itself.
    pub const fn as_char(self) -> char {
        match self {
            Delimiter::Comma => ',',
            Delimiter::Tab => '\t',
            Delimiter::Pipe => '|',
        }
    }

    /// The symbol written inside a header's brackets: nothing for comma.
    pub(crate) const fn header_symbol(self) -> &'static str {
        match self {
            Delimiter::Comma => "",
            Delimiter::Tab => "\t",
            Delimiter::Pipe => "|",
        }
    }
}

/// Options for [`decode`](crate::spec::decode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Spaces per indentation level (default 2).
    pub indent_size: usize,
    /// Enforce every check of the specification's §14 (default `true`).
    ///
    /// With `false`, the decoder applies the specification's non-strict rules:
    /// declared lengths and row widths are not checked, indentation depth is
    /// `floor(spaces / indent_size)` (a leading tab, which §12 leaves to the
    /// implementation, counts as one level), duplicate keys resolve
    /// last-write-wins.
    pub strict: bool,
    /// The deepest nesting the decoder accepts (default 128, as serde_json). Deeper
    /// documents are refused with [`DecodeErrorKind::DepthLimit`](crate::spec::DecodeErrorKind::DepthLimit)
    /// instead of exhausting the stack.
    pub max_depth: usize,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            indent_size: 2,
            strict: true,
            max_depth: 128,
        }
    }
}

/// Options for [`encode`](crate::spec::encode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeOptions {
    /// Spaces per indentation level (default 2).
    pub indent_size: usize,
    /// The document delimiter, declared in every header the encoder writes (default comma).
    pub delimiter: Delimiter,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            indent_size: 2,
            delimiter: Delimiter::Comma,
        }
    }
}
