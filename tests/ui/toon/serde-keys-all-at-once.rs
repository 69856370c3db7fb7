use toon_core::Toon;

#[derive(Toon)]
#[toon(rename = "answer")]
#[serde(deny_unknown_fields, untagged)]
struct Answer {
    #[serde(flatten)]
    meta: Meta,
    #[toon(tag = "kind")]
    #[serde(skip_serializing_if = "String::is_empty", with = "crate::text")]
    text: String,
}

#[derive(Toon)]
struct Meta {
    model: String,
}

fn main() {}
