use toon_core::Toon;

#[derive(Toon)]
#[toon(tag = "kind")]
enum Answer {
    Found {
        #[toon(delimited)]
        text: String,
    },
    Missing,
}

fn main() {}
