use toon_core::Toon;

#[derive(Toon)]
union Bits {
    a: u32,
    b: f32,
}

fn main() {}
