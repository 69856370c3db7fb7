use toon_core::OutputSchema;

#[derive(OutputSchema)]
#[serde(tag = "kind")]
enum Shape {
    Circle(f64),
}

fn main() {}
