use toon_core::Toon;

// One mistake, one error: the refusal of `untagged` says what to write, and
// the struct variants are not refused again for lacking a tag.
#[derive(Toon, serde::Deserialize)]
#[serde(untagged)]
enum Finding {
    Found { answer: String },
    Missing { reason: String },
}

fn main() {}
