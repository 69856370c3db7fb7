use toon_core::Toon;

#[derive(Toon)]
struct Order {
    id: u128,
    lines: Vec<i128>,
}

fn main() {}
