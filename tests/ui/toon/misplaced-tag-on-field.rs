use toon_core::Toon;

#[derive(Toon)]
struct Answer {
    #[toon(tag = "kind")]
    text: String,
}

fn main() {}
