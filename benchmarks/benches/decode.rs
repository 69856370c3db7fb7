//! Decode speed, against what a user would pick instead, in one run: a
//! 10,000-row tabular reply into `Vec<Violation>` with `from_toon`, serde_json on
//! the same data as JSON, and the two TOON crates on the same TOON text; then the
//! same reply needing repairs against the clean one, and streaming against
//! whole-text decoding. `src/bin/report.rs` turns the results into ratios.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use toon_benchmarks::{repaired_reply, violations, Violation};
use toon_core::{Toon, ToonStream};

const ROWS: usize = 10_000;

fn decode(c: &mut Criterion) {
    let data = violations(ROWS);
    let toon = data.to_toon();
    let json = serde_json::to_string(&data).unwrap();
    let repaired = repaired_reply(&toon);
    assert_eq!(Vec::<Violation>::from_toon(&repaired).unwrap(), data);
    assert_eq!(
        toon_format::decode_default::<Vec<Violation>>(&toon).unwrap(),
        data
    );
    assert_eq!(serde_toon::from_str::<Vec<Violation>>(&toon).unwrap(), data);

    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Elements(ROWS as u64));
    g.sample_size(20);
    g.bench_function("serde_json", |b| {
        b.iter(|| serde_json::from_str::<Vec<Violation>>(&json).unwrap())
    });
    g.bench_function("from_toon", |b| {
        b.iter(|| Vec::<Violation>::from_toon(&toon).unwrap())
    });
    g.bench_function("from_toon_repairs", |b| {
        b.iter(|| Vec::<Violation>::from_toon(&repaired).unwrap())
    });
    g.bench_function("toon_format", |b| {
        b.iter(|| toon_format::decode_default::<Vec<Violation>>(&toon).unwrap())
    });
    g.bench_function("serde_toon", |b| {
        b.iter(|| serde_toon::from_str::<Vec<Violation>>(&toon).unwrap())
    });
    g.bench_function("stream_4_bytes", |b| {
        b.iter(|| {
            let mut s = ToonStream::<Vec<Violation>>::new();
            for chunk in toon.as_bytes().chunks(4) {
                // The text is ASCII, so 4-byte chunks are whole characters.
                s.push(std::str::from_utf8(chunk).unwrap());
            }
            s.end();
            s.finish().unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
