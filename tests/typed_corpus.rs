//! Broken replies decoded into typed structs (tests/replies/typed.txt): the typed
//! repairs, and refusals that name the field's path and line.

mod common;

use std::collections::BTreeMap;

use common::corpus::{assert_corpus, load};
use common::types::{Answer, ComplianceAnalysis, Detections};
use serde_json::Value;
use toon_core::{decode, spec::json_model_eq, ParseError, Repair, ReplyOptions, Toon};

/// A table whose text column is not the last one.
#[derive(Debug, PartialEq, Toon)]
struct Notes {
    answers: Vec<Note>,
}

#[derive(Debug, PartialEq, Toon)]
struct Note {
    note: String,
    score: f64,
}

/// A table with optional columns.
#[derive(Debug, PartialEq, Toon)]
struct Tasks {
    tasks: Vec<Task>,
}

#[derive(Debug, PartialEq, Toon)]
struct Task {
    title: String,
    done: bool,
    due: Option<u32>,
    owner: Option<String>,
}

/// Variant names in PascalCase, aliases, and a list.
#[derive(Debug, PartialEq, Toon)]
struct Doc {
    kind: Kind,
    #[toon(alias = "heading")]
    #[serde(alias = "name")]
    title: String,
    tags: Vec<String>,
}

#[derive(Debug, PartialEq, Toon)]
enum Kind {
    #[toon(alias = "guide")]
    HowTo,
    Reference,
    /// Folds like `Reference` once `-` is set aside: never guessed between.
    #[toon(rename = "Re-ference")]
    ReFerence,
}

#[derive(Debug, PartialEq, Toon)]
struct Shelf {
    docs: Vec<Doc>,
}

/// Settings whose every field may be missing: a reply with none of them is
/// no answer, not the defaults.
#[derive(Debug, PartialEq, Toon)]
struct Settings {
    theme: Option<String>,
    #[serde(default)]
    profiles: Vec<Profile>,
}

#[derive(Debug, PartialEq, Toon)]
struct Profile {
    name: Option<String>,
    size: Option<u32>,
}

/// Decodes into the named type; returns the value's JSON model and the repairs.
fn decode_as(
    ty: &str,
    reply: &str,
    options: &ReplyOptions,
) -> Result<(Value, Vec<Repair>), ParseError> {
    fn run<T: Toon>(
        reply: &str,
        options: &ReplyOptions,
    ) -> Result<(Value, Vec<Repair>), ParseError> {
        let r = toon_core::ToonOutputParser::<T>::new()
            .options(*options)
            .parse_with_report(reply)?;
        let model = decode(&r.value.to_toon(), &Default::default()).expect("to_toon is valid TOON");
        Ok((model, r.repairs))
    }
    match ty {
        "compliance" => run::<ComplianceAnalysis>(reply, options),
        "detections" => run::<Detections>(reply, options),
        "answer" => run::<Answer>(reply, options),
        "notes" => run::<Notes>(reply, options),
        "tasks" => run::<Tasks>(reply, options),
        "docs" => run::<Doc>(reply, options),
        "shelf" => run::<Shelf>(reply, options),
        "settings" => run::<Settings>(reply, options),
        other => panic!("unknown type {other}"),
    }
}

#[test]
fn typed_corpus() {
    let cases = load(include_str!("replies/typed.txt"));
    let mut failures = Vec::new();
    let mut per_group: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &cases {
        *per_group
            .entry(c.name.split('/').next().unwrap())
            .or_default() += 1;
        let ty = c.ty.as_deref().expect("each case names its type");
        let got = decode_as(ty, &c.reply, &c.options);
        let problem = match (&got, &c.value, &c.error) {
            (Ok((value, repairs)), Some(expected), None) => {
                let kinds: Vec<&str> = repairs.iter().map(|r| r.kind.as_str()).collect();
                if !json_model_eq(value, expected) {
                    Some(format!("value {value} != expected {expected}"))
                } else if c.repairs.as_deref() != Some(kinds.join(" ").as_str()) {
                    Some(format!(
                        "repairs `{}` != expected `{}`",
                        kinds.join(" "),
                        c.repairs.as_deref().unwrap_or("?")
                    ))
                } else {
                    repairs
                        .iter()
                        .find(|r| r.line == 0)
                        .map(|r| format!("repair without a line: {r}"))
                }
            }
            (Err(e), None, Some(kind)) => {
                if format!("{:?}", e.kind()) != *kind {
                    Some(format!("error kind {:?} != {kind}: {e}", e.kind()))
                } else if c.line.is_some_and(|l| e.line() != (l > 0).then_some(l)) {
                    Some(format!("error line {:?} != {:?}: {e}", e.line(), c.line))
                } else {
                    c.says
                        .as_deref()
                        .filter(|s| !e.to_string().contains(s))
                        .map(|says| format!("message lacks `{says}`: {e}"))
                }
            }
            (got, _, _) => Some(format!("got {got:?}")),
        };
        if let Some(p) = problem {
            failures.push(format!("{}: {p}", c.name));
        }
    }
    assert_corpus(&failures, cases.len(), &per_group);
}

/// The untyped corpus read through `T::from_toon` with `T = serde_json::Value`:
/// every reply gives the same value, repairs and refusal as `decode_reply`.
#[test]
fn untyped_corpus_through_the_typed_decoder() {
    let cases = load(include_str!("replies/corpus.txt"));
    assert!(cases.len() >= 70);
    for c in &cases {
        let typed = toon_core::ToonOutputParser::<Value>::new()
            .options(c.options)
            .parse_with_report(&c.reply);
        let untyped = toon_core::reply::read(&c.reply, &c.options);
        match (typed, untyped) {
            (Ok(t), Ok(u)) => {
                assert_eq!(t.value, u.value, "{}", c.name);
                assert_eq!(t.repairs, u.repairs, "{}", c.name);
            }
            (Err(t), Err(u)) => {
                assert_eq!((t.kind(), t.line()), (u.kind(), u.line()), "{}", c.name)
            }
            (t, u) => panic!("{}: typed {t:?} but untyped {u:?}", c.name),
        }
    }
}

/// Each type of this file, declared at run time from this file's source,
/// gives the derived type's artefacts (tests/declared.rs has the readings).
#[test]
fn declared_at_run_time_alike() {
    common::declared::agree(
        include_str!("typed_corpus.rs"),
        &crate::derived![Notes, Note, Tasks, Task, Doc, Kind, Shelf, Settings, Profile],
    );
}
