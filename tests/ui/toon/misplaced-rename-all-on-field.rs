use toon_core::Toon;

#[derive(Toon)]
struct Answer {
    #[toon(rename_all = "camelCase")]
    text: String,
}

fn main() {}
