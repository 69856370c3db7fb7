use toon_core::Toon;

#[derive(Toon)]
struct Report {
    #[toon(range(min = 0.5, max = 0.7))]
    grade: u8,
}

fn main() {}
