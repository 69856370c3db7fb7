use toon_core::Toon;

#[derive(Toon)]
#[toon(partial)]
struct Plan {
    #[toon(stream(eager))]
    steps: Vec<String>,
}

fn main() {}
