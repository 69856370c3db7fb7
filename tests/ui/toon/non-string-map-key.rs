use std::collections::BTreeMap;

use toon_core::Toon;

#[derive(Toon)]
struct Scores {
    by_id: BTreeMap<u32, f64>,
}

fn main() {}
