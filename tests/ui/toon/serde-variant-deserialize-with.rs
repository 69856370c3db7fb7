use toon_core::Toon;

#[derive(Toon)]
enum Status {
    Compliant,
    #[serde(deserialize_with = "crate::lenient")]
    NonCompliant,
}

fn main() {}
