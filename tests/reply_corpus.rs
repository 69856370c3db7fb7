//! The broken-reply corpus (tests/replies/corpus.txt): realistic replies with the
//! mistakes small models make, each with the value or refusal it must give.

use std::collections::BTreeMap;

use serde_json::Value;
use toon_core::{decode_reply_with_report, json_model_eq};

struct Case {
    name: String,
    reply: String,
    value: Option<Value>,
    repairs: Option<String>,
    error: Option<String>,
    line: Option<usize>,
    says: Option<String>,
}

fn load() -> Vec<Case> {
    let text = include_str!("replies/corpus.txt");
    let mut cases = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(name) = line.strip_prefix("### ") else {
            continue;
        };
        let mut reply = Vec::new();
        while let Some(l) = lines.peek() {
            if l.starts_with("=== ") {
                break;
            }
            reply.push(lines.next().unwrap());
        }
        let mut case = Case {
            name: name.to_owned(),
            reply: reply.join("\n"),
            value: None,
            repairs: None,
            error: None,
            line: None,
            says: None,
        };
        while let Some(l) = lines.peek().copied() {
            let Some(directive) = l.strip_prefix("=== ") else {
                break;
            };
            lines.next();
            match directive.split_once(' ').unwrap_or((directive, "")) {
                ("value", _) => {
                    let mut json = String::new();
                    while let Some(l) = lines.peek() {
                        if l.starts_with("===") || l.starts_with("###") {
                            break;
                        }
                        json.push_str(lines.next().unwrap());
                    }
                    case.value =
                        Some(serde_json::from_str(&json).unwrap_or_else(|e| panic!("{name}: {e}")));
                }
                ("repairs", _) => case.repairs = Some(lines.next().unwrap_or("").trim().to_owned()),
                ("error", kind) => case.error = Some(kind.to_owned()),
                ("line", n) => case.line = Some(n.parse().unwrap()),
                ("says", text) => case.says = Some(text.to_owned()),
                (other, _) => panic!("{name}: unknown directive {other}"),
            }
        }
        cases.push(case);
    }
    cases
}

/// Every string in `v` must appear, byte for byte, in the reply: a repair never rewrites data.
fn strings_survive(v: &Value, reply: &str) -> Result<(), String> {
    match v {
        Value::String(s) if !reply.contains(s.as_str()) => {
            Err(format!("string {s:?} is not in the reply"))
        }
        Value::Array(a) => a.iter().try_for_each(|x| strings_survive(x, reply)),
        Value::Object(m) => m.iter().try_for_each(|(k, x)| {
            if reply.contains(k.as_str()) {
                strings_survive(x, reply)
            } else {
                Err(format!("key {k:?} is not in the reply"))
            }
        }),
        _ => Ok(()),
    }
}

#[test]
fn corpus() {
    let cases = load();
    let mut failures = Vec::new();
    let mut per_group: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &cases {
        *per_group
            .entry(c.name.split('/').next().unwrap())
            .or_default() += 1;
        let got = decode_reply_with_report(&c.reply);
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
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    for (group, n) in &per_group {
        assert!(
            *n >= 5,
            "group {group} has {n} cases; each repair and refusal needs at least five"
        );
    }
    assert!(per_group.len() >= 14, "groups: {per_group:?}");
}
