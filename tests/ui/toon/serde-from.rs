use toon_core::Toon;

#[derive(Clone, serde::Deserialize)]
struct Raw {
    text: String,
}

impl From<Raw> for Answer {
    fn from(r: Raw) -> Self {
        Answer { words: r.text.split(' ').map(String::from).collect() }
    }
}

#[derive(Toon, serde::Deserialize)]
#[serde(from = "Raw")]
struct Answer {
    words: Vec<String>,
}

fn main() {}
