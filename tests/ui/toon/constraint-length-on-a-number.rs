use toon_core::Toon;

#[derive(Toon)]
struct Report {
    #[toon(length(max = 3))]
    grade: u8,
}

fn main() {}
