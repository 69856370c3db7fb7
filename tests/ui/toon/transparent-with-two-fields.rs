use toon_core::Toon;

#[derive(Toon)]
#[serde(transparent)]
struct Answer {
    text: String,
    score: u32,
}

fn main() {}
