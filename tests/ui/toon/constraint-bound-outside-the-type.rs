use toon_core::Toon;

#[derive(Toon)]
struct Report {
    #[schemars(range(min = 0, max = 300))]
    grade: Option<u8>,
}

fn main() {}
