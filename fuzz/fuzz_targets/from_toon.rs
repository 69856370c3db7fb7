//! The typed decoder on a realistic type: no panic, and a value it reads writes
//! back (to_toon) to text it reads to the same value; peak memory within the
//! stated bound.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toon_core::Toon;

#[path = "common/bounds.rs"]
mod bounds;

#[global_allocator]
static ALLOCATOR: bounds::Counting = bounds::Counting;
#[path = "common/briefing.rs"]
mod briefing;
#[path = "common/compliance.rs"]
mod compliance;
use briefing::Briefing;
use compliance::ComplianceAnalysis;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(x) = bounds::within("from_toon", &text, || ComplianceAnalysis::from_toon(&text)) {
        let again = x.to_toon();
        let back = ComplianceAnalysis::from_toon(&again).expect("to_toon output reads back");
        // NaN is not equal to itself; everything else must survive.
        if x.confidence.map_or(true, |c| !c.is_nan()) {
            assert_eq!(back, x);
        }
    }
    if let Ok(x) = bounds::within("from_toon", &text, || Briefing::from_toon(&text)) {
        let again = x.to_toon();
        assert_eq!(Briefing::from_toon(&again).as_ref(), Ok(&x), "{again:?}");
    }
});
