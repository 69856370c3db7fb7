use toon_core::Toon;

#[derive(Toon)]
#[toon(partial)]
struct Plan {
    _self: String,
}

fn main() {}
