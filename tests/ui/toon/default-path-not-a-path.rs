use toon_core::Toon;

#[derive(Toon)]
struct Answer {
    #[serde(default = "not a path")]
    text: String,
}

fn main() {}
