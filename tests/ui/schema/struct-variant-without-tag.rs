use toon_core::OutputSchema;

#[derive(OutputSchema)]
enum Finding {
    Found { answer: String },
}

fn main() {}
