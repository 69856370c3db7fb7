use toon_core::OutputSchema;

#[derive(OutputSchema)]
union Bits {
    a: u32,
    b: f32,
}

fn main() {}
