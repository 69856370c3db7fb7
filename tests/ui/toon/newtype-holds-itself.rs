use toon_core::Toon;

#[derive(Toon)]
struct Tree(Vec<Tree>);

fn main() {}
