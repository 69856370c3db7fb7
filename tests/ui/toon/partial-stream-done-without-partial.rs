use toon_core::Toon;

#[derive(Toon)]
struct Plan {
    title: String,
    #[toon(stream(done))]
    steps: Vec<String>,
}

fn main() {}
