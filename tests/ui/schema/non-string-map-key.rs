use std::collections::HashMap;

use toon_core::OutputSchema;

#[derive(OutputSchema)]
struct Scores {
    by_id: HashMap<u32, f64>,
}

fn main() {}
