//! `Toon::toon_grammar`: both syntaxes compile, admit what `to_toon` writes for
//! generated values, and every text they admit that way decodes strictly and
//! back to the value; they refuse what `from_toon` would have to repair or
//! refuse. The GBNF text is pinned by a snapshot.

mod common;

use std::collections::BTreeMap;

use common::grammar::{gbnf_as_lark, Checker};
use common::strategies::{answer, compliance, finding, text};
use common::types::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use toon_core::{
    constrain_request, decode, grammar::DEFAULT_MAX_ITEMS, request::reply_text, FinishReason,
    GrammarServer, GrammarSyntax, OutputSchema, ParseErrorKind, ReplyOptions, Toon,
};

/// A point: a flat struct, used as a nested column group and as map values.
#[derive(Debug, Clone, PartialEq, Toon)]
struct Point {
    x: i8,
    y: i8,
}

/// Shapes the example types do not have.
#[derive(Debug, Clone, PartialEq, Toon)]
struct Shapes {
    /// A nested struct.
    origin: Point,
    /// Rows with a nested field group.
    segments: Vec<Segment>,
    /// Items in list form (a list inside each).
    groups: Vec<Group>,
    /// A list of lists.
    grid: Vec<Vec<u8>>,
    /// A map of flat structs (a keyed table when it has two or more).
    named: BTreeMap<String, Point>,
    /// A map of numbers.
    counts: BTreeMap<String, u16>,
    /// An optional struct.
    corner: Option<Point>,
    /// Optional enum values.
    flags: Vec<Option<Label>>,
    on: bool,
    #[toon(max_len = 12)]
    short: String,
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Segment {
    from: Point,
    to: Point,
    label: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Group {
    name: String,
    members: Vec<String>,
}

/// An unbounded float, and one between 0 and 1.
#[derive(Debug, Clone, PartialEq, Toon)]
struct Measure {
    value: f64,
    #[toon(range(min = 0, max = 1))]
    share: f64,
}

/// A tree: recursion through a list.
#[derive(Debug, Clone, PartialEq, Toon)]
struct Tree {
    name: String,
    children: Vec<Tree>,
}

/// A free-form field.
#[derive(Debug, Clone, PartialEq, Toon)]
struct Note {
    title: String,
    extra: Value,
}

fn point() -> impl Strategy<Value = Point> {
    (any::<i8>(), any::<i8>()).prop_map(|(x, y)| Point { x, y })
}

fn label() -> impl Strategy<Value = Label> {
    prop_oneof![Just(Label::Cup), Just(Label::Spoon), Just(Label::Plate)]
}

fn shapes() -> impl Strategy<Value = Shapes> {
    let segment = (point(), point(), prop::option::of(text()))
        .prop_map(|(from, to, label)| Segment { from, to, label });
    let group = (text(), prop::collection::vec(text(), 0..4))
        .prop_map(|(name, members)| Group { name, members });
    (
        (
            point(),
            prop::collection::vec(segment, 0..4),
            prop::collection::vec(group, 0..3),
            prop::collection::vec(prop::collection::vec(any::<u8>(), 0..4), 0..3),
        ),
        (
            prop::collection::btree_map("[a-z_]{1,6}|[ -~]{0,6}", point(), 0..4),
            prop::collection::btree_map("[a-z]{1,5}", any::<u16>(), 0..3),
            prop::option::of(point()),
            prop::collection::vec(prop::option::of(label()), 0..4),
            any::<bool>(),
            "[ -~]{0,12}",
        ),
    )
        .prop_map(
            |((origin, segments, groups, grid), (named, counts, corner, flags, on, short))| {
                Shapes {
                    origin,
                    segments,
                    groups,
                    grid,
                    named,
                    counts,
                    corner,
                    flags,
                    on,
                    short,
                }
            },
        )
}

fn detections() -> impl Strategy<Value = Detections> {
    let detection = (label(), decimal(0, 1), text()).prop_map(|(label, score, note)| Detection {
        label,
        score,
        note,
    });
    (prop::collection::vec(detection, 0..5), any::<u32>())
        .prop_map(|(objects, count)| Detections { objects, count })
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = text().prop_map(|name| Tree {
        name,
        children: Vec::new(),
    });
    leaf.prop_recursive(2, 8, 3, |inner| {
        (text(), prop::collection::vec(inner, 0..3))
            .prop_map(|(name, children)| Tree { name, children })
    })
}

/// A free-form value two levels deep: a primitive, an array of primitives or
/// of objects, an object.
fn free_form(min_items: usize) -> impl Strategy<Value = Value> {
    let primitive = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    let object = prop::collection::btree_map("[a-z]{1,4}", primitive.clone(), 1..4)
        .prop_map(|m| Value::Object(m.into_iter().collect()));
    prop_oneof![
        primitive.clone(),
        prop::collection::vec(primitive, min_items..4).prop_map(Value::Array),
        prop::collection::vec(object.clone(), 1..3).prop_map(Value::Array),
        object,
    ]
}

fn note() -> impl Strategy<Value = Note> {
    let value = free_form(0);
    (text(), value).prop_map(|(title, extra)| Note { title, extra })
}

/// `to_toon` of `x` is admitted by both grammars, decodes strictly, and reads
/// back to `x` with no repair.
fn admitted<T: Toon + PartialEq + std::fmt::Debug>(
    grammars: &[Checker; 2],
    x: &T,
) -> Result<(), TestCaseError> {
    let text = x.to_toon();
    for (g, syntax) in grammars.iter().zip(["Lark", "GBNF"]) {
        prop_assert!(
            g.accepts(&text),
            "the {} grammar refuses:\n{}",
            syntax,
            text
        );
    }
    prop_assert!(
        decode(&text, &Default::default()).is_ok(),
        "not strict TOON:\n{}",
        text
    );
    let back = toon_core::ToonOutputParser::<T>::new()
        .parse_with_report(&text)
        .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    prop_assert_eq!(&back.value, x);
    prop_assert!(back.repairs.is_empty(), "{:?}", back.repairs);
    Ok(())
}

thread_local! {
    static COMPLIANCE: [Checker; 2] = Checker::both::<ComplianceAnalysis>();
    static ANSWER: [Checker; 2] = Checker::both::<Answer>();
    static DETECTIONS: [Checker; 2] = Checker::both::<Detections>();
    static SHAPES: [Checker; 2] = Checker::both::<Shapes>();
    static TREE: [Checker; 2] = Checker::both::<Tree>();
    static NOTE: [Checker; 2] = Checker::both::<Note>();
    static MEASURE: [Checker; 2] = Checker::both::<Measure>();
    static ROOT_VALUE: [Checker; 2] = Checker::both::<Value>();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn compliance_values_are_admitted(x in compliance().prop_map(within_bounds)) {
        COMPLIANCE.with(|g| admitted(g, &x))?;
    }

    #[test]
    fn answer_values_are_admitted(x in answer()) {
        ANSWER.with(|g| admitted(g, &x))?;
    }

    #[test]
    fn detection_values_are_admitted(x in detections()) {
        DETECTIONS.with(|g| admitted(g, &x))?;
    }

    #[test]
    fn other_shapes_are_admitted(x in shapes()) {
        SHAPES.with(|g| admitted(g, &x))?;
    }

    #[test]
    fn trees_are_admitted(x in tree()) {
        TREE.with(|g| admitted(g, &x))?;
    }

    #[test]
    fn floats_are_admitted(
        value in decimal(-1_000_000_000, 1_000_000_000),
        share in decimal(0, 1),
    ) {
        MEASURE.with(|g| admitted(g, &Measure { value, share }))?;
    }

    #[test]
    fn free_form_values_are_admitted(x in note()) {
        NOTE.with(|g| admitted(g, &x))?;
    }

    // Arrays and objects: a root primitive of free text may read as a wrapper
    // (a fence, a reasoning tag), which the reply decoder strips.
    #[test]
    fn free_form_roots_are_admitted(
        x in free_form(1).prop_filter("an array or object", |v| v.is_array() || v.is_object())
    ) {
        ROOT_VALUE.with(|g| admitted(g, &x))?;
    }
}

/// The value cut to the bounds its type declares for the grammar (longer
/// values are the decoder's to read, not the grammar's to admit).
fn within_bounds(mut x: ComplianceAnalysis) -> ComplianceAnalysis {
    let cut = |s: &mut String, n: usize| *s = s.chars().take(n).collect();
    x.violations.truncate(5);
    for v in &mut x.violations {
        cut(&mut v.category, 16);
        cut(&mut v.description, 80);
        cut(&mut v.related_rule_id, 6);
        cut(&mut v.remediation, 60);
    }
    cut(&mut x.audit_trail, 60);
    cut(&mut x.spoken_response, 120);
    x.confidence = x.confidence.map(in_fraction_digits);
    x
}

/// `v` with at most FRACTION_DIGITS digits after its point, as the grammar
/// bounds a number (a value needing more is the decoder's to read).
fn in_fraction_digits(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

/// Numbers from `lo` to `hi` (whole) with at most FRACTION_DIGITS digits
/// after the point, the ends included.
fn decimal(lo: i64, hi: i64) -> impl Strategy<Value = f64> {
    prop_oneof![
        (lo * 1_000_000..=hi * 1_000_000).prop_map(|i| i as f64 / 1e6),
        Just(lo as f64),
        Just(hi as f64),
    ]
}

fn compliance_text() -> String {
    example_compliance().to_toon()
}

/// Both grammars refuse `text`.
fn refused<T: Toon>(text: &str) {
    for (g, syntax) in Checker::both::<T>().iter().zip(["Lark", "GBNF"]) {
        assert!(!g.accepts(text), "the {syntax} grammar admits:\n{text}");
    }
}

#[test]
fn what_the_decoder_would_repair_or_refuse_is_refused() {
    let good = compliance_text();
    for g in Checker::both::<ComplianceAnalysis>() {
        assert!(g.accepts(&good), "{good}");
    }
    let cases = [
        // A wrong enum value, in a field and in a cell.
        good.replace("NON_COMPLIANT", "MAYBE"),
        good.replace(",HIGH,", ",CRITICAL,"),
        good.replace(",HIGH,", ",high,"),
        // A row with a cell missing, and with one too many.
        good.replace(",R-1,", ","),
        good.replace(",R-1,", ",R-1,extra,"),
        // The prompt's placeholder copied, and a count that does not match.
        good.replace("violations[1]", "violations[N]"),
        good.replace("violations[1]", "violations[2]"),
        // An unknown key, keys out of order, prose before the document.
        format!("{good}\nmood: happy"),
        {
            let mut lines: Vec<&str> = good.lines().collect();
            let n = lines.len();
            lines.swap(n - 2, n - 3);
            lines.join("\n")
        },
        format!("Sure! Here is the analysis:\n{good}"),
        format!("```toon\n{good}\n```"),
        // Indentation by four, a missing colon, text that would read as a number or keyword.
        good.replace("\n  privacy", "\n    privacy"),
        good.replace("audit_trail:", "audit_trail"),
        good.replace("Checked R-1 to R-5", "42"),
        good.replace("Checked R-1 to R-5", "true"),
        good.replace("Checked R-1 to R-5", "a, b"),
        good.replace("Checked R-1 to R-5", "- item"),
        good.replace("Checked R-1 to R-5", "trailing "),
        good.replace("0.9", "0.9x"),
    ];
    for case in &cases {
        assert_ne!(case, &good, "a case that changes nothing");
        refused::<ComplianceAnalysis>(case);
    }
    // The tag of a tagged enum is one of its names.
    refused::<Answer>("question: When?\nfinding:\n  status: maybe");
    // Integers stay within their type.
    refused::<Shapes>(&Shapes::example().to_toon().replace("x: 1", "x: 300"));
}

impl Shapes {
    fn example() -> Shapes {
        Shapes {
            origin: Point { x: 1, y: 2 },
            segments: vec![Segment {
                from: Point { x: 0, y: 0 },
                to: Point { x: 3, y: -4 },
                label: None,
            }],
            groups: vec![],
            grid: vec![vec![1, 2]],
            named: BTreeMap::new(),
            counts: BTreeMap::new(),
            corner: None,
            flags: vec![],
            on: true,
            short: "ok".into(),
        }
    }
}

#[test]
fn text_stands_unquoted_exactly_where_the_spec_lets_it() {
    let [lark, gbnf] = Checker::both::<Capital>();
    let with = |capital: &str| format!("country: X\ncapital: {capital}");
    for bare in [
        "Paris",
        "3 cups",
        "1.2.3",
        "+",
        "1e",
        "2e-",
        "3.",
        "tru",
        "nullish",
        "true love",
        "x-y",
        "a|b",
        "café",
        "a #b",
        "05x",
        "1e5x",
        "é",
    ] {
        assert!(
            lark.accepts(&with(bare)) && gbnf.accepts(&with(bare)),
            "{bare:?} refused"
        );
    }
    for must_quote in [
        "42",
        "-3.5",
        "+1",
        "05",
        "1e-6",
        "1E5",
        "true",
        "false",
        "null",
        "-x",
        "#x",
        " lead",
        "trail ",
        "a,b",
        "a:b",
        "[x]",
        "{x}",
        "say \"hi\"",
        "back\\slash",
    ] {
        assert!(
            !lark.accepts(&with(must_quote)) && !gbnf.accepts(&with(must_quote)),
            "{must_quote:?} admitted unquoted"
        );
        let quoted = Capital {
            country: "X".into(),
            capital: must_quote.into(),
        }
        .to_toon();
        assert!(lark.accepts(&quoted) && gbnf.accepts(&quoted), "{quoted}");
    }
}

#[test]
fn counts_match_and_bounds_hold() {
    let [lark, gbnf] = Checker::both::<Shapes>();
    let base = Shapes::example();
    let mut long = base.clone();
    long.short = "x".repeat(12);
    assert!(lark.accepts(&long.to_toon()) && gbnf.accepts(&long.to_toon()));
    long.short = "x".repeat(13);
    assert!(
        !lark.accepts(&long.to_toon()),
        "Lark admits 13 characters for max_len = 12"
    );
    // GBNF bounds each repetition, so text starting with a letter is exact too.
    assert!(
        !gbnf.accepts(&long.to_toon()),
        "GBNF admits 13 characters for max_len = 12"
    );
    long.short = format!("\"{}\"", "x".repeat(13));
    assert!(!lark.accepts(&long.to_toon()));

    let mut many = base.clone();
    many.flags = vec![None; DEFAULT_MAX_ITEMS as usize];
    assert!(lark.accepts(&many.to_toon()) && gbnf.accepts(&many.to_toon()));
    many.flags.push(None);
    assert!(!lark.accepts(&many.to_toon()) && !gbnf.accepts(&many.to_toon()));
    // `[0]{...}:` as the prompt shows an empty table, and `key: []` as `to_toon` writes it.
    let empty = base.to_toon().replace(
        "segments[1]{from{x,y},to{x,y},label}:\n  0,0,3,-4,null",
        "segments[0]{from{x,y},to{x,y},label}:",
    );
    assert_ne!(empty, base.to_toon());
    assert!(lark.accepts(&empty) && gbnf.accepts(&empty), "{empty}");
}

#[test]
fn numbers_are_admitted_only_where_they_read_as_the_number() {
    let [lark, gbnf] = Checker::both::<Measure>();
    let doc = |value: &str, share: &str| format!("value: {value}\nshare: {share}");
    for (value, share, expected) in [
        ("0.000001", "0.000001", (1e-6, 1e-6)),
        ("-1.5", "1", (-1.5, 1.0)),
        ("123456789012345678901", "1.0", (1.2345678901234568e20, 1.0)),
        ("-0.123456", "0.5", (-0.123456, 0.5)),
        ("1", "0.019768", (1.0, 0.019768)),
    ] {
        let text = doc(value, share);
        assert!(
            lark.accepts(&text) && gbnf.accepts(&text),
            "refused:\n{text}"
        );
        let m = Measure::from_toon(&text).unwrap();
        assert_eq!((m.value, m.share), expected);
    }
    // Numbers the decoder would read as text (they overflow or underflow f64),
    // more digits after the point than FRACTION_DIGITS (a real reply's
    // confidence among them), the exponent form, and forms the encoder never
    // writes.
    for (value, share) in [
        ("1e-400", "0.5"),
        ("1e+999", "0.5"),
        ("5e-324", "0.5"),
        ("0.5", "1e-7"),
        ("0.5", "1.9768E-2"),
        ("9.6749520880759182E-3", "0.5"),
        ("0.5", "0.0096749520880759182"),
        ("0.1234567", "0.5"),
        ("1234567890123456789012", "0.5"),
        ("12e3", "0.5"),
        ("0.5", "1.5"),
    ] {
        let text = doc(value, share);
        assert!(!lark.accepts(&text), "the Lark grammar admits:\n{text}");
        assert!(!gbnf.accepts(&text), "the GBNF grammar admits:\n{text}");
    }
    // What the grammar now refuses, the decoder refuses or reads otherwise.
    assert!(Measure::from_toon(&doc("1e-400", "0.5")).is_err());
}

#[test]
fn optional_fields_may_be_left_out() {
    let [lark, gbnf] = Checker::both::<ComplianceAnalysis>();
    let without = compliance_text().replace("\nconfidence: 0.9", "");
    assert!(lark.accepts(&without) && gbnf.accepts(&without));
    let null = compliance_text().replace("confidence: 0.9", "confidence: null");
    assert!(lark.accepts(&null) && gbnf.accepts(&null));
    assert_eq!(
        ComplianceAnalysis::from_toon(&without).unwrap().confidence,
        None
    );
}

#[test]
fn every_example_type_has_both_grammars() {
    // Compiling is the check (Checker::lark asserts it).
    let _ = Checker::both::<Capital>();
    let _ = Checker::both::<Detections>();
    let _ = Checker::both::<Answer>();
    let _ = Checker::both::<Vec<String>>();
    let _ = Checker::both::<BTreeMap<String, u8>>();
    let [lark, _] = Checker::both::<Vec<Violation>>();
    let rows = vec![example_compliance().violations[0].clone(); 2];
    assert!(lark.accepts(&rows.to_toon()), "{}", rows.to_toon());
}

#[test]
fn long_bounds_stay_within_what_llama_cpp_parses() {
    assert_eq!(
        toon_core::grammar::LARGEST_MAX_ITEMS,
        1000,
        "the test type's max_items"
    );
    // Checker::gbnf holds the text to llama.cpp's repetition limits.
    let [lark, gbnf] = Checker::both::<LongBounds>();
    let long = |summary: &str, body: &str, scores: usize| {
        LongBounds {
            summary: summary.to_owned(),
            body: body.to_owned(),
            scores: vec![7; scores],
        }
        .to_toon()
    };
    let (b, number_like, quoted) = (
        |n: usize| "b".repeat(n),
        // Text that begins like a number is held by other loops than plain text.
        |n: usize| format!("{}x", "1".repeat(n - 1)),
        // A leading space is quoted: the quoted loop holds all 3000 characters.
        |n: usize| format!(" {}", "q".repeat(n - 1)),
    );
    for (text, admitted) in [
        (long(&b(1000), &b(3000), 1000), true),
        (long(&b(1001), "b", 1), false),
        (long("s", &b(3001), 1), false),
        (long("s", "b", 1001), false),
        (long("s", "b", 0), true),
        (long(&number_like(1000), "b", 1), true),
        (long("s", &number_like(1500), 1), true),
        (long("s", &quoted(3000), 1), true),
        (long("s", &quoted(3001), 1), false),
    ] {
        let head: String = text.chars().take(40).collect();
        assert_eq!(lark.accepts(&text), admitted, "Lark: {head}...");
        assert_eq!(gbnf.accepts(&text), admitted, "GBNF: {head}...");
    }
    assert!(long("s", &quoted(3000), 1).contains("body: \" q"));
    // Lark holds number-like text to its bound too (GBNF within a few times it).
    assert!(!lark.accepts(&long(&number_like(1001), "b", 1)));
    // Within the bound, llguidance's lexer state limit refuses such text of
    // about 1,900 characters (GrammarSyntax's docs say so).
    assert!(!lark.accepts(&long("s", &number_like(2500), 1)));
    assert!(gbnf.accepts(&long("s", &number_like(2500), 1)));
}

/// The longest text bound the derive takes.
#[derive(Debug, Clone, PartialEq, Toon)]
struct Essay {
    #[toon(max_len = 10000)]
    text: String,
}

#[test]
fn the_largest_text_bound_holds_ordinary_text_in_both_grammars() {
    assert_eq!(
        toon_core::grammar::LARGEST_MAX_LEN,
        10_000,
        "the test type's max_len"
    );
    let [lark, gbnf] = Checker::both::<Essay>();
    let essay = |n: usize| {
        let mut text = "The cat sat on the mat, and then it slept. ".repeat(n / 43 + 1);
        text.truncate(n - 1);
        text.push('.');
        Essay { text }.to_toon()
    };
    assert!(lark.accepts(&essay(10_000)) && gbnf.accepts(&essay(10_000)));
    assert!(!lark.accepts(&essay(10_001)) && !gbnf.accepts(&essay(10_001)));
}

#[test]
fn the_gbnf_reader_counts_repetitions_as_llama_cpp_does() {
    // llama.cpp's parser (as of its `llama-grammar.cpp` with the AST; the
    // older one in the model venv counts one fewer) takes the first and refuses
    // the second: a group of 20 rules (its own and 19 optional copies) repeated
    // 100 times reaches 2000.
    let reads = |g: &str| std::panic::catch_unwind(|| gbnf_as_lark(g)).is_ok();
    assert!(reads("root ::= ([a-z]{0,18}){0,100}\n"));
    assert!(!reads("root ::= ([a-z]{0,19}){0,100}\n"));
    assert!(reads("root ::= [a-z]{0,1999}\n"));
    assert!(!reads("root ::= [a-z]{0,2000}\n"));
    // A rule reference counts as one, wherever its rule repeats.
    assert!(reads("root ::= x{0,100}\nx ::= [a-z]{0,50}\n"));
}

#[test]
fn the_compliance_grammar_is_pinned() {
    insta::assert_snapshot!(
        "compliance_gbnf",
        ComplianceAnalysis::toon_grammar(GrammarSyntax::Gbnf)
    );
    insta::assert_snapshot!(
        "compliance_lark",
        ComplianceAnalysis::toon_grammar(GrammarSyntax::Lark)
    );
    insta::assert_snapshot!("answer_gbnf", Answer::toon_grammar(GrammarSyntax::Gbnf));
}

fn body() -> Value {
    json!({"model": "local", "messages": [{"role": "user", "content": "Check this."}]})
}

#[test]
fn each_server_gets_the_grammar_in_its_own_field() {
    let mut llama = body();
    constrain_request::<ComplianceAnalysis>(&mut llama, GrammarServer::LlamaCpp).unwrap();
    assert_eq!(
        llama["grammar"],
        ComplianceAnalysis::toon_grammar(GrammarSyntax::Gbnf)
    );
    assert_eq!(llama["messages"], body()["messages"], "the rest is kept");

    let mut vllm = body();
    constrain_request::<ComplianceAnalysis>(&mut vllm, GrammarServer::Vllm).unwrap();
    assert_eq!(
        vllm["structured_outputs"]["grammar"],
        ComplianceAnalysis::toon_grammar(GrammarSyntax::Gbnf)
    );

    let mut openai = body();
    openai["tools"] = json!([{"type": "function", "function": {"name": "lookup"}}]);
    constrain_request::<ComplianceAnalysis>(&mut openai, GrammarServer::OpenAi).unwrap();
    let tool = &openai["tools"][1];
    assert_eq!(tool["type"], "custom");
    assert_eq!(tool["custom"]["name"], "ComplianceAnalysis");
    assert!(tool["custom"]["description"]
        .as_str()
        .unwrap()
        .starts_with("The result of checking a document against the rules."));
    assert_eq!(tool["custom"]["format"]["grammar"]["syntax"], "lark");
    assert_eq!(
        tool["custom"]["format"]["grammar"]["definition"],
        ComplianceAnalysis::toon_grammar(GrammarSyntax::Lark)
    );
    assert_eq!(
        openai["tool_choice"],
        json!({"type": "custom", "custom": {"name": "ComplianceAnalysis"}})
    );
    assert_eq!(openai["tools"][0]["function"]["name"], "lookup");

    // The Responses API: the same tool in its flat form, `tools: null` as no tools.
    let mut responses = json!({"model": "gpt-5", "input": "Check this.", "tools": null});
    constrain_request::<ComplianceAnalysis>(&mut responses, GrammarServer::OpenAiResponses)
        .unwrap();
    assert_eq!(
        responses["tools"],
        json!([{
            "type": "custom",
            "name": "ComplianceAnalysis",
            "description": openai["tools"][1]["custom"]["description"],
            "format": {
                "type": "grammar",
                "syntax": "lark",
                "definition": ComplianceAnalysis::toon_grammar(GrammarSyntax::Lark),
            },
        }])
    );
    assert_eq!(
        responses["tool_choice"],
        json!({"type": "custom", "name": "ComplianceAnalysis"})
    );

    // `{"type": "text"}` is the default format, and `null` is a field left unset.
    for server in [
        GrammarServer::LlamaCpp,
        GrammarServer::Vllm,
        GrammarServer::OpenAi,
    ] {
        let mut b = body();
        b["response_format"] = json!({"type": "text"});
        b["tools"] = Value::Null;
        constrain_request::<Capital>(&mut b, server).unwrap_or_else(|e| panic!("{server:?}: {e}"));
    }
}

#[test]
fn what_a_server_cannot_do_is_refused_by_name() {
    let cases: [(GrammarServer, &str, Value, &str); 17] = [
        (
            GrammarServer::LlamaCpp,
            "tools",
            json!([]),
            "together with tools",
        ),
        (
            GrammarServer::LlamaCpp,
            "response_format",
            json!({"type": "json_object"}),
            "replace the grammar",
        ),
        (
            GrammarServer::LlamaCpp,
            "grammar",
            json!("root ::= \"x\""),
            "grammar",
        ),
        (
            GrammarServer::LlamaCpp,
            "json_schema",
            json!({"type": "object"}),
            "not both",
        ),
        (GrammarServer::Vllm, "guided_grammar", json!("x"), "v0.12"),
        // Any of the older fields: an older vLLM takes it in place of the grammar.
        (
            GrammarServer::Vllm,
            "guided_json",
            json!({"type": "object"}),
            "in place of structured_outputs",
        ),
        // Function calling's older form, as `tools`.
        (
            GrammarServer::LlamaCpp,
            "functions",
            json!([{"name": "lookup"}]),
            "older form of `tools`",
        ),
        (
            GrammarServer::Vllm,
            "function_call",
            json!({"name": "lookup"}),
            "older form of `tools`",
        ),
        (
            GrammarServer::OpenAi,
            "functions",
            json!([{"name": "lookup"}]),
            "must be the one called",
        ),
        (
            GrammarServer::OpenAiResponses,
            "response_format",
            json!({"type": "json_object"}),
            "text.format",
        ),
        (
            GrammarServer::Vllm,
            "tools",
            json!([{"type": "function", "function": {"name": "lookup"}}]),
            "in place of the grammar",
        ),
        (
            GrammarServer::Vllm,
            "tool_choice",
            json!("required"),
            "in place of the grammar",
        ),
        (
            GrammarServer::OpenAiResponses,
            "text",
            json!({"format": {"type": "json_schema", "name": "x", "schema": {}}}),
            "cannot both be the reply",
        ),
        (
            GrammarServer::Vllm,
            "response_format",
            json!({}),
            "one constraint",
        ),
        (
            GrammarServer::OpenAi,
            "tool_choice",
            json!("auto"),
            "tool must be the one chosen",
        ),
        // A tool of the type's name already there (a request constrained twice).
        (
            GrammarServer::OpenAi,
            "tools",
            json!([{"type": "function", "function": {"name": "Capital"}}]),
            "already has a tool named `Capital`",
        ),
        (
            GrammarServer::OpenAiResponses,
            "tools",
            json!([{"type": "custom", "name": "Capital"}]),
            "already has a tool named `Capital`",
        ),
    ];
    for (server, key, value, words) in cases {
        let mut b = body();
        b[key] = value;
        let before = b.clone();
        let err = constrain_request::<Capital>(&mut b, server).unwrap_err();
        assert!(err.to_string().contains(key), "{err}");
        assert!(err.to_string().contains(words), "{err}");
        assert_eq!(b, before, "a refused request is left unchanged");
    }
    assert!(constrain_request::<Capital>(&mut json!([1]), GrammarServer::LlamaCpp).is_err());
}

#[test]
fn the_reply_is_read_from_content_or_the_tool_call() {
    let content = json!({"choices": [{"message": {"content": "country: Peru\ncapital: Lima"}}]});
    assert_eq!(
        reply_text(&content).as_deref(),
        Some("country: Peru\ncapital: Lima")
    );
    let tool = json!({"choices": [{"message": {"content": null, "tool_calls": [
        {"id": "c1", "type": "custom", "custom": {"name": "Capital", "input": "country: Peru\ncapital: Lima"}}
    ]}}]});
    let text = reply_text(&tool).unwrap();
    assert_eq!(Capital::from_toon(&text).unwrap().capital, "Lima");
    assert_eq!(reply_text(&json!({"error": "x"})), None);

    // The Responses API: the tool call's input, else the message's text.
    let call = json!({"output": [
        {"type": "reasoning", "id": "r1", "summary": []},
        {"type": "custom_tool_call", "call_id": "c1", "name": "Capital", "input": "country: Peru\ncapital: Lima"}
    ]});
    assert_eq!(
        reply_text(&call).as_deref(),
        Some("country: Peru\ncapital: Lima")
    );
    let message = json!({"output": [{"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": "country: Chile\ncapital: Santiago", "annotations": []}
    ]}]});
    assert_eq!(
        reply_text(&message).as_deref(),
        Some("country: Chile\ncapital: Santiago")
    );
    assert_eq!(reply_text(&json!({"output": []})), None);
}

/// The whole reply is read, and nothing stands in for an answer: content sent
/// as parts is joined, a Responses message's parts too, a tool call with no
/// input is not replaced by the message beside it, a refusal is no text.
#[test]
fn the_reply_text_is_whole_and_never_a_stand_in() {
    let parts = json!({"choices": [{"message": {"content": [
        {"type": "thinking", "thinking": "hm"},
        {"type": "text", "text": "country: Peru\n"},
        {"type": "text", "text": "capital: Lima"}
    ]}}]});
    assert_eq!(
        reply_text(&parts).as_deref(),
        Some("country: Peru\ncapital: Lima")
    );
    let responses = json!({"output": [{"type": "message", "content": [
        {"type": "output_text", "text": "country: Chile\n"},
        {"type": "output_text", "text": "capital: Santiago"}
    ]}]});
    let text = reply_text(&responses).unwrap();
    assert_eq!(Capital::from_toon(&text).unwrap().capital, "Santiago");

    let no_input = json!({"output": [
        {"type": "message", "content": [{"type": "output_text", "text": "country: Peru"}]},
        {"type": "custom_tool_call", "name": "Capital"}
    ]});
    assert_eq!(reply_text(&no_input), None);
    let chat_no_input = json!({"choices": [{"message": {"content": "country: Peru", "tool_calls": [
        {"type": "custom", "custom": {"name": "Capital"}}
    ]}}]});
    assert_eq!(reply_text(&chat_no_input), None);

    let refused = json!({"choices": [{"message": {"content": null, "refusal": "No."}}]});
    assert_eq!(reply_text(&refused), None);
    let refused_part = json!({"output": [{"type": "message", "content": [
        {"type": "output_text", "text": "country: "},
        {"type": "refusal", "refusal": "No."}
    ]}]});
    assert_eq!(reply_text(&refused_part), None);
}

/// A cut shows in the response, on either API: a Responses API reply stopped
/// at `max_output_tokens` is read as cut (its rows were short of its count),
/// and a content filter's stop is a cut too.
#[test]
fn the_finish_reason_is_read_from_either_api() {
    let rows = "country: Peru\ncapital: Li";
    let incomplete = json!({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
        "output": [{"type": "custom_tool_call", "name": "Capital", "input": rows}]});
    let finish = FinishReason::of_response(&incomplete);
    assert_eq!(finish, FinishReason::Length);
    let options = ReplyOptions {
        finish_reason: finish,
        ..Default::default()
    };
    let text = reply_text(&incomplete).unwrap();
    let e = toon_core::ToonOutputParser::<Capital>::new()
        .options(options)
        .parse_with_report(&text)
        .unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Truncated, "{e}");

    let filtered =
        json!({"choices": [{"finish_reason": "content_filter", "message": {"content": rows}}]});
    let finish = FinishReason::of_response(&filtered);
    assert_eq!(finish, FinishReason::ContentFilter);
    let options = ReplyOptions {
        finish_reason: finish,
        ..Default::default()
    };
    let e = toon_core::ToonOutputParser::<Capital>::new()
        .options(options)
        .parse_with_report(rows)
        .unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Truncated, "{e}");
    assert!(e.to_string().contains("content filter"), "{e}");

    for (response, finish) in [
        (
            json!({"status": "completed", "output": []}),
            FinishReason::Stop,
        ),
        (
            json!({"status": "incomplete", "incomplete_details": {"reason": "content_filter"}}),
            FinishReason::ContentFilter,
        ),
        (json!({"stop_reason": "max_tokens"}), FinishReason::Length),
        (json!({"stop_reason": "end_turn"}), FinishReason::Stop),
        (
            json!({"choices": [{"finish_reason": "tool_calls"}]}),
            FinishReason::Unknown,
        ),
        (json!({}), FinishReason::Unknown),
    ] {
        assert_eq!(FinishReason::of_response(&response), finish, "{response}");
    }
}

// Shapes whose form the encoder chooses by the values (§9.3, §9.5): the
// grammar admits each form `to_toon` may write.

/// Two points: a keyed table (`[2:]{x,y}:`) when written alone or as a field.
#[derive(Debug, Clone, PartialEq, Toon)]
struct Bbox {
    top_left: Point,
    bottom_right: Option<Point>,
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Framed {
    frame: Bbox,
    /// A table whenever no item is `null`.
    corners: Vec<Option<Point>>,
    /// A table whenever every item has the same keys.
    findings: Vec<Finding>,
    /// A keyed table whenever no value is `null` (and there are two or more).
    spots: BTreeMap<String, Option<Point>>,
    /// A keyed table whenever every value has the same keys.
    verdicts: BTreeMap<String, Finding>,
}

/// One generic struct at two types: one name, two rules.
#[derive(Debug, Clone, PartialEq, Toon)]
struct Wrapper<T> {
    inner: T,
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Wrapped {
    count: Wrapper<u8>,
    label: Wrapper<String>,
}

fn framed() -> impl Strategy<Value = Framed> {
    (
        point(),
        prop::option::of(point()),
        prop::collection::vec(prop::option::weighted(0.8, point()), 0..5),
        prop::collection::vec(finding(), 0..5),
        prop::collection::btree_map("[a-z]{1,4}", prop::option::weighted(0.8, point()), 0..4),
        prop::collection::btree_map("[a-z]{1,4}", finding(), 0..4),
    )
        .prop_map(
            |(top_left, bottom_right, corners, findings, spots, verdicts)| Framed {
                frame: Bbox {
                    top_left,
                    bottom_right,
                },
                corners,
                findings,
                spots,
                verdicts,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn values_in_forms_chosen_by_the_values_are_admitted(x in framed()) {
        FRAMED.with(|g| admitted(g, &x))?;
    }
}

thread_local! {
    static FRAMED: [Checker; 2] = Checker::both::<Framed>();
}

#[test]
fn forms_the_encoder_chooses_by_the_values_are_admitted() {
    let p = |x, y| Point { x, y };
    let bbox = Bbox {
        top_left: p(1, 2),
        bottom_right: Some(p(3, -4)),
    };
    let found = |s: &str| Finding::Found {
        answer: s.into(),
        citations: vec![SourceId(1)],
    };
    let not_found = |s: &str| Finding::NotFound { reason: s.into() };
    let framed = [
        Framed {
            frame: bbox.clone(),
            corners: vec![Some(p(0, 0)), Some(p(1, 1))],
            findings: vec![not_found("none here"), not_found("nor here")],
            spots: [("a".into(), Some(p(1, 1))), ("b".into(), Some(p(2, 2)))].into(),
            verdicts: [
                ("q1".into(), not_found("no")),
                ("q2".into(), not_found("nor")),
            ]
            .into(),
        },
        Framed {
            frame: Bbox {
                bottom_right: None,
                ..bbox.clone()
            },
            corners: vec![Some(p(0, 0)), None],
            findings: vec![Finding::Unanswerable, Finding::Unanswerable],
            spots: [("a".into(), Some(p(1, 1))), ("b".into(), None)].into(),
            verdicts: BTreeMap::new(),
        },
        Framed {
            frame: bbox.clone(),
            corners: vec![],
            findings: vec![found("yes"), not_found("no"), Finding::Unanswerable],
            spots: BTreeMap::new(),
            verdicts: [("q1".into(), found("yes")), ("q2".into(), not_found("no"))].into(),
        },
    ];
    let grammars = Checker::both::<Framed>();
    for x in &framed {
        admitted(&grammars, x).unwrap();
    }
    // The forms above are the ones these values are written in.
    let texts: Vec<String> = framed.iter().map(Toon::to_toon).collect();
    for form in [
        "frame[2:]{x,y}:",
        "corners[2]{x,y}:",
        "findings[2]{status,reason}:",
        "findings[2]{status}:",
        "findings[3]:",
        "spots[2:]{x,y}:",
        "verdicts[2:]{status,reason}:",
    ] {
        assert!(texts.iter().any(|t| t.contains(form)), "{form}\n{texts:#?}");
    }
    admitted(&Checker::both::<Bbox>(), &bbox).unwrap();
    assert!(
        bbox.to_toon().starts_with("[2:]{x,y}:"),
        "{}",
        bbox.to_toon()
    );

    let wrapped = Wrapped {
        count: Wrapper { inner: 5 },
        label: Wrapper {
            inner: "hello".into(),
        },
    };
    admitted(&Checker::both::<Wrapped>(), &wrapped).unwrap();
    // Each field by its own type, in the nested form too.
    let nested = "count:\n  inner: 5\nlabel:\n  inner: hello";
    for g in Checker::both::<Wrapped>() {
        assert!(g.accepts(nested));
        assert!(!g.accepts("count:\n  inner: hello\nlabel:\n  inner: hello"));
    }
}

/// An expression: a tagged enum nested in itself through a required field.
#[derive(Debug, Clone, PartialEq, Toon)]
#[toon(tag = "kind")]
enum Expr {
    Num { value: i32 },
    Neg { inner: Box<Expr> },
}

#[test]
fn where_the_recursion_stops_only_finite_variants_remain() {
    let neg = |e| Expr::Neg { inner: Box::new(e) };
    let deep = neg(neg(Expr::Num { value: 3 }));
    admitted(&Checker::both::<Expr>(), &deep).unwrap();
    // Three levels of Neg leave the third `inner` no finite value: the
    // grammar ends there with Num, never with an empty object.
    refused::<Expr>("kind: Neg\ninner:\n  kind: Neg\n  inner:\n    kind: Neg\n    inner:");
    assert!(
        Expr::from_toon("kind: Neg\ninner:\n  kind: Neg\n  inner:\n    kind: Neg\n    inner:")
            .is_err()
    );
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Nothing {
    #[toon(length(max = 0))]
    text: String,
    #[toon(length(max = 0))]
    list: Vec<u8>,
    #[toon(length(max = 0))]
    map: BTreeMap<String, u8>,
}

#[test]
fn a_length_of_at_most_zero_leaves_only_the_empty_value() {
    let none = Nothing {
        text: String::new(),
        list: vec![],
        map: BTreeMap::new(),
    };
    admitted(&Checker::both::<Nothing>(), &none).unwrap();
    refused::<Nothing>("text: a\nlist: []\nmap:");
    refused::<Nothing>("text: \"\"\nlist[1]: 1\nmap:");
    refused::<Nothing>("text: \"\"\nlist: []\nmap:\n  a: 1");
}

/// One generic type inside itself, instanced twice: each instance is a type
/// of its own, not a recursion, in the grammar, the schema and the declarations.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
struct Wrap<T> {
    inner: T,
}

#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
struct Nested {
    x: Wrap<Wrap<u8>>,
    y: Wrap<Wrap<bool>>,
    deep: Wrap<Wrap<Wrap<Wrap<u8>>>>,
}

#[test]
fn instances_of_one_generic_type_are_types_of_their_own() {
    fn wrap<T>(inner: T) -> Wrap<T> {
        Wrap { inner }
    }
    let x = Nested {
        x: wrap(wrap(5)),
        y: wrap(wrap(true)),
        deep: wrap(wrap(wrap(wrap(7)))),
    };
    admitted(&Checker::both::<Nested>(), &x).unwrap();
    // Four levels deep is no recursion to cut: an empty object is refused.
    refused::<Nested>(
        "x:\n  inner:\n    inner: 5\ny:\n  inner:\n    inner: true\ndeep:\n  inner:\n    inner:\n      inner:",
    );
    let schema = Nested::json_schema();
    let leaf = |path: &[&str]| {
        let mut node = &schema["properties"][path[0]];
        for key in &path[1..] {
            let name = node["$ref"]
                .as_str()
                .unwrap()
                .trim_start_matches("#/$defs/");
            node = &schema["$defs"][name]["properties"][*key];
        }
        node.clone()
    };
    assert_eq!(leaf(&["x", "inner", "inner"])["type"], "integer");
    assert_eq!(leaf(&["y", "inner", "inner"])["type"], "boolean");
    let declared = Nested::schema_prompt();
    assert!(declared.contains("inner: bool,"), "{declared}");
    assert!(declared.contains("inner: u8,"), "{declared}");
}

/// Four types of one Rust name, one recursive and two holding the others:
/// each its own name, numbered without gaps, in the schema as in the grammar.
mod nodes {
    pub mod a {
        #[derive(Debug, Clone, PartialEq, toon_core::Toon, toon_core::OutputSchema)]
        pub struct Node {
            pub v: u8,
        }
    }
    pub mod b {
        #[derive(Debug, Clone, PartialEq, toon_core::Toon, toon_core::OutputSchema)]
        pub struct Node {
            pub v: String,
            pub next: Option<Box<Node>>,
        }
    }
    pub mod c {
        #[derive(Debug, Clone, PartialEq, toon_core::Toon, toon_core::OutputSchema)]
        pub struct Node {
            pub v: String,
            pub next: Option<Box<super::a::Node>>,
        }
    }
    pub mod d {
        #[derive(Debug, Clone, PartialEq, toon_core::Toon, toon_core::OutputSchema)]
        pub struct Node {
            pub v: String,
            pub next: Option<Box<super::c::Node>>,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
struct Nodes {
    a: nodes::a::Node,
    b: nodes::b::Node,
    c: nodes::c::Node,
    d: nodes::d::Node,
}

#[test]
fn types_of_one_name_each_have_their_own() {
    let schema = Nodes::json_schema();
    let refs: Vec<&str> = ["a", "b", "c", "d"]
        .iter()
        .map(|k| schema["properties"][*k]["$ref"].as_str().unwrap())
        .collect();
    assert_eq!(
        refs,
        [
            "#/$defs/Node",
            "#/$defs/Node-2",
            "#/$defs/Node-3",
            "#/$defs/Node-4"
        ]
    );
    // The recursive one refers to itself.
    assert_eq!(
        schema["$defs"]["Node-2"]["properties"]["next"]["anyOf"][0]["$ref"],
        "#/$defs/Node-2"
    );
    let x = Nodes {
        a: nodes::a::Node { v: 1 },
        b: nodes::b::Node {
            v: "b".into(),
            next: Some(Box::new(nodes::b::Node {
                v: "bb".into(),
                next: None,
            })),
        },
        c: nodes::c::Node {
            v: "c".into(),
            next: None,
        },
        d: nodes::d::Node {
            v: "d".into(),
            next: Some(Box::new(nodes::c::Node {
                v: "dc".into(),
                next: Some(Box::new(nodes::a::Node { v: 7 })),
            })),
        },
    };
    admitted(&Checker::both::<Nodes>(), &x).unwrap();
    let declared = Nodes::schema_prompt();
    assert!(declared.contains("d: Node-4,"), "{declared}");
}

/// Text bounds of one and two characters, where GBNF's bound of each loop
/// (`max - 2`) has no room.
#[derive(Debug, Clone, PartialEq, Toon)]
struct Codes {
    #[toon(length(max = 1))]
    one: String,
    #[toon(length(max = 2))]
    two: String,
    #[toon(length(min = 2, max = 2))]
    pair: String,
}

#[test]
fn a_text_of_one_or_two_characters_is_held_exactly_in_both_syntaxes() {
    let [lark, gbnf] = Checker::both::<Codes>();
    let chars = ["a", "t", "n", "1", "+", "-", "e", ".", " ", "#", "é", ","];
    let mut words: Vec<String> = chars.iter().map(|c| (*c).to_owned()).collect();
    for a in chars {
        for b in chars {
            words.push(format!("{a}{b}"));
            words.push(format!("{a}{b}a"));
        }
    }
    let mut admitted_any = [0; 3];
    for word in &words {
        for (i, text) in [
            format!("one: {word}\ntwo: ab\npair: ab"),
            format!("one: a\ntwo: {word}\npair: ab"),
            format!("one: a\ntwo: ab\npair: {word}"),
        ]
        .iter()
        .enumerate()
        {
            let read = toon_core::ToonOutputParser::<Codes>::new().parse_with_report(text);
            // Admitted only where the decoder reads the text as it stands
            // (it also reads a few more, such as `-`, which `to_toon` quotes).
            let strict = read.as_ref().is_ok_and(|r| r.repairs.is_empty());
            for (syntax, grammar) in [("Lark", &lark), ("GBNF", &gbnf)] {
                assert!(
                    !grammar.accepts(text) || strict,
                    "{syntax}, {text:?}: {read:?}"
                );
            }
            // And a value the decoder takes is admitted as `to_toon` writes it.
            if let (Ok(read), true) = (read, strict) {
                let written = read.value.to_toon();
                assert!(
                    lark.accepts(&written) && gbnf.accepts(&written),
                    "{written:?}"
                );
                admitted_any[i] += usize::from(gbnf.accepts(text));
            }
        }
    }
    // Each field admits some of the words, so the check above is not vacuous.
    assert!(admitted_any.iter().all(|&n| n > 5), "{admitted_any:?}");
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Single {
    share: f32,
}

#[test]
fn an_f32_is_written_in_its_own_shortest_digits() {
    let x = Single { share: 0.1 };
    assert_eq!(x.to_toon(), "share: 0.1");
    admitted(&Checker::both::<Single>(), &x).unwrap();
}

/// `f32` ranges: one within 2^24 is held by the grammar; past it, a number
/// within the bounds may round to an `f32` outside them, so the decoder holds it.
#[derive(Debug, Clone, PartialEq, Toon)]
struct Wide {
    #[toon(range(min = 0, max = 16777216))]
    small: f32,
    #[toon(range(min = 0, max = 16777219))]
    large: f32,
}

#[test]
fn an_f32_range_is_held_only_where_its_bounds_are_f32s() {
    let [lark, gbnf] = Checker::both::<Wide>();
    for grammar in [&lark, &gbnf] {
        assert!(!grammar.accepts("small: 16777217\nlarge: 1"));
        assert!(grammar.accepts("small: 16777216\nlarge: 1"));
        // 16777219 is within `large`'s bounds as written and is 16777220 as an
        // `f32`, which the decoder refuses: the grammar does not claim it.
        let text = "small: 1\nlarge: 16777219";
        assert!(grammar.accepts(text));
    }
    let text = "small: 1\nlarge: 16777219";
    assert_eq!(
        Wide::from_toon(text).unwrap_err().kind(),
        ParseErrorKind::Constraint
    );
    let grammar = Wide::toon_grammar(GrammarSyntax::Gbnf);
    assert!(grammar.contains("number-0-16777216"), "{grammar}");
    assert!(!grammar.contains("number-0-16777219"), "{grammar}");
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Patterns {
    /// Begins with `a` or ends with `b`.
    #[toon(pattern = "^a|b$")]
    either: String,
    /// ASCII digits, as the decoder reads `\d`.
    #[toon(pattern = r"^\d+[\w.]?$")]
    digits: String,
}

#[test]
fn a_pattern_means_in_lark_what_it_means_to_the_decoder() {
    let [lark, _] = Checker::both::<Patterns>();
    for (either, digits, ok) in [
        ("ax", "\"12\"", true),
        ("xb", "12_", true),
        ("xc", "12_", false),
        ("ab", "\u{663}", false),
        ("ab", "1\u{e9}", false),
    ] {
        let text = format!("either: {either}\ndigits: {digits}");
        assert_eq!(lark.accepts(&text), ok, "{text}");
        assert_eq!(Patterns::from_toon(&text).is_ok(), ok, "{text}");
    }
}

/// Short bounds, for comparing the two syntaxes on text of every shape.
#[derive(Debug, Clone, PartialEq, Toon)]
struct Bounded {
    #[toon(max_len = 3)]
    three: String,
    #[toon(max_len = 7)]
    seven: String,
    #[toon(max_len = 12)]
    twelve: String,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// GBNF holds unquoted text to its bound exactly, as Lark does by an
    /// intersection: text that begins like a number (`2.1.0.0`) or a keyword
    /// has its beginning and its rest counted together.
    #[test]
    fn gbnf_holds_a_texts_bound_as_lark_does(
        word in proptest::collection::vec(
            prop::sample::select(vec!["1", "0", ".", "e", "E", "+", "-", "a", "t", "r", "u", "n", "l", " "]),
            0..16,
        ),
        field in 0usize..3,
    ) {
        let word: String = word.concat();
        let mut values = ["a".to_owned(), "b".to_owned(), "c".to_owned()];
        values[field] = word.clone();
        let text = format!("three: {}\nseven: {}\ntwelve: {}", values[0], values[1], values[2]);
        let [lark, gbnf] = checkers_of_bounded();
        prop_assert_eq!(gbnf.accepts(&text), lark.accepts(&text), "{:?}", text);
    }
}

fn checkers_of_bounded() -> [Checker; 2] {
    use std::sync::OnceLock;
    static GRAMMARS: OnceLock<(String, String)> = OnceLock::new();
    let (lark, gbnf) = GRAMMARS.get_or_init(|| {
        (
            Bounded::toon_grammar(GrammarSyntax::Lark),
            Bounded::toon_grammar(GrammarSyntax::Gbnf),
        )
    });
    [Checker::lark(lark), Checker::gbnf(gbnf)]
}

/// What a real model wrote under llama-server's GBNF (tests/e2e_exchange.rs):
/// a title of 63 characters for a bound of 60, from text that begins like a
/// number, whose loops were bounded one by one.
#[test]
fn text_that_begins_like_a_number_stays_within_its_bound_in_gbnf() {
    #[derive(Debug, Toon)]
    struct Titled {
        #[toon(length(max = 60))]
        title: String,
    }
    let gbnf = Checker::gbnf(&Titled::toon_grammar(GrammarSyntax::Gbnf));
    let written = format!("2.1.0.0{}", ".1".repeat(28));
    assert_eq!(written.chars().count(), 63);
    assert!(!gbnf.accepts(&format!("title: {written}")));
    assert!(gbnf.accepts(&format!("title: {}", &written[..60])));
    assert!(Titled::from_toon(&format!("title: {}", &written[..60])).is_ok());
    // The longest reply is the quoted title's (each character an escape of
    // six bytes), in either syntax: the bare text stays within it.
    let most = |syntax| toon_core::grammar::GrammarOptions::new(syntax).max_reply_bytes::<Titled>();
    assert_eq!(most(GrammarSyntax::Gbnf), "title: ".len() + 2 + 60 * 6);
    assert_eq!(most(GrammarSyntax::Lark), most(GrammarSyntax::Gbnf));
    // Past the number-like beginning GBNF follows exactly (8 characters), the
    // loops are bounded apart: such text alone may still run past the bound.
    let loose = format!("{}x{}", "1".repeat(20), "y".repeat(45));
    assert_eq!(loose.len(), 66);
    assert!(gbnf.accepts(&format!("title: {loose}")));
}

/// Each type of this file the run-time reading takes, declared from this
/// file's source, gives the derived type's artefacts; the others (generic,
/// a default from a function, a name given twice) are refused at load.
#[test]
fn declared_at_run_time_alike() {
    common::declared::agree_each(
        include_str!("grammar.rs"),
        &crate::derived![
            Point, Segment, Group, Measure, Tree, Note, Essay, Bbox, Expr, Nothing, Codes, Single,
            Wide, Patterns, Bounded
        ],
    );
}
