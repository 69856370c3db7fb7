use toon_core::Toon;

#[derive(Toon)]
struct Report {
    #[toon(max_items = 1001)]
    rows: Vec<u8>,
    #[toon(max_len = 1000001)]
    body: String,
}

fn main() {}
