use toon_core::Toon;

#[derive(Toon)]
struct Scores {
    // `inner` bounds the items of a list or the values of a map.
    #[toon(inner(range(min = 1)))]
    total: u32,
    // Each item is text: its size is bounded by `length`.
    #[toon(inner(range(min = 1)))]
    tags: Vec<String>,
    // A list of numbers: each item by `inner(range(..))`, not the list.
    #[toon(range(min = 1))]
    points: Vec<u32>,
    // Only the items' constraints go in `inner`.
    #[toon(inner(rename = "x"))]
    names: Vec<String>,
}

fn main() {}
