//! Constrained TOON: the grammar of exactly the TOON a type's values are written
//! in, for servers that constrain sampling to a grammar.
//!
//! [`Toon::toon_grammar`](crate::Toon::toon_grammar) builds it from the same
//! [`Shape`] as the header, the prompt and the decoder; every reply
//! it admits is valid TOON that `T::from_toon` reads with no repair, and refuses
//! only for a constraint the grammar does not hold (listed on [`GrammarSyntax`]).
//! [`constrain_request`](crate::constrain_request) adds it to a chat request in each server's own field.
//!
//! What the grammar holds and its bounds are on [`GrammarSyntax`], the page a
//! user reaches from [`Toon::toon_grammar`](crate::Toon::toon_grammar).

mod build;
mod gbnf;
mod ir;
mod longest;
mod render;
mod text;
mod within;

use crate::shape::Shape;

/// The longest text value a grammar admits where the field sets no `max_len`, in characters.
pub const DEFAULT_MAX_LEN: u32 = 200;
/// The most digits after a number's point that a grammar admits. A float's
/// noise digits are tokens that carry nothing a model answer needs; a value
/// that needs more (or the exponent form) is still read by the decoder. A
/// few-shot example written with `to_toon` should hold numbers within it, as
/// its texts within their `max_len`, or it shows the model what the grammar
/// will not let it write.
pub const FRACTION_DIGITS: u32 = 6;
/// The most items of a list (or entries of a map) a grammar admits where the field sets no `max_items`.
pub const DEFAULT_MAX_ITEMS: u32 = 10;

/// The largest `#[toon(max_len = N)]` the derive takes, and the largest least
/// length (`length(min = N)`) it takes on a text field. Lark holds a text
/// bound exactly, and llguidance builds lexer expressions as it reads such
/// text: under a bound of a million it read ordinary text of 12,000 characters
/// and refused 14,000 ("too many expressions constructed"); `tests/grammar.rs`
/// holds text of 10,000 under this bound. GBNF would hold far longer bounds (in
/// blocks of 1000).
pub const LARGEST_MAX_LEN: u32 = 10_000;

/// The largest `#[toon(max_items = N)]` the derive takes, and the largest
/// least length (`length(min = N)`) it takes on a field it sees is a list (a
/// `Vec`, set or map, also inside `Option` or `Box`). A grammar ties a header's
/// count to the rows that follow with one alternative per count, and
/// llguidance's parser holds at most 2000 alternatives at once (its
/// `max_items_in_row`), so a list of over about 2000 could never be written;
/// llama.cpp's grammar grows with the square of the count.
pub const LARGEST_MAX_ITEMS: u32 = 1000;

/// The grammar syntaxes servers take, for [`Toon::toon_grammar`](crate::Toon::toon_grammar).
///
/// What the grammar holds, and what it leaves out:
/// - keys in declaration order at their fixed indentation; an optional field
///   (`Option`, `#[serde(default)]`) as `null` or left out;
/// - tables as their header and rows, and the count in a header always equal to
///   the rows or items that follow (one alternative per count, up to the bound);
///   empty lists as `key: []` or `key[0]...:`; lists of primitives inline;
///   lists of other values in list form; maps of flat structs also as keyed tables;
/// - the forms the encoder picks by the values, too: a struct of two or more
///   struct fields with one field list as a keyed table (§9.5), a list of
///   optional structs as a table when no item is `null` (inline when all are),
///   a list of a tagged enum as a table of the variants that share their keys
///   (§9.3), and a map of such values as a keyed table. Not held:
///   duplicate keys of a map, of a free-form object or of a free-form table's
///   header (the decoder refuses them), and forms the encoder finds only by
///   the values, which are admitted in list or nested form: an optional struct
///   column (`null` in every row, or filled in every row), a
///   `serde_json::Value` column of primitives, nested groups two levels deep,
///   a list of maps with one set of keys as a table, a struct whose map field
///   has its struct fields' keys as a keyed table, a map at the root as a keyed
///   table (or empty), and a root with delimited fields as a keyed table;
/// - text unquoted exactly where SPEC §7.2 lets it stand (so `3 cups` may, and
///   `42`, `true`, `-x` or `a, b` must be quoted), otherwise quoted with §7.1's escapes;
///   integers within their Rust type's bounds; other numbers as plain decimals
///   of at most [`FRACTION_DIGITS`] digits after the point (no exponent form),
///   within a field's `range` where it has whole, non-negative bounds, for an
///   `f32` at most 2^24 (other ranges are the decoder's to hold); enum values
///   as their names;
/// - a text's `length` and `pattern`: its maximum in both syntaxes, its minimum
///   and its pattern in Lark only (GBNF cannot intersect two languages; the
///   decoder refuses what they leave out). GBNF counts unquoted text's
///   characters step by step, so text that begins like a number (`2.1.0.0…`)
///   is held to the bound too, for the first 8 characters of that beginning;
///   text whose number-like beginning runs longer (`12345678901 apples`) has
///   its loops bounded apart and may run past it, which the decoder refuses
///   (Lark holds it exactly); of a delimited field's prose only
///   its maximum (exactly in GBNF, one character over in Lark); a free-form
///   value's constraints not at all. Under a pattern, quoted text is admitted
///   as written, without escapes, so a value holding a `"` or `\` is not;
/// - a free-form `serde_json::Value` as any primitive, object or array down to
///   two levels (objects of one set of keys and primitive values also as a
///   table; a root array as a keyless header; not a list of primitives inline,
///   an array of arrays, or objects of one set of keys as a keyed table, which
///   `to_toon` may write);
/// - a reply that is one text, unquoted where it may stand: text a reply
///   decoder strips as a wrapper (a fence, a reasoning or tool tag, a leading
///   byte-order mark, only Unicode spaces) is admitted and read otherwise
///   (`to_toon` quotes it);
/// - a type nested in itself is unrolled three levels deep (another instance
///   of one generic type, `Wrap<Wrap<u8>>`, is no recursion); below that its lists
///   are empty, its optional fields `null`, and a tagged enum has only the
///   variants that need no deeper value.
///
/// Bounds, so a constrained reply cannot run on until the token limit: every text
/// value at most [`DEFAULT_MAX_LEN`] characters and every list or map at most
/// [`DEFAULT_MAX_ITEMS`] items, unless the field says otherwise with
/// `#[toon(max_len = N)]` (for its text, or its list's text items; at most
/// [`LARGEST_MAX_LEN`]) and `#[toon(max_items = N)]` (at most
/// [`LARGEST_MAX_ITEMS`]). These bound the grammar only; the decoder reads
/// longer replies as before. A field's own bounds are shown in its prompt (the
/// defaults are not), so the model is told where the grammar will cut it. Lark holds a text bound exactly; GBNF, which cannot
/// intersect two languages, holds it exactly for text that does not begin like a
/// number or a keyword, and within a few times the bound for text that does.
/// llguidance keeps at most 250,000 lexer states a request (`max_lexer_states`)
/// and Lark's exact bound takes about 130 a character of text that begins like
/// a number, so such text of more than about 1,900 characters in one reply is
/// refused there (measured in `tests/grammar.rs`); other text is read up to
/// [`LARGEST_MAX_LEN`].
///
/// GBNF is written within llama.cpp's repetition limit: it refuses a
/// repetition of more than 2000, and one whose item's own repetitions and groups
/// expand into 2000 rules with it, so a long repetition becomes a rule of its
/// own, in blocks of 1000.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GrammarSyntax {
    /// llama.cpp's GBNF: llama.cpp's and llama-cpp-python's servers (`grammar`),
    /// and vLLM's xgrammar backend.
    Gbnf,
    /// The Lark dialect of llguidance: OpenAI's custom tools, vLLM's guidance
    /// backend, llama.cpp built with llguidance.
    Lark,
}

/// How a type's grammar is written: its syntax and, where the model may think
/// before it answers, the reasoning block admitted before the document.
///
/// With no option set, [`grammar`](GrammarOptions::grammar)
/// writes exactly [`Toon::toon_grammar`](crate::Toon::toon_grammar)'s grammar.
///
/// ```
/// use toon_core::{grammar::GrammarOptions, GrammarSyntax, Toon};
///
/// let plain = GrammarOptions::new(GrammarSyntax::Gbnf);
/// assert_eq!(plain.grammar::<Vec<String>>(), Vec::<String>::toon_grammar(GrammarSyntax::Gbnf));
///
/// // A `<think>` block of at most 600 characters may come first.
/// let thinking = GrammarOptions::new(GrammarSyntax::Gbnf).reasoning(600);
/// assert!(thinking.grammar::<Vec<String>>().contains("\"<think>\""));
/// assert!(thinking.max_reply_bytes::<Vec<String>>() > Vec::<String>::toon_max_reply_bytes());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrammarOptions {
    syntax: GrammarSyntax,
    reasoning: Option<Reasoning>,
}

/// The reasoning block a grammar admits before the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reasoning {
    /// The most characters between the tags.
    pub max_chars: u32,
    pub open: String,
    pub close: String,
}

impl GrammarOptions {
    /// The grammar in `syntax`, with nothing else admitted.
    #[must_use]
    pub fn new(syntax: GrammarSyntax) -> Self {
        GrammarOptions {
            syntax,
            reasoning: None,
        }
    }

    /// Admits one optional reasoning block before the document,
    /// `<think>` … `</think>` and a line break, of at most `max_chars`
    /// characters between the tags, and nothing of the kind after the
    /// document. The block's text may hold any character but `<` (so that it
    /// cannot close early or open a second block) and is read by no one: the
    /// decoder strips it and reports [`RepairKind::StrippedReasoning`](crate::RepairKind::StrippedReasoning).
    /// A grammar holds sampling from the first token (llama.cpp exempts no
    /// reasoning), so a reasoning model held to a grammar without this cannot
    /// think at all. `max_chars` is at most [`LARGEST_MAX_LEN`] (larger is taken
    /// as that).
    #[must_use]
    pub fn reasoning(mut self, max_chars: usize) -> Self {
        let max_chars = u32::try_from(max_chars)
            .unwrap_or(u32::MAX)
            .min(LARGEST_MAX_LEN);
        let (open, close) = match self.reasoning.take() {
            Some(r) => (r.open, r.close),
            None => ("<think>".to_owned(), "</think>".to_owned()),
        };
        self.reasoning = Some(Reasoning {
            max_chars,
            open,
            close,
        });
        self
    }

    /// The reasoning block's tags, for models that use others than `<think>`
    /// and `</think>` (a reasoning block must already be asked for with
    /// [`reasoning`](Self::reasoning); without one this changes nothing). The
    /// decoder strips only `<think>` blocks, so a model given other tags must
    /// have them taken off before the reply is read.
    #[must_use]
    pub fn reasoning_tags(mut self, open: &str, close: &str) -> Self {
        if let Some(r) = &mut self.reasoning {
            r.open = open.to_owned();
            r.close = close.to_owned();
        }
        self
    }

    /// The syntax the grammar is written in.
    #[must_use]
    pub fn syntax(&self) -> GrammarSyntax {
        self.syntax
    }

    /// `T`'s grammar as these options say: [`Toon::toon_grammar`](crate::Toon::toon_grammar)'s
    /// grammar in their syntax, after a reasoning block where
    /// [`reasoning`](Self::reasoning) asks for one.
    #[must_use]
    pub fn grammar<T: crate::Toon>(&self) -> String {
        grammar_of(&T::__TOON.shape(), self)
    }

    /// The most bytes a reply admitted by `T`'s grammar with these options, in
    /// their syntax, can take, the reasoning block included: see
    /// [`Toon::toon_max_reply_bytes`](crate::Toon::toon_max_reply_bytes). GBNF
    /// bounds text that begins like a number more loosely than Lark (see
    /// [`GrammarSyntax`]), so its worst case is the larger.
    #[must_use]
    pub fn max_reply_bytes<T: crate::Toon>(&self) -> usize {
        let g = build::grammar(&T::__TOON.shape(), self.reasoning.as_ref());
        usize::try_from(longest::max_bytes(&g, self.syntax)).unwrap_or(usize::MAX)
    }

    pub(crate) fn reasoning_block(&self) -> Option<&Reasoning> {
        self.reasoning.as_ref()
    }
}

/// The grammar of `shape`'s TOON in `syntax`.
pub(crate) fn toon_grammar(shape: &Shape, syntax: GrammarSyntax) -> String {
    grammar_of(shape, &GrammarOptions::new(syntax))
}

/// The grammar of `shape`'s TOON as `options` say.
pub(crate) fn grammar_of(shape: &Shape, options: &GrammarOptions) -> String {
    let g = build::grammar(shape, options.reasoning.as_ref());
    match options.syntax {
        GrammarSyntax::Gbnf => gbnf::gbnf(&g),
        GrammarSyntax::Lark => render::lark(&g),
    }
}

/// The most bytes of a reply the grammar admits, in whichever syntax it is
/// written (GBNF, whose bounds are looser, admits the longer).
pub(crate) fn max_reply_bytes(shape: &Shape) -> usize {
    most_bytes(&build::grammar(shape, None))
}

/// The most bytes a word of `g` takes in either syntax.
fn most_bytes(g: &ir::Grammar) -> usize {
    let most = [GrammarSyntax::Gbnf, GrammarSyntax::Lark]
        .map(|syntax| longest::max_bytes(g, syntax))
        .into_iter()
        .max()
        .unwrap_or(0);
    usize::try_from(most).unwrap_or(usize::MAX)
}

/// Each top-level field of a struct and the most bytes its lines can take in
/// a reply, largest first (for saying which fields a token limit cannot hold).
pub(crate) fn largest_fields(shape: &Shape) -> Vec<(String, usize)> {
    let mut fields = build::field_grammars(shape)
        .into_iter()
        .map(|(name, g)| (name, most_bytes(&g)))
        .collect::<Vec<_>>();
    fields.sort_by_key(|f| std::cmp::Reverse(f.1));
    fields
}
