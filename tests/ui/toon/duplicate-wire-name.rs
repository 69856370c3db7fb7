use toon_core::Toon;

#[derive(Toon)]
struct Answer {
    text: String,
    #[toon(rename = "text")]
    body: String,
}

fn main() {}
