use toon_core::Toon;

#[derive(Toon, serde::Deserialize)]
struct Answer {
    text: String,
    #[serde(flatten)]
    meta: Meta,
}

#[derive(Toon, serde::Deserialize)]
struct Meta {
    model: String,
}

fn main() {}
