use toon_core::OutputSchema;

#[derive(OutputSchema)]
struct Tree(Option<Box<Self>>);

fn main() {}
