use toon_core::Toon;

#[derive(Toon)]
#[serde(tag = "kind")]
enum Answer {
    #[serde(with = "crate::found")]
    Found { text: String },
    Missing,
}

fn main() {}
