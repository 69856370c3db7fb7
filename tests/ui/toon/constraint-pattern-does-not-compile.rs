use toon_core::Toon;

#[derive(Toon)]
struct Report {
    #[toon(pattern = "R-[0-9")]
    rule: String,
}

fn main() {}
