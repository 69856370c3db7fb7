use toon_core::Toon;

#[derive(Toon)]
struct Answer {
    #[serde(rename(deserialise = "t"))]
    text: String,
}

fn main() {}
