use toon_core::Toon;

#[derive(Toon)]
#[serde(remote = "std::time::Duration")]
struct DurationDef {
    secs: u64,
    nanos: u32,
}

fn main() {}
