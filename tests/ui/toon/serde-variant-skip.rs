use toon_core::Toon;

#[derive(Toon)]
enum Status {
    Compliant,
    #[serde(skip)]
    Unknown,
}

fn main() {}
