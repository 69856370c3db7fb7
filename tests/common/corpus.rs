//! The corpus files of model replies: each case a reply and the outcome it must give.

use serde_json::Value;
use toon_core::{FinishReason, ReplyOptions};

pub struct Case {
    pub name: String,
    pub reply: String,
    pub value: Option<Value>,
    pub repairs: Option<String>,
    pub error: Option<String>,
    pub line: Option<usize>,
    pub says: Option<String>,
    /// `=== type NAME`: the type a typed corpus decodes into.
    pub ty: Option<String>,
    /// `=== finish stop|length` (the server's finish reason) and
    /// `=== refuse_dropped_rows`: how the reply is read.
    pub options: ReplyOptions,
}

/// Reads a corpus file (format described at the top of tests/replies/corpus.txt).
pub fn load(text: &str) -> Vec<Case> {
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
            ty: None,
            options: ReplyOptions::default(),
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
                ("type", name) => case.ty = Some(name.to_owned()),
                ("finish", reason) => {
                    case.options.finish_reason = FinishReason::from_openai(reason);
                    assert_ne!(
                        case.options.finish_reason,
                        FinishReason::Unknown,
                        "{name}: finish {reason}"
                    );
                }
                ("refuse_dropped_rows", _) => case.options.refuse_dropped_rows = true,
                (other, _) => panic!("{name}: unknown directive {other}"),
            }
        }
        cases.push(case);
    }
    cases
}

/// Every string in `v` must appear, byte for byte, in the reply: a repair never rewrites data.
pub fn strings_survive(v: &Value, reply: &str) -> Result<(), String> {
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

/// Fails with every failing case listed, then checks each group has five cases or more.
pub fn assert_corpus(
    failures: &[String],
    total: usize,
    groups: &std::collections::BTreeMap<&str, usize>,
) {
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        total,
        failures.join("\n")
    );
    for (group, n) in groups {
        assert!(
            *n >= 5,
            "group {group} has {n} cases; each repair and refusal needs at least five"
        );
    }
}
