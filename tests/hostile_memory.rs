//! Counts a header overstates cost no memory beyond what the input could fill:
//! many tables, each declaring far more rows than it has, through the
//! decoder, the reply decoder, a typed read and a stream, with peak memory
//! measured by a counting allocator (this binary holds one test, so nothing
//! else allocates meanwhile).

mod common;

use std::collections::BTreeMap;

use common::alloc::{peak_during, Counting};
use toon_core::{decode, decode_reply, OutputSchema, Toon, ToonStream};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One row of the tables below.
#[derive(Debug, Toon, OutputSchema)]
struct Row {
    a: String,
    b: String,
    c: String,
}

/// `tables` tables, each declaring 100,000 rows over one.
fn overstated(tables: usize) -> String {
    (0..tables)
        .map(|i| format!("t{i}[100000]{{a,b,c}}:\n  x,y,z\n"))
        .collect()
}

/// Peak memory at most a small multiple of the input: the text, its lines,
/// the tree and the value each take a few times its bytes (measured here:
/// 6 times for `decode`, 32 for `decode_reply` and `from_toon`, 33 to 34 for
/// a stream, whose `finish` runs the same decode on the text it kept).
fn within(what: &str, input: &str, peak: usize) {
    let limit = 64 * input.len() + (1 << 20);
    assert!(
        peak <= limit,
        "{what}: peak {peak} bytes for {} bytes of input (limit {limit})",
        input.len()
    );
}

#[test]
fn overstated_counts_reserve_no_more_than_the_input_can_fill() {
    for tables in [500, 4_000] {
        let input = overstated(tables);
        let (spec, peak) = peak_during(|| decode(&input, &Default::default()));
        within("decode", &input, peak);
        assert!(
            spec.is_err(),
            "the spec refuses a count its rows do not make"
        );
        let (reply, peak) = peak_during(|| decode_reply(&input));
        within("decode_reply", &input, peak);
        assert_eq!(reply.unwrap().as_object().map(|o| o.len()), Some(tables));
        let (typed, peak) = peak_during(|| BTreeMap::<String, Vec<Row>>::from_toon(&input));
        within("from_toon", &input, peak);
        assert_eq!(typed.unwrap().len(), tables);
        let (streamed, peak) = peak_during(|| {
            let mut stream = ToonStream::<BTreeMap<String, Vec<Row>>>::new();
            for line in input.split_inclusive('\n') {
                let _ = stream.push(line);
            }
            let _ = stream.end();
            stream.finish()
        });
        within("a stream", &input, peak);
        assert_eq!(streamed.unwrap().value.len(), tables);
    }
}

/// Each type of this file, declared at run time from this file's source,
/// gives the derived type's artefacts (tests/declared.rs has the readings).
#[test]
fn declared_at_run_time_alike() {
    common::declared::agree(include_str!("hostile_memory.rs"), &crate::derived![Row]);
}
