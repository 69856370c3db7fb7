use toon_core::Toon;

#[derive(Toon)]
struct Answer {
    #[toon(rename = "a", rename = "b")]
    text: String,
    #[toon(flatten)]
    other: String,
    label: &'static str,
}

fn main() {}
