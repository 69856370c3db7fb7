//! The resource bounds the README states, checked on every fuzz input: peak
//! memory during a call at most 64 times the input plus 1 MiB, counted by
//! the tests' counting allocator, which each target installs. (Time linear
//! in the input is asserted by `tests/hostile_time.rs`, as growth between
//! sizes; a fuzz run bounds the time of one input with libFuzzer's `-timeout`.)

#[path = "../../../tests/common/alloc.rs"]
mod alloc;

pub use alloc::Counting;

/// Runs `f` on `input` and asserts its peak memory within the bound; `what`
/// names the entry point in the failure.
pub fn within<T>(what: &str, input: &str, f: impl FnOnce() -> T) -> T {
    let (out, peak) = alloc::peak_during(f);
    let limit = 64 * input.len() + (1 << 20);
    assert!(
        peak <= limit,
        "{what}: peak {peak} bytes for {} bytes of input (limit {limit})",
        input.len()
    );
    out
}
