use toon_core::Toon;

#[derive(Toon)]
#[toon(partial)]
struct Plan {
    next_step: String,
    #[toon(rename = "next")]
    next_Step: String,
}

fn main() {}
