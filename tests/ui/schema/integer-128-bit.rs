use toon_core::OutputSchema;

#[derive(OutputSchema)]
struct Order {
    id: Option<u128>,
}

fn main() {}
