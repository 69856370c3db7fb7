use toon_core::Toon;

/// A grade, from 0 to 5.
#[derive(Toon)]
struct Grade(#[toon(range(min = 0, max = 5))] u8);

#[derive(Toon)]
struct Label(#[validate(length(max = 8))] String);

#[derive(Toon)]
struct Code(#[toon(no_such_key)] String);

fn main() {}
