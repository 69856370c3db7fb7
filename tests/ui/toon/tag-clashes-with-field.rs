use toon_core::Toon;

#[derive(Toon)]
#[toon(tag = "kind")]
enum Event {
    Click { kind: String },
}

fn main() {}
