use toon_core::Toon;

#[derive(Toon)]
enum Status {
    Compliant,
    #[serde(untagged)]
    Other,
}

fn main() {}
