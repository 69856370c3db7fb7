use toon_core::Toon;

#[derive(Toon)]
struct Report {
    #[toon(range(min = 1))]
    #[validate(range(max = 5))]
    tries: u8,
    // The same constraint twice, as schemars and validator both take it, is one.
    #[schemars(length(max = 8))]
    #[validate(length(max = 8, message = "too long", code = "len"))]
    label: String,
}

fn main() {}
