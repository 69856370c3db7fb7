use toon_core::Toon;

#[derive(Toon)]
enum Status {
    #[toon(default)]
    Compliant,
    NonCompliant,
}

fn main() {}
