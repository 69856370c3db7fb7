use toon_core::Toon;

#[derive(Toon)]
struct Order {
    id: u128,
    lines: Vec<i128>,
    // Never read from a reply: a skipped field may be 128 bits wide.
    #[toon(skip)]
    cache_key: u128,
}

#[derive(Toon)]
struct Wide(i128);

fn main() {}
