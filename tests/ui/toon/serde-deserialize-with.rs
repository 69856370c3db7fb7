use toon_core::Toon;

#[derive(Toon)]
struct Answer {
    #[serde(deserialize_with = "crate::lenient")]
    score: u32,
}

fn main() {}
