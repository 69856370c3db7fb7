use toon_core::Toon;

#[derive(Toon)]
enum Finding {
    Found { answer: String },
    NotFound,
}

fn main() {}
