use toon_core::Toon;

#[derive(Toon)]
struct Answer<'a> {
    text: &'a str,
}

fn main() {}
