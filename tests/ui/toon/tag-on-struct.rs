use toon_core::Toon;

#[derive(Toon)]
#[toon(tag = "kind")]
struct Answer {
    text: String,
}

fn main() {}
