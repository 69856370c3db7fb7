//! The reply decoder on arbitrary text: no panic; every refusal names its kind
//! and (but for an empty reply) a line; peak memory within the stated bound.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toon_core::{ParseErrorKind};

#[path = "common/bounds.rs"]
mod bounds;

#[global_allocator]
static ALLOCATOR: bounds::Counting = bounds::Counting;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match bounds::within("decode_reply", &text, || toon_core::reply::read(&text, &toon_core::ReplyOptions::default())) {
        Ok(reply) => assert!(reply.repairs.iter().all(|r| r.line >= 1)),
        Err(e) => {
            assert!(e.to_string().starts_with("TOON_PARSE_FAILURE: "));
            assert!(
                e.line().is_some()
                    || matches!(
                        e.kind(),
                        ParseErrorKind::EmptyCompletion | ParseErrorKind::LimitExceeded
                    )
            );
        }
    }
});
