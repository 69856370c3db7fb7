//! `#[derive(Toon)]` on the compliance analysis: header, prompt, typed decoding and round trip.

use std::collections::BTreeMap;

mod common;

use common::types::*;
use toon_core::{ParseErrorKind, RepairKind, Toon, ToonOutputParser};

fn example() -> ComplianceAnalysis {
    ComplianceAnalysis {
        compliance_status: Status::NonCompliant,
        violations: vec![
            Violation {
                category: "privacy".into(),
                severity: Severity::High,
                description: "Emails logged, unmasked".into(),
                related_rule_id: "R-12".into(),
                remediation: "Mask emails".into(),
            },
            Violation {
                category: "retention".into(),
                severity: Severity::Low,
                description: "Backups kept 7 years".into(),
                related_rule_id: "R-4".into(),
                remediation: "Delete old backups".into(),
            },
        ],
        audit_trail: "Checked R-1 to R-20".into(),
        spoken_response: "Two problems found.".into(),
        internal_note: String::new(),
        confidence: Some(0.75),
    }
}

#[test]
fn header_and_prompt_snapshots() {
    insta::assert_snapshot!("compliance_header", ComplianceAnalysis::toon_header());
    insta::assert_snapshot!("compliance_prompt", ComplianceAnalysis::toon_prompt());
}

#[test]
fn to_toon_snapshot_and_round_trip() {
    let x = example();
    let text = x.to_toon();
    insta::assert_snapshot!("compliance_to_toon", text);
    assert_eq!(ComplianceAnalysis::from_toon(&text).unwrap(), x);
    let reply = toon_core::ToonOutputParser::<ComplianceAnalysis>::new()
        .parse_with_report(&text)
        .unwrap();
    assert!(reply.repairs.is_empty(), "{:?}", reply.repairs);
}

#[test]
fn typed_repairs_are_reported() {
    let completion = "Here you go:\n```toon\ncompliance_status: NON_COMPLIANT\nviolations[1]{category,severity,description,related_rule_id,remediation}:\n  privacy,high,Emails in logs,12,Mask emails\naudit_trail: R-1..R-20\nspoken_response: One problem.\nconfidence: \"0.9\"\nmood: happy\n```";
    let reply = ToonOutputParser::<ComplianceAnalysis>::new()
        .parse_with_report(completion)
        .unwrap();
    let v = reply.value;
    assert_eq!(v.violations[0].severity, Severity::High);
    assert_eq!(v.violations[0].related_rule_id, "12");
    assert_eq!(v.confidence, Some(0.9));
    let kinds: Vec<RepairKind> = reply.repairs.iter().map(|r| r.kind).collect();
    for k in [
        RepairKind::EnumCase,
        RepairKind::UnquotedScalar,
        RepairKind::IgnoredKey,
        RepairKind::StrippedFence,
    ] {
        assert!(kinds.contains(&k), "{k:?} missing from {kinds:?}");
    }
    let enum_repair = reply
        .repairs
        .iter()
        .find(|r| r.kind == RepairKind::EnumCase)
        .unwrap();
    assert_eq!(
        enum_repair.detail,
        "violations[0].severity: `high` read as `HIGH`"
    );
}

#[test]
fn a_missing_required_field_names_its_path() {
    let completion = "compliance_status: COMPLIANT\nviolations[2]{category,description,related_rule_id,remediation}:\n  a,b,c,d\n  e,f,g,h\naudit_trail: x\nspoken_response: y";
    let err = ComplianceAnalysis::from_toon(completion).unwrap_err();
    assert_eq!(err.kind(), ParseErrorKind::MissingField);
    assert_eq!(err.path(), Some("violations[0].severity"));
    assert_eq!(
        err.to_string(),
        "TOON_PARSE_FAILURE: line 3, at `violations[0].severity`: required field `severity` is missing from the reply: the table's header has no column `severity`; name it in the header and give every row a value for it"
    );
}

#[test]
fn a_missing_option_field_is_none_and_an_empty_table_is_empty() {
    let completion = "compliance_status: COMPLIANT\nviolations[0]{category,severity,description,related_rule_id,remediation}:\naudit_trail: all\nspoken_response: Fine.";
    let v = ComplianceAnalysis::from_toon(completion).unwrap();
    assert!(v.violations.is_empty());
    assert_eq!(v.confidence, None);
    assert_eq!(v.compliance_status, Status::Compliant);
}

#[test]
fn wrong_values_are_refused_with_their_path() {
    let completion = "compliance_status: MAYBE\nviolations: []\naudit_trail: a\nspoken_response: b";
    let err = ComplianceAnalysis::from_toon(completion).unwrap_err();
    assert_eq!(
        (err.kind(), err.path()),
        (ParseErrorKind::InvalidValue, Some("compliance_status"))
    );
    assert!(err
        .message()
        .contains("`MAYBE` is not one of COMPLIANT, NON_COMPLIANT"));
    assert_eq!(
        ComplianceAnalysis::from_toon("").unwrap_err().kind(),
        ParseErrorKind::EmptyCompletion
    );
}

#[derive(Debug, PartialEq, Toon)]
struct Node {
    name: String,
    children: Vec<Node>,
    tags: BTreeMap<String, u8>,
}

#[test]
fn recursive_types_and_maps() {
    let tree = Node {
        name: "root".into(),
        children: vec![Node {
            name: "leaf".into(),
            children: vec![],
            tags: BTreeMap::from([("a".into(), 1)]),
        }],
        tags: BTreeMap::new(),
    };
    assert_eq!(Node::from_toon(&tree.to_toon()).unwrap(), tree);
    insta::assert_snapshot!("node_header", Node::toon_header());
    let err = Node::from_toon("name: x\nchildren: []\ntags:\n  a: 300").unwrap_err();
    assert_eq!(err.path(), Some("tags.a"));
    assert!(err.message().contains("outside the range of u8"));
}

#[test]
fn tagged_enums_and_newtypes() {
    let found = Answer {
        question: "When does the contract end?".into(),
        finding: Finding::Found {
            answer: "In 2025.".into(),
            citations: vec![SourceId(2), SourceId(5)],
        },
    };
    let text = found.to_toon();
    assert_eq!(
        text,
        "question: When does the contract end?\nfinding:\n  status: found\n  answer: In 2025.\n  citations[2]: 2,5"
    );
    assert_eq!(Answer::from_toon(&text).unwrap(), found);
    for finding in [
        Finding::NotFound {
            reason: "not in the sources".into(),
        },
        Finding::Unanswerable,
    ] {
        let x = Answer {
            question: "q".into(),
            finding,
        };
        assert_eq!(Answer::from_toon(&x.to_toon()).unwrap(), x);
    }
    insta::assert_snapshot!("answer_prompt", Answer::toon_prompt());

    let err = Answer::from_toon("question: q\nfinding:\n  status: maybe").unwrap_err();
    assert_eq!(
        (err.kind(), err.path()),
        (ParseErrorKind::InvalidValue, Some("finding.status"))
    );
    let err = Answer::from_toon("question: q\nfinding:\n  reason: x").unwrap_err();
    assert_eq!(
        (err.kind(), err.path()),
        (ParseErrorKind::MissingField, Some("finding.status"))
    );
    let err = Answer::from_toon("question: q\nfinding:\n  status: found\n  answer: a").unwrap_err();
    assert_eq!(err.path(), Some("finding.citations"));
    // The tag forgives case, like any enum value; the other variant's fields are reported, not read.
    let reply = toon_core::ToonOutputParser::<Answer>::new()
        .parse_with_report(
            "question: q\nfinding:\n  status: Not_Found\n  reason: r\n  answer: stray",
        )
        .unwrap();
    assert_eq!(
        reply.value.finding,
        Finding::NotFound { reason: "r".into() }
    );
    let kinds: Vec<_> = reply.repairs.iter().map(|r| r.kind).collect();
    assert_eq!(kinds, [RepairKind::EnumCase, RepairKind::IgnoredKey]);
}

mod reexport {
    pub use toon_core as engine;
}

/// A customer, written as a nested field group in a table.
#[derive(Debug, Clone, PartialEq, toon_core::Toon)]
#[toon(crate = "reexport::engine")]
struct Customer {
    name: String,
    #[serde(rename = "cc")]
    country: String,
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Order {
    id: u32,
    customer: Customer,
    total: f64,
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Orders {
    orders: Vec<Order>,
    /// Anything else the model noticed, as it wrote it.
    extra: Option<serde_json::Value>,
}

#[test]
fn nested_field_groups_crate_override_serde_rename_and_free_form_values() {
    assert_eq!(
        Orders::toon_header(),
        "orders[N]{id,customer{name,cc},total}:\nextra: <value>"
    );
    let x = Orders {
        orders: vec![
            Order {
                id: 1,
                customer: Customer {
                    name: "Ada".into(),
                    country: "DK".into(),
                },
                total: 99.5,
            },
            Order {
                id: 2,
                customer: Customer {
                    name: "Bob".into(),
                    country: "UK".into(),
                },
                total: 10.0,
            },
        ],
        extra: Some(serde_json::json!({"note": "two orders", "flags": [1, 2]})),
    };
    let text = x.to_toon();
    assert!(
        text.starts_with(
            "orders[2]{id,customer{name,cc},total}:\n  1,Ada,DK,99.5\n  2,Bob,UK,10\n"
        ),
        "{text}"
    );
    assert_eq!(Orders::from_toon(&text).unwrap(), x);
}

/// A record with a column of each kind the row reader takes cell by cell.
#[derive(Debug, PartialEq, Toon)]
struct Item {
    name: String,
    severity: Severity,
    count: u32,
    done: bool,
    weight: Option<f64>,
}

#[derive(Debug, PartialEq, Toon)]
struct Items {
    items: Vec<Item>,
}

/// The same records as a table (`items[N]{...}:` and rows) and in list form
/// (`- key: value` items): the typed reader takes a table's rows cell by cell
/// and list items through their objects, and both must read alike, the same
/// value or the same error, with the same repairs.
#[test]
fn table_rows_read_like_the_same_records_in_list_form() {
    use ParseErrorKind as E;
    use RepairKind as R;
    type Expected = Result<&'static [RepairKind], ParseErrorKind>;
    let cases: [(&str, &[&str], Expected); 7] = [
        // Declaration order, every column.
        (
            "name,severity,count,done,weight",
            &["a,HIGH,1,true,0.5", "b,LOW,2,false,null"],
            Ok(&[]),
        ),
        // Columns in another order; an optional column left out.
        (
            "done,count,name,severity",
            &["true,1,a,HIGH", "false,2,b,LOW"],
            Ok(&[]),
        ),
        // A column the type does not have, reported for each row.
        (
            "name,severity,count,done,note",
            &["a,HIGH,1,true,x", "b,LOW,2,false,y"],
            Ok(&[R::IgnoredKey, R::IgnoredKey]),
        ),
        // Typed repairs in cells: a number in a text column, an enum's case, quoted scalars.
        (
            "name,severity,count,done",
            &["12,high,\"3\",true", "b,Low,2,\"false\""],
            Ok(&[
                R::UnquotedScalar,
                R::EnumCase,
                R::UnquotedScalar,
                R::EnumCase,
                R::UnquotedScalar,
            ]),
        ),
        // A value the column's type cannot take, in every row: refused with its path.
        (
            "name,severity,count,done",
            &["a,HIGH,one,true", "b,LOW,lots,false"],
            Err(E::InvalidValue),
        ),
        // A required column missing from the header.
        (
            "name,severity,done",
            &["a,HIGH,true", "b,LOW,false"],
            Err(E::MissingField),
        ),
        // An unknown enum value.
        (
            "name,severity,count,done",
            &["a,URGENT,1,true"],
            Err(E::InvalidValue),
        ),
    ];
    for (header, rows, expected) in cases {
        let columns: Vec<&str> = header.split(',').collect();
        let table = format!(
            "items[{}]{{{header}}}:\n{}",
            rows.len(),
            rows.iter()
                .map(|r| format!("  {r}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        let list = format!(
            "items[{}]:\n{}",
            rows.len(),
            rows.iter()
                .map(|r| {
                    let cells: Vec<String> = columns
                        .iter()
                        .zip(r.split(','))
                        .map(|(c, v)| format!("{c}: {v}"))
                        .collect();
                    format!("  - {}", cells.join("\n    "))
                })
                .collect::<Vec<_>>()
                .join("\n")
        );
        let (a, b) = (
            toon_core::ToonOutputParser::<Items>::new().parse_with_report(&table),
            toon_core::ToonOutputParser::<Items>::new().parse_with_report(&list),
        );
        match (a, b) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.value, b.value, "{header}");
                let repairs = |r: &toon_core::Reply<Items>| -> Vec<(RepairKind, String)> {
                    r.repairs
                        .iter()
                        .map(|r| (r.kind, r.detail.clone()))
                        .collect()
                };
                assert_eq!(repairs(&a), repairs(&b), "{header}");
                let kinds: Vec<RepairKind> = a.repairs.iter().map(|r| r.kind).collect();
                assert_eq!(Ok(kinds.as_slice()), expected, "{header}");
            }
            (Err(a), Err(b)) => {
                assert_eq!((a.kind(), a.path()), (b.kind(), b.path()), "{header}");
                // The same words; a table whose header lacks the column says so after them.
                assert!(a.message().starts_with(b.message()), "{header}: {a} / {b}");
                assert_eq!(Err(a.kind()), expected, "{header}");
            }
            (a, b) => panic!("{header}: the table read {a:?}, the list {b:?}"),
        }
    }
    // One row of a table the type cannot read is dropped and reported (a list
    // item is not a row, and stays a refusal); a table with no row left is refused.
    let table = "items[2]{name,severity,count,done}:\n  a,HIGH,1,true\n  b,LOW,lots,false";
    let read = toon_core::ToonOutputParser::<Items>::new()
        .parse_with_report(table)
        .unwrap();
    assert_eq!(read.value.items.len(), 1);
    assert_eq!(read.repairs[0].kind, R::DroppedRow);
    assert_eq!(read.repairs[0].line, 3);
    assert!(
        read.repairs[0].detail.contains("items[1].count"),
        "{}",
        read.repairs[0]
    );
    let strict = toon_core::ReplyOptions {
        refuse_dropped_rows: true,
        ..Default::default()
    };
    let err = toon_core::ToonOutputParser::<Items>::new()
        .options(strict)
        .parse_with_report(table)
        .unwrap_err();
    assert_eq!(
        (err.kind(), err.path()),
        (E::InvalidValue, Some("items[1].count"))
    );
    // The value refused is placed on its line by its column: `lots` begins at 9.
    assert_eq!((err.line(), err.column()), (Some(3), Some(9)));
}

/// A value the type refuses carries the column its text begins at, computed
/// from where it stands on its line (a byte, or a row's cell) only once the
/// error is returned: in the reply as written, and in a line the repairs
/// re-indented, which ends as the completion's line does.
#[test]
fn a_refused_value_is_placed_by_line_and_column() {
    let strict = toon_core::ReplyOptions {
        refuse_dropped_rows: true,
        ..Default::default()
    };
    let place = |reply: &str| {
        let e = toon_core::ToonOutputParser::<ComplianceAnalysis>::new()
            .options(strict)
            .parse_with_report(reply)
            .unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::InvalidValue, "{e}");
        (e.line(), e.column())
    };
    let head = "compliance_status: NON_COMPLIANT\nviolations[1]{category,severity,description,related_rule_id,remediation}:\n";
    let tail = "audit_trail: R-1\nspoken_response: One problem.\n";
    let clean = format!("{head}  privacy,SEVERE,Emails logged,R-12,Mask them\n{tail}");
    assert_eq!(place(&clean), (Some(3), Some(11)));
    let e = toon_core::ToonOutputParser::<ComplianceAnalysis>::new()
        .options(strict)
        .parse_with_report(&clean)
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("TOON_PARSE_FAILURE: line 3, column 11, at `violations[0].severity`: `SEVERE` is not one of"),
        "{e}"
    );
    // Unicode before the value counts in characters.
    let wide = format!("{head}  privé,SEVERE,Emails logged,R-12,Mask them\n{tail}");
    assert_eq!(place(&wide), (Some(3), Some(9)));
    // Fenced and indented by four: the repaired line differs, the completion's holds it once.
    let repaired =
        format!("```toon\n{head}    privacy,SEVERE,Emails logged,R-12,Mask them\n{tail}```\n");
    assert_eq!(place(&repaired), (Some(4), Some(13)));
    // The same text twice on the line: the column of the one refused.
    let twice = format!("{head}  SEVERE,SEVERE,Emails logged,R-12,Mask them\n{tail}");
    let e = toon_core::ToonOutputParser::<ComplianceAnalysis>::new()
        .options(strict)
        .parse_with_report(&twice)
        .unwrap_err();
    assert_eq!(e.path(), Some("violations[0].severity"));
    assert_eq!((e.line(), e.column()), (Some(3), Some(10)));
    let e = toon_core::ToonOutputParser::<ComplianceAnalysis>::new()
        .options(strict)
        .parse_with_report(&format!("```\n{twice}```\n"))
        .unwrap_err();
    assert_eq!((e.line(), e.column()), (Some(4), Some(10)));
    // A row written as `key: value` lines is placed on its first line; the
    // refused value stands on another, so no column is given for it.
    let records = format!(
        "{head}  category: privacy\n  severity: SEVERE\n  description: Emails logged\n  related_rule_id: R-12\n  remediation: Mask them\n{tail}"
    );
    let e = toon_core::ToonOutputParser::<ComplianceAnalysis>::new()
        .options(strict)
        .parse_with_report(&records)
        .unwrap_err();
    assert_eq!(e.path(), Some("violations[0].severity"), "{e}");
    assert_eq!(e.column(), None, "{e}");
    // A missing field has a line at most, never a column.
    let missing = clean.replace("compliance_status: NON_COMPLIANT\n", "");
    let e = ComplianceAnalysis::from_toon(&missing).unwrap_err();
    assert_eq!(e.column(), None, "{e}");
}

/// A pair of coordinates, shown under a map key or a list item.
#[derive(Debug, PartialEq, Toon)]
struct Spot {
    x: i8,
    y: i8,
}

/// Objects inside maps and optional list items.
#[derive(Debug, PartialEq, Toon)]
struct Survey {
    /// Spots by name.
    named: BTreeMap<String, Spot>,
    /// Findings by name.
    found: BTreeMap<String, Option<Finding>>,
    /// One per site, or null where a site was not visited.
    visited: Vec<Option<Spot>>,
}

#[test]
fn objects_in_maps_and_optional_items_are_shown_with_their_fields() {
    let prompt = Survey::toon_prompt();
    insta::assert_snapshot!("survey_prompt", prompt);
    // What the prompt shows is what the decoder reads.
    let reply = "named:\n  home:\n    x: 1\n    y: 2\nfound:\n  q1:\n    status: unanswerable\n  q2: null\nvisited[2]:\n  - x: 3\n    y: 4\n  - null";
    let survey = Survey::from_toon(reply).unwrap();
    assert_eq!(survey.named["home"], Spot { x: 1, y: 2 });
    assert_eq!(survey.found["q1"], Some(Finding::Unanswerable));
    assert_eq!(survey.visited, vec![Some(Spot { x: 3, y: 4 }), None]);
}

mod same_name {
    /// A newtype over another type of its own name: not a type that holds itself.
    #[derive(Debug, PartialEq, toon_core::Toon)]
    pub struct Value(pub serde_json::Value);

    #[test]
    fn a_newtype_over_a_type_of_its_name_is_no_recursion() {
        use toon_core::Toon;
        let v = Value::from_toon("a: 1").unwrap();
        assert_eq!(v, Value(serde_json::json!({"a": 1})));
    }
}

/// A rating whose names read as numbers, and an answer named like a keyword.
#[derive(Debug, Clone, Copy, PartialEq, Toon)]
enum Stars {
    #[toon(rename = "1")]
    One,
    #[toon(rename = "2")]
    Two,
    #[toon(rename = "true")]
    Yes,
}

#[derive(Debug, PartialEq, Toon)]
struct Rated {
    stars: Stars,
    all: Vec<Stars>,
}

/// Names that read as a number or keyword are shown quoted, as the encoder
/// and the grammar write them; written bare, the word is the name.
#[test]
fn an_enum_name_that_reads_as_a_number_is_shown_as_written() {
    let header = Rated::toon_header();
    assert!(header.contains(r#"stars: <"1"|"2"|"true">"#), "{header}");
    let x = Rated {
        stars: Stars::Two,
        all: vec![Stars::One, Stars::Yes],
    };
    let written = x.to_toon();
    assert_eq!(written, "stars: \"2\"\nall[2]: \"1\",\"true\"");
    let strict = toon_core::ToonOutputParser::<Rated>::new()
        .parse_with_report(&written)
        .unwrap();
    assert_eq!((strict.value, strict.repairs.len()), (x, 0));
    let bare = toon_core::ToonOutputParser::<Rated>::new()
        .parse_with_report("stars: 2\nall[2]: 1,true")
        .unwrap();
    assert_eq!(bare.value.stars, Stars::Two);
    assert_eq!(bare.value.all, vec![Stars::One, Stars::Yes]);
    assert!(bare
        .repairs
        .iter()
        .all(|r| r.kind == RepairKind::UnquotedScalar));
    assert!(!bare.repairs.is_empty());
    // A number that is no name is refused as before.
    let e = Rated::from_toon("stars: 3\nall[0]:").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::InvalidValue);
}

#[derive(Debug, PartialEq, Toon)]
struct Twice {
    a: Option<Option<u32>>,
}

/// `Some(None)` has no TOON of its own: written `null`, read as `None`, as
/// serde_json reads it; the prompt says `null` once.
#[test]
fn an_option_of_an_option_is_null_once() {
    assert_eq!(Twice::toon_header(), "a: <integer> or null");
    let x = Twice { a: Some(None) };
    assert_eq!(x.to_toon(), "a: null");
    assert_eq!(Twice::from_toon(&x.to_toon()), Ok(Twice { a: None }));
    let y = Twice { a: Some(Some(3)) };
    assert_eq!(Twice::from_toon(&y.to_toon()), Ok(y));
}

#[derive(Debug, PartialEq, Toon)]
struct Point2 {
    x: u32,
    y: String,
}

#[derive(Debug, PartialEq, Toon)]
struct Path2 {
    points: Vec<Point2>,
}

/// A JSON reply read by `from_toon` is refused with its line, found by the
/// path of the value: JSON values carry no lines of their own.
#[test]
fn a_json_reply_is_refused_on_the_line_of_the_value() {
    let reply = "Sure:\n```json\n{\n  \"points\": [\n    {\"x\": 1, \"y\": \"a\"},\n    {\n      \"x\": \"two\",\n      \"y\": \"b\"\n    }\n  ]\n}\n```";
    let e = Path2::from_toon(reply).unwrap_err();
    assert_eq!(
        (e.kind(), e.line(), e.path()),
        (ParseErrorKind::InvalidValue, Some(7), Some("points[1].x"))
    );
    // A missing field: the line of the object that lacks it.
    let reply = "{\n  \"points\": [\n    {\n      \"x\": 1\n    }\n  ]\n}";
    let e = Path2::from_toon(reply).unwrap_err();
    assert_eq!(
        (e.kind(), e.line()),
        (ParseErrorKind::MissingField, Some(3))
    );
}

mod prompt_names {
    pub mod a {
        /// The part.
        #[derive(Debug, PartialEq, toon_core::Toon)]
        pub struct Item {
            pub x: u8,
            pub sub: super::b::Item,
        }
    }
    pub mod b {
        #[derive(Debug, PartialEq, toon_core::Toon)]
        pub struct Item {
            pub word: String,
        }
    }
}

/// A shape of tags named like numbers, and lists that must hold items.
#[derive(Debug, PartialEq, Toon)]
#[toon(tag = "kind")]
enum Step {
    #[toon(rename = "1")]
    First { note: String },
    #[toon(rename = "2")]
    Second,
}

#[derive(Debug, PartialEq, Toon)]
struct Plan {
    step: Step,
    #[toon(length(min = 1, max = 3))]
    tags: Vec<String>,
    #[toon(length(min = 1))]
    points: Vec<Point2>,
}

/// What the prompt shows reads as it stands: another type of the same Rust
/// name is shown (it was taken for a recursion), tag names that read as
/// numbers are quoted, and a list that must hold items shows no empty form.
#[test]
fn the_prompt_shows_what_the_decoder_reads() {
    use prompt_names::a::Item;
    let prompt = Item::toon_prompt();
    assert!(!prompt.contains("Same shape as"), "{prompt}");
    assert!(prompt.contains("  word: <text>"), "{prompt}");
    let read = toon_core::ToonOutputParser::<Item>::new()
        .parse_with_report("x: 3\nsub:\n  word: hello")
        .unwrap();
    assert_eq!(
        (read.value.sub.word.as_str(), read.repairs.len()),
        ("hello", 0)
    );

    let prompt = Plan::toon_prompt();
    assert!(prompt.contains(r#"kind: <"1"|"2">"#), "{prompt}");
    assert!(prompt.contains(r#"If kind is "1":"#), "{prompt}");
    assert!(!prompt.contains("If there are none"), "{prompt}");
    assert!(prompt.contains("At least 1 item."), "{prompt}");
    let reply = "step:\n  kind: \"2\"\ntags[1]: a\npoints[1]{x,y}:\n  1,b";
    let read = toon_core::ToonOutputParser::<Plan>::new()
        .parse_with_report(reply)
        .unwrap();
    assert_eq!((read.value.step, read.repairs.len()), (Step::Second, 0));
}

#[derive(Debug, PartialEq, Toon)]
struct Framed {
    corner: Option<Point2>,
}

/// An optional object says it may be `null`, and a root list of numbers shows
/// its inline form: both read as shown.
#[test]
fn optional_objects_and_root_lists_are_shown_as_they_read() {
    let prompt = Framed::toon_prompt();
    assert!(
        prompt.contains("May be `null` (`corner: null`)."),
        "{prompt}"
    );
    let read = toon_core::ToonOutputParser::<Framed>::new()
        .parse_with_report("corner: null")
        .unwrap();
    assert_eq!((read.value.corner, read.repairs.len()), (None, 0));
    assert_eq!(Vec::<u8>::toon_header(), "[N]: <integer>,<integer>");
    let read = toon_core::ToonOutputParser::<Vec<u8>>::new()
        .parse_with_report("[2]: 1,2")
        .unwrap();
    assert_eq!((read.value, read.repairs.len()), (vec![1, 2], 0));
}

/// A colour.
#[derive(Debug, PartialEq, Toon)]
enum Colour {
    /// Like blood.
    Red,
    Green,
}

#[derive(Debug, PartialEq, Toon)]
struct Swatch {
    name: String,
    colour: Option<Colour>,
}

#[derive(Debug, PartialEq, Toon)]
struct Palette {
    favourites: Vec<Colour>,
    swatches: Vec<Swatch>,
}

/// An enum's values and their docs reach the prompt also as list items and as
/// an optional column, as the schema carries them.
#[test]
fn enum_values_are_shown_wherever_the_enum_is() {
    let prompt = Palette::toon_prompt();
    let listed = "One of: Red (Like blood.), Green.";
    assert!(
        prompt.contains(&format!("# A colour. {listed}")),
        "{prompt}"
    );
    assert!(
        prompt.contains(&format!("colour: A colour. {listed}")),
        "{prompt}"
    );
}

/// Lists of lists and of maps, maps of lists and of tables.
#[derive(Debug, PartialEq, Toon)]
struct Nesting {
    grid: Vec<Vec<u8>>,
    maps: Vec<BTreeMap<String, u8>>,
    by_key: BTreeMap<String, Vec<u8>>,
    rows_by_key: BTreeMap<String, Vec<Swatch>>,
}

/// Every list and map shows its items in the form the decoder reads, at every
/// depth and at the root; filled in, the lines shown read with no repair.
#[test]
fn nested_lists_and_maps_show_their_items_as_they_read() {
    assert_eq!(
        Nesting::toon_header(),
        "grid[N]:\n  - [N]: <integer>,<integer>\nmaps[N]:\n  - <key>: <integer>\nby_key:\n  <key>[N]: <integer>,<integer>\nrows_by_key:\n  <key>[N]{name,colour}:"
    );
    let reply = "grid[2]:\n  - [2]: 1,2\n  - [1]: 3\nmaps[1]:\n  - a: 1\nby_key:\n  k[2]: 1,2\nrows_by_key:\n  r[1]{name,colour}:\n    n,null";
    let read = toon_core::ToonOutputParser::<Nesting>::new()
        .parse_with_report(reply)
        .unwrap();
    assert_eq!(read.repairs.len(), 0, "{:?}", read.repairs);
    let value = read.value;
    assert_eq!(value.grid, vec![vec![1, 2], vec![3]]);
    assert_eq!(value.maps, vec![BTreeMap::from([("a".to_owned(), 1)])]);
    assert_eq!(value.by_key["k"], vec![1, 2]);
    let swatch = Swatch {
        name: "n".into(),
        colour: None,
    };
    assert_eq!(value.rows_by_key["r"], vec![swatch]);

    // At the root.
    assert_eq!(
        BTreeMap::<String, Point2>::toon_header(),
        "<key>:\n  x: <integer>\n  y: <text>"
    );
    assert_eq!(BTreeMap::<String, u8>::toon_header(), "<key>: <integer>");
    assert_eq!(
        Vec::<Vec<u8>>::toon_header(),
        "[N]:\n  - [N]: <integer>,<integer>"
    );
    assert_eq!(Vec::<Path2>::toon_header(), "[N]:\n  - points[N]{x,y}:");
    for (reply, value) in [
        ("[1]:\n  - [2]: 1,2", vec![vec![1u8, 2]]),
        ("[2]:\n  - [0]:\n  - [1]: 3", vec![vec![], vec![3]]),
    ] {
        let read = toon_core::ToonOutputParser::<Vec<Vec<u8>>>::new()
            .parse_with_report(reply)
            .unwrap();
        assert_eq!((read.value, read.repairs.len()), (value, 0));
    }
    let read = toon_core::ToonOutputParser::<BTreeMap<String, Point2>>::new()
        .parse_with_report("a:\n  x: 1\n  y: b")
        .unwrap();
    assert_eq!(read.repairs.len(), 0);
    assert_eq!(
        read.value["a"],
        Point2 {
            x: 1,
            y: "b".into()
        }
    );
}

/// A table's row is shown as a line of its cells, an optional cell with `null`
/// inside its brackets and a field group's cells in its place; the skeleton
/// stays the header alone.
#[test]
fn a_table_shows_its_row_in_the_prompt() {
    let prompt = Palette::toon_prompt();
    assert!(
        prompt.ends_with("swatches[N]{name,colour}:\n  <text>,<Red|Green|null>"),
        "{prompt}"
    );
    let prompt = Orders::toon_prompt();
    assert!(
        prompt.contains(
            "orders[N]{id,customer{name,cc},total}:\n  <integer>,<text>,<text>,<number>\n"
        ),
        "{prompt}"
    );
    assert!(!Palette::toon_header().contains("<text>,"));
}

/// A tagged enum's skeleton says which fields go with which tag: without the
/// lines, every variant's fields read as fields of one object.
#[test]
fn a_tagged_skeleton_keeps_each_variant_apart() {
    let header = Answer::toon_header();
    assert!(
        header.contains(
            "  status: <found|not_found|unanswerable>\n  # If status is found:\n  answer: <text>\n"
        ),
        "{header}"
    );
    assert!(
        header.contains("  # If status is not_found:\n  reason: <text>"),
        "{header}"
    );
}

/// The quoting line names every text that must be quoted to stay text, and
/// quoted it reads with no repair. Written bare, a number or a boolean where
/// the type wants text is read as its characters, as the model wrote them,
/// and reported; `null` is refused, since it may mean no value at all.
#[test]
fn the_prompt_says_to_quote_text_that_reads_as_a_keyword_or_number() {
    let prompt = Point2::toon_prompt();
    assert!(
        prompt.contains("or that reads as a number, true, false or null"),
        "{prompt}"
    );
    for text in ["null", "true", "1e3", "3.20", "-0.0"] {
        let read = toon_core::ToonOutputParser::<Point2>::new()
            .parse_with_report(&format!("x: 1\ny: \"{text}\""))
            .unwrap();
        assert_eq!((read.value.y.as_str(), read.repairs.len()), (text, 0));
        let bare = toon_core::ToonOutputParser::<Point2>::new()
            .parse_with_report(&format!("x: 1\ny: {text}"));
        if text == "null" {
            assert_eq!(bare.unwrap_err().kind(), ParseErrorKind::InvalidValue);
            continue;
        }
        let bare = bare.unwrap();
        assert_eq!(bare.value.y, text);
        assert_eq!(
            (bare.repairs[0].kind, bare.repairs[0].line),
            (RepairKind::UnquotedScalar, 2)
        );
    }
}

/// A verdict whose names hold the placeholder's own marks.
#[derive(Debug, Clone, Copy, PartialEq, Toon)]
enum Verdict {
    #[toon(rename = "yes|no")]
    Either,
    #[toon(rename = "<none>")]
    Neither,
    Maybe,
}

#[derive(Debug, PartialEq, Toon)]
struct Ruling {
    verdict: Verdict,
}

/// A name holding `|` or a bracket is shown quoted in the placeholder (bare,
/// `<yes|no|<none>|Maybe>` reads as four names), and reads as shown.
#[test]
fn an_enum_name_holding_a_bar_is_shown_quoted() {
    let header = Ruling::toon_header();
    assert_eq!(header, "verdict: <\"yes|no\"|\"<none>\"|Maybe>");
    for (reply, verdict) in [
        ("verdict: \"yes|no\"", Verdict::Either),
        ("verdict: \"<none>\"", Verdict::Neither),
        ("verdict: Maybe", Verdict::Maybe),
    ] {
        let read = toon_core::ToonOutputParser::<Ruling>::new()
            .parse_with_report(reply)
            .unwrap();
        assert_eq!((read.value.verdict, read.repairs.len()), (verdict, 0));
    }
}

/// Notes with grammar bounds of their own.
#[derive(Debug, PartialEq, Toon)]
struct Bounded {
    #[toon(max_len = 12)]
    title: String,
    #[toon(max_len = 30, length(max = 20))]
    summary: Option<String>,
    #[toon(max_items = 3)]
    tags: Vec<String>,
    #[toon(max_items = 2)]
    points: Vec<Point2>,
    notes: Vec<Nested2>,
}

#[derive(Debug, PartialEq, Toon)]
struct Nested2 {
    words: Vec<String>,
    n: u8,
}

/// A field's own grammar bounds are in the prompt, as a `length` is (the
/// tighter where both are set): the grammar cuts a reply at them, so the model
/// is told. The first field of a list item keeps its comments above the hyphen.
#[test]
fn a_fields_grammar_bounds_are_shown() {
    let prompt = Bounded::toon_prompt();
    for shown in [
        "title: <text, at most 12 characters>",
        "summary: <text, at most 20 characters> or null",
        "# At most 3 items. If there are none, write `tags[0]:`.",
        "At most 2 items.",
        "  # If there are none, write `words[0]:`.\n  - words[N]: <text>,<text>\n    n: <integer>",
    ] {
        assert!(prompt.contains(shown), "{shown}\n{prompt}");
    }
    // The defaults are not shown: every text and list has them.
    assert!(!prompt.contains("200"), "{prompt}");
}

/// Each type of this file the run-time reading takes, declared from this
/// file's source, gives the derived type's artefacts; the others (generic,
/// a default from a function, a name given twice) are refused at load.
#[test]
fn declared_at_run_time_alike() {
    common::declared::agree_each(
        include_str!("derive_toon.rs"),
        &crate::derived![
            Node,
            Customer,
            Order,
            Orders,
            Spot,
            same_name::Value,
            Stars,
            Rated,
            Twice,
            Point2,
            Path2,
            Step,
            Plan,
            Framed,
            Colour,
            Swatch,
            Palette,
            Nesting,
            Verdict,
            Ruling,
            Bounded,
            Nested2
        ],
    );
}
