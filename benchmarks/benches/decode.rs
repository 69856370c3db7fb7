//! Decode speed, against what a user would pick instead, in one run: a
//! 10,000-row tabular reply into `Vec<Violation>` (compliance records) and into
//! `Vec<FileChange>` (short cells) with `from_toon`, serde_json on the same data
//! as JSON, and the two TOON crates on the same TOON text; then the same reply
//! needing repairs and one refused on its last row against the clean one, and
//! streaming against whole-text decoding (the decoders are listed in
//! `DecodeInputs::decoders`).
//! `src/bin/report.rs` turns the results into ratios.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use toon_benchmarks::{change_inputs, violation_inputs, Decoder};

const ROWS: usize = 10_000;

fn decode(c: &mut Criterion) {
    let (violations, changes) = (violation_inputs(ROWS), change_inputs(ROWS));
    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Elements(ROWS as u64));
    g.sample_size(20);
    fn run<T>(
        g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        decoders: Vec<Decoder<'_, T>>,
    ) {
        for (name, decode) in decoders {
            g.bench_function(name, |b| b.iter(&decode));
        }
    }
    run(&mut g, violations.decoders());
    run(&mut g, changes.decoders());
    g.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
