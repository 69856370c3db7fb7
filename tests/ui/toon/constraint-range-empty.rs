use toon_core::Toon;

#[derive(Toon)]
struct Report {
    #[toon(range(min = 5, max = 1))]
    grade: u8,
}

fn main() {}
