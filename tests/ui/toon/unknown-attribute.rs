use toon_core::Toon;

#[derive(Toon)]
struct Answer {
    #[toon(renamed = "x")]
    text: String,
}

fn main() {}
