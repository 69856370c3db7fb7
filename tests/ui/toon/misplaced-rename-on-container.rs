use toon_core::Toon;

#[derive(Toon)]
#[toon(rename = "answer")]
struct Answer {
    text: String,
}

fn main() {}
