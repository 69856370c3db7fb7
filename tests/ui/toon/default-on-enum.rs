use toon_core::Toon;

#[derive(Toon)]
#[serde(default)]
enum Status {
    Compliant,
    NonCompliant,
}

fn main() {}
