#!/usr/bin/env bash
# Every benchmark in one run, written to BENCHMARKS.md: tokens, decode speed
# against serde_json and the peer TOON crates, compile time, streaming.
set -euo pipefail
cd "$(dirname "$0")/../benchmarks"
cargo bench --bench decode
cargo run --release --bin report -- ../BENCHMARKS.md
