use toon_core::Toon;

#[derive(Toon)]
#[serde(try_from = "String")]
struct Answer {
    text: String,
}

fn main() {}
