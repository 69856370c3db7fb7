use toon_core::Toon;

#[derive(Toon)]
enum Status {
    Compliant,
    #[serde(skip_deserializing)]
    Unknown,
}

fn main() {}
