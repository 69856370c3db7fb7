use toon_core::Toon;

#[derive(Toon)]
#[toon(max_len = 80)]
struct Answer {
    text: String,
}

fn main() {}
