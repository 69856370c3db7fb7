use toon_core::Toon;

#[derive(Toon)]
struct Report {
    #[validate(range(min = 1))]
    name: String,
}

fn main() {}
