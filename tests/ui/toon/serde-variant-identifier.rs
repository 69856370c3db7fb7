use toon_core::Toon;

#[derive(Toon)]
#[serde(variant_identifier)]
enum Key {
    Text,
    Score,
}

fn main() {}
