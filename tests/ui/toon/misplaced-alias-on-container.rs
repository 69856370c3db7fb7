use toon_core::Toon;

#[derive(Toon)]
#[toon(alias = "reply")]
struct Answer {
    text: String,
}

fn main() {}
