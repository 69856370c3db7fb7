use toon_core::Toon;

#[derive(Toon)]
#[toon(regex(pattern = "^R-[0-9]+$"))]
struct RuleId {
    id: String,
}

fn main() {}
