//! The stream decoder: fed in chunks of every size, `finish()` is exactly
//! `from_toon` on the whole text; the emitted records are the decoded arrays; and
//! each row is emitted by the push that completes its line.

mod common;

use std::collections::BTreeMap;

use common::corpus::load;
use common::types::{Answer, ComplianceAnalysis, Detections, Severity, Violation};
use serde_json::Value;
use toon_core::{
    stream::Event as StreamEvent, ParseError, ParseErrorKind, Repair, Reply, ReplyOptions, Toon,
    ToonStream,
};

/// Splits `text` into chunks (never inside a character) by `sizes`, cycling.
fn chunks<'a>(text: &'a str, sizes: &[usize]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut i = 0;
    while at < text.len() {
        let mut end = (at + sizes[i % sizes.len()].max(1)).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[at..end]);
        at = end;
        i += 1;
    }
    out
}

/// Pseudo-random chunk sizes from 1 to 12, from a seed (xorshift; no dependency needed).
fn random_sizes(mut seed: u64) -> Vec<usize> {
    (0..64)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 12) as usize + 1
        })
        .collect()
}

fn splittings() -> Vec<Vec<usize>> {
    let mut all: Vec<Vec<usize>> = [1, 2, 3, 7, 64].iter().map(|&n| vec![n]).collect();
    all.extend((1..=4).map(random_sizes));
    all
}

fn stream<T: Toon>(
    text: &str,
    sizes: &[usize],
) -> (Vec<StreamEvent>, Result<Reply<T>, ParseError>) {
    let mut s = ToonStream::<T>::new();
    let mut events = Vec::new();
    for c in chunks(text, sizes) {
        events.extend(s.push(c));
    }
    events.extend(s.end());
    (events, s.finish())
}

fn same<T: Toon + PartialEq + std::fmt::Debug>(
    a: &Result<Reply<T>, ParseError>,
    b: &Result<Reply<T>, ParseError>,
) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => x.value == y.value && x.repairs == y.repairs,
        (Err(x), Err(y)) => x == y,
        _ => false,
    }
}

/// The events that stand: those after the last `Withdrawn`.
fn standing(events: &[StreamEvent]) -> &[StreamEvent] {
    let from = events
        .iter()
        .rposition(|e| matches!(e, StreamEvent::Withdrawn))
        .map_or(0, |i| i + 1);
    &events[from..]
}

/// The emitted items that stand grouped by key, in order.
fn items(events: &[StreamEvent]) -> BTreeMap<String, Vec<Value>> {
    let mut out: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for e in standing(events) {
        if let StreamEvent::Item {
            key,
            index,
            element,
        } = e
        {
            let list = out.entry(key.to_string()).or_default();
            assert_eq!(*index, list.len(), "items of `{key}` arrive in order");
            list.push(element.value());
        }
    }
    out
}

/// Every repair an event carries is one of the whole reply's, on the same
/// line; returns how many events carried one.
fn repairs_are_the_replys(name: &str, events: &[StreamEvent], whole: &[Repair]) -> usize {
    let mut repaired = 0;
    for e in events {
        let repairs = match e {
            StreamEvent::Field { repairs, .. } => &repairs[..],
            StreamEvent::Item { element, .. } => element.repairs(),
            _ => &[],
        };
        repaired += usize::from(!repairs.is_empty());
        for r in repairs {
            assert!(
                whole.contains(r),
                "{name}: the event's repair {r} is not the reply's: {whole:?}"
            );
        }
    }
    repaired
}

#[test]
fn untyped_corpus_streams_to_the_same_result_and_records() {
    let cases = load(include_str!("replies/corpus.txt"));
    let mut with_events = 0;
    for c in &cases {
        let whole = toon_core::ToonOutputParser::<Value>::new().parse_with_report(&c.reply);
        for sizes in splittings() {
            let (events, finished) = stream::<Value>(&c.reply, &sizes);
            assert!(
                same(&finished, &whole),
                "{} in chunks {:?}: {:?} != {:?}",
                c.name,
                &sizes[..1],
                finished,
                whole
            );
            if let Ok(reply) = &finished {
                for (key, list) in items(&events) {
                    // The root array's items stream under the key "".
                    let whole = if key.is_empty() {
                        &reply.value
                    } else {
                        &reply.value[key.as_str()]
                    };
                    assert_eq!(&Value::Array(list), whole, "{}: records of `{key}`", c.name);
                }
                for e in standing(&events) {
                    if let StreamEvent::Field { key, value, .. } = e {
                        assert_eq!(value, &reply.value[&**key], "{}: field `{key}`", c.name);
                    }
                }
                repairs_are_the_replys(&c.name, &events, &reply.repairs);
            }
            with_events += usize::from(!events.is_empty());
        }
    }
    assert!(
        with_events > cases.len() * 4,
        "most replies emit events as they stream ({with_events})"
    );
}

#[test]
fn typed_corpus_streams_to_the_same_result() {
    fn check<T: Toon + PartialEq + std::fmt::Debug>(name: &str, reply: &str) -> usize {
        let whole = toon_core::ToonOutputParser::<T>::new().parse_with_report(reply);
        let mut repaired = 0;
        for sizes in splittings() {
            let (events, finished) = stream::<T>(reply, &sizes);
            assert!(same(&finished, &whole), "{name} in chunks {sizes:?}");
            if let Ok(whole) = &whole {
                repaired += repairs_are_the_replys(name, &events, &whole.repairs);
            }
        }
        repaired
    }
    let mut repaired = 0;
    for c in load(include_str!("replies/typed.txt")) {
        repaired += match c.ty.as_deref() {
            Some("compliance") => check::<ComplianceAnalysis>(&c.name, &c.reply),
            Some("detections") => check::<Detections>(&c.name, &c.reply),
            Some("answer") => check::<Answer>(&c.name, &c.reply),
            _ => 0,
        };
    }
    assert!(
        repaired > 0,
        "some events carry the repairs their lines needed"
    );
}

/// At `max_bytes` and around it, in every splitting, `finish` is what
/// `from_toon` gives (with the same options): the whole reply read, or refused by its
/// length (the stream has stopped keeping its text by then).
#[test]
fn max_bytes_is_applied_as_the_whole_reply_applies_it() {
    for limit in [
        REPLY.len() - 40,
        REPLY.len() - 1,
        REPLY.len(),
        REPLY.len() + 1,
    ] {
        let options = ReplyOptions {
            max_bytes: limit,
            ..Default::default()
        };
        let whole = toon_core::ToonOutputParser::<ComplianceAnalysis>::new()
            .options(options)
            .parse_with_report(REPLY);
        assert_eq!(
            whole.as_ref().err().map(|e| e.kind()),
            (limit < REPLY.len()).then_some(ParseErrorKind::LimitExceeded)
        );
        for sizes in splittings() {
            let mut s = ToonStream::<ComplianceAnalysis>::with_options(options);
            let mut rows = 0;
            for c in chunks(REPLY, &sizes) {
                rows += s.push(c).len();
            }
            rows += s.end().len();
            assert!(rows >= 3, "{rows} events in chunks {sizes:?}");
            assert!(same(&s.finish(), &whole), "limit {limit}, chunks {sizes:?}");
        }
    }
}

const REPLY: &str = "<think>\nCheck each rule.\n</think>\n```toon\ncompliance_status: NON_COMPLIANT\nviolations[3]{category,severity,description,related_rule_id,remediation}:\n    privacy,high,\"Emails logged, unmasked\",R-12,Mask emails\n    retention,LOW,Backups kept too long,R-4,Delete old backups\n    consent,MEDIUM,No opt-in,R-7,Ask first\naudit_trail: R-1..R-20\nspoken_response: Three problems.\n```\n";

#[test]
fn each_row_is_emitted_by_the_push_that_completes_its_line() {
    let mut s = ToonStream::<ComplianceAnalysis>::new();
    let mut seen: Vec<(usize, StreamEvent)> = Vec::new();
    for (n, line) in REPLY.split_inclusive('\n').enumerate() {
        for e in s.push(line) {
            seen.push((n, e));
        }
    }
    let rows: Vec<(usize, Violation)> = seen
        .iter()
        .filter(|(_, e)| matches!(e, StreamEvent::Item { key, .. } if key == "violations"))
        .map(|(n, e)| (*n, e.decode::<Violation>().unwrap()))
        .collect();
    assert_eq!(
        rows.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        [6, 7, 8],
        "lines 7-9 of the reply, each at its own end"
    );
    // The typed repairs apply to streamed rows too: here, the enum's case.
    assert_eq!(rows[0].1.severity, common::types::Severity::High);
    let fields: Vec<(usize, String)> = seen
        .iter()
        .filter_map(|(n, e)| match e {
            StreamEvent::Field { key, .. } => Some((*n, key.to_string())),
            _ => None,
        })
        .collect();
    assert_eq!(
        fields,
        [
            (4, "compliance_status".to_owned()),
            (9, "audit_trail".to_owned()),
            (10, "spoken_response".to_owned())
        ]
    );
    let done = s.finish().unwrap().value;
    assert_eq!(
        done.violations,
        rows.into_iter().map(|(_, v)| v).collect::<Vec<_>>()
    );
}

#[test]
fn a_list_item_is_emitted_when_the_next_one_begins() {
    let reply =
        "steps[2]:\n  - name: read\n    done: true\n  - name: write\n    done: false\nnote: ok\n";
    let mut s = ToonStream::<Value>::new();
    let per_line: Vec<usize> = reply
        .split_inclusive('\n')
        .map(|l| s.push(l).len())
        .collect();
    // Item 0 is decided by line 4 (the next `- `); item 1 and the field `note` by line 6.
    assert_eq!(per_line, [0, 0, 0, 1, 0, 2]);
    assert_eq!(s.finish().unwrap().value["steps"][1]["name"], "write");
}

#[test]
fn a_cut_reply_streams_its_complete_rows_then_finishes_as_truncated() {
    let cut = "violations[9]{category,severity,description,related_rule_id,remediation}:\n  privacy,HIGH,a,R-1,b\n  privacy,HIGH,\"Emails in";
    let (events, finished) = stream::<ComplianceAnalysis>(cut, &[5]);
    assert_eq!(
        events.len(),
        1,
        "the complete row, not the cut one (even at the end of the stream)"
    );
    assert_eq!(
        finished.unwrap_err().kind(),
        toon_core::ParseErrorKind::Truncated
    );
}

/// The stream tells JSON from TOON by the whole-reply decoder's own test: a
/// JSON array is decided at `finish`, a TOON root table streams its rows.
#[test]
fn json_and_toon_roots_are_told_apart_as_the_whole_reply_decoder_does() {
    let (events, finished) = stream::<Vec<u32>>("[1, 2, 3]", &[2]);
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(finished.unwrap().value, [1, 2, 3]);
    let (events, finished) = stream::<Vec<Row>>("[2]{id,name}:\n  1,Ada\n  2,Bob", &[3]);
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[1].decode::<Row>().unwrap().name, "Bob");
    assert_eq!(finished.unwrap().value[1].name, "Bob");
}

/// A `Vec<T>` reply's root array streams its elements under the key "", in
/// every form: table rows, list items, inline values.
#[test]
fn a_root_array_streams_its_elements() {
    let list = "[2]:\n  - id: 1\n    name: Ada\n  - id: 2\n    name: Bob";
    let (events, finished) = stream::<Vec<Row>>(list, &[4]);
    let rows: Vec<Row> = events.iter().map(|e| e.decode().unwrap()).collect();
    assert_eq!(rows, finished.unwrap().value);
    assert!(events
        .iter()
        .all(|e| matches!(e, StreamEvent::Item { key, .. } if key.is_empty())));
    let (events, finished) = stream::<Vec<u32>>("[3]: 4,5,6", &[1]);
    let values: Vec<u32> = events.iter().map(|e| e.decode().unwrap()).collect();
    assert_eq!(values, [4, 5, 6]);
    assert_eq!(finished.unwrap().value, values);
}

#[derive(Debug, PartialEq, toon_core::Toon)]
struct Row {
    id: u32,
    name: String,
}

#[derive(Debug, PartialEq, toon_core::Toon)]
struct Roster {
    people: Vec<Row>,
    done: bool,
}

/// A row that needed a repair carries it, placed on its line of the completion;
/// a clean row carries none, and both read into the type as the whole reply does.
#[test]
fn a_streamed_row_carries_its_repairs_on_its_line() {
    // One text column: the comma in the name has one reading.
    let reply = "Here it is:\npeople[2]{id,name}:\n  1,Ann\n  2,Smith, John\ndone: true\n";
    let (events, finished) = stream::<Roster>(reply, &[5]);
    let rows: Vec<&toon_core::stream::Element> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Item { element, .. } => Some(element),
            _ => None,
        })
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!((rows[0].line(), rows[1].line()), (3, 4));
    assert!(rows[0].repairs().is_empty());
    let kinds: Vec<_> = rows[1].repairs().iter().map(|r| (r.kind, r.line)).collect();
    assert_eq!(kinds, [(toon_core::RepairKind::RejoinedCells, 4)]);
    let whole = finished.unwrap();
    assert!(whole.repairs.contains(&rows[1].repairs()[0]));
    for (row, expected) in rows.iter().zip(&whole.value.people) {
        assert_eq!(&row.decode::<Row>().unwrap(), expected);
    }
    assert_eq!(rows[1].value()["name"], "Smith, John");
}

/// A row the type cannot read (a severity no variant has) is dropped from the
/// whole reply; the stream gives it no event and no index, so each event's
/// index is its row's place in the final value.
#[test]
fn a_row_the_type_drops_has_no_event() {
    let reply = "compliance_status: NON_COMPLIANT\nviolations[3]{category,severity,description,related_rule_id,remediation}:\n  privacy,HIGH,Emails logged,R-12,Mask emails\n  security,CRITICAL,Keys in the repo,R-3,Rotate keys\n  retention,LOW,Backups kept,R-4,Delete them\naudit_trail: R-1\nspoken_response: Two problems.\n";
    for sizes in splittings() {
        let (events, finished) = stream::<ComplianceAnalysis>(reply, &sizes);
        let whole = finished.unwrap();
        let dropped: Vec<_> = whole
            .repairs
            .iter()
            .filter(|r| r.kind == toon_core::RepairKind::DroppedRow)
            .map(|r| r.line)
            .collect();
        assert_eq!(dropped, [4]);
        let rows: Vec<(usize, usize, Violation)> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::Item { index, element, .. } => {
                    Some((*index, element.line(), element.decode().unwrap()))
                }
                _ => None,
            })
            .collect();
        let indices: Vec<_> = rows.iter().map(|(i, line, _)| (*i, *line)).collect();
        assert_eq!(indices, [(0, 3), (1, 5)], "in chunks {:?}", &sizes[..1]);
        for (i, _, row) in &rows {
            assert_eq!(row, &whole.value.violations[*i]);
        }
    }
}

#[derive(Debug, PartialEq, Toon)]
struct Pair {
    id: u8,
    ok: bool,
}

#[derive(Debug, PartialEq, Toon)]
#[toon(tag = "kind", rename_all = "snake_case")]
enum Report {
    Rows { rows: Vec<Pair> },
    Empty,
}

/// The same for a tagged enum's table: the key names one variant's field, so
/// its element type decides, before the tag is read.
#[test]
fn a_tagged_enums_dropped_row_has_no_event() {
    let reply = "rows[3]{id,ok}:\n  1,true\n  2,maybe\n  3,false\nkind: rows\n";
    let (events, finished) = stream::<Report>(reply, &[4]);
    let ids: Vec<(usize, Pair)> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Item { index, element, .. } => Some((*index, element.decode().unwrap())),
            _ => None,
        })
        .collect();
    assert_eq!(
        ids,
        [
            (0, Pair { id: 1, ok: true }),
            (1, Pair { id: 3, ok: false })
        ]
    );
    let Report::Rows { rows } = finished.unwrap().value else {
        panic!("not the rows variant")
    };
    assert_eq!(rows.iter().map(|p| p.id).collect::<Vec<_>>(), [1, 3]);
}

/// A streamed row reads into its type as the whole reply reads it, by either
/// of the typed reader's paths (one pass, or through a node).
#[test]
fn streamed_rows_read_as_the_whole_reply_reads_them() {
    let mut replies: Vec<(String, String)> = load(include_str!("replies/typed.txt"))
        .into_iter()
        .filter(|c| c.ty.as_deref() == Some("compliance"))
        .map(|c| (c.name, c.reply))
        .collect();
    // And the real model's replies under the type's grammar, on each server.
    for server in ["llama-server", "llama-cpp-python"] {
        let dir = format!(
            "{}/tests/replies/real/{server}/grammar/compliance",
            env!("CARGO_MANIFEST_DIR")
        );
        for entry in std::fs::read_dir(dir).into_iter().flatten() {
            let path = entry.unwrap().path();
            replies.push((
                path.display().to_string(),
                std::fs::read_to_string(&path).unwrap(),
            ));
        }
    }
    let mut compared = 0;
    for (name, reply) in &replies {
        let (events, finished) = stream::<ComplianceAnalysis>(reply, &[7]);
        let Ok(whole) = finished else { continue };
        if whole
            .repairs
            .iter()
            .any(|r| r.kind == toon_core::RepairKind::DroppedRow)
        {
            continue; // the indices of the rows after a dropped one differ
        }
        for e in &events {
            let StreamEvent::Item { key, index, .. } = e else {
                continue;
            };
            assert_eq!(key, "violations");
            let row = e.decode::<Violation>();
            assert_eq!(
                row.as_ref().ok(),
                Some(&whole.value.violations[*index]),
                "{name}: row {index}"
            );
            compared += 1;
        }
    }
    assert!(compared > 50, "{compared} rows compared");
}

/// A line inside tool-call tags streams its row, and its event carries the
/// tag's removal as the whole reply reports it.
#[test]
fn a_row_wrapped_in_tool_call_tags_carries_the_repair() {
    #[derive(Debug, PartialEq, Toon)]
    struct Row {
        id: u32,
        name: String,
    }
    let reply = "<tool_call>\n[2]{id,name}:\n  1,Ada\n  2,Bob</tool_call>\n";
    let (events, finished) = stream::<Vec<Row>>(reply, &[3]);
    let whole = finished.unwrap();
    assert_eq!(whole.value.len(), 2);
    let StreamEvent::Item {
        element, index: 1, ..
    } = &events[1]
    else {
        panic!("{events:?}");
    };
    assert_eq!(
        element.decode::<Row>().unwrap(),
        Row {
            id: 2,
            name: "Bob".into()
        }
    );
    let kinds: Vec<_> = element.repairs().iter().map(|r| (r.kind, r.line)).collect();
    assert_eq!(kinds, [(toon_core::RepairKind::StrippedToolCall, 4)]);
    assert!(
        whole.repairs.contains(&element.repairs()[0]),
        "{:?}",
        whole.repairs
    );
    // The first row's line had no tag.
    assert!(
        matches!(&events[0], StreamEvent::Item { element, .. } if element.repairs().is_empty())
    );
}

/// A stream can move to another thread (a spawned task) and be shared, as
/// the rows it keeps for `finish` are `Send` and `Sync` too.
#[test]
fn streams_are_send_and_sync() {
    fn check<S: Send + Sync>() {}
    check::<ToonStream<ComplianceAnalysis>>();
    check::<toon_core::stream::ToonEvents<Vec<Violation>>>();
}

/// Texts a step away from a root table whose rows `finish` takes as read
/// (a space, a line ending, a count, a column, a wrapper): each finishes
/// exactly as `from_toon` reads it, and the table itself as its rows.
/// `text`, holding a table of `count` violations, and the steps from it a
/// model takes: after it, a newline, a comment or prose; around it, a fence,
/// a byte-order mark, a space or a blank line; its line ends as CRLF, its rows
/// indented otherwise, trailing spaces; a count one off, columns swapped or
/// one more, an enum's case or a value it does not have. The first four read
/// as `text` does.
fn violation_steps(text: &str, count: usize) -> Vec<String> {
    let declared = format!("[{count}]");
    vec![
        text.to_owned(),
        format!("{text}\n"),
        format!("{text}\n\n"),
        format!("{text}\n# done"),
        format!("{text}\nThat is all."),
        format!("```toon\n{text}\n```"),
        format!("\u{feff}{text}"),
        format!(" {text}"),
        format!("\n{text}"),
        text.replace('\n', "\r\n"),
        text.replace("\n  ", "\n    "),
        text.replacen("\n  ", "\n   ", 1),
        text.replacen("\n  ", "\n\t", 1),
        text.replacen('\n', " \n", 2),
        text.replacen(&declared, &format!("[{}]", count + 1), 1),
        text.replacen(&declared, &format!("[{}]", count - 1), 1),
        text.replacen("category,severity", "severity,category", 1),
        text.replacen("remediation}", "remediation,note}", 1),
        text.replacen("HIGH", "high", 1),
        text.replacen("HIGH", "SEVERE", 1),
        // A colon in the first cell, after a delimiter other than the header's:
        // a `key: value` line to the decoder, not a row.
        text.replacen("\n  ", "\n  a|b: ", 1),
        text.replacen("\n  ", "\n  a\tb: ", 1),
    ]
}

#[test]
fn root_tables_a_step_from_exact_finish_as_from_toon() {
    let rows: Vec<Violation> = (0..3)
        .map(|i| Violation {
            category: format!("privacy {i}"),
            severity: [Severity::High, Severity::Low][i % 2].clone(),
            description: "Logs, the full \"card\" number".into(),
            related_rule_id: format!("R-{i}"),
            remediation: "Mask it".into(),
        })
        .collect();
    let text = rows.to_toon();
    assert!(text.starts_with("[3]{category,"), "{text}");
    let header_end = text.find('\n').unwrap();
    let mut variants = violation_steps(&text, 3);
    variants.extend([
        text.replacen("[3]", "[03]", 1),
        text.replacen(":\n", ": \n", 1),
        format!("{}\n{}", &text[..header_end], &text[header_end..]),
    ]);
    for (i, reply) in variants.iter().enumerate() {
        let whole = toon_core::ToonOutputParser::<Vec<Violation>>::new().parse_with_report(reply);
        if i < 4 {
            assert_eq!(whole.as_ref().unwrap().value, rows, "{reply:?}");
        }
        for sizes in splittings() {
            let (_, finished) = stream::<Vec<Violation>>(reply, &sizes);
            assert!(
                same(&finished, &whole),
                "{reply:?} {sizes:?}: {finished:?} != {whole:?}"
            );
        }
    }
}

/// A struct reply (`ComplianceAnalysis`) a step from the form `finish`
/// builds from what the stream read (every line a field or a table header at
/// the margin, or a row two spaces in): each finishes exactly as `from_toon`
/// reads it, repairs and refusals included, in every splitting.
#[test]
fn struct_replies_a_step_from_exact_finish_as_from_toon() {
    let text = "compliance_status: NON_COMPLIANT\n\
                violations[2]{category,severity,description,related_rule_id,remediation}:\n\
                \x20 privacy,HIGH,\"Logs, the full card\",R-1,Mask it\n\
                \x20 security,LOW,Keys in code,R-2,Rotate them\n\
                audit_trail: Checked R-1 to R-9\n\
                spoken_response: Two problems.\n\
                confidence: 0.5";
    let whole = toon_core::ToonOutputParser::<ComplianceAnalysis>::new()
        .parse_with_report(text)
        .unwrap();
    assert!(whole.repairs.is_empty(), "{:?}", whole.repairs);
    assert_eq!(whole.value.violations.len(), 2);
    // Each edit is one `replacen` of the first pair by the second.
    let trail = "audit_trail: Checked R-1 to R-9";
    let edits = [
        ("[2]", "[0]"),
        ("Checked R-1 to R-9", "\"Checked R-1 to R-9\""),
        ("audit_trail:", "\"audit_trail\":"),
        ("audit_trail: ", "audit_trail:"),
        ("audit_trail: ", "audit_trail : "),
        (trail, "audit_trail: []"),
        (trail, "audit_trail:\n  note: x"),
        ("\naudit_trail", "\n  audit_trail"),
        (&format!("\n{trail}"), ""),
        ("confidence: 0.5", "confidence: 7"),
        ("confidence: 0.5", "confidence: \"0.5\""),
        ("confidence: 0.5", "audit_trail: twice"),
        ("confidence: 0.5", "mood: fine"),
        ("NON_COMPLIANT", "non_compliant"),
        ("\nconfidence: 0.5", ""),
        ("\n  security", "\n\n  security"),
    ];
    let mut variants = violation_steps(text, 2);
    variants.extend(edits.iter().map(|(from, to)| text.replacen(from, to, 1)));
    // The status last; the table empty.
    variants.push(
        text.replacen("compliance_status: NON_COMPLIANT\n", "", 1)
            + "\ncompliance_status: COMPLIANT",
    );
    let rows_from = text.find("\n  ").unwrap();
    let rows_to = text.find("\naudit_trail").unwrap();
    variants.push(format!(
        "{}{}",
        &text[..rows_from].replacen("[2]", "[0]", 1),
        &text[rows_to..]
    ));
    let mut built = 0;
    for reply in &variants {
        let whole =
            toon_core::ToonOutputParser::<ComplianceAnalysis>::new().parse_with_report(reply);
        built += usize::from(whole.as_ref().is_ok_and(|r| r.repairs.is_empty()));
        for sizes in splittings() {
            let (_, finished) = stream::<ComplianceAnalysis>(reply, &sizes);
            assert!(
                same(&finished, &whole),
                "{reply:?} {sizes:?}: {finished:?} != {whole:?}"
            );
        }
    }
    // Some variants read with no repair, some with repairs, some not at all.
    assert!(built > 3 && built < variants.len() - 3, "{built}");
}

/// A reply read as JSON values (no struct: any key is one) finishes as
/// `from_toon` reads it, a byte-order mark before a key included, which the
/// decoder strips from the key.
#[test]
fn an_untyped_reply_finishes_as_from_toon() {
    for reply in [
        "a[0]{x}:\n",
        "\u{feff}a[0]{x}:\n",
        "\u{feff}a: 1\nb[2]{x,y}:\n  1,2\n  3,4\n",
        "a: 1\nb[2]{x,y}:\n  1,2\n  3,4\n",
        "a: 1\na: 2\n",
    ] {
        let whole = toon_core::ToonOutputParser::<Value>::new().parse_with_report(reply);
        for sizes in splittings() {
            let (_, finished) = stream::<Value>(reply, &sizes);
            assert!(
                same(&finished, &whole),
                "{reply:?} {sizes:?}: {finished:?} != {whole:?}"
            );
        }
    }
}

/// The real model's replies (constrained by the grammar, so clean, and
/// prompted, so mostly not), each edited in a few places and streamed in
/// chunks of random sizes: `finish` is `from_toon`, whether the stream could
/// read a table's rows ahead for it, only some of them, or none.
mod edited_real_replies {
    use super::*;
    use proptest::prelude::*;

    fn replies(ty: &str) -> Vec<String> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/replies/real");
        let mut out = Vec::new();
        let servers = ["llama-server", "llama-cpp-python"];
        for dir in servers.iter().flat_map(|s| {
            [
                format!("{root}/{s}/grammar/{ty}"),
                format!("{root}/{s}/{ty}"),
            ]
        }) {
            let mut files: Vec<_> = std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            out.extend(files.iter().map(|f| std::fs::read_to_string(f).unwrap()));
        }
        out
    }

    /// Edits at byte positions (taken modulo the text, moved to a character
    /// boundary): a deletion of up to 3 bytes, or one of the texts a model
    /// gets wrong inserted.
    fn edited(reply: &str, edits: &[(usize, usize)]) -> String {
        const INSERTS: &[&str] = &[
            "\n", ",", "\"", ":", "  ", "# ", "\r", "x", "\n  ", "-1", "null",
        ];
        let mut text = reply.to_owned();
        for &(at, op) in edits {
            if text.is_empty() {
                break;
            }
            let mut at = at % text.len();
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            if op < 3 {
                let mut end = (at + op + 1).min(text.len());
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                text.replace_range(at..end, "");
            } else {
                text.insert_str(at, INSERTS[op % INSERTS.len()]);
            }
        }
        text
    }

    fn check<T: Toon + PartialEq + std::fmt::Debug>(
        reply: &str,
        sizes: &[usize],
    ) -> Result<(), TestCaseError> {
        let whole = toon_core::ToonOutputParser::<T>::new().parse_with_report(reply);
        let (_, finished) = stream::<T>(reply, sizes);
        prop_assert!(
            same(&finished, &whole),
            "{reply:?}: {finished:?} != {whole:?}"
        );
        Ok(())
    }

    /// The real model's violations written as a root table (a `Vec`
    /// reply), the shape whose rows `finish` may take as read without
    /// reading the text again.
    fn root_tables() -> Vec<String> {
        replies("compliance")
            .iter()
            .filter_map(|r| ComplianceAnalysis::from_toon(r).ok())
            .filter(|a| !a.violations.is_empty())
            .map(|a| a.violations.to_toon())
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// A root table edited in a few places (a space, a CR, a blank or
        /// comment line, a wrong count, a cut), streamed in chunks of
        /// random sizes and finished with any finish reason: the rows read
        /// as their lines ended are the value only where `from_toon` reads
        /// the same, repairs and refusals included.
        #[test]
        fn finish_of_a_root_table_is_from_toon(
            which in any::<prop::sample::Index>(),
            edits in prop::collection::vec((any::<usize>(), 0usize..14), 0..3),
            sizes in prop::collection::vec(1usize..13, 1..8),
            reason in 0usize..4,
            end in any::<bool>(),
        ) {
            let all = root_tables();
            let reply = edited(&all[which.index(all.len())], &edits);
            let finish_reason = [
                toon_core::FinishReason::Stop,
                toon_core::FinishReason::Length,
                toon_core::FinishReason::ContentFilter,
                toon_core::FinishReason::Unknown,
            ][reason];
            let options = ReplyOptions { finish_reason, ..ReplyOptions::default() };
            let whole = toon_core::ToonOutputParser::<Vec::<Violation>>::new().options(options).parse_with_report(&reply);
            let mut s = ToonStream::<Vec<Violation>>::new();
            for c in chunks(&reply, &sizes) {
                s.push(c);
            }
            // `finish` without `end` reads the last line as well.
            if end {
                s.end();
            }
            let finished = s.finish_with(finish_reason);
            prop_assert!(same(&finished, &whole), "{reply:?}: {finished:?} != {whole:?}");
        }

        #[test]
        fn finish_is_from_toon(
            which in any::<prop::sample::Index>(),
            compliance in any::<bool>(),
            edits in prop::collection::vec((any::<usize>(), 0usize..14), 0..4),
            sizes in prop::collection::vec(1usize..13, 1..8),
        ) {
            let ty = if compliance { "compliance" } else { "detections" };
            let all = replies(ty);
            let reply = edited(&all[which.index(all.len())], &edits);
            if compliance {
                check::<ComplianceAnalysis>(&reply, &sizes)?;
            } else {
                check::<Detections>(&reply, &sizes)?;
            }
        }
    }
}

#[derive(Debug, PartialEq, toon_core::Toon)]
struct Point {
    x: i8,
    y: i8,
}

#[derive(Debug, PartialEq, toon_core::Toon)]
struct Segment {
    from: Point,
    to: Point,
    label: Option<String>,
}

#[derive(Debug, PartialEq, toon_core::Toon)]
struct Segments {
    segments: Vec<Segment>,
}

/// Rows under a header of nested field groups (`{from{x,y},...}`), as
/// `to_toon` writes them, stream as the records the whole reply reads.
#[test]
fn rows_of_nested_field_groups_stream_as_their_records() {
    let x = Segments {
        segments: vec![
            Segment {
                from: Point { x: 0, y: 0 },
                to: Point { x: 3, y: -4 },
                label: None,
            },
            Segment {
                from: Point { x: 1, y: 1 },
                to: Point { x: 2, y: 2 },
                label: Some("b".into()),
            },
        ],
    };
    let text = x.to_toon();
    assert!(
        text.starts_with("segments[2]{from{x,y},to{x,y},label}:"),
        "{text}"
    );
    for sizes in splittings() {
        let (events, finished) = stream::<Segments>(&text, &sizes);
        let rows: Vec<Segment> = events.iter().map(|e| e.decode().unwrap()).collect();
        assert_eq!(rows, x.segments, "{sizes:?}");
        assert_eq!(finished.unwrap().value, x);
    }
}

#[derive(Debug, Clone, PartialEq, Toon)]
#[toon(rename_all = "lowercase")]
enum Prio {
    Low,
    High,
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Task {
    title: String,
    prio: Prio,
    note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Plan {
    goal: String,
    tasks: Vec<Task>,
    done: bool,
}

/// Streams `reply` in every splitting: `finish` is `from_toon`, and every
/// standing event of `tasks` is the final value's record at its index.
/// Returns the events of one splitting.
fn plan_events(reply: &str) -> Vec<StreamEvent> {
    let whole = toon_core::ToonOutputParser::<Plan>::new().parse_with_report(reply);
    let mut last = Vec::new();
    for sizes in splittings() {
        let (events, finished) = stream::<Plan>(reply, &sizes);
        assert!(
            same(&finished, &whole),
            "{reply:?} in chunks {:?}",
            &sizes[..1]
        );
        let plan = finished.unwrap().value;
        for e in standing(&events) {
            if let StreamEvent::Item {
                key,
                index,
                element,
            } = e
            {
                assert_eq!(key, "tasks");
                assert_eq!(
                    element.decode::<Task>().unwrap(),
                    plan.tasks[*index],
                    "{reply:?}: event {index}"
                );
            }
        }
        last = events;
    }
    last
}

#[test]
fn reasoning_that_only_a_bare_think_tag_closes_is_withdrawn() {
    // The chat template opened the reasoning: the reply shows only `</think>`.
    let reply = "The user wants a plan. Draft:\ntasks[1]{title,prio,note}:\n  draft,low,x\n</think>\n\ngoal: ship\ntasks[2]{title,prio,note}:\n  write,high,\n  test,low,null\ndone: false\n";
    let events = plan_events(reply);
    let withdrawn = events
        .iter()
        .position(|e| matches!(e, StreamEvent::Withdrawn))
        .expect("the draft's row is withdrawn");
    assert!(
        matches!(&events[0], StreamEvent::Item { element, .. } if element.decode::<Task>().unwrap().title == "draft")
    );
    assert_eq!(items(&events)["tasks"].len(), 2, "{events:?}");
    assert_eq!(withdrawn, 1);
    // A `</think>` as a row's cell is data, not the end of reasoning.
    let events =
        plan_events("goal: ship\ntasks[1]{title,prio,note}:\n  </think>,low,x\ndone: true\n");
    assert!(!events.iter().any(|e| matches!(e, StreamEvent::Withdrawn)));
}

#[test]
fn prose_before_a_fenced_block_is_withdrawn() {
    let doc = "goal: ship\ntasks[2]{title,prio,note}:\n  write,high,\n  test,low,null\ndone: false\n```\n";
    // A label read as a key, then the fence: nothing to withdraw.
    let events = plan_events(&format!("Output:\n```toon\n{doc}"));
    assert!(!events.iter().any(|e| matches!(e, StreamEvent::Withdrawn)));
    assert_eq!(items(&events)["tasks"].len(), 2);
    // A sentence that reads as a key the type does not have: no event, so
    // nothing to withdraw when the fence comes.
    let events = plan_events(&format!("Summary: two tasks.\n```toon\n{doc}"));
    assert!(
        !events.iter().any(|e| matches!(e, StreamEvent::Withdrawn)),
        "{events:?}"
    );
    assert_eq!(items(&events)["tasks"].len(), 2);
    // A sentence read as one of its fields, then a fence naming its language.
    let events = plan_events(&format!("goal: two tasks.\n```toon\n{doc}"));
    assert!(matches!(&events[1], StreamEvent::Withdrawn), "{events:?}");
    assert_eq!(items(&events)["tasks"].len(), 2);
    // A bare fence after a sentence read as a field opens the block too.
    let events = plan_events(&format!("goal: ship it, I think.\n```\n{doc}"));
    assert!(matches!(&events[1], StreamEvent::Withdrawn), "{events:?}");
    assert_eq!(items(&events)["tasks"].len(), 2);
    // After the document's events, a fence may close it (its opening left
    // out) or open a block: only the rest shows which, so they are withdrawn.
    let events =
        plan_events("goal: ship\ntasks[1]{title,prio,note}:\n  write,high,\ndone: false\n```\n");
    assert!(
        matches!(events.last(), Some(StreamEvent::Withdrawn)),
        "{events:?}"
    );
}

#[test]
fn a_row_wider_than_its_header_leaves_its_table_to_finish() {
    // The whole reply widens a header only where every row is wider: a row
    // cannot tell, so from it on the table streams nothing.
    for reply in [
        "goal: ship\ntasks[2]{title,prio}:\n  write,high,extra\n  test,low\ndone: false\n",
        "goal: ship\ntasks[2]{title,prio}:\n  write,high\n  test,low,extra\ndone: false\n",
        "goal: ship\ntasks[2]{title,prio}:\n  write,high,a\n  test,low,b\ndone: false\n",
    ] {
        let events = plan_events(reply);
        assert!(
            items(&events).get("tasks").map_or(0, Vec::len) <= 1,
            "{reply:?}"
        );
    }
}

#[test]
fn fenced_json_streams_no_events() {
    let reply = "```json\n{\n\"goal\": \"ship\",\n\"tasks\": [{\"title\": \"write\", \"prio\": \"high\", \"note\": null}],\n\"done\": false\n}\n```\n";
    assert_eq!(Plan::from_toon(reply).unwrap().tasks.len(), 1);
    assert!(plan_events(reply).is_empty());
}

#[test]
fn a_cell_starting_with_a_unicode_space_keeps_it() {
    #[derive(Debug, Clone, PartialEq, Toon)]
    struct Named {
        name: String,
        id: u32,
    }
    let reply = "[2]{name,id}:\n  Ada,1\n  \u{a0}Bob,2\n";
    let (events, finished) = stream::<Vec<Named>>(reply, &[3]);
    assert_eq!(finished.unwrap().value[1].name, "\u{a0}Bob");
    let StreamEvent::Item { element, .. } = &events[1] else {
        panic!("{events:?}")
    };
    assert_eq!(element.decode::<Named>().unwrap().name, "\u{a0}Bob");
}

#[test]
fn a_line_deeper_than_the_rows_is_no_row_for_tags_and_reasoning() {
    // `</think>` deeper than the rows: the whole reply's end of the reasoning
    // the template opened, so the lines before it are withdrawn.
    let reply = "goal: draft\ntasks[1]{title,prio,note}:\n  draft,low,x\n    </think>\ngoal: ship\ntasks[1]{title,prio,note}:\n  write,high,y\ndone: false\n";
    assert_eq!(Plan::from_toon(reply).unwrap().goal, "ship");
    let events = plan_events(reply);
    assert!(events.iter().any(|e| matches!(e, StreamEvent::Withdrawn)));
    // A closing tool-call tag alone there is stripped, not a row.
    #[derive(Debug, Clone, PartialEq, Toon)]
    struct Named {
        name: String,
    }
    #[derive(Debug, Clone, PartialEq, Toon)]
    struct Names {
        items: Vec<Named>,
        done: bool,
    }
    let reply = "items[3]{name}:\n  a\n    </tool_call>\n  b\n  c\ndone: true\n";
    let names = Names::from_toon(reply).unwrap().items;
    assert_eq!(names.len(), 3);
    for sizes in splittings() {
        let (events, _) = stream::<Names>(reply, &sizes);
        for e in standing(&events) {
            if let StreamEvent::Item { index, element, .. } = e {
                assert_eq!(element.decode::<Named>().unwrap(), names[*index]);
            }
        }
    }
}

#[test]
fn a_fence_keeps_a_tool_call_wrapper_open() {
    #[derive(Debug, Clone, PartialEq, Toon)]
    struct Row {
        id: u32,
        name: String,
    }
    // The whole reply strips tool-call tags before fences: the wrapper the
    // first line opened is closed by the tag glued to the last row.
    let reply = "<tool_call>\nResult: two rows.\n```toon\n[2]{id,name}:\n  1,Ada\n  2,Bob</tool_call>\n```\n";
    let rows = Vec::<Row>::from_toon(reply).unwrap();
    assert_eq!(rows[1].name, "Bob");
    for sizes in splittings() {
        let (events, _) = stream::<Vec<Row>>(reply, &sizes);
        let standing: Vec<Row> = standing(&events)
            .iter()
            .filter_map(|e| e.decode::<Row>().ok())
            .collect();
        assert_eq!(standing, rows);
    }
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Job {
    title: String,
    priority: u8,
    estimate: Option<f32>,
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Jobs {
    jobs: Vec<Job>,
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Step {
    name: String,
    done: bool,
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Steps {
    goal: String,
    steps: Vec<Step>,
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Note {
    name: String,
    note: String,
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Notes {
    goal: String,
    notes: Vec<Note>,
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct NotedSteps {
    steps: Vec<Step>,
    #[toon(delimited)]
    answer: String,
}

/// Each standing item of `key`, read as `E`, is the final value's element at
/// its index, in every splitting, and no event is of a key but the `known`
/// ones; returns how many items stood.
fn items_hold<T: Toon + PartialEq + std::fmt::Debug, E: Toon + PartialEq + std::fmt::Debug>(
    reply: &str,
    key: &str,
    known: &[&str],
    of: impl Fn(&T) -> &Vec<E>,
) -> usize {
    let mut stood = 0;
    for sizes in splittings() {
        let (events, finished) = stream::<T>(reply, &sizes);
        let whole = toon_core::ToonOutputParser::<T>::new()
            .parse_with_report(reply)
            .unwrap();
        assert!(
            same(&finished, &Ok(whole)),
            "{sizes:?}: finish is from_toon"
        );
        let value = finished.unwrap().value;
        stood = 0;
        for e in standing(&events) {
            match e {
                StreamEvent::Item { key: k, index, .. } if k == key => {
                    assert_eq!(
                        e.decode::<E>().ok().as_ref(),
                        of(&value).get(*index),
                        "{sizes:?}: item {index} of `{key}` in {reply:?}"
                    );
                    stood += 1;
                }
                StreamEvent::Item { key: k, .. } | StreamEvent::Field { key: k, .. }
                    if !known.contains(&&**k) =>
                {
                    panic!("{sizes:?}: an event of `{k}`, which the final value leaves out")
                }
                _ => {}
            }
        }
    }
    stood
}

/// Events the final value contradicted, each found by a review of the stream:
/// every one now stands in the final value, or has no event.
#[test]
fn no_event_is_contradicted_by_the_final_value() {
    // A header that leaves out a column the type has: the first row alone
    // reads as written (`Write docs,2` a title), the whole table under the
    // completed header, so the rows arrive with `finish`.
    let reply = "jobs[2]{title,priority}:\n  Write docs,2,3\n  Deploy,3,1.5\n";
    let whole = Jobs::from_toon(reply).unwrap();
    assert_eq!(whole.jobs[0].title, "Write docs");
    assert_eq!(
        items_hold::<Jobs, Job>(reply, "jobs", &["jobs"], |v| &v.jobs),
        0
    );
    // Under a header the type could not complete, a wider row is read as
    // written and streams as before.
    let written =
        "jobs[2]{title,priority,estimate}:\n  Write docs, then ship,2,3\n  Deploy,3,1.5\n";
    assert_eq!(
        items_hold::<Jobs, Job>(written, "jobs", &["jobs"], |v| &v.jobs),
        2
    );
    // A tool-call tag inside a reasoning block is reasoning, not a wrapper
    // that a later line closes.
    let reply = "<think>\nNo tool is needed, so no\n<tool_call>\nhere.\n</think>\ngoal: ship\nnotes[2]{name,note}:\n  write,a\n  test,b</tool_call>\n";
    let whole = Notes::from_toon(reply).unwrap();
    assert_eq!(whole.notes[1].note, "b</tool_call>");
    assert_eq!(
        items_hold::<Notes, Note>(reply, "notes", &["goal", "notes"], |v| &v.notes),
        2
    );
    // A delimited block inside a list item: cut out, the item goes on after it.
    let reply = "steps[1]:\n  - name: build\n<answer>\nok\n</answer>\n    done: true\n";
    let whole = NotedSteps::from_toon(reply).unwrap();
    assert_eq!((whole.steps[0].done, whole.answer.as_str()), (true, "ok"));
    assert_eq!(
        items_hold::<NotedSteps, Step>(reply, "steps", &["steps"], |v| &v.steps),
        1
    );
    // Keys the type does not have are left out of the final value: no events.
    let reply = "goal: ship\nextra[1]{name,done}:\n  x,true\nnote: hi\nsteps[1]{name,done}:\n  build,true\n";
    assert_eq!(
        items_hold::<Steps, Step>(reply, "steps", &["goal", "steps"], |v| &v.steps),
        1
    );
}

/// List items indented by four spaces: each item's event carried a
/// re-levelling of its own small document ("read level by level", on a line of
/// the item) that the whole reply, which reads a unit of four, does not report.
#[test]
fn four_space_list_items_carry_only_the_replys_repairs() {
    #[derive(Debug, Clone, PartialEq, Toon)]
    struct Plan {
        steps: Vec<Step>,
    }
    let reply = "steps[2]:\n    - name: build\n        done: true\n    - name: publish\n        done: false\n";
    let whole = toon_core::ToonOutputParser::<Plan>::new()
        .parse_with_report(reply)
        .unwrap();
    assert!(
        whole.repairs.iter().any(|r| r.detail.contains("unit of 4")),
        "{:?}",
        whole.repairs
    );
    for sizes in splittings() {
        let (events, finished) = stream::<Plan>(reply, &sizes);
        assert_eq!(finished.unwrap().value, whole.value);
        assert_eq!(items(&events)["steps"].len(), 2);
        repairs_are_the_replys("four spaces", &events, &whole.repairs);
    }
}

/// An element kept, or cloned, reads as its own row however the events
/// before and after it were used, under either table.
#[test]
fn a_kept_element_keeps_its_row_while_the_next_rows_are_read() {
    #[derive(Debug, PartialEq, Toon)]
    struct Item {
        id: u32,
        name: String,
    }
    #[derive(Debug, PartialEq, Toon)]
    struct Pair {
        a: Vec<Item>,
        b: Vec<Item>,
    }
    let mut s = ToonStream::<Pair>::new();
    let only = |events: Vec<toon_core::stream::Event>| {
        assert_eq!(events.len(), 1, "{events:?}");
        events.into_iter().next().unwrap()
    };
    let item = |e: &StreamEvent| e.decode::<Item>().unwrap();
    let row = |id: u32, name: &str| Item {
        id,
        name: name.into(),
    };
    assert!(s.push("a[4]{id,name}:\n").is_empty());
    let first = only(s.push("  1,Ada\n"));
    // Read and dropped at once: the next row may take its place.
    assert_eq!(item(&only(s.push("  2,Bo\n"))), row(2, "Bo"));
    let third = only(s.push("  3,Cy\n"));
    let copy = third.clone();
    drop(third);
    let fourth = only(s.push("  4,Di\n"));
    assert!(s.push("b[1]{id,name}:\n").is_empty());
    let other = only(s.push("  5,Ed\n"));
    assert_eq!(item(&first), row(1, "Ada"));
    assert_eq!(item(&copy), row(3, "Cy"));
    assert_eq!(item(&fourth), row(4, "Di"));
    assert_eq!(item(&other), row(5, "Ed"));
    let StreamEvent::Item { key, index, .. } = &other else {
        panic!("{other:?}");
    };
    assert_eq!((&**key, *index), ("b", 0));
    assert_eq!(s.finish().unwrap().value.a[3], row(4, "Di"));
}

/// A stream of a type that is `Send` and `Sync` is too, so an async client
/// can hold one across an await; the trait itself asks neither.
#[test]
fn a_stream_is_send_where_its_type_is() {
    fn send_sync<S: Send + Sync>() {}
    send_sync::<ToonStream<ComplianceAnalysis>>();
    send_sync::<toon_core::stream::ToonEvents<Vec<Row>>>();
}

/// Each type of this file, declared at run time from this file's source,
/// gives the derived type's artefacts (tests/declared.rs has the readings).
#[test]
fn declared_at_run_time_alike() {
    common::declared::agree(
        include_str!("stream.rs"),
        &crate::derived![
            Row, Roster, Pair, Report, Point, Segment, Segments, Prio, Task, Plan, Job, Jobs, Step,
            Steps, Note, Notes, NotedSteps
        ],
    );
}

/// Reasoning is stripped by the one line classifier the whole reply and the
/// stream share: a `<think>` block after the document is reasoning wherever
/// it stands, so the lines inside it have no events (the stream once read
/// them as fields the final value does not hold); a tool-call wrapper around
/// the document is stripped alike, its repair on the line's event.
#[test]
fn the_stream_strips_what_the_whole_reply_strips() {
    #[derive(Debug, Clone, PartialEq, Toon)]
    struct Pair {
        a: u32,
        b: Option<u32>,
    }
    let keys = |events: &[StreamEvent]| -> Vec<String> {
        standing(events)
            .iter()
            .filter_map(|e| match e {
                StreamEvent::Field { key, .. } => Some(key.to_string()),
                _ => None,
            })
            .collect()
    };
    let after = "a: 1\n<think>\nb: 2\n</think>\n";
    let whole = Pair::from_toon(after).unwrap();
    assert_eq!(whole, Pair { a: 1, b: None });
    let wrapped = "<tool_call>\na: 1\nb: 2</tool_call>\n";
    let tagged = toon_core::ToonOutputParser::<Pair>::new()
        .parse_with_report(wrapped)
        .unwrap();
    assert_eq!(tagged.value, Pair { a: 1, b: Some(2) });
    for sizes in splittings() {
        let (events, finished) = stream::<Pair>(after, &sizes);
        assert_eq!(finished.unwrap().value, whole);
        assert_eq!(keys(&events), ["a"], "{sizes:?}");
        let (events, finished) = stream::<Pair>(wrapped, &sizes);
        assert_eq!(finished.unwrap().value, tagged.value);
        assert_eq!(keys(&events), ["a", "b"], "{sizes:?}");
        let StreamEvent::Field { repairs, .. } = &standing(&events)[1] else {
            panic!("{events:?}");
        };
        assert_eq!(repairs[0].kind, toon_core::RepairKind::StrippedToolCall);
        assert_eq!(repairs[0].line, 3);
    }
}
