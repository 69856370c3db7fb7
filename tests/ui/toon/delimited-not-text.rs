use toon_core::Toon;

#[derive(Toon)]
struct Answer {
    found: bool,
    #[toon(delimited)]
    citations: Vec<u32>,
}

fn main() {}
