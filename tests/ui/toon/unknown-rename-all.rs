use toon_core::Toon;

#[derive(Toon)]
#[toon(rename_all = "Title Case")]
struct Answer {
    text: String,
}

fn main() {}
