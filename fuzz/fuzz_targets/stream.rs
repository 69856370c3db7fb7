//! The stream decoder on a realistic type: no panic, in chunks of any sizes,
//! and `finish` returns exactly what `ToonOutputParser::parse_with_report` returns on the
//! whole text (with a `max_bytes` around the text's length where the first
//! byte's high bit is set); every row it emitted that stands is in the final
//! value at its index, and a delimited field's text events, where none was
//! withdrawn, add up to the final value's field; peak memory within the
//! stated bound.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toon_core::{stream::Event as StreamEvent, ParseError, Reply, ReplyOptions, Toon, ToonStream};

#[path = "common/bounds.rs"]
mod bounds;

#[global_allocator]
static ALLOCATOR: bounds::Counting = bounds::Counting;
#[path = "common/briefing.rs"]
mod briefing;
#[path = "common/compliance.rs"]
mod compliance;
use briefing::Briefing;
use compliance::{ComplianceAnalysis, Violation};

/// Streams `text` in chunks whose sizes (in characters, 1 to 16) come from
/// `seed`; returns the events and `finish`.
fn stream<T: Toon>(
    text: &str,
    seed: u8,
    options: ReplyOptions,
) -> (Vec<StreamEvent>, Result<Reply<T>, ParseError>) {
    let mut s = ToonStream::<T>::with_options(options);
    let mut events = Vec::new();
    let mut state = u32::from(seed) | 1;
    let mut rest = text;
    while !rest.is_empty() {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let n = 1 + (state >> 16) as usize % 16;
        let at = rest.char_indices().nth(n).map_or(rest.len(), |(i, _)| i);
        events.extend(s.push(&rest[..at]));
        rest = &rest[at..];
    }
    events.extend(s.end());
    (events, s.finish())
}

/// A reply's rows, and the key its stream emits them under.
trait Rows: Toon + PartialEq + std::fmt::Debug {
    const KEY: &'static str;
    fn rows(&self) -> &[Violation];
    /// The delimited field `key`, if the type has one.
    fn prose(&self, _key: &str) -> Option<&str> {
        None
    }
}

impl Rows for ComplianceAnalysis {
    const KEY: &'static str = "violations";
    fn rows(&self) -> &[Violation] {
        &self.violations
    }
}

impl Rows for Briefing {
    const KEY: &'static str = "violations";
    fn rows(&self) -> &[Violation] {
        &self.violations
    }
    fn prose(&self, key: &str) -> Option<&str> {
        match key {
            "summary" => Some(&self.summary),
            "answer" => Some(&self.answer),
            _ => None,
        }
    }
}

impl Rows for Vec<Violation> {
    const KEY: &'static str = "";
    fn rows(&self) -> &[Violation] {
        self
    }
}

fn check<T: Rows>(text: &str, seed: u8) {
    // From none to a little more than the text's length.
    let options = ReplyOptions {
        max_bytes: match seed & 0x80 {
            0 => ReplyOptions::default().max_bytes,
            _ => text.len() * usize::from(seed & 0x7f) / 100,
        },
        ..Default::default()
    };
    let whole = toon_core::ToonOutputParser::<T>::new().options(options).parse_with_report(text);
    let (events, finished) = bounds::within("stream", text, || stream::<T>(text, seed, options));
    match (&finished, &whole) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.value, b.value, "{text:?} in chunks from {seed}");
            assert_eq!(a.repairs, b.repairs, "{text:?} in chunks from {seed}");
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "{text:?} in chunks from {seed}"),
        _ => panic!("{text:?} in chunks from {seed}: {finished:?} != {whole:?}"),
    }
    // A successful finish holds every row emitted that stands (after the
    // last `Withdrawn`), at its event's index.
    if let Ok(reply) = &finished {
        let from = events
            .iter()
            .rposition(|e| matches!(e, StreamEvent::Withdrawn))
            .map_or(0, |i| i + 1);
        for e in &events[from..] {
            if let StreamEvent::Item {
                key,
                index,
                element,
            } = e
            {
                if key == T::KEY {
                    let row = element.decode::<Violation>();
                    assert_eq!(
                        row.ok().as_ref(),
                        reply.value.rows().get(*index),
                        "{text:?}: row {index}"
                    );
                }
            }
        }
        // Text events are only ever added to, unless a withdrawal voided them.
        if from == 0 {
            let mut texts: Vec<(&str, String)> = Vec::new();
            for e in &events {
                if let StreamEvent::Text { key, delta } = e {
                    match texts.iter_mut().find(|(k, _)| k == key) {
                        Some((_, text)) => text.push_str(delta),
                        None => texts.push((key, delta.clone())),
                    }
                }
            }
            for (key, text) in texts {
                assert_eq!(
                    Some(text.as_str()),
                    reply.value.prose(key),
                    "{text:?}: {key}"
                );
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&seed, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    check::<ComplianceAnalysis>(&text, seed);
    check::<Vec<Violation>>(&text, seed);
    check::<Briefing>(&text, seed);
});
