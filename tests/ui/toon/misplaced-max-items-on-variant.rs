use toon_core::Toon;

#[derive(Toon)]
#[toon(tag = "kind")]
enum Answer {
    #[toon(max_items = 3)]
    Found { items: Vec<String> },
}

fn main() {}
