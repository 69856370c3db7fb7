//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test binary uses its own subset

pub mod alloc;
pub mod corpus;
pub mod declared;
pub mod grammar;
pub mod server;
pub mod strategies;
pub mod types;

use std::path::Path;

use serde_json::Value;
use toon_core::{spec::DecodeOptions, spec::Delimiter, spec::EncodeOptions};

const SUITE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/toon-spec");

pub struct Case {
    pub file: String,
    pub name: String,
    pub input: Value,
    pub expected: Value,
    pub should_error: bool,
    pub options: Value,
}

pub fn load(kind: &str) -> Vec<Case> {
    let mut files: Vec<_> = std::fs::read_dir(Path::new(SUITE).join(kind))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for t in doc["tests"].as_array().unwrap() {
            out.push(Case {
                file: path.file_name().unwrap().to_string_lossy().into_owned(),
                name: t["name"].as_str().unwrap().to_owned(),
                input: t["input"].clone(),
                expected: t["expected"].clone(),
                should_error: t["shouldError"].as_bool().unwrap_or(false),
                options: t.get("options").cloned().unwrap_or(Value::Null),
            });
        }
    }
    out
}

pub fn decode_options(o: &Value) -> DecodeOptions {
    let mut opts = DecodeOptions::default();
    if let Some(n) = o["indentSize"].as_u64() {
        opts.indent_size = n as usize;
    }
    if let Some(s) = o["strict"].as_bool() {
        opts.strict = s;
    }
    opts
}

pub fn encode_options(o: &Value) -> EncodeOptions {
    let mut opts = EncodeOptions::default();
    if let Some(n) = o["indentSize"].as_u64() {
        opts.indent_size = n as usize;
    }
    opts.delimiter = match o["delimiter"].as_str() {
        Some("\t") => Delimiter::Tab,
        Some("|") => Delimiter::Pipe,
        _ => Delimiter::Comma,
    };
    opts
}

/// Decode cases that are valid documents under the default options.
pub fn valid_default_documents() -> Vec<(String, String)> {
    load("decode")
        .into_iter()
        .filter(|c| {
            !c.should_error
                && c.options.get("indentSize").is_none()
                && c.options["strict"] != Value::Bool(false)
        })
        .map(|c| {
            (
                format!("{} / {}", c.file, c.name),
                c.input.as_str().unwrap().to_owned(),
            )
        })
        .collect()
}
