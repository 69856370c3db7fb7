use toon_core::Toon;

#[derive(Toon)]
struct Answer {
    #[toon(crate = "toon_core")]
    text: String,
}

fn main() {}
