//! The broken-reply corpus (tests/replies/corpus.txt): realistic replies with the
//! mistakes small models make, each with the value or refusal it must give.

mod common;

use std::collections::BTreeMap;

use common::corpus::{assert_corpus, load, strings_survive};
use toon_core::spec::json_model_eq;

#[test]
fn corpus() {
    let cases = load(include_str!("replies/corpus.txt"));
    let mut failures = Vec::new();
    let mut per_group: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &cases {
        *per_group
            .entry(c.name.split('/').next().unwrap())
            .or_default() += 1;
        let got = toon_core::reply::read(&c.reply, &c.options);
        let problem = match (&got, &c.value, &c.error) {
            (Ok(reply), Some(expected), None) => {
                let kinds: Vec<&str> = reply.repairs.iter().map(|r| r.kind.as_str()).collect();
                let kinds = kinds.join(" ");
                if !json_model_eq(&reply.value, expected) {
                    Some(format!("value {} != expected {}", reply.value, expected))
                } else if c.repairs.as_deref() != Some(kinds.as_str()) {
                    Some(format!(
                        "repairs `{kinds}` != expected `{}`",
                        c.repairs.as_deref().unwrap_or("?")
                    ))
                } else {
                    strings_survive(expected, &c.reply).err()
                }
            }
            (Err(e), None, Some(kind)) => {
                if format!("{:?}", e.kind()) != *kind {
                    Some(format!("error kind {:?} != {kind}: {e}", e.kind()))
                } else if c.line.is_some() && e.line() != c.line {
                    Some(format!("error line {:?} != {:?}: {e}", e.line(), c.line))
                } else if let Some(says) = c.says.as_deref().filter(|s| !e.to_string().contains(s))
                {
                    Some(format!("message lacks `{says}`: {e}"))
                } else if !e.to_string().starts_with("TOON_PARSE_FAILURE: ") {
                    Some(format!("message lacks the prefix: {e}"))
                } else {
                    None
                }
            }
            (got, _, _) => Some(format!("got {got:?}")),
        };
        if let Some(p) = problem {
            failures.push(format!("{}: {p}", c.name));
        }
    }
    assert_corpus(&failures, cases.len(), &per_group);
    assert!(per_group.len() >= 14, "groups: {per_group:?}");
}
