use toon_core::Toon;

#[derive(Toon)]
struct Answer {
    #[toon(transparent)]
    text: String,
}

fn main() {}
