use toon_core::Toon;

#[derive(Toon)]
struct Answer {
    #[toon(max_items = 0)]
    tags: Vec<String>,
}

fn main() {}
