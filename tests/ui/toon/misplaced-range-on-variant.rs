use toon_core::Toon;

#[derive(Toon)]
enum Status {
    #[toon(range(min = 0, max = 1))]
    Compliant,
}

fn main() {}
