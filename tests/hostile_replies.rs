//! Replies written to break the decoder's promise, or plausibly by a model: a
//! JSON key written twice is refused on every path (never the last value
//! silently kept), reasoning after a complete answer is reasoning (not the
//! answer taken away), an inline list split by another separator is not read
//! as one value, and a count corrected at the end of a reply of unknown finish
//! says it may be cut. (Time and memory: `hostile_time.rs`, `hostile_memory.rs`.)

mod common;

use std::collections::BTreeMap;

use common::types::{Answer, ComplianceAnalysis};
use proptest::prelude::*;
use serde_json::{json, Value};
use toon_core::{
    decode, decode_reply, from_json_reply, schema::Tool, ParseErrorKind, RepairKind, Toon,
    ToonStream,
};

const COMPLIANCE_JSON: &str = r#"{"compliance_status": "NON_COMPLIANT", "violations": [{"category": "privacy", "severity": "HIGH", "description": "Emails in logs", "related_rule_id": "R-1", "remediation": "Mask them"}], "audit_trail": "R-1 to R-5", "spoken_response": "One problem."}"#;

#[test]
fn a_json_key_written_twice_is_refused_on_every_path() {
    // The list, then an empty one: the last would read as "found nothing".
    let twice = COMPLIANCE_JSON.replace("\"audit_trail\"", "\"violations\": [], \"audit_trail\"");
    let err = ComplianceAnalysis::from_toon(&twice).unwrap_err();
    assert_eq!(err.kind(), ParseErrorKind::Syntax, "{err}");
    assert!(err.message().contains("`violations`"), "{err}");
    assert!(err.message().contains("twice"), "{err}");
    // Fenced, after prose, mended (a trailing comma): the same refusal.
    for reply in [
        format!("```json\n{twice}\n```"),
        format!("Here it is:\n{twice}"),
        twice.replace("}]", "},]"),
    ] {
        let err = ComplianceAnalysis::from_toon(&reply).unwrap_err();
        assert_eq!(err.kind(), ParseErrorKind::Syntax, "{reply}\n{err}");
    }
    // Into any serde type, a map, an untyped value.
    let map = r#"{"a": 1, "b": 2, "a": 3}"#;
    assert_eq!(
        from_json_reply::<BTreeMap<String, u32>>(map)
            .unwrap_err()
            .kind(),
        ParseErrorKind::Syntax
    );
    assert_eq!(
        from_json_reply::<Value>(map).unwrap_err().kind(),
        ParseErrorKind::Syntax
    );
    assert_eq!(
        BTreeMap::<String, u32>::from_toon(map).unwrap_err().kind(),
        ParseErrorKind::Syntax
    );
    assert!(decode_reply(map).is_err());
    // Nested, in a list: found at any depth, on its line.
    let nested = "[\n  {\"x\": 1},\n  {\"x\": 2, \"x\": 3}\n]";
    let err = from_json_reply::<Value>(nested).unwrap_err();
    assert_eq!((err.kind(), err.line()), (ParseErrorKind::Syntax, Some(3)));
    // A tagged enum's tag twice would switch the variant.
    let tag = r#"{"question": "Capital?", "finding": {"status": "found", "answer": "Lima", "citations": [1], "status": "not_found"}}"#;
    assert_eq!(
        Answer::from_toon(tag).unwrap_err().kind(),
        ParseErrorKind::Syntax
    );
    // A tool call's arguments.
    let tool = Tool::of::<common::types::Capital>();
    let twice = r#"{"country": "Peru", "capital": "Lima", "capital": "Quito"}"#;
    let response = json!({"choices": [{"finish_reason": "tool_calls", "message": {"content": null, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": tool.name(), "arguments": twice}}
    ]}}]});
    let err = tool.read::<common::types::Capital>(&response).unwrap_err();
    assert_eq!(err.kind(), ParseErrorKind::Syntax, "{err}");
    // A key once in each of two objects is no duplicate.
    assert_eq!(
        from_json_reply::<Value>(r#"[{"x": 1}, {"x": 2}]"#).unwrap(),
        json!([{"x": 1}, {"x": 2}])
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any value's JSON with one of its keys written again, anywhere in its
    /// object, with any value: refused, never read.
    #[test]
    fn a_duplicated_key_is_refused(
        x in common::strategies::compliance(),
        key in prop::sample::select(vec!["compliance_status", "violations", "audit_trail", "spoken_response"]),
        again in prop::sample::select(vec!["[]", "\"COMPLIANT\"", "\"\"", "null"]),
        first in any::<bool>(),
    ) {
        let value = decode(&x.to_toon(), &Default::default()).unwrap();
        let text = serde_json::to_string(&value).unwrap();
        let extra = format!("\"{key}\": {again}");
        let twice = if first {
            format!("{{{extra}, {}", &text[1..])
        } else {
            format!("{}, {extra}}}", &text[..text.len() - 1])
        };
        let err = ComplianceAnalysis::from_toon(&twice).unwrap_err();
        prop_assert_eq!(err.kind(), ParseErrorKind::Syntax, "{}\n{}", twice, err);
    }
}

#[test]
fn reasoning_after_a_complete_answer_is_not_the_answer_taken_away() {
    let answer = "country: Peru\ncapital: Lima";
    for reply in [
        format!("{answer}\n<think>\nWas that right? Yes.\n</think>"),
        format!("{answer}\n\n<think>Double-checked.</think>\n"),
        format!("<think>\nPeru.\n</think>\n{answer}\n<think>\nDone.\n</think>"),
    ] {
        let read = toon_core::ToonOutputParser::<common::types::Capital>::new()
            .parse_with_report(&reply)
            .unwrap_or_else(|e| panic!("{e}\n{reply}"));
        assert_eq!(read.value.capital, "Lima");
        assert!(
            read.repairs
                .iter()
                .all(|r| r.kind == RepairKind::StrippedReasoning),
            "{:?}",
            read.repairs
        );
        assert!(!read.repairs.is_empty());
        // The stream's finish is the same reading.
        let mut stream = ToonStream::<common::types::Capital>::new();
        let _ = stream.push(&reply);
        let _ = stream.end();
        assert_eq!(stream.finish().unwrap().value, read.value);
    }
    // An answer then a reasoning block never closed: cut inside it.
    let cut = format!("{answer}\n<think>\nLet me check the");
    assert_eq!(
        common::types::Capital::from_toon(&cut).unwrap_err().kind(),
        ParseErrorKind::Truncated
    );
    // A `</think>` before any `<think>` still closes reasoning a chat template opened.
    let template = format!("The user asks about Peru.\n</think>\n{answer}");
    let read = toon_core::ToonOutputParser::<common::types::Capital>::new()
        .parse_with_report(&template)
        .unwrap();
    assert_eq!(read.value.capital, "Lima");
}

#[test]
fn an_inline_list_split_by_another_separator_is_not_one_value() {
    for reply in ["[2]: a|b", "[3]: a; b; c", "[2]: a\tb", "[2|]: a,b"] {
        let err = Vec::<String>::from_toon(reply).unwrap_err();
        assert_eq!(err.kind(), ParseErrorKind::Syntax, "{reply}: {err}");
        assert_eq!(err.line(), Some(1));
    }
    // Its own separator, or a quoted value holding another, reads as written.
    assert_eq!(Vec::<String>::from_toon("[2|]: a|b").unwrap(), ["a", "b"]);
    assert_eq!(Vec::<String>::from_toon("[1]: \"a; b\"").unwrap(), ["a; b"]);
    // One value holding a `;` where one is declared: a value.
    assert_eq!(Vec::<String>::from_toon("[1]: a; b").unwrap(), ["a; b"]);
}

#[test]
fn a_count_corrected_where_the_reply_ends_says_it_may_be_cut() {
    use toon_core::{FinishReason, ReplyOptions};
    #[derive(Debug, Toon)]
    struct Pair {
        title: String,
        body: String,
    }
    #[derive(Debug, Toon)]
    struct Pairs {
        pairs: Vec<Pair>,
    }
    let cut = "pairs[2]{title,body}:\n  Intro,The first part of the";
    let read = toon_core::ToonOutputParser::<Pairs>::new()
        .parse_with_report(cut)
        .unwrap();
    let repair = &read.repairs[0];
    assert_eq!(repair.kind, RepairKind::CorrectedLength);
    assert!(
        repair.detail.contains("may have been cut off"),
        "{}",
        repair.detail
    );
    // With the server's word, no guess is needed either way.
    let stop = ReplyOptions {
        finish_reason: FinishReason::Stop,
        ..Default::default()
    };
    let read = toon_core::ToonOutputParser::<Pairs>::new()
        .options(stop)
        .parse_with_report(cut)
        .unwrap();
    assert!(!read.repairs[0].detail.contains("cut"));
    let length = ReplyOptions {
        finish_reason: FinishReason::Length,
        ..Default::default()
    };
    assert_eq!(
        toon_core::ToonOutputParser::<Pairs>::new()
            .options(length)
            .parse_with_report(cut)
            .unwrap_err()
            .kind(),
        ParseErrorKind::Truncated
    );
    // A table that the reply goes on after is not at the end.
    let after = "pairs[3]{title,body}:\n  Intro,Text\n  Outro,More";
    let read = toon_core::ToonOutputParser::<Pairs>::new()
        .parse_with_report(after)
        .unwrap();
    assert!(read.repairs[0].detail.contains("may have been cut off"));
    #[derive(Debug, Toon)]
    struct Noted {
        pairs: Vec<Pair>,
        note: String,
    }
    let inside = "pairs[3]{title,body}:\n  Intro,Text\nnote: done";
    let read = toon_core::ToonOutputParser::<Noted>::new()
        .parse_with_report(inside)
        .unwrap();
    assert!(
        !read.repairs[0].detail.contains("cut"),
        "{}",
        read.repairs[0].detail
    );
    // A closing fence is the reply's own end: nothing was cut inside the table.
    let fenced = "```toon\npairs[3]{title,body}:\n  Intro,Text\n```\n";
    let read = toon_core::ToonOutputParser::<Pairs>::new()
        .parse_with_report(fenced)
        .unwrap();
    let counted = read
        .repairs
        .iter()
        .find(|r| r.kind == RepairKind::CorrectedLength)
        .unwrap();
    assert!(!counted.detail.contains("cut"), "{}", counted.detail);
    // Blank lines after the last row leave the table at the end; an inline
    // list on the last line ends the reply too.
    let blanks = "pairs[3]{title,body}:\n  Intro,Text\n\n  \n";
    let read = toon_core::ToonOutputParser::<Pairs>::new()
        .parse_with_report(blanks)
        .unwrap();
    assert!(read.repairs[0].detail.contains("may have been cut off"));
    #[derive(Debug, Toon)]
    struct Tagged {
        note: String,
        tags: Vec<String>,
    }
    let inline = "note: done\ntags[3]: a,b";
    let read = toon_core::ToonOutputParser::<Tagged>::new()
        .parse_with_report(inline)
        .unwrap();
    assert_eq!(read.repairs[0].kind, RepairKind::CorrectedLength);
    assert!(read.repairs[0].detail.contains("may have been cut off"));
    let inline_first = "tags[3]: a,b\nnote: done";
    let read = toon_core::ToonOutputParser::<Tagged>::new()
        .parse_with_report(inline_first)
        .unwrap();
    assert!(!read.repairs[0].detail.contains("cut"));
}

#[test]
fn a_row_that_begins_with_a_hash_is_never_silently_gone() {
    #[derive(Debug, PartialEq, Toon)]
    struct Item {
        name: String,
        count: u32,
    }
    #[derive(Debug, PartialEq, Toon)]
    struct Items {
        items: Vec<Item>,
    }
    // The count says it is a row: read as one, its text as written.
    let reply = "items[3]{name,count}:\n  apples,2\n  #4 bolts,10\n  pears,1";
    let read = toon_core::ToonOutputParser::<Items>::new()
        .parse_with_report(reply)
        .unwrap();
    assert_eq!(read.value.items.len(), 3);
    assert_eq!(read.value.items[1].name, "#4 bolts");
    assert_eq!(read.value.items[1].count, 10);
    let kinds: Vec<(RepairKind, usize)> = read.repairs.iter().map(|r| (r.kind, r.line)).collect();
    assert_eq!(kinds, [(RepairKind::HashRow, 3)]);
    // The untyped reply decoder reads it the same way.
    let value = decode_reply(reply).unwrap();
    assert_eq!(value["items"][1]["name"], "#4 bolts");
    // The other rows make the count: a comment, as the specification has it.
    let comment = "items[2]{name,count}:\n  apples,2\n  # the pears are late\n  pears,1";
    let read = toon_core::ToonOutputParser::<Items>::new()
        .parse_with_report(comment)
        .unwrap();
    assert_eq!(read.value.items.len(), 2);
    assert!(read.repairs.is_empty(), "{:?}", read.repairs);
    // Neither reading fits the count: the line is reported with its text.
    let neither = "items[4]{name,count}:\n  apples,2\n  #4 bolts,10\n  pears,1";
    let read = toon_core::ToonOutputParser::<Items>::new()
        .parse_with_report(neither)
        .unwrap();
    let dropped = read
        .repairs
        .iter()
        .find(|r| r.kind == RepairKind::DroppedRow)
        .expect("the line is reported");
    assert_eq!(dropped.line, 3);
    assert!(dropped.detail.contains("#4 bolts"), "{}", dropped.detail);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A row of a generated reply rewritten to begin with `#`: it is read as
    /// the row (the count says so) or reported, never silently gone.
    #[test]
    fn a_hash_led_row_is_read_or_reported(
        x in common::strategies::compliance(),
        pick in any::<prop::sample::Index>(),
    ) {
        prop_assume!(!x.violations.is_empty());
        let text = x.to_toon();
        let rows: Vec<usize> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.starts_with("  ") && !l.starts_with("   "))
            .map(|(i, _)| i)
            .collect();
        prop_assume!(!rows.is_empty());
        let at = rows[pick.index(rows.len())];
        let edited: Vec<String> = text
            .lines()
            .enumerate()
            .map(|(i, l)| if i == at { format!("  #{}", &l[2..]) } else { l.to_owned() })
            .collect();
        let reply = edited.join("\n");
        // Refused is as good: never read with the row silently gone.
        if let Ok(read) = toon_core::ToonOutputParser::<ComplianceAnalysis>::new().parse_with_report(&reply) {
            prop_assert!(
                read.repairs.iter().any(|r| r.line == at + 1
                    && matches!(r.kind, RepairKind::HashRow | RepairKind::DroppedRow)),
                "{}\n{:?}", reply, read.repairs
            );
        }
    }
}

#[test]
fn a_toon_answer_after_a_json_answer_is_a_second_answer() {
    let json = r#"{"country": "Peru", "capital": "Lima"}"#;
    for reply in [
        format!("{json}\nOr in TOON:\nitems[2]{{country,capital}}:\n  Peru,Lima\n  Chile,Santiago"),
        format!("{json}\n\ntags[2]: a,b"),
        format!("```json\n{json}\n```\nAlso:\nrows[1]{{a}}:\n  x"),
        // The JSON's own keys again, as TOON or YAML lines.
        format!("{json}\n\ncountry: Chile\ncapital: Santiago"),
        format!("{json}\nIn YAML:\n  \"country\": Chile\n  capital: Santiago"),
    ] {
        let two = |m: &str| m.contains("second answer") || m.contains("and another");
        let err = common::types::Capital::from_toon(&reply).unwrap_err();
        assert_eq!(err.kind(), ParseErrorKind::Syntax, "{reply}\n{err}");
        assert!(two(err.message()), "{err}");
        let err = from_json_reply::<Value>(&reply).unwrap_err();
        assert!(two(err.message()), "{err}");
    }
    // Prose after the JSON, brackets and colons in it included, is prose,
    // and so is one line that begins with a key (a label as often as not).
    for prose in [
        format!("{json}\nNote: Lima [1] is on the coast."),
        format!("{json}\ncapital: Lima is on the coast."),
    ] {
        assert_eq!(
            common::types::Capital::from_toon(&prose).unwrap().capital,
            "Lima"
        );
        assert!(from_json_reply::<Value>(&prose).is_ok());
    }
}

/// A second JSON object after prose on a line, the first answer's own line
/// included, is a second answer; an object in the middle of a sentence, an
/// empty one and a citation are prose.
#[test]
fn a_json_answer_after_prose_on_a_line_is_a_second_answer() {
    let json = r#"{"country": "Peru", "capital": "Lima"}"#;
    let second = r#"{"country": "Chile", "capital": "Santiago"}"#;
    for (reply, line) in [
        (format!("{json} Actually: {second}"), 1),
        (format!("{json} or {second}"), 1),
        (format!("{json}\nWait, I meant {second}"), 2),
        (format!("{json}\n\nCorrected answer: {second}  "), 3),
        (format!("Here it is.\n{json}\nIn short - {second}"), 3),
    ] {
        let err = common::types::Capital::from_toon(&reply).unwrap_err();
        assert_eq!(err.kind(), ParseErrorKind::Syntax, "{reply}\n{err}");
        assert!(err.message().contains("second answer"), "{err}");
        assert_eq!(err.line(), Some(line), "{reply}\n{err}");
        let err = from_json_reply::<Value>(&reply).unwrap_err();
        assert!(err.message().contains("second answer"), "{err}");
    }
    for prose in [
        format!("{json}\nThe format {second} is used mid-sentence."),
        format!("{json}\nIt returns {{}}"),
        format!("{json}\nSee the source [1]"),
    ] {
        let read =
            common::types::Capital::from_toon(&prose).unwrap_or_else(|e| panic!("{prose}\n{e}"));
        assert_eq!(read.capital, "Lima");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Two answers in one reply, each JSON or TOON, fenced or not, with or
    /// without words between them: refused, whichever comes first.
    #[test]
    fn a_second_answer_anywhere_is_refused(
        x in common::strategies::compliance(),
        y in common::strategies::compliance(),
        forms in (any::<bool>(), any::<bool>()),
        fences in (any::<bool>(), any::<bool>()),
        between in prop::sample::select(vec!["\n", "\n\n", "\nOr, to be precise:\n", "\nCorrection. "]),
    ) {
        let write = |v: &ComplianceAnalysis, json: bool, fenced: bool| {
            let text = if json {
                serde_json::to_string(&decode(&v.to_toon(), &Default::default()).unwrap()).unwrap()
            } else {
                v.to_toon()
            };
            match (fenced, json) {
                (true, true) => format!("```json\n{text}\n```"),
                (true, false) => format!("```toon\n{text}\n```"),
                (false, _) => text,
            }
        };
        let reply = format!("{}{between}{}", write(&x, forms.0, fences.0), write(&y, forms.1, fences.1));
        let read = ComplianceAnalysis::from_toon(&reply);
        prop_assert!(read.is_err(), "read as one answer: {:?}\n{}", read, reply);
    }
}

#[test]
fn a_block_of_another_language_is_not_the_answer_nor_hides_one() {
    let answer = "country: Peru\ncapital: Lima";
    // An example in Python before the answer's block: not a second answer.
    let reply = format!(
        "Parse it like this:\n```python\ndata = load(reply)\nprint(data)\n```\n```toon\n{answer}\n```"
    );
    let read = toon_core::ToonOutputParser::<common::types::Capital>::new()
        .parse_with_report(&reply)
        .unwrap_or_else(|e| panic!("{e}\n{reply}"));
    assert_eq!(read.value.capital, "Lima");
    // A YAML block holding the type's keys after the answer's block: a second answer.
    let reply = format!(
        "```toon\n{answer}\n```\nIn YAML:\n```yaml\ncountry: Chile\ncapital: Santiago\n```"
    );
    let err = common::types::Capital::from_toon(&reply).unwrap_err();
    assert_eq!(err.kind(), ParseErrorKind::Syntax, "{err}");
    assert_eq!(err.line(), Some(7), "{err}");
}

#[test]
fn a_typed_repair_of_a_json_reply_is_on_its_line() {
    let reply = "Here you go:\n{\n  \"compliance_status\": \"non_compliant\",\n  \"violations\": [],\n  \"audit_trail\": \"R-1\",\n  \"spoken_response\": \"None.\",\n  \"confidence\": \"0.5\"\n}";
    let read = toon_core::ToonOutputParser::<ComplianceAnalysis>::new()
        .parse_with_report(reply)
        .unwrap();
    let at = |kind: RepairKind| read.repairs.iter().find(|r| r.kind == kind).map(|r| r.line);
    assert_eq!(at(RepairKind::EnumCase), Some(3), "{:?}", read.repairs);
    assert_eq!(
        at(RepairKind::UnquotedScalar),
        Some(7),
        "{:?}",
        read.repairs
    );
    assert!(
        read.repairs.iter().all(|r| r.line > 0),
        "{:?}",
        read.repairs
    );
}

#[test]
fn fields_missing_after_a_short_table_at_the_end_may_be_a_cut() {
    // `[40]` with 3 rows written, the last one short, and every field after the table missing.
    let reply = "compliance_status: NON_COMPLIANT\nviolations[40]{category,severity,description,related_rule_id,remediation}:\n  privacy,HIGH,Emails in logs,R-1,Mask them\n  retention,LOW,Old backups,R-2,Delete them\n  consent,HIGH,No opt-in";
    let err = ComplianceAnalysis::from_toon(reply).unwrap_err();
    assert_eq!(err.kind(), ParseErrorKind::MissingField, "{err}");
    assert!(err.message().contains("either cut off"), "{err}");
    // The server's word decides.
    let stop = toon_core::ReplyOptions {
        finish_reason: toon_core::FinishReason::Stop,
        ..Default::default()
    };
    let err = toon_core::ToonOutputParser::<ComplianceAnalysis>::new()
        .options(stop)
        .parse_with_report(reply)
        .unwrap_err();
    assert!(!err.message().contains("either cut off"), "{err}");
}

#[test]
fn json_nested_past_what_is_read_is_refused_by_the_limit() {
    let nest = |d: usize| format!("{}1{}", "[".repeat(d), "]".repeat(d));
    assert!(from_json_reply::<Value>(&nest(127)).is_ok());
    for d in [128, 129, 1000] {
        let err = from_json_reply::<Value>(&nest(d)).unwrap_err();
        assert_eq!(err.kind(), ParseErrorKind::LimitExceeded, "{d}: {err}");
        assert!(err.message().contains("limit of 127"), "{err}");
    }
}

#[test]
fn an_indented_closing_tag_keeps_its_indentation_out_of_the_prose() {
    use common::types::SourcedProse;
    let reply =
        "found: true\ncitations[1]: 2\ncaveats: null\n<answer>\nRome is the capital.\n  </answer>";
    let read = SourcedProse::from_toon(reply).unwrap();
    assert_eq!(read.answer, "Rome is the capital.");
    // Text before the tag on its line is the prose's own.
    let inline =
        "found: true\ncitations[1]: 2\ncaveats: null\n<answer>\nRome is the capital.  </answer>";
    assert_eq!(
        SourcedProse::from_toon(inline).unwrap().answer,
        "Rome is the capital.  "
    );
}

/// The stream's text of a delimited block is the final prose, indented
/// closing tags and lines of spaces included, at every chunking.
#[test]
fn a_streamed_block_ends_as_the_whole_reply_cuts_it() {
    use toon_core::stream::Event as StreamEvent;
    let head = "found: true\ncitations[1]: 2\ncaveats: null\n<answer>\n";
    for body in [
        "Rome is the capital.\n  </answer>",
        "Rome is  \n  the capital.  </answer>",
        "   </answer>",
        "\n  \n  </answer>",
        "  \n\nx\n</answer>",
    ] {
        let reply = format!("{head}{body}");
        let whole = common::types::SourcedProse::from_toon(&reply)
            .unwrap()
            .answer;
        for n in [1, 2, 3, 7, 100] {
            let mut stream = ToonStream::<common::types::SourcedProse>::new();
            let mut text = String::new();
            let mut take = |events: Vec<toon_core::stream::Event>| {
                for e in events {
                    if let StreamEvent::Text { delta, .. } = e {
                        text.push_str(&delta);
                    }
                }
            };
            for piece in reply.as_bytes().chunks(n) {
                take(stream.push(std::str::from_utf8(piece).unwrap()));
            }
            take(stream.end());
            assert_eq!(stream.finish().unwrap().value.answer, whole);
            assert_eq!(text, whole, "{n}: {reply:?}");
        }
    }
}

/// A value nested far past the decoder's depth limit is still encoded, in a
/// small fixed stack: the encoder walks nesting with its own stack. (3,000
/// levels, as the output grows with the square of the depth.)
#[test]
fn encode_walks_any_depth_without_the_call_stack() {
    const DEPTH: usize = 3_000;
    let run = std::thread::Builder::new()
        // Far less than 10,000 levels of recursion would need.
        .stack_size(256 * 1024)
        .spawn(|| {
            let mut arrays = json!(1);
            let mut objects = json!(1);
            for _ in 0..DEPTH {
                arrays = Value::Array(vec![arrays]);
                // Not `json!`, which would copy the value by recursion.
                objects = Value::Object([("a".to_owned(), objects)].into_iter().collect());
            }
            let from_arrays = toon_core::encode(&arrays, &Default::default());
            let from_objects = toon_core::encode(&objects, &Default::default());
            // Taken apart level by level: dropping it whole would recurse.
            for mut v in [arrays, objects] {
                loop {
                    let inner = match &mut v {
                        Value::Array(items) => items.pop(),
                        Value::Object(map) => map.remove("a"),
                        _ => None,
                    };
                    match inner {
                        Some(inner) => v = inner,
                        None => break,
                    }
                }
            }
            (from_arrays, from_objects)
        })
        .unwrap();
    let (arrays, objects) = run.join().expect("encoding a deep value overflowed");
    let lines: Vec<&str> = arrays.lines().collect();
    assert_eq!(lines.len(), DEPTH);
    assert_eq!(lines[0], "[1]:");
    assert_eq!(lines[1], "  - [1]:");
    assert_eq!(lines[DEPTH - 1].trim_start(), "- [1]: 1");
    assert_eq!(lines[DEPTH - 1].len() - 8, 2 * (DEPTH - 1));
    let lines: Vec<&str> = objects.lines().collect();
    assert_eq!(lines.len(), DEPTH);
    assert!(lines[..DEPTH - 1]
        .iter()
        .enumerate()
        .all(|(i, l)| *l == format!("{}a:", " ".repeat(2 * i))));
    assert_eq!(lines[DEPTH - 1].trim_start(), "a: 1");
    // What the encoder writes past the decoder's limit, the decoder names.
    let err = decode(&objects, &Default::default()).unwrap_err();
    assert_eq!(
        err.kind(),
        toon_core::spec::DecodeErrorKind::DepthLimit,
        "{err}"
    );
}

/// A carriage return inside a TOON line (not the one ending it) has two
/// readings, the line's own text or a line break, and is refused on its line,
/// by the whole-reply decoder and the stream alike; at a line's end it is the
/// line break's (§12), and in a JSON reply it is white space.
#[test]
fn a_carriage_return_inside_a_line_is_refused() {
    let head = "compliance_status: COMPLIANT\nviolations[0]{category,severity,description,related_rule_id,remediation}:\n";
    for (tail, line) in [
        (
            "audit_trail: R-1\nspoken_response: Fine.\rconfidence: 0.9",
            4,
        ),
        (
            "audit_trail: R-1\rconfidence: 0.9\nspoken_response: Fine.",
            3,
        ),
        (
            "audit_trail: \"R-1\rconfidence: 0.9\"\nspoken_response: Fine.",
            3,
        ),
        (
            "audit_trail: R-1\r\nspoken_response: Fine.\r\rconfidence: 0.9",
            4,
        ),
        (
            "audit_trail: R-1\nspoken_response: Fine.\nconfidence: 0.9\r ",
            5,
        ),
    ] {
        let reply = format!("{head}{tail}");
        let fenced = format!("Here it is:\n```toon\n{reply}\n```");
        let mut stream = ToonStream::<ComplianceAnalysis>::new();
        for piece in reply.as_bytes().chunks(3) {
            stream.push(std::str::from_utf8(piece).unwrap());
        }
        for (read, line) in [
            (ComplianceAnalysis::from_toon(&reply), line),
            (ComplianceAnalysis::from_toon(&fenced), line + 2),
            (stream.finish().map(|r| r.value), line),
        ] {
            let err = read.unwrap_err();
            assert_eq!(err.kind(), ParseErrorKind::Syntax, "{reply:?}\n{err}");
            assert_eq!(err.line(), Some(line), "{reply:?}\n{err}");
            assert!(err.message().contains("carriage return"), "{err}");
        }
    }
    // Line breaks written CRLF, and a JSON reply's CR, are no such thing.
    let crlf = format!("{head}audit_trail: R-1\r\nspoken_response: Fine.\r\n");
    assert_eq!(
        ComplianceAnalysis::from_toon(&crlf)
            .unwrap()
            .spoken_response,
        "Fine."
    );
    let json = r#"{"compliance_status": "COMPLIANT",\r"violations": [], "audit_trail": "R-1", "spoken_response": "Fine."}"#.replace("\\r", "\r");
    assert_eq!(
        ComplianceAnalysis::from_toon(&json).unwrap().audit_trail,
        "R-1"
    );
}

/// A count past what `usize` holds is corrected like any other, and the
/// report does not claim the model wrote the largest `usize`.
#[test]
fn a_count_past_usize_is_not_reported_as_written() {
    for digits in ["18446744073709551616", "99999999999999999999999"] {
        let reply = format!("country[{digits}]: Peru\ncapital: Lima");
        let read = decode_reply(&reply);
        // The untyped reader keeps it an array of one.
        assert_eq!(read.unwrap()["country"], json!(["Peru"]));
        let reply = format!("[{digits}]: a,b");
        let read = toon_core::ToonOutputParser::<Vec<String>>::new()
            .parse_with_report(&reply)
            .unwrap();
        assert_eq!(read.value, ["a", "b"]);
        let detail = &read.repairs[0].detail;
        assert_eq!(read.repairs[0].kind, RepairKind::CorrectedLength);
        assert!(
            detail.starts_with("declared a count of 18446744073709551615 or more"),
            "{detail}"
        );
    }
}
