use toon_core::Toon;

#[derive(Toon, serde::Deserialize)]
#[serde(untagged)]
enum Verdict {
    Yes,
    No,
}

fn main() {}
