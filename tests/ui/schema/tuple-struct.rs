use toon_core::OutputSchema;

#[derive(OutputSchema)]
struct Pair(String, String);

fn main() {}
