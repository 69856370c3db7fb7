//! What one push returns: the events it decided, in order. Most pushes
//! decide none (the line goes on) or one (a row's line ended), so one event
//! is held in place and only more take an allocation.

use std::ops::{Deref, DerefMut};

use super::Event;

/// The events a [`push`](super::ToonStream::push) or an
/// [`end`](super::ToonStream::end) decided, in the order they were decided:
/// used as a slice of [`Event`]s, and iterated by value (`collect` makes a
/// `Vec` of them).
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use toon_core::{stream::Event, Toon, ToonStream};
///
/// #[derive(Debug, PartialEq, Toon)]
/// struct Row { id: u32 }
///
/// let mut stream = ToonStream::<Vec<Row>>::new();
/// assert_eq!(stream.push("[2]{id}:\n  1\n").len(), 1);
/// let all: Vec<Event> = stream.push("  2\n").into_iter().collect();
/// assert_eq!(all[0].decode::<Row>().unwrap(), Row { id: 2 });
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Events(Held);

#[derive(Debug, Clone, Default, PartialEq)]
enum Held {
    #[default]
    None,
    One(Event),
    Many(Vec<Event>),
}

impl Events {
    /// Adds the next event.
    pub(crate) fn push(&mut self, event: Event) {
        self.0 = match std::mem::take(&mut self.0) {
            Held::None => Held::One(event),
            Held::One(first) => Held::Many(vec![first, event]),
            Held::Many(mut all) => {
                all.push(event);
                Held::Many(all)
            }
        };
    }
}

impl Deref for Events {
    type Target = [Event];

    fn deref(&self) -> &[Event] {
        match &self.0 {
            Held::None => &[],
            Held::One(event) => std::slice::from_ref(event),
            Held::Many(all) => all,
        }
    }
}

impl DerefMut for Events {
    fn deref_mut(&mut self) -> &mut [Event] {
        match &mut self.0 {
            Held::None => &mut [],
            Held::One(event) => std::slice::from_mut(event),
            Held::Many(all) => all,
        }
    }
}

impl IntoIterator for Events {
    type Item = Event;
    type IntoIter = IntoIter;

    #[inline]
    fn into_iter(self) -> IntoIter {
        IntoIter(match self.0 {
            Held::None => Left::One(None),
            Held::One(event) => Left::One(Some(event)),
            Held::Many(all) => Left::Many(all.into_iter()),
        })
    }
}

/// The events of an [`Events`], by value.
#[derive(Debug)]
pub struct IntoIter(Left);

#[derive(Debug)]
enum Left {
    One(Option<Event>),
    Many(std::vec::IntoIter<Event>),
}

impl Iterator for IntoIter {
    type Item = Event;

    #[inline]
    fn next(&mut self) -> Option<Event> {
        match &mut self.0 {
            Left::One(event) => event.take(),
            Left::Many(all) => all.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.0 {
            Left::One(event) => usize::from(event.is_some()),
            Left::Many(all) => all.len(),
        };
        (n, Some(n))
    }
}

impl ExactSizeIterator for IntoIter {}

impl<'a> IntoIterator for &'a Events {
    type Item = &'a Event;
    type IntoIter = std::slice::Iter<'a, Event>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl Extend<Event> for Events {
    fn extend<I: IntoIterator<Item = Event>>(&mut self, events: I) {
        for event in events {
            self.push(event);
        }
    }
}

impl From<Events> for Vec<Event> {
    fn from(events: Events) -> Self {
        match events.0 {
            Held::None => Vec::new(),
            Held::One(event) => vec![event],
            Held::Many(all) => all,
        }
    }
}
