//! The layers of `toon-core` as ARCHITECTURE.md names them: each module imports only
//! modules of its own layer or below, and no two import each other, even
//! through others. Read from the source (`crate::module` paths outside
//! comments), so a new import that climbs a layer fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each top-level module of `toon-core/src` and its layer, bottom up; the
/// specification's engine, `spec/`, by its modules.
const LAYERS: [(&str, u8); 19] = [
    ("spec::error", 0),
    ("spec::options", 0),
    ("spec::equality", 0),
    ("spec::lines", 1),
    ("spec::lex", 1),
    ("spec::header", 2),
    ("spec::node", 2),
    ("spec::decode", 3),
    ("spec::encode", 3),
    // The codec's public face, over its engine.
    ("spec", 3),
    ("shape", 4),
    ("prompt", 4),
    ("schema", 4),
    ("grammar", 4),
    ("reply", 5),
    ("typed", 6),
    ("request", 7),
    ("exchange", 8),
    // The crate root re-exports every layer.
    ("lib", u8::MAX),
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A module named by its path from the crate root (`spec/lex.rs`, or
/// `spec::lex` in a path): its top-level module, or for `spec` its own.
fn module_of<'p>(mut parts: impl Iterator<Item = &'p str>) -> String {
    let first = parts.next().unwrap_or_default().trim_end_matches(".rs");
    match (first, parts.next()) {
        ("spec", Some(sub)) if sub != "mod.rs" && !sub.is_empty() => {
            format!("spec::{}", sub.trim_end_matches(".rs"))
        }
        _ => first.to_owned(),
    }
}

/// The modules each module names by `crate::` outside comments.
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(src).unwrap();
        let module = module_of(rel.components().map(|c| c.as_os_str().to_str().unwrap()));
        let text = std::fs::read_to_string(&file).unwrap();
        let targets = graph.entry(module.clone()).or_default();
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            for (at, _) in code.match_indices("crate::") {
                let rest = &code[at + "crate::".len()..];
                let path: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_' || *c == ':')
                    .collect();
                // `crate::spec::lex::x` names `spec::lex`, a re-export
                // (`crate::spec::DecodeOptions`) the codec's face.
                let name = module_of(path.split("::").filter(|p| !p.is_empty()));
                let name = if LAYERS.iter().any(|(m, _)| *m == name) {
                    name
                } else {
                    module_of(path.split("::").take(1))
                };
                if !name.is_empty() && name != module {
                    targets.insert(name);
                }
            }
        }
    }
    graph
}

fn layer(module: &str) -> u8 {
    LAYERS
        .iter()
        .find(|(m, _)| *m == module)
        .unwrap_or_else(|| {
            panic!("`{module}` has no layer: add it to LAYERS and to ARCHITECTURE.md")
        })
        .1
}

#[test]
fn no_module_imports_a_higher_layer_or_a_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("toon-core/src");
    let graph = imports(&src);
    assert!(graph.contains_key("reply") && graph.contains_key("typed"));
    // The engine is read by its modules: the decoder imports the lexer.
    assert!(graph["spec::decode"].contains("spec::lex"), "{graph:?}");
    let climbs: Vec<String> = graph
        .iter()
        .flat_map(|(from, to)| to.iter().map(move |t| (from, t)))
        .filter(|(from, to)| layer(to) > layer(from))
        .map(|(from, to)| {
            format!(
                "{from} (layer {}) imports {to} (layer {})",
                layer(from),
                layer(to)
            )
        })
        .collect();
    assert!(climbs.is_empty(), "{climbs:#?}");
    // No cycle: every module can be placed after all it imports.
    let mut placed = BTreeSet::new();
    while placed.len() < graph.len() {
        let ready: Vec<&String> = graph
            .iter()
            .filter(|(m, to)| {
                !placed.contains(*m)
                    && to
                        .iter()
                        .all(|t| placed.contains(t) || !graph.contains_key(t))
            })
            .map(|(m, _)| m)
            .collect();
        assert!(
            !ready.is_empty(),
            "modules that import each other: {:?}",
            graph
                .keys()
                .filter(|m| !placed.contains(*m))
                .collect::<Vec<_>>()
        );
        placed.extend(ready.into_iter().cloned());
    }
}

/// The check reads what it claims to: a file that imports upward is found.
#[test]
fn an_import_that_climbs_is_seen() {
    let dir = std::env::temp_dir().join(format!("toon-layers-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("schema")).unwrap();
    std::fs::write(
        dir.join("schema/tool.rs"),
        "// crate::typed in a comment is no import\nuse crate::reply::ParseError; // crate::request\n",
    )
    .unwrap();
    let graph = imports(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(graph["schema"], BTreeSet::from(["reply".to_owned()]));
    assert!(layer("reply") > layer("schema"));
}

/// The crates above `toon-core` depend downward only: `toon-decl` on the core
/// and the derives' model, `toon-cli` on `toon-decl`; and an HTTP client is a
/// dependency of `toon-cli` alone.
#[test]
fn the_crates_depend_downward_and_only_the_command_speaks_http() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let deps = |krate: &str| -> String {
        let text = std::fs::read_to_string(root.join(krate).join("Cargo.toml")).unwrap();
        let start = text.find("[dependencies]").unwrap();
        let rest = &text[start + 1..];
        let end = rest.find("\n[").map_or(rest.len(), |e| e + 1);
        rest[..end].to_owned()
    };
    let names = |deps: &str| -> Vec<String> {
        deps.lines()
            .filter(|l| !l.trim_start().starts_with('#') && l.contains('='))
            .map(|l| l.split(['=', '.']).next().unwrap().trim().to_owned())
            .collect()
    };
    let http = ["ureq", "reqwest", "hyper", "isahc", "attohttpc"];
    for krate in [
        "toon-core",
        "toon-derive-internals",
        "toon-derive",
        "schema-derive",
        "toon-decl",
    ] {
        let d = names(&deps(krate));
        assert!(
            !d.iter().any(|n| http.contains(&n.as_str())),
            "{krate}: {d:?}"
        );
        assert!(!d.iter().any(|n| n == "toon-cli"), "{krate}: {d:?}");
    }
    for krate in [
        "toon-core",
        "toon-derive-internals",
        "toon-derive",
        "schema-derive",
    ] {
        let d = names(&deps(krate));
        assert!(!d.iter().any(|n| n == "toon-decl"), "{krate}: {d:?}");
    }
    assert!(names(&deps("toon-decl")).iter().any(|n| n == "toon-core"));
    assert!(names(&deps("toon-cli")).iter().any(|n| n == "toon-decl"));
    assert!(names(&deps("toon-cli")).iter().any(|n| n == "ureq"));
}
