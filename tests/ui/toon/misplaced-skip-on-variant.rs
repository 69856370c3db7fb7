use toon_core::Toon;

#[derive(Toon)]
enum Status {
    Compliant,
    #[toon(skip)]
    Unknown,
}

fn main() {}
