//! The events one push decides, held without allocating where there is at
//! most one: a push decides one event when a row's line ends and none while a
//! line is still arriving, so a `Vec` would allocate for nearly every row.

use std::ops::{Deref, DerefMut};

use super::event::Event;

/// The events a [`push`](super::ToonStream::push) or an
/// [`end`](super::ToonStream::end) decided, in the order they were decided.
///
/// It reads as a slice of [`Event`]s (`len`, `is_empty`, indexing, `iter`),
/// iterates by value with `for`, and becomes a `Vec` with
/// [`into_vec`](Self::into_vec). None or one event is held without allocating.
///
/// ```
/// # #[cfg(feature = "derive")] {
/// use toon_core::{Toon, ToonStream};
///
/// #[derive(Debug, PartialEq, Toon)]
/// struct Row { id: u32 }
///
/// let mut stream = ToonStream::<Vec<Row>>::new();
/// assert!(stream.push("[3]{id}:\n  1\n").len() == 1);
/// let events = stream.push("  2\n  3\n");
/// assert_eq!(events.len(), 2);
/// let rows: Vec<Row> = events.iter().map(|e| e.decode().unwrap()).collect();
/// assert_eq!(rows, [Row { id: 2 }, Row { id: 3 }]);
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
    /// Adds the next event decided.
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

    /// The events as a `Vec`.
    pub fn into_vec(self) -> Vec<Event> {
        match self.0 {
            Held::None => Vec::new(),
            Held::One(event) => vec![event],
            Held::Many(all) => all,
        }
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

impl From<Events> for Vec<Event> {
    fn from(events: Events) -> Self {
        events.into_vec()
    }
}

impl PartialEq<[Event]> for Events {
    fn eq(&self, other: &[Event]) -> bool {
        **self == *other
    }
}

impl PartialEq<Vec<Event>> for Events {
    fn eq(&self, other: &Vec<Event>) -> bool {
        **self == **other
    }
}

impl IntoIterator for Events {
    type Item = Event;
    type IntoIter = EventsIntoIter;

    fn into_iter(self) -> EventsIntoIter {
        EventsIntoIter(match self.0 {
            Held::None => Iter::One(None),
            Held::One(event) => Iter::One(Some(event)),
            Held::Many(all) => Iter::Many(all.into_iter()),
        })
    }
}

impl<'e> IntoIterator for &'e Events {
    type Item = &'e Event;
    type IntoIter = std::slice::Iter<'e, Event>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'e> IntoIterator for &'e mut Events {
    type Item = &'e mut Event;
    type IntoIter = std::slice::IterMut<'e, Event>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

/// The events of an [`Events`], by value, in order.
#[derive(Debug, Clone)]
pub struct EventsIntoIter(Iter);

#[derive(Debug, Clone)]
enum Iter {
    One(Option<Event>),
    Many(std::vec::IntoIter<Event>),
}

impl Iterator for EventsIntoIter {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        match &mut self.0 {
            Iter::One(event) => event.take(),
            Iter::Many(all) => all.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match &self.0 {
            Iter::One(event) => usize::from(event.is_some()),
            Iter::Many(all) => all.len(),
        };
        (n, Some(n))
    }
}

impl DoubleEndedIterator for EventsIntoIter {
    fn next_back(&mut self) -> Option<Event> {
        match &mut self.0 {
            Iter::One(event) => event.take(),
            Iter::Many(all) => all.next_back(),
        }
    }
}

impl ExactSizeIterator for EventsIntoIter {}

impl std::iter::FusedIterator for EventsIntoIter {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn field(n: i64) -> Event {
        Event::Field {
            key: format!("k{n}"),
            value: Value::from(n),
            repairs: Vec::new(),
        }
    }

    #[test]
    fn events_keep_their_order_however_many() {
        for n in 0..4 {
            let mut events = Events::default();
            let all: Vec<Event> = (0..n).map(field).collect();
            for e in all.clone() {
                events.push(e);
            }
            assert_eq!(events.len(), all.len());
            assert_eq!(events, all);
            assert_eq!(
                events.iter().collect::<Vec<_>>(),
                all.iter().collect::<Vec<_>>()
            );
            assert_eq!(events.clone().into_iter().len(), all.len());
            assert_eq!(events.clone().into_iter().collect::<Vec<_>>(), all);
            assert_eq!(
                events.clone().into_iter().rev().collect::<Vec<_>>(),
                all.iter().rev().cloned().collect::<Vec<_>>()
            );
            assert_eq!(events.into_vec(), all);
        }
    }

    #[test]
    fn events_can_be_changed_in_place() {
        let mut events = Events::default();
        events.push(field(1));
        for e in &mut events {
            *e = field(2);
        }
        assert_eq!(events[0], field(2));
    }
}
