//! The spec decoder on arbitrary text, strict and not: no panic; and whatever
//! decodes, the encoder writes as text that decodes and encodes to itself;
//! peak memory within the stated bound.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toon_core::{decode, encode, spec::DecodeOptions};

#[path = "common/bounds.rs"]
mod bounds;

#[global_allocator]
static ALLOCATOR: bounds::Counting = bounds::Counting;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for strict in [true, false] {
        let opts = DecodeOptions {
            strict,
            ..Default::default()
        };
        if let Ok(v) = bounds::within("decode", &text, || decode(&text, &opts)) {
            let once = encode(&v, &Default::default());
            let back = decode(&once, &DecodeOptions::default())
                .expect("the encoder's output is valid TOON");
            assert_eq!(
                encode(&back, &Default::default()),
                once,
                "the encoded form is not stable"
            );
        }
    }
});
