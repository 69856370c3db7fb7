use toon_core::OutputSchema;

#[derive(OutputSchema)]
struct Answer {
    text: &'static str,
}

fn main() {}
