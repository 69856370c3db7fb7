use toon_core::Toon;

#[derive(Toon)]
#[toon(partial)]
enum Severity {
    Low,
    High,
}

fn main() {}
