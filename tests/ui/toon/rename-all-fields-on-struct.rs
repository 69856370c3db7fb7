use toon_core::Toon;

#[derive(Toon)]
#[serde(rename_all_fields = "camelCase")]
struct Answer {
    full_text: String,
}

fn main() {}
