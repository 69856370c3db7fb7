use toon_core::Toon;

#[derive(Toon)]
struct Report {
    #[toon(max_items = 1001)]
    rows: Vec<u8>,
    #[toon(max_len = 10001)]
    body: String,
    #[toon(length(min = 1500))]
    many: Vec<u8>,
    #[toon(length(min = 20000))]
    essay: String,
}

fn main() {}
