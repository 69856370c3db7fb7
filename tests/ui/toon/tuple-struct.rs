use toon_core::Toon;

#[derive(Toon)]
struct Point(f64, f64);

fn main() {}
