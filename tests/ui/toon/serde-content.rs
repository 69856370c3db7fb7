use toon_core::Toon;

#[derive(Toon, serde::Deserialize)]
#[serde(tag = "kind", content = "data")]
enum Answer {
    Found { text: String },
    Missing,
}

fn main() {}
