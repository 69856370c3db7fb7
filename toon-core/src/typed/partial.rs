//! The typed view of a stream: a partial value that fills in as the reply's
//! lines end, and events named by the type. It drives [`ToonStream`] and reads
//! each of its events into the type, so what it shows is what the stream
//! decided, read as the whole reply reads it.

use std::fmt;

use serde_json::Value;

use super::constrain::Measure;
use super::context::{read_alone, Cx};
use super::stream::{Event, ToonStream};
use super::Toon;
use crate::reply::{FinishReason, ParseError, Repair, Reply, ReplyOptions};
use crate::shape::Constraints;
use crate::spec::node::Node;

/// A type whose reply can be watched while it streams: a struct marked
/// `#[toon(partial)]`, or a `Vec` of any [`Toon`] type.
///
/// `#[toon(partial)]` generates two types beside the struct, with its
/// visibility: `{Type}Partial`, the [`Partial`](Self::Partial), with each
/// field of the struct as an `Option` (`None` until the reply reaches it), and
/// `{Type}Event`, the [`Event`](Self::Event), with a variant for each field:
/// the field's value for a field of one line, an [`Item`] of a list's element,
/// and the new text of a delimited field. `#[toon(partial(name = "..", event =
/// ".."))]` names them otherwise. Read them through a [`PartialStream`].
#[cfg_attr(
    toon_diagnostic,
    diagnostic::on_unimplemented(
        message = "`{Self}` has no partial value to stream",
        label = "a partial value is generated for a struct marked `#[toon(partial)]`",
        note = "add `#[toon(partial)]` to the struct beside `#[derive(Toon)]`, or stream a `Vec` of it"
    )
)]
pub trait Streamed: Toon {
    /// What the reply has given so far: each field `None` until the stream
    /// has read it.
    type Partial: Default;
    /// A value the stream decided, named by the field it belongs to.
    type Event;

    /// `event` read as the type's event: `None` where it holds none of the
    /// type's values; an error where the value does not read as its field's
    /// type (the whole reply will refuse it too).
    #[doc(hidden)]
    fn __event(event: &Event) -> Option<Result<Self::Event, ParseError>>;

    /// Adds `event` to `partial` (a `Withdrawn` clears what the lines it
    /// withdraws gave).
    #[doc(hidden)]
    fn __apply(partial: &mut Self::Partial, event: &Event);

    /// Whether the field of `key` shows only once complete (`stream(done)`).
    #[doc(hidden)]
    fn __held(_key: &str) -> bool {
        false
    }
}

/// The partial value of `T`, for a signature: `fn render(so_far: &Partial<Report>)`.
pub type Partial<T> = <T as Streamed>::Partial;

/// One element of a list, read into its type, at its place in the list.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Item<E> {
    /// The element's position in the list, from 0 (the index of the final
    /// value's element).
    pub index: usize,
    /// The element.
    pub value: E,
    /// The 1-based line of the completion the element begins on.
    pub line: usize,
    /// The repairs its lines needed; empty where it was valid as written.
    pub repairs: Vec<Repair>,
}

/// What a push of a [`PartialStream`] decided, in the order decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Update<E> {
    /// A value, named by its field (the type's [`Streamed::Event`]).
    Event(E),
    /// The lines read so far were not the document (reasoning, or prose
    /// before a fenced block): the values before this are void, and the
    /// partial value is cleared but for delimited text (see
    /// [`Event::Withdrawn`]).
    Withdrawn,
}

/// A stream read into a partial value of `T` as the model writes it.
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use toon_core::stream::{PartialStream, Update};
/// use toon_core::Toon;
///
/// #[derive(Debug, PartialEq, Toon)]
/// struct Step { n: u32, action: String }
///
/// #[derive(Debug, Toon)]
/// #[toon(partial)]
/// struct Plan {
///     title: String,
///     steps: Vec<Step>,
/// }
///
/// let mut stream = PartialStream::<Plan>::new();
/// stream.push("title: Tea\nsteps[2]{n,act");
/// assert_eq!(stream.partial().title.as_deref(), Some("Tea"));
/// assert!(stream.partial().steps.is_none()); // not reached: absent, not empty
///
/// let updates = stream.push("ion}:\n  1,boil\n  2,p");
/// assert!(matches!(&updates[..], [Update::Event(PlanEvent::Steps(row))] if row.value.action == "boil"));
/// stream.end();
/// assert_eq!(stream.partial().steps.as_ref().map(Vec::len), Some(2));
/// let plan = stream.finish().unwrap().value;
/// assert_eq!(plan.steps[1], Step { n: 2, action: "p".into() });
/// # }
/// ```
///
/// The partial value holds what the stream's events gave, each read into its
/// field's type as the whole reply reads it (an enum normalised, a row into
/// its struct): a field of one line once its line ends, a list growing by
/// each element, a delimited field's text as it arrives. A field the model
/// has not reached is `None`, never a default; a block the stream does not
/// read line by line (a nested struct, `key: value` records) stays `None`
/// until [`finish`](Self::finish), which gives the final value exactly as
/// `from_toon` does.
///
/// A field marked `#[toon(stream(done))]` shows only once complete: its
/// elements or text are held until the reply goes on to another field, or
/// ends, and then arrive together (BAML's `@stream.done`). A value that does
/// not read as its field's type, or is outside its field's constraints,
/// shows nowhere; [`finish`](Self::finish) refuses the reply for it.
///
/// A struct without `#[toon(partial)]` has no partial value, and is refused
/// at compile time:
///
/// ```compile_fail
/// # #[cfg(feature = "derive")] {
/// #[derive(toon_core::Toon)]
/// struct Plain { title: String }
///
/// let _ = toon_core::stream::PartialStream::<Plain>::new();
/// # }
/// # #[cfg(not(feature = "derive"))] compile_error!("needs the derive");
/// ```
pub struct PartialStream<T: Streamed> {
    stream: ToonStream<T>,
    partial: T::Partial,
    /// The elements of a `stream(done)` list not yet complete.
    held_items: Vec<Event>,
    /// The text of a `stream(done)` delimited field whose block is open.
    held_text: Vec<Event>,
}

impl<T: Streamed> Default for PartialStream<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Streamed> fmt::Debug for PartialStream<T>
where
    T::Partial: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PartialStream")
            .field("partial", &self.partial)
            .field("held", &(self.held_items.len() + self.held_text.len()))
            .finish_non_exhaustive()
    }
}

impl<T: Streamed> PartialStream<T> {
    /// A stream with the default limits.
    pub fn new() -> Self {
        Self::with_options(ReplyOptions::default())
    }

    /// A stream with other limits, as [`ToonStream::with_options`].
    pub fn with_options(options: ReplyOptions) -> Self {
        PartialStream {
            stream: ToonStream::with_options(options),
            partial: T::Partial::default(),
            held_items: Vec::new(),
            held_text: Vec::new(),
        }
    }

    /// Feeds the next piece of the reply: the partial value takes what it
    /// decided, and its values come back as events.
    pub fn push(&mut self, chunk: &str) -> Vec<Update<T::Event>> {
        let events = self.stream.push(chunk);
        self.take(events)
    }

    /// The reply has ended: decides its last line, and shows every field held
    /// until complete.
    pub fn end(&mut self) -> Vec<Update<T::Event>> {
        let events = self.stream.end();
        let mut updates = self.take(events);
        self.release_all(&mut updates);
        updates
    }

    /// What the reply has given so far.
    pub fn partial(&self) -> &T::Partial {
        &self.partial
    }

    /// The whole reply, as [`ToonStream::finish`].
    ///
    /// # Errors
    /// As [`Toon::from_toon`].
    pub fn finish(self) -> Result<Reply<T>, ParseError> {
        self.stream.finish()
    }

    /// The whole reply, told how the server said it ended, as
    /// [`ToonStream::finish_with`].
    ///
    /// # Errors
    /// As [`Toon::from_toon`].
    pub fn finish_with(self, finish_reason: FinishReason) -> Result<Reply<T>, ParseError> {
        self.stream.finish_with(finish_reason)
    }

    fn take(&mut self, events: Vec<Event>) -> Vec<Update<T::Event>> {
        let mut updates = Vec::new();
        for event in events {
            let Some(at) = key(&event) else {
                // Delimited text stands; what the withdrawn lines gave goes.
                self.held_items.clear();
                T::__apply(&mut self.partial, &event);
                updates.push(Update::Withdrawn);
                continue;
            };
            let held = T::__held(at);
            if let Event::Text { .. } = event {
                // Another block's text: the one held has closed. (A list item
                // open before a block may go on after it: text ends no list.)
                if held_key(&self.held_text).is_some_and(|k| k != at) {
                    release::<T>(&mut self.held_text, &mut self.partial, &mut updates);
                }
                if held {
                    self.held_text.push(event);
                    continue;
                }
            } else {
                // A line of the document: any block before it has closed,
                // and a list held has ended if the line is another field's.
                release::<T>(&mut self.held_text, &mut self.partial, &mut updates);
                if held_key(&self.held_items).is_some_and(|k| k != at) {
                    release::<T>(&mut self.held_items, &mut self.partial, &mut updates);
                }
                // A field of one line is complete with its event.
                if held && matches!(event, Event::Item { .. }) {
                    self.held_items.push(event);
                    continue;
                }
            }
            show::<T>(&event, &mut self.partial, &mut updates);
        }
        updates
    }

    fn release_all(&mut self, updates: &mut Vec<Update<T::Event>>) {
        release::<T>(&mut self.held_items, &mut self.partial, updates);
        release::<T>(&mut self.held_text, &mut self.partial, updates);
    }
}

/// The key of the field whose events are held.
fn held_key(held: &[Event]) -> Option<&str> {
    held.first().and_then(key)
}

/// Shows the events held, in order.
fn release<T: Streamed>(
    held: &mut Vec<Event>,
    partial: &mut T::Partial,
    updates: &mut Vec<Update<T::Event>>,
) {
    for event in held.drain(..) {
        show::<T>(&event, partial, updates);
    }
}

/// Adds `event` to the partial value, and its typed event to `updates`.
fn show<T: Streamed>(event: &Event, partial: &mut T::Partial, updates: &mut Vec<Update<T::Event>>) {
    T::__apply(partial, event);
    if let Some(Ok(typed)) = T::__event(event) {
        updates.push(Update::Event(typed));
    }
}

/// The root array of a `Vec<T>` reply streams its elements.
impl<T: Toon> Streamed for Vec<T> {
    type Partial = Option<Vec<T>>;
    type Event = Item<T>;

    fn __event(event: &Event) -> Option<Result<Item<T>, ParseError>> {
        match key(event)? {
            "" => item(event, unchecked),
            _ => None,
        }
    }

    fn __apply(partial: &mut Option<Vec<T>>, event: &Event) {
        match key(event) {
            None => *partial = None,
            Some("") => grow(partial, event, unchecked, unchecked),
            Some(_) => {}
        }
    }
}

/// The key of the field an event belongs to; `None` for `Withdrawn`.
#[doc(hidden)]
pub fn key(event: &Event) -> Option<&str> {
    match event {
        Event::Field { key, .. } | Event::Text { key, .. } | Event::Item { key, .. } => Some(key),
        Event::Withdrawn => None,
    }
}

/// A field's value, where `event` gives one, meeting `check`.
#[doc(hidden)]
pub fn field<V: Toon>(event: &Event, check: Check<V>) -> Option<Result<V, ParseError>> {
    match event {
        Event::Field { value, .. } => Some(read_alone(Node::from(value.clone())).and_then(check)),
        _ => None,
    }
}

/// A list's element, where `event` gives one, meeting `check`.
#[doc(hidden)]
pub fn item<E: Toon>(event: &Event, check: Check<E>) -> Option<Result<Item<E>, ParseError>> {
    match event {
        Event::Item { index, element, .. } => {
            Some(element.decode().and_then(check).map(|value| Item {
                index: *index,
                value,
                line: element.line(),
                repairs: element.repairs().to_vec(),
            }))
        }
        _ => None,
    }
}

/// A delimited field's new text, where `event` gives it.
#[doc(hidden)]
pub fn text(event: &Event) -> Option<Result<String, ParseError>> {
    match event {
        Event::Text { delta, .. } => Some(Ok(delta.clone())),
        _ => None,
    }
}

/// What a value must be to be shown: its field's constraints, checked as
/// the whole reply checks them (`checked`), or none (`unchecked`).
#[doc(hidden)]
pub type Check<V> = fn(V) -> Result<V, ParseError>;

/// A value with no constraint to meet.
#[doc(hidden)]
pub fn unchecked<V>(value: V) -> Result<V, ParseError> {
    Ok(value)
}

/// A value within `constraints`, or the refusal the whole reply gives it.
#[doc(hidden)]
pub fn checked<V: Measure>(
    value: V,
    key: &'static str,
    constraints: &Constraints,
) -> Result<V, ParseError> {
    let mut cx = Cx::default();
    cx.check(&value, key, constraints)?;
    match cx.violations().into_iter().next() {
        Some(e) => Err(e),
        None => Ok(value),
    }
}

/// Sets a field of one line from its event, where its value meets `check`.
#[doc(hidden)]
pub fn set<V: Toon>(slot: &mut Option<V>, event: &Event, check: Check<V>) {
    if let Some(Ok(value)) = field(event, check) {
        *slot = Some(value);
    }
}

/// Grows a list by its element's event, where the element meets `each`;
/// or sets it whole (a line such as `key: null`, or a list declared empty),
/// where it meets `whole`.
#[doc(hidden)]
pub fn grow<C: Grow>(slot: &mut Option<C>, event: &Event, each: Check<C::Item>, whole: Check<C>) {
    match event {
        Event::Item { .. } => {
            if let Some(Ok(item)) = item(event, each) {
                slot.get_or_insert_with(C::empty).push(item.value);
            }
        }
        _ => set(slot, event, whole),
    }
}

/// Grows a delimited field's text by its event.
#[doc(hidden)]
pub fn extend(slot: &mut Option<String>, event: &Event) {
    match event {
        Event::Text { delta, .. } => slot.get_or_insert_with(String::new).push_str(delta),
        _ => set(slot, event, unchecked),
    }
}

/// A list the stream fills element by element: `Vec<T>`, through `Option`
/// and `Box`.
#[doc(hidden)]
pub trait Grow: Toon {
    /// Its element.
    type Item: Toon;
    /// The list before its first element.
    fn empty() -> Self;
    /// Adds an element at the end.
    fn push(&mut self, item: Self::Item);
}

impl<T: Toon> Grow for Vec<T> {
    type Item = T;
    fn empty() -> Self {
        Vec::new()
    }
    fn push(&mut self, item: T) {
        Vec::push(self, item);
    }
}

impl<C: Grow> Grow for Option<C> {
    type Item = C::Item;
    fn empty() -> Self {
        Some(C::empty())
    }
    fn push(&mut self, item: C::Item) {
        self.get_or_insert_with(C::empty).push(item);
    }
}

impl<C: Grow> Grow for Box<C> {
    type Item = C::Item;
    fn empty() -> Self {
        Box::new(C::empty())
    }
    fn push(&mut self, item: C::Item) {
        (**self).push(item);
    }
}

/// The JSON form of a value, for the generated `Debug`, which so asks
/// nothing more of a field's type than `Toon`.
struct Json(Value);

impl fmt::Debug for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A value of a generated event, shown as JSON.
#[doc(hidden)]
pub fn shown<V: Toon>(value: &V) -> impl fmt::Debug {
    Json(super::to_value(value))
}

/// A field of a generated partial value: `None`, or `Some` of its JSON.
#[doc(hidden)]
pub fn shown_slot<V: Toon>(slot: &Option<V>) -> impl fmt::Debug {
    slot.as_ref().map(shown)
}

/// A list's element in a generated event, its value shown as JSON.
#[doc(hidden)]
pub fn shown_item<V: Toon>(item: &Item<V>) -> impl fmt::Debug {
    Item {
        index: item.index,
        value: shown(&item.value),
        line: item.line,
        repairs: item.repairs.clone(),
    }
}
