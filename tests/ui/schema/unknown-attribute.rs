use toon_core::OutputSchema;

#[derive(OutputSchema)]
struct Answer {
    #[toon(description = "x")]
    text: String,
}

fn main() {}
