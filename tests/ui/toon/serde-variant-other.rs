use toon_core::Toon;

#[derive(Toon)]
#[serde(tag = "kind")]
enum Answer {
    Found { text: String },
    #[serde(other)]
    Unknown,
}

fn main() {}
