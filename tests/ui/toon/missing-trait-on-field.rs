use toon_core::Toon;

struct NotToon;

#[derive(Toon)]
struct Answer {
    text: String,
    extra: NotToon,
}

fn main() {}
