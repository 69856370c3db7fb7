use toon_core::Toon;

#[derive(Toon)]
#[toon(tag = "kind")]
enum Shape {
    Circle(f64),
    Empty,
}

fn main() {}
