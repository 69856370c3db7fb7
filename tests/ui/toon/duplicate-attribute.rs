use toon_core::Toon;

#[derive(Toon)]
struct Answer {
    #[toon(rename = "a", rename = "b")]
    text: String,
}

fn main() {}
