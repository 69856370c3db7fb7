//! The decode-speed measurement alone, the decoders taking turns: each one's
//! fastest run and its ratio to serde_json, on the compliance records and on
//! records of short cells. Quicker than `scripts/bench.sh`, for checking a
//! change: `cargo run --release --bin turns [rounds] [rows] [decoder] [kind]` (a
//! decoder's name keeps serde_json and that decoder only, for a profiler;
//! `violations` or `short` one kind of records).

use toon_benchmarks::{change_inputs, interleaved, violation_inputs, Decoder};

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let rows = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let only = args.next().unwrap_or_default();
    // A fourth argument, `violations` or `short`, runs one kind of records only.
    let kind = args.next().unwrap_or_default();
    if kind != "short" {
        println!("violations:");
        turns(violation_inputs(rows).decoders(), rounds, rows, &only);
    }
    if kind != "violations" {
        println!("short cells:");
        turns(change_inputs(rows).decoders(), rounds, rows, &only);
    }
}

fn turns<T>(mut decoders: Vec<Decoder<'_, T>>, rounds: usize, rows: usize, only: &str) {
    decoders.retain(|(name, _)| {
        only.is_empty() || name.ends_with("serde_json") || name.trim_start_matches("short_") == only
    });
    let best = interleaved(&decoders, rounds);
    let json = best[0].1.as_secs_f64();
    for (name, t) in &best {
        let per_row = t.as_secs_f64() * 1e9 / rows as f64;
        println!(
            "  {name:24} {per_row:8.0} ns/row {:6.2}x serde_json",
            t.as_secs_f64() / json
        );
    }
}
