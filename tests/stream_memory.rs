//! An events-only stream's memory is bounded by the longest line and the record
//! being built, not the completion: fed a 2 MB reply in small chunks, its peak
//! stays a few kilobytes above the events handed out; a stream that keeps the
//! text for `finish` keeps at most `max_bytes` of it (measured by a counting
//! allocator; this binary holds only this test).

mod common;

use std::sync::atomic::Ordering;

use common::alloc::{peak_during, Counting, CURRENT};
use common::types::Detections;
use toon_core::{stream::ToonEvents, ParseErrorKind, ReplyOptions, ToonStream};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn events_only_memory_is_bounded_by_the_line_not_the_reply() {
    let rows = 20_000;
    let mut text = format!("objects[{rows}]{{label,score,note}}:\n");
    for i in 0..rows {
        text.push_str(&format!(
            "  cup,0.{},a white mug with a chipped handle, seen from the left number {i}\n",
            i % 10
        ));
    }
    text.push_str(&format!("count: {rows}\n"));
    assert!(text.len() > 1_500_000);
    let chunks: Vec<&str> = text
        .as_bytes()
        .chunks(7)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();

    let (seen, peak) = peak_during(|| {
        let mut events = ToonEvents::<Detections>::new();
        let mut seen = 0;
        for c in &chunks {
            // Consume each event as it comes (here: count it, and drop it).
            seen += events.push(c).len();
        }
        seen + events.end().len()
    });
    assert_eq!(seen, rows + 1, "every row and the `count` field");
    assert!(
        peak < 64 * 1024,
        "peak {peak} bytes for a {} byte reply",
        text.len()
    );

    // The stream that keeps the text for `finish` holds the reply, as documented.
    let (_, kept) = peak_during(|| {
        let mut s = ToonStream::<Detections>::new();
        for c in &chunks {
            drop(s.push(c));
        }
        s.end();
        s.finish().unwrap().value.objects.len()
    });
    assert!(
        kept > text.len(),
        "the full stream keeps the text: peak {kept}"
    );

    // Up to `max_bytes`: past it the reply is refused whatever it holds, so
    // the stream keeps no more text than an events-only stream, its events go
    // on, and `finish` refuses the reply as `from_toon` does.
    let options = ReplyOptions {
        max_bytes: 64 * 1024,
        ..Default::default()
    };
    let ((seen, refusal), bounded) = peak_during(|| {
        let mut s = ToonStream::<Detections>::with_options(options);
        let mut seen = 0;
        for c in &chunks {
            seen += s.push(c).len();
        }
        seen += s.end().len();
        (seen, s.finish().unwrap_err())
    });
    assert_eq!(seen, rows + 1, "every event, past the limit too");
    assert!(
        bounded < 3 * options.max_bytes,
        "peak {bounded} bytes under a limit of {}",
        options.max_bytes
    );
    let whole = toon_core::ToonOutputParser::<Detections>::new()
        .options(options)
        .parse_with_report(&text)
        .unwrap_err();
    assert_eq!(refusal.kind(), ParseErrorKind::LimitExceeded);
    assert_eq!(refusal.to_string(), whole.to_string());

    // Events dropped, iterated in part or in whole, free what they held, one
    // event or many: once the stream and every event are gone, no byte is left.
    let before = CURRENT.load(Ordering::Relaxed);
    let kept = {
        let mut s = ToonStream::<Detections>::new();
        let mut kept = Vec::new();
        // 7 bytes a push decides one row at most; 500, several.
        let (small, large) = text.split_at(text.len() / 2);
        let pieces = small
            .as_bytes()
            .chunks(7)
            .chain(large.as_bytes().chunks(500));
        for (i, c) in pieces.enumerate() {
            let events = s.push(std::str::from_utf8(c).unwrap());
            match i % 3 {
                0 => drop(events),
                1 => drop(events.into_iter().next()),
                _ => kept.extend(events),
            }
        }
        kept.extend(s.end());
        assert_eq!(s.finish().unwrap().value.objects.len(), rows);
        kept.len()
    };
    assert!(kept > rows / 8, "{kept} events kept");
    assert_eq!(CURRENT.load(Ordering::Relaxed), before, "bytes left");
}
