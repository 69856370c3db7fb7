use toon_core::Toon;

#[derive(Toon)]
struct Span {
    range: (u32, u32),
}

fn main() {}
