use toon_core::Toon;

#[derive(Toon)]
#[serde(transparent)]
enum Status {
    Compliant,
    NonCompliant,
}

fn main() {}
