use toon_core::Toon;

#[derive(Toon)]
struct Report {
    #[toon(pattern = "(?i)^r-[0-9]+$")]
    rule: String,
    #[toon(pattern = r"\bcat\b")]
    animal: String,
    #[toon(pattern = "^a(b$|c)")]
    letters: String,
    // Anchors at the ends of each alternative, and `^` in a class, are held.
    #[toon(pattern = "^[^a-z]+$|^x$")]
    fine: String,
}

fn main() {}
