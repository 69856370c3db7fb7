use toon_core::Toon;

#[derive(Toon)]
#[toon(partial(name = "Plan", event = "PlanEvent"))]
struct Plan {
    title: String,
}

fn main() {}
