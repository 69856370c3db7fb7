//! Replies that broke one of the principles a reply is read by (a repair
//! never guesses; a model that said nothing never reads as one that found
//! nothing; a cut is named only where it is one), found by an audit: each
//! was read wrongly before its fix.

mod common;

use common::types::*;
use toon_core::{from_json_reply, stream::Event as StreamEvent, ParseErrorKind, Toon, ToonStream};

/// Streams `text` in chunks of 3 bytes: the events, and `finish`'s value.
fn streamed(
    text: &str,
) -> (
    Vec<StreamEvent>,
    Result<SourcedProse, toon_core::ParseError>,
) {
    let mut stream = ToonStream::<SourcedProse>::new();
    let mut events = Vec::new();
    for chunk in text.as_bytes().chunks(3) {
        events.extend(stream.push(std::str::from_utf8(chunk).unwrap()));
    }
    events.extend(stream.end());
    (events, stream.finish().map(|r| r.value))
}

/// The deltas of the `answer` field, joined.
fn streamed_answer(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Text { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

/// A delimited block inside the `<think>` block a reply opens with is a
/// draft the whole reply strips with it, not the answer: the field is
/// missing. The stream streams no text of it.
#[test]
fn a_block_in_the_reasoning_is_not_the_answer() {
    let drafted = "<think>\nDraft:\n<answer>\nLyon\n</answer>\n</think>\nfound: true\ncitations[1]: 1\ncaveats: null";
    let e = SourcedProse::from_toon(drafted).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::MissingField, "{e}");
    assert_eq!(e.path(), Some("answer"), "{e}");
    // With the real block after the reasoning, that one is the answer.
    let answered = format!("{drafted}\n<answer>\nParis\n</answer>");
    assert_eq!(SourcedProse::from_toon(&answered).unwrap().answer, "Paris");
    let (events, value) = streamed(&answered);
    assert_eq!(value.unwrap().answer, "Paris");
    assert_eq!(streamed_answer(&events), "Paris", "{events:?}");
    // Only the block the reply opens with is reasoning, as the whole reply
    // strips it: a later `<think>` line is not, and the stream agrees.
    let later = "<think>plan</think>\n<think>\n<answer>draft</answer>\n</think>\nfound: true\ncitations[1]: 1\ncaveats: null\n";
    let whole = SourcedProse::from_toon(later);
    let (events, value) = streamed(later);
    assert_eq!(
        format!("{value:?}"),
        format!("{whole:?}"),
        "the stream's finish is from_toon"
    );
    if let Ok(v) = whole {
        assert_eq!(streamed_answer(&events), v.answer, "{events:?}");
    }
}

/// A second answer beside the first is refused, not dropped as prose: two
/// JSON values, or an answer inside a fence and another outside it.
#[test]
fn a_second_answer_is_refused_not_dropped_as_prose() {
    let france = r#"{"country":"France","capital":"Paris"}"#;
    let spain = r#"{"country":"Spain","capital":"Madrid"}"#;
    for (reply, line) in [
        (format!("{france}\n{spain}"), 2),
        (format!("{france} {spain}"), 1),
        (format!("```json\n{france}\n```\n{spain}"), 4),
        (
            "```toon\ncountry: France\ncapital: Paris\n```\ncountry: Spain\ncapital: Madrid".into(),
            5,
        ),
        (
            "country: Spain\ncapital: Madrid\n```toon\ncountry: France\ncapital: Paris\n```".into(),
            1,
        ),
    ] {
        let e = Capital::from_toon(&reply).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::Syntax, "{reply}: {e}");
        assert_eq!(e.line(), Some(line), "{reply}: {e}");
        assert!(
            !e.to_string().contains("cut off"),
            "a second answer is no cut: {e}"
        );
    }
    // By the JSON path too, where prose stands between the two answers, and
    // where the second is a fenced block.
    for (reply, line) in [
        (format!("{france}\n{spain}"), 2),
        (
            format!("{france}\nOr, if you meant Spain:\n\n{spain}\nThanks."),
            4,
        ),
        (format!("{france}\nAlso:\n```json\n{spain}\n```"), 1),
        (
            format!("Here:\n{france}\nAlso:\n```toon\ncountry: Spain\n```"),
            2,
        ),
    ] {
        let e = from_json_reply::<Capital>(&reply).unwrap_err();
        assert_eq!(
            (e.kind(), e.line()),
            (ParseErrorKind::Syntax, Some(line)),
            "{reply}: {e}"
        );
        assert!(
            e.message().contains("which one is the answer is not known"),
            "{e}"
        );
    }
    // Prose that only mentions brackets is prose, and so is a stray fence
    // the fence stage left, with what follows it.
    for after in [
        "[1] Source: an atlas.",
        "{see the note above}",
        "[citation needed]",
        "```\nThe capital of France is Paris.",
        "Usage:\n```\ncurl example.org",
    ] {
        let reply = format!("{france}\nNote:\n{after}");
        assert_eq!(
            from_json_reply::<Capital>(&reply).unwrap().capital,
            "Paris",
            "{reply}"
        );
    }
    // Prose is still prose: a citation line, one line of a key (a label),
    // an example in a block of another language.
    for after in [
        "The capital is Paris.",
        "[1] Source: an atlas.",
        "country: the country asked about.",
    ] {
        let reply = format!("```toon\ncountry: France\ncapital: Paris\n```\n{after}");
        assert_eq!(Capital::from_toon(&reply).unwrap().capital, "Paris");
        let reply = format!("{france}\n{after}");
        assert_eq!(Capital::from_toon(&reply).unwrap().capital, "Paris");
    }
    let example = "```toon\ncountry: France\ncapital: Paris\n```\nAs a Python class:\n```python\nclass Capital(BaseModel):\n    country: str\n    capital: str\n```";
    assert_eq!(Capital::from_toon(example).unwrap().capital, "Paris");
}

/// Lines at the margin after a table whose count is reached, each exactly
/// the table's width, are rows the header did not count: refused, never
/// dropped as prose.
#[test]
fn rows_past_the_count_at_the_margin_are_not_prose() {
    let header = "[1]{category,severity,description,related_rule_id,remediation}:\n  privacy,HIGH,Bad,R-1,Fix\n";
    for rest in [
        "safety,LOW,Worse,R-2,Fix it.",
        "\nsafety,LOW,Worse,R-2,Fix it\nretention,LOW,Old logs,R-3,Delete them",
    ] {
        let reply = format!("{header}{rest}");
        let e = Vec::<Violation>::from_toon(&reply).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::Syntax, "{reply}: {e}");
    }
    // A sentence after it is prose, commas and all, even as many as the
    // table has cells: its words after its commas begin with a space.
    for sentence in [
        "Hope this helps, let me know.",
        "These are all, as far as I can tell, the rules broken, in order, today.",
    ] {
        let read = toon_core::ToonOutputParser::<Vec<Violation>>::new()
            .parse_with_report(&format!("{header}\n{sentence}"))
            .unwrap();
        assert_eq!(read.value.len(), 1, "{sentence}");
        assert_eq!(read.repairs[0].kind, toon_core::RepairKind::StrippedProse);
    }
}

#[derive(Debug, PartialEq, Toon, serde::Deserialize)]
struct Opts {
    a: Option<u32>,
    b: Option<String>,
}

/// A table none of whose columns the type has said nothing of the type's
/// fields: refused, as the same records written as list items are, not read
/// as records of defaults.
#[test]
fn a_table_of_none_of_the_types_columns_is_refused() {
    let e = Vec::<Opts>::from_toon("[2]{x,y}:\n  1,2\n  3,4").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::MissingField, "{e}");
    assert_eq!(e.line(), Some(2), "{e}");
    assert!(e.message().contains("only `x`, `y`"), "{e}");
    let e = Vec::<Opts>::from_toon("[2]:\n  - x: 1\n  - x: 2").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::MissingField, "{e}");
    // One column of the type's is enough: the others are reported.
    let read = toon_core::ToonOutputParser::<Vec<Opts>>::new()
        .parse_with_report("[2]{a,y}:\n  1,2\n  3,4")
        .unwrap();
    assert_eq!(
        read.value[1],
        Opts {
            a: Some(3),
            b: None
        }
    );
    assert_eq!(read.repairs.len(), 2);
}

#[derive(Debug, PartialEq, Toon, serde::Deserialize)]
struct Tags {
    tags: Vec<String>,
}

/// A comma that follows nothing (`[,]`) is not a trailing comma: dropping it
/// would read the model's list as an empty one.
#[test]
fn a_comma_after_nothing_is_not_mended_away() {
    for reply in [r#"{"tags": [,]}"#, r#"{"tags": [ , ]}"#] {
        assert!(from_json_reply::<Tags>(reply).is_err(), "{reply}");
        assert!(Tags::from_toon(reply).is_err(), "{reply}");
    }
    assert!(from_json_reply::<Opts>("{,}").is_err());
    // After a value it is still mended.
    let read = toon_core::ToonOutputParser::<Tags>::new()
        .parse_with_report(r#"{"tags": ["a",]}"#)
        .unwrap();
    assert_eq!(read.value.tags, ["a"]);
    assert!(read
        .repairs
        .iter()
        .any(|r| r.kind == toon_core::RepairKind::TrailingComma));
}

/// A closed string with an escape TOON lacks, on the last line, is the
/// model's mistake; only a text that stops inside an escape was cut there.
#[test]
fn a_bad_escape_in_a_closed_string_is_no_cut() {
    let e = Capital::from_toon("country: France\ncapital: \"Par\\is\"").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Syntax, "{e}");
    // In a table's last row, as in any other: the row is dropped, not the
    // reply called cut.
    let stop = toon_core::ReplyOptions {
        finish_reason: toon_core::FinishReason::Stop,
        ..Default::default()
    };
    let rows = "[2]{category,severity,description,related_rule_id,remediation}:\n  privacy,HIGH,Bad,R-1,Fix\n  safety,LOW,\"Wor\\se\",R-2,Fix";
    let read = toon_core::ToonOutputParser::<Vec<Violation>>::new()
        .options(stop)
        .parse_with_report(rows)
        .unwrap();
    assert_eq!(read.value.len(), 1);
    assert!(read
        .repairs
        .iter()
        .any(|r| r.kind == toon_core::RepairKind::DroppedRow && r.line == 3));
    let e = Capital::from_toon("country: France\ncapital: \"Par\\u00").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Truncated, "{e}");
}

#[derive(Debug, PartialEq, Toon)]
struct Outer {
    name: String,
    opts: Option<Opts>,
}

/// An empty object where a struct with fields belongs said nothing of them,
/// at any depth, as at the root: refused, not read as each field missing.
/// `to_toon` writes every field (`null` too), so no value reads back so.
#[test]
fn an_empty_object_for_a_struct_is_refused_at_any_depth() {
    for reply in ["[{}, {}]", "[2]:\n  -\n  -"] {
        let e = Vec::<Opts>::from_toon(reply).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::MissingField, "{reply}: {e}");
        assert_eq!(e.path(), Some("[0]"), "{reply}: {e}");
    }
    let e = Option::<Opts>::from_toon("{}").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::MissingField, "{e}");
    let e = Outer::from_toon("name: a\nopts:").unwrap_err();
    assert_eq!((e.line(), e.path()), (Some(2), Some("opts")), "{e}");
    assert!(e.retry_prompt().contains("an optional one as null"), "{e}");
    // Written as null, or with its fields null, it reads.
    assert_eq!(Outer::from_toon("name: a\nopts: null").unwrap().opts, None);
    let none = Opts { a: None, b: None };
    let back = Outer {
        name: "a".into(),
        opts: Some(none),
    };
    assert_eq!(Outer::from_toon(&back.to_toon()).unwrap(), back);
}

/// A JSON reply read by serde, for a type that is not `Toon`.
fn serde_read<T: serde::de::DeserializeOwned>(reply: &str) -> Result<T, toon_core::ParseError> {
    toon_core::reply::from_json_serde(reply, &Default::default()).map(|r| r.value)
}

#[derive(Debug, PartialEq, serde::Deserialize)]
struct JsonOuter {
    name: String,
    opts: Option<Opts>,
    counts: Option<std::collections::HashMap<String, u32>>,
}

/// The same for a serde type read from a JSON reply: serde alone reads `{}`
/// as each field missing (every `Option` `None`), which is "found nothing".
#[test]
fn an_empty_json_object_for_a_serde_struct_is_refused_at_any_depth() {
    let e = from_json_reply::<Opts>("Here is the answer:\n{}").unwrap_err();
    assert_eq!(
        (e.kind(), e.line(), e.path()),
        (ParseErrorKind::MissingField, Some(2), None),
        "{e}"
    );
    assert!(
        e.retry_prompt().contains("none of the type's fields"),
        "{e}"
    );
    let e = from_json_reply::<Vec<Opts>>("[\n  {\"a\": 1},\n  {}\n]").unwrap_err();
    assert_eq!(
        (e.kind(), e.line(), e.path()),
        (ParseErrorKind::MissingField, Some(3), Some("[1]")),
        "{e}"
    );
    // Found in a reply that was mended too, at its line as written.
    let e = serde_read::<JsonOuter>("{\n  // the options\n  \"name\": \"a\",\n  \"opts\": {},\n}")
        .unwrap_err();
    assert_eq!(
        (e.kind(), e.line(), e.path()),
        (ParseErrorKind::MissingField, Some(4), Some("opts")),
        "{e}"
    );
    assert!(e.retry_prompt().contains("an optional one as null"), "{e}");
    // Written as null, with a field, or where the type holds a map, it reads.
    let read = serde_read::<JsonOuter>(r#"{"name": "a", "opts": null, "counts": {}}"#).unwrap();
    assert_eq!((read.opts, read.counts), (None, Some(Default::default())));
    let read = serde_read::<JsonOuter>(r#"{"name": "{}", "opts": {"a": null}}"#).unwrap();
    assert_eq!(read.opts, Some(Opts { a: None, b: None }));
    assert!(from_json_reply::<serde_json::Value>("{}").is_ok());
}

/// A serde type's refusal is named by what raised it (serde's derive, the
/// type's own `Deserialize`, serde_json), never by the words it is said in:
/// a type whose own message begins "missing field" is still a wrong value.
#[test]
fn a_serde_refusal_is_named_by_what_raised_it_not_its_words() {
    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Reading {
        level: u8,
        unit: Unit,
        #[serde(default)]
        note: Note,
        #[serde(default)]
        value: f64,
    }
    #[derive(Debug, serde::Deserialize)]
    enum Unit {
        Celsius,
    }
    #[derive(Debug, Default)]
    struct Note;
    impl<'de> serde::Deserialize<'de> for Note {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let _ = <String as serde::Deserialize>::deserialize(d)?;
            Err(serde::de::Error::custom(
                "missing field, as this type says of any note",
            ))
        }
    }
    let refused = |reply: &str| {
        let e = serde_read::<Reading>(reply).unwrap_err();
        let said = e.message().split(':').next().unwrap_or_default().to_owned();
        (e.kind(), e.path().map(str::to_owned), said)
    };
    let value = ParseErrorKind::InvalidValue;
    let unit = "\"unit\": \"Celsius\"";
    assert_eq!(
        refused("{\"unit\": \"Celsius\"}"),
        (
            ParseErrorKind::MissingField,
            None,
            "the JSON reply lacks a field the type requires".into()
        )
    );
    assert_eq!(
        refused("{\"level\": 1, \"unit\": \"Kelvin\"}"),
        (
            value,
            Some("unit".into()),
            "a value in the JSON reply is none of the allowed ones".into()
        )
    );
    assert_eq!(
        refused(&format!("{{\"level\": 1, {unit}, \"colour\": 2}}")),
        (
            value,
            None,
            "the JSON reply has a key the type does not have".into()
        )
    );
    assert_eq!(
        refused(&format!("{{\"level\": -1, {unit}}}")),
        (
            value,
            Some("level".into()),
            "a value in the JSON reply is not allowed".into()
        )
    );
    assert_eq!(
        refused(&format!("{{\"level\": \"high\", {unit}}}")),
        (
            value,
            Some("level".into()),
            "a value in the JSON reply has the wrong type".into()
        )
    );
    assert_eq!(
        refused(&format!("{{\"level\": 1, {unit}, \"note\": \"warm\"}}")),
        (
            value,
            Some("note".into()),
            "a value in the JSON reply has the wrong type".into()
        )
    );
    assert_eq!(
        refused(&format!("{{\"level\": 1, {unit}, \"value\": 1e400}}")),
        (
            value,
            Some("value".into()),
            "a number in the JSON reply is outside what its field's type holds".into()
        )
    );
    let e = serde_read::<Reading>(&format!("{{\"level\": 1, {unit}, \"level\": 2}}")).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Syntax, "{e}");
    assert!(e.message().contains("writes a key twice"), "{e}");
    // Not a number past every range, nor JSON's: a syntax error, whatever
    // character serde_json stopped inside.
    for reply in [
        "{\"level\": “high”}",
        "{\"level\": +1e999}",
        "{\"level\": 01e999}",
    ] {
        let e = serde_read::<Reading>(reply).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::Syntax, "{e}");
    }
    let e =
        serde_read::<Reading>(&format!("{{\"level\": 1, {unit}, \"value\": 1e4x}}")).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Syntax, "{e}");
}

/// Looking for a second answer beside a fenced block reads the rest of the
/// reply once: lines of open brackets outside it took a copy of the rest
/// each (quadratic: a megabyte of them ran for minutes).
#[test]
fn a_second_answer_is_looked_for_in_one_pass() {
    let reply = format!(
        "```toon\ncountry: France\ncapital: Paris\n```\n{}",
        "[\n".repeat(100_000)
    );
    let started = std::time::Instant::now();
    let read = Capital::from_toon(&reply);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(read.unwrap().capital, "Paris");
}

/// Found by the review of the fixes above: a second answer past a block of
/// another language, or past a citation line; a block written again after
/// a draft in reasoning a chat template opened; rows past the count written
/// with a space after each comma, as the table's own rows are.
#[test]
fn second_answers_and_rows_past_the_count_in_other_forms() {
    for (reply, line) in [
        ("```toon\ncountry: France\ncapital: Paris\n```\nAs Python:\n```python\nx = 1\n```\n```toon\ncountry: Spain\ncapital: Madrid\n```", 9),
        ("```json\n{\"country\":\"France\",\"capital\":\"Paris\"}\n```\n[1] Source: an atlas.\n{\"country\":\"Spain\",\"capital\":\"Madrid\"}", 5),
    ] {
        let e = Capital::from_toon(reply).unwrap_err();
        assert_eq!((e.kind(), e.line()), (ParseErrorKind::Syntax, Some(line)), "{e}");
    }
    // Reasoning a chat template opened shows only its `</think>`: the draft
    // before it and the block after it are the same field written twice.
    let templated = "Let me draft.\n<answer>\nLyon\n</answer>\n</think>\nfound: true\ncitations[1]: 1\ncaveats: null\n\n<answer>The capital of France is Paris.</answer>";
    let e = SourcedProse::from_toon(templated).unwrap_err();
    assert_eq!(
        (e.kind(), e.line()),
        (ParseErrorKind::Syntax, Some(10)),
        "{e}"
    );
    assert!(e.message().contains("written twice"), "{e}");
    assert_eq!(
        format!("{:?}", streamed(templated).1),
        format!("{:?}", Err::<SourcedProse, _>(e))
    );
    let spaced = "[1]{category,severity,description,related_rule_id,remediation}:\n  privacy, HIGH, Data kept, R-1, Delete it\nsafety, LOW, Door open, R-2, Lock it.";
    let e = Vec::<Violation>::from_toon(spaced).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Syntax, "{e}");
}

/// Each type of this file, declared at run time from this file's source,
/// gives the derived type's artefacts (tests/declared.rs has the readings).
#[test]
fn declared_at_run_time_alike() {
    common::declared::agree(
        include_str!("principles.rs"),
        &crate::derived![Opts, Tags, Outer],
    );
}
