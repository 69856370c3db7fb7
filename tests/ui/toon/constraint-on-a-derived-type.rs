use toon_core::Toon;

#[derive(Toon)]
struct Address {
    city: String,
}

#[derive(Toon)]
struct Customer {
    #[toon(length(max = 3))]
    address: Address,
}

fn main() {}
