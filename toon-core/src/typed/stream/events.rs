//! What one push returns: the events it decided, in order.
//!
//! Most pushes decide nothing (the line goes on) or one event (a row's line
//! ended), so one event is held in place and only more take an allocation:
//! a stream fed a long table then allocates nothing per row for its events.

use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};

use super::Event;

/// The events a [`push`](super::ToonStream::push) or an
/// [`end`](super::ToonStream::end) decided, in the order they were decided.
///
/// It is used as a slice of [`Event`]s (`len`, `is_empty`, indexing, `iter`)
/// and iterates by value; `Vec::from` or `collect` makes a `Vec` of them.
/// None or one event is held without an allocation.
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use toon_core::{stream::Event as StreamEvent, stream::Events as StreamEvents, Toon, ToonStream};
///
/// #[derive(Debug, PartialEq, Toon)]
/// struct Row { id: u32 }
///
/// let mut stream = ToonStream::<Vec<Row>>::new();
/// assert!(stream.push("[2]{id}:\n  1\n").len() == 1);
/// let events: StreamEvents = stream.push("  2\n");
/// let all: Vec<StreamEvent> = events.into_iter().collect();
/// assert_eq!(all[0].decode::<Row>().unwrap(), Row { id: 2 });
/// # }
/// ```
#[derive(Clone, Default)]
pub struct Events(Lean<Held>);

#[derive(Debug, Clone, Default)]
enum Held {
    #[default]
    None,
    One(Event),
    Many(Vec<Event>),
}

impl Events {
    /// No events.
    #[inline]
    pub fn new() -> Self {
        Events(Lean::default())
    }

    /// Adds the next event.
    #[inline]
    pub(crate) fn push(&mut self, event: Event) {
        let held = &mut *self.0;
        match held {
            Held::None => *held = Held::One(event),
            Held::Many(all) => all.push(event),
            Held::One(_) => {
                if let Held::One(first) = std::mem::take(held) {
                    *held = Held::Many(vec![first, event]);
                }
            }
        }
    }
}

impl Events {
    /// The events held, leaving none.
    #[inline]
    fn take(&mut self) -> Held {
        std::mem::take(&mut *self.0)
    }
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Events").field(&*self.0).finish()
    }
}

impl Deref for Events {
    type Target = [Event];

    #[inline]
    fn deref(&self) -> &[Event] {
        match &*self.0 {
            Held::None => &[],
            Held::One(event) => std::slice::from_ref(event),
            Held::Many(all) => all,
        }
    }
}

impl DerefMut for Events {
    #[inline]
    fn deref_mut(&mut self) -> &mut [Event] {
        match &mut *self.0 {
            Held::None => &mut [],
            Held::One(event) => std::slice::from_mut(event),
            Held::Many(all) => all,
        }
    }
}

/// Equal when they hold the same events in the same order, however held.
impl PartialEq for Events {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl PartialEq<Vec<Event>> for Events {
    #[inline]
    fn eq(&self, other: &Vec<Event>) -> bool {
        **self == **other
    }
}

impl PartialEq<[Event]> for Events {
    #[inline]
    fn eq(&self, other: &[Event]) -> bool {
        **self == *other
    }
}

impl From<Events> for Vec<Event> {
    #[inline]
    fn from(mut events: Events) -> Self {
        match events.take() {
            Held::None => Vec::new(),
            Held::One(event) => vec![event],
            Held::Many(all) => all,
        }
    }
}

impl Extend<Event> for Events {
    fn extend<I: IntoIterator<Item = Event>>(&mut self, events: I) {
        for event in events {
            self.push(event);
        }
    }
}

impl FromIterator<Event> for Events {
    #[inline]
    fn from_iter<I: IntoIterator<Item = Event>>(events: I) -> Self {
        let mut all = Events::new();
        all.extend(events);
        all
    }
}

impl IntoIterator for Events {
    type Item = Event;
    type IntoIter = IntoIter;

    #[inline]
    fn into_iter(mut self) -> IntoIter {
        IntoIter(Lean::new(match self.take() {
            Held::Many(all) => Left::Many(all.into_iter()),
            Held::One(event) => Left::One(event),
            Held::None => Left::None,
        }))
    }
}

impl<'a> IntoIterator for &'a Events {
    type Item = &'a Event;
    type IntoIter = std::slice::Iter<'a, Event>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Events {
    type Item = &'a mut Event;
    type IntoIter = std::slice::IterMut<'a, Event>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

/// The events of an [`Events`], by value, in order.
pub struct IntoIter(Lean<Left>);

impl std::fmt::Debug for IntoIter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("IntoIter").field(&*self.0).finish()
    }
}

#[derive(Debug, Default)]
enum Left {
    #[default]
    None,
    One(Event),
    Many(std::vec::IntoIter<Event>),
}

impl Iterator for IntoIter {
    type Item = Event;

    #[inline]
    fn next(&mut self) -> Option<Event> {
        match &mut *self.0 {
            Left::None => None,
            Left::Many(all) => all.next(),
            Left::One(_) => match std::mem::take(&mut *self.0) {
                Left::One(event) => Some(event),
                _ => None,
            },
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len();
        (n, Some(n))
    }
}

impl DoubleEndedIterator for IntoIter {
    #[inline]
    fn next_back(&mut self) -> Option<Event> {
        match &mut *self.0 {
            Left::Many(all) => all.next_back(),
            _ => self.next(),
        }
    }
}

impl ExactSizeIterator for IntoIter {
    #[inline]
    fn len(&self) -> usize {
        match &*self.0 {
            Left::None => 0,
            Left::One(_) => 1,
            Left::Many(all) => all.len(),
        }
    }
}

impl std::iter::FusedIterator for IntoIter {}

/// A value dropped with one test where it holds nothing (the events of most
/// pushes), and out of line otherwise. The drop glue of an enum that may
/// hold an event is not always inlined where it is dropped, and a push is a
/// few instructions: a call to drop nothing would cost more than the push.
#[derive(Clone, Default)]
struct Lean<T: Vacant>(ManuallyDrop<T>);

/// What a [`Lean`] holds: events, none by default, dropped in place (only
/// `Lean` drops them: a `ManuallyDrop` holds them).
trait Vacant: Default {
    fn is_vacant(&self) -> bool;

    /// The one event held, where it is one (a row's, mostly).
    fn one(&mut self) -> Option<&mut Event>;

    fn vacate(&mut self) {
        match self.one() {
            // What the event owns goes, and nothing is moved.
            Some(event) => *event = Event::Withdrawn,
            None => *self = Self::default(),
        }
    }
}

impl<T: Vacant> Lean<T> {
    #[inline]
    fn new(value: T) -> Self {
        Lean(ManuallyDrop::new(value))
    }
}

impl<T: Vacant> Drop for Lean<T> {
    #[inline(always)]
    fn drop(&mut self) {
        if !self.0.is_vacant() {
            vacate(&mut *self.0);
        }
    }
}

#[inline(never)]
fn vacate<T: Vacant>(value: &mut T) {
    value.vacate();
}

impl<T: Vacant> Deref for Lean<T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Vacant> DerefMut for Lean<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// `Held` and `Left` alike: `None` holds nothing, `One` one event.
macro_rules! vacant {
    ($($held:ident),*) => {$(
        impl Vacant for $held {
            #[inline]
            fn is_vacant(&self) -> bool {
                matches!(self, $held::None)
            }

            fn one(&mut self) -> Option<&mut Event> {
                match self {
                    $held::One(event) => Some(event),
                    _ => None,
                }
            }
        }
    )*};
}

vacant!(Held, Left);

#[cfg(test)]
mod tests {
    use super::*;

    fn field(n: usize) -> Event {
        Event::Field {
            key: format!("k{n}").into(),
            value: n.into(),
            repairs: Vec::new(),
        }
    }

    #[test]
    fn events_keep_their_order_however_many() {
        for n in 0..4 {
            let expected: Vec<Event> = (0..n).map(field).collect();
            let mut events = Events::new();
            for e in expected.clone() {
                events.push(e);
            }
            assert_eq!(events.len(), n);
            assert_eq!(events.is_empty(), n == 0);
            assert_eq!(events, expected);
            assert_eq!(
                events.iter().collect::<Vec<_>>(),
                expected.iter().collect::<Vec<_>>()
            );
            let by_value = events.clone().into_iter();
            assert_eq!(by_value.size_hint(), (n, Some(n)));
            assert_eq!(by_value.collect::<Vec<_>>(), expected);
            assert_eq!(
                events.clone().into_iter().rev().collect::<Vec<_>>(),
                expected.iter().rev().cloned().collect::<Vec<_>>()
            );
            assert_eq!(Vec::from(events.clone()), expected);
            assert_eq!(expected.iter().cloned().collect::<Events>(), events);
        }
    }

    #[test]
    fn an_iterator_by_value_ends_and_stays_ended() {
        let mut one = Events::new();
        one.push(field(7));
        let mut it = one.into_iter();
        assert_eq!(it.next(), Some(field(7)));
        assert_eq!(it.size_hint(), (0, Some(0)));
        assert_eq!(it.next(), None);
        assert_eq!(it.next_back(), None);
    }

    #[test]
    fn events_are_changed_in_place() {
        let mut events: Events = (0..2).map(field).collect();
        for e in &mut events {
            *e = field(9);
        }
        assert_eq!(events, vec![field(9), field(9)]);
        events[0] = field(1);
        assert_eq!(events[..], [field(1), field(9)][..]);
    }
}
