//! Streaming replies: typed records as the model writes them.
//!
//! TOON is line-oriented, so a row is complete when its line ends. The stream
//! decoder is fed the completion in chunks of any size, split anywhere (inside a
//! line, a quoted string or an escape; chunks are `&str`, as a server's SSE deltas
//! are, so never inside a character), and yields an [`Event`] as soon as a value
//! is decided:
//!
//! - a top-level scalar field, when its line ends;
//! - each row of a top-level table, when its line ends (the root array of a
//!   `Vec<T>` reply streams as the array of key `""`);
//! - each item of a top-level list, when the next item (or the next top-level
//!   line) begins, since until then more of the item may follow;
//! - every element of a top-level inline array (`tags[3]: a,b,c`), when its line ends.
//!
//! Reasoning blocks, tool-call tags, an opening fence and leading prose are
//! skipped as they stream, by the line classifier the whole reply's stripping
//! uses. Where a later line shows that earlier ones were not the document
//! (a `</think>` the reply never opened, a fence after lines read as fields),
//! the stream yields [`Event::Withdrawn`]: the events before it are void. A table row that reads as it stands (most rows) is kept as its text
//! in an [`Element`] and read into a type only when asked; any other line is read by the same code as
//! the whole reply (the header and that one line, through the same repairs),
//! and its event carries those repairs, placed on the completion's lines. A
//! table row the type cannot read, which the whole reply drops (a
//! `dropped_row` repair), has no event and no index. So a successful
//! [`finish`](ToonStream::finish) never contradicts an event that stands: the final value
//! holds every emitted record, in order, each at its event's index. Repairs that need the
//! whole reply (a count, trailing prose, the indentation unit) are decided at
//! `finish`. A block the stream cannot decide line by line (records written as
//! `key: value` blocks, a header completed from the type or one the type could
//! complete over a row wider than it, a JSON reply) yields no events; its
//! values arrive with `finish`. A key the type does not have, which the final
//! value leaves out, has no events. If `finish` refuses the reply,
//! the events were provisional: nothing was lost, but nothing should be acted
//! on as final.
//!
//! Cost: a push that ends no line only appends the chunk, and the events of a
//! push come back in a `Vec`, which allocates only where the push decided one.
//! A clean row's element keeps its text, read into a type only when asked.
//!
//! Memory: [`ToonStream`] keeps the text it has been fed, and `finish` reads
//! it with the decode [`ToonOutputParser::parse_with_report`](crate::ToonOutputParser::parse_with_report) runs, so the two agree
//! by construction. It keeps the
//! text only up to [`ReplyOptions::max_bytes`] (checked as each line ends):
//! past that, `finish` refuses the reply as `LimitExceeded` by its length
//! alone, as `from_toon` does, so the stream drops each line once its events
//! are decided and its events go on, as [`ToonEvents`]' do. [`ToonEvents`]
//! is the same decoder without `finish`: it drops each line once its events
//! are decided, so its memory is bounded by the longest line and the record
//! being built, however long the completion.

mod event;
mod reader;

use std::borrow::Cow;
use std::marker::PhantomData;

pub use event::{Element, Event, StreamRow};
use reader::Reader;

use super::delimited::{Cut, Cutter};
use super::guide::TypeGuide;
use super::Toon;
use crate::reply::{ParseError, Reply, ReplyOptions};

/// A stream decoder for replies of type `T`.
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use toon_core::{Toon, ToonStream, stream::Event as StreamEvent};
///
/// #[derive(Debug, PartialEq, Toon)]
/// struct Row { id: u32, name: String }
/// #[derive(Debug, PartialEq, Toon)]
/// struct Reply { rows: Vec<Row> }
///
/// let mut stream = ToonStream::<Reply>::new();
/// assert!(stream.push("rows[2]{id,na").is_empty());
/// let events = stream.push("me}:\n  1,Ada\n  2,B");
/// assert_eq!(events.len(), 1); // the first row, the moment its line ended
/// assert_eq!(events[0].decode::<Row>().unwrap(), Row { id: 1, name: "Ada".into() });
/// assert_eq!(stream.end().len(), 1); // the last row: its line ended with the stream
/// let reply = stream.finish().unwrap();
/// assert_eq!(reply.value.rows[1].name, "B");
/// # }
/// ```
#[derive(Debug)]
pub struct ToonStream<T> {
    text: String,
    /// Bytes of `text` already read as complete lines.
    scanned: usize,
    /// Bytes of `text` known to hold no line break, or the end of the first
    /// line not yet read where it is known: a line arriving in many chunks is
    /// searched once, not once per chunk.
    searched: usize,
    reader: Reader,
    /// Keep the text for `finish`; an events-only stream drops decided lines.
    keep_text: bool,
    /// Bytes fed and already dropped, decided lines of an events-only stream.
    dropped: usize,
    /// The root's delimited prose fields, cut as the whole reply cuts them.
    cutter: Cutter,
    /// The stream has ended: its last line is whole without a line break.
    ended: bool,
    _type: PhantomData<fn() -> T>,
}

impl<T: Toon> Default for ToonStream<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Toon> ToonStream<T> {
    /// A stream with the default limits.
    pub fn new() -> Self {
        Self::with_options(ReplyOptions::default())
    }

    /// A stream with other limits. They apply at [`finish`](Self::finish), as
    /// [`ToonOutputParser::parse_with_report`](crate::ToonOutputParser::parse_with_report) applies them; past
    /// [`max_bytes`](ReplyOptions::max_bytes) the stream also stops keeping
    /// the text, whose reply `finish` will refuse.
    pub fn with_options(options: ReplyOptions) -> Self {
        Self::build(options, true)
    }

    /// A stream; `keep_text` for one that will `finish`, which reads the
    /// text kept as `from_toon` reads it.
    fn build(options: ReplyOptions, keep_text: bool) -> Self {
        // Built once: a derived type builds its shape anew on each call.
        let shape = T::__TOON.shape().into_resolved();
        let cutter = Cutter::new(super::delimited::names(&shape));
        ToonStream {
            // Most replies are longer than a few lines: room for them at
            // once, not doubled from nothing as they arrive.
            text: String::with_capacity(INITIAL_TEXT),
            scanned: 0,
            searched: 0,
            dropped: 0,
            reader: Reader::new(TypeGuide::new(shape), options, T::__TOON.stream_row),
            keep_text,
            cutter,
            ended: false,
            _type: PhantomData,
        }
    }

    /// Feeds the next chunk; returns the events it decided, in order.
    #[inline]
    pub fn push(&mut self, chunk: &str) -> Vec<Event> {
        let start = self.text.len();
        self.text.push_str(chunk);
        // A server's deltas are a few bytes, where a plain loop beats the
        // setup of a vectorised search.
        match chunk.bytes().position(|b| b == b'\n') {
            // Nothing is decided before a line ends, unless a delimited
            // block streams or may open.
            None if self.cutter.idle() => return Vec::new(),
            // The line's end is found: it is not searched for again.
            Some(at) if self.cutter.idle() => self.searched = start + at,
            _ => {}
        }
        self.read_lines()
    }

    /// Reads the lines the text now completes, and the delimited blocks'
    /// text as it arrives.
    #[inline(never)]
    fn read_lines(&mut self) -> Vec<Event> {
        // Past `max_bytes` the reply is refused whatever it holds, so its text
        // is no longer kept; checked as lines end, so at most a line is past it.
        if self.keep_text && self.text.len() > self.reader.options().max_bytes {
            self.over_limit();
        }
        let mut events = Vec::new();
        loop {
            let rest = &self.text[self.scanned..];
            let at = self.dropped + self.scanned;
            let cut = if self.cutter.idle() {
                Cut::Line
            } else {
                let may_open = !self.reader.in_reasoning();
                self.cutter.cut(rest, at, may_open, self.ended)
            };
            match cut {
                // The block is cut out of the whole reply, its line breaks
                // kept: a list item open before it may go on after it.
                Cut::Opened { len, .. } => self.scanned += len,
                Cut::Text {
                    name,
                    text,
                    len,
                    closed,
                } => {
                    if !text.is_empty() {
                        events.push(Event::Text {
                            key: Cow::Borrowed(name),
                            delta: text,
                        });
                    }
                    let breaks = memchr::memchr_iter(b'\n', &rest.as_bytes()[..len]).count();
                    self.reader.skip_breaks(breaks);
                    self.scanned += len;
                    if !closed {
                        break;
                    }
                }
                Cut::Line => {
                    // A line arriving in many chunks is searched once.
                    let from = self.searched.max(self.scanned);
                    let unread = &self.text.as_bytes()[from..];
                    let Some(end) = unread.iter().position(|&b| b == b'\n') else {
                        self.searched = self.text.len();
                        break;
                    };
                    let line_end = from + end;
                    let line = self.text[self.scanned..line_end].trim_end_matches('\r');
                    self.reader.line(line, &mut events);
                    self.scanned = line_end + 1;
                }
            }
        }
        if !self.keep_text {
            self.drop_decided();
        }
        events
    }

    /// Drops the lines already read, whose events are decided.
    fn drop_decided(&mut self) {
        self.text.drain(..self.scanned);
        self.dropped += self.scanned;
        self.searched = self.searched.saturating_sub(self.scanned);
        self.scanned = 0;
    }

    /// The text passed `max_bytes`: `finish` will refuse the reply as
    /// `from_toon` would, so the stream keeps no more than an events-only
    /// stream does (decided lines are dropped) and its events go on.
    #[cold]
    fn over_limit(&mut self) {
        self.keep_text = false;
        // The lines read so far are decided: their memory goes now.
        self.drop_decided();
        self.text.shrink_to_fit();
    }

    /// The stream has ended: decides the last line (which had no newline) and the
    /// list item still open, and returns their events. Call it before
    /// [`finish`](Self::finish) when every record must arrive as an event.
    pub fn end(&mut self) -> Vec<Event> {
        self.ended = true;
        // The last line may open a block that waited for the line to end.
        let mut events = if self.cutter.idle() {
            Vec::new()
        } else {
            self.read_lines()
        };
        if self.scanned < self.text.len() {
            let line = self.text[self.scanned..].trim_end_matches('\r');
            self.reader.line(line, &mut events);
            self.scanned = self.text.len();
        }
        self.reader.close_block(&mut events);
        events
    }

    /// The whole reply: exactly what [`ToonOutputParser::parse_with_report`](crate::ToonOutputParser::parse_with_report) returns on
    /// everything pushed.
    ///
    /// # Errors
    /// As [`Toon::from_toon`].
    pub fn finish(self) -> Result<Reply<T>, ParseError> {
        // Refused by its length alone, as `from_toon` refuses it.
        super::refuse_size(
            self.dropped + self.text.len(),
            self.reader.options(),
            crate::reply::Format::Toon,
        )?;
        super::read(&self.text, self.reader.options())
    }

    /// [`finish`](Self::finish), told how the server said the reply ended (its
    /// `finish_reason` comes with the stream's last event): as
    /// [`ReplyOptions::finish_reason`].
    ///
    /// # Errors
    /// As [`ToonOutputParser::parse_with_report`](crate::ToonOutputParser::parse_with_report).
    pub fn finish_with(
        mut self,
        finish_reason: crate::reply::FinishReason,
    ) -> Result<Reply<T>, ParseError> {
        self.reader.options_mut().finish_reason = finish_reason;
        self.finish()
    }
}

/// The bytes of text a stream makes room for at once.
const INITIAL_TEXT: usize = 1024;

/// The stream decoder without [`finish`](ToonStream::finish), for consumers that
/// act on each event and never need the whole value: it drops every line once its
/// events are decided, so memory stays bounded by the longest line and the record
/// being built, however long the completion runs.
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use toon_core::{Toon, stream::ToonEvents};
///
/// #[derive(Debug, PartialEq, Toon)]
/// struct Row { id: u32 }
/// #[derive(Debug, Toon)]
/// struct Reply { rows: Vec<Row> }
///
/// let mut events = ToonEvents::<Reply>::new();
/// let mut seen = 0;
/// events.push("rows[1000]{id}:\n");
/// for i in 0..1000 {
///     seen += events.push(&format!("  {i}\n")).len(); // each row, as its line ends
/// }
/// assert_eq!(seen, 1000);
/// # }
/// ```
#[derive(Debug)]
pub struct ToonEvents<T>(ToonStream<T>);

impl<T: Toon> Default for ToonEvents<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Toon> ToonEvents<T> {
    /// An events-only stream.
    pub fn new() -> Self {
        ToonEvents(ToonStream::build(ReplyOptions::default(), false))
    }

    /// Feeds the next chunk; returns the events it decided.
    #[inline]
    pub fn push(&mut self, chunk: &str) -> Vec<Event> {
        self.0.push(chunk)
    }

    /// The stream has ended: decides the last line and the list item still open.
    pub fn end(&mut self) -> Vec<Event> {
        self.0.end()
    }
}

#[cfg(all(test, feature = "derive"))]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, crate::Toon)]
    #[toon(crate = "crate")]
    struct Row {
        id: u32,
        name: String,
    }

    #[derive(Debug, Clone, PartialEq, crate::Toon)]
    #[toon(crate = "crate")]
    struct Rows {
        title: String,
        rows: Vec<Row>,
    }

    const REPLY: &str = "title: t\nrows[3]{id,name}:\n  1,Ada\n  2,Bo\n  3,Cy\n";

    fn streamed(text: &str) -> ToonStream<Rows> {
        let mut s = ToonStream::<Rows>::new();
        for at in (0..text.len()).step_by(4) {
            s.push(&text[at..text.len().min(at + 4)]);
        }
        s.end();
        s
    }

    /// Chunks of every length from 1 to 12 bytes, a line break anywhere in
    /// them: the same events, at the same lines, and the same value as the
    /// reply fed a line at a time.
    #[test]
    fn every_chunk_length_finds_its_line_ends() {
        let text = "title: t\nrows[4]{id,name}:\n  1,Ada\n  2,Bo\n\n  3,Cy\n  4,D\n";
        let run = |pieces: Vec<&str>| {
            let mut s = ToonStream::<Rows>::new();
            let mut events = Vec::new();
            for piece in pieces {
                events.extend(s.push(piece));
            }
            events.extend(s.end());
            (events, s.finish().unwrap().value)
        };
        let (by_line, value) = run(text.split_inclusive('\n').collect());
        assert_eq!(by_line.len(), 5, "the title and four rows");
        for n in 1..=12 {
            let chunks = (0..text.len())
                .step_by(n)
                .map(|at| &text[at..text.len().min(at + n)])
                .collect();
            assert_eq!(
                run(chunks),
                (by_line.clone(), value.clone()),
                "chunks of {n}"
            );
        }
    }

    /// End to end: the stream's `finish` on a clean reply is `from_toon`.
    #[test]
    fn finish_on_a_clean_reply_is_from_toon() {
        let s = streamed(REPLY);
        let finished = s.finish().unwrap();
        let whole = crate::ToonOutputParser::<Rows>::new()
            .parse_with_report(REPLY)
            .unwrap();
        assert_eq!(finished.value, whole.value);
        assert_eq!(finished.repairs, whole.repairs);
    }
}
