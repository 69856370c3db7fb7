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
    type IntoIter = std::iter::Chain<std::option::IntoIter<Event>, std::vec::IntoIter<Event>>;

    fn into_iter(self) -> Self::IntoIter {
        let (one, many) = match self.0 {
            Held::None => (None, Vec::new()),
            Held::One(event) => (Some(event), Vec::new()),
            Held::Many(all) => (None, all),
        };
        one.into_iter().chain(many)
    }
}

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
