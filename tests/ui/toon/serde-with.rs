use toon_core::Toon;

mod seconds {
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<std::time::Duration, D::Error> {
        <u64 as serde::Deserialize>::deserialize(d).map(std::time::Duration::from_secs)
    }
}

#[derive(Toon)]
struct Answer {
    #[serde(with = "seconds")]
    took: u64,
}

fn main() {}
