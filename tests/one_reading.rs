//! One type, one reading: the tool path, the JSON path and the TOON path read
//! a `Toon` type with its own decoder, under its names and constraints, and
//! a strict tool stays strict. The cases are a new user's: a bug-triage type
//! written from the README, asked for through each path.

mod common;

use serde_json::{json, Value};
use toon_core::schema::{response_format, strict_form, SchemaDialect, Tool};
use toon_core::{
    from_json_reply, OutputSchema, ParseErrorKind, RepairKind, Toon, ToonOutputParser,
};

/// How bad a bug is.
#[derive(Debug, Clone, Copy, PartialEq, Toon, OutputSchema)]
#[toon(rename_all = "SCREAMING_SNAKE_CASE")]
enum Severity {
    /// Cosmetic or rare.
    Minor,
    /// Breaks a feature.
    Major,
}

/// A bug report's triage.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
struct Triage {
    /// A short title.
    #[toon(length(max = 32))]
    title: String,
    /// How bad it is.
    severity: Severity,
    /// 1 (now) to 5 (some day).
    #[toon(range(min = 1, max = 5))]
    priority: u8,
    /// The component's code, such as `NET-12`.
    #[toon(pattern = "^[A-Z]+-[0-9]+$")]
    component: String,
    /// The version the bug was seen in, as reported.
    reported_version: String,
}

fn openai_call(name: &str, arguments: &Value) -> Value {
    json!({"choices": [{"finish_reason": "tool_calls", "message": {"content": null, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments.to_string()}}
    ]}}]})
}

fn arguments() -> Value {
    json!({"title": "Crash on start", "severity": "MAJOR", "priority": 2,
           "component": "NET-12", "reported_version": "3.2"})
}

fn with(key: &str, value: Value) -> Value {
    let mut a = arguments();
    a[key] = value;
    a
}

#[test]
fn the_tool_path_reads_the_names_the_schema_shows() {
    let tool = Tool::of::<Triage>();
    let severity = &tool.parameters()["$defs"]["Severity"]["enum"];
    assert_eq!(severity, &json!(["MINOR", "MAJOR"]));
    let t: Triage = tool.read(&openai_call("Triage", &arguments())).unwrap();
    assert_eq!(t.severity, Severity::Major);
    // The same call's arguments as a JSON reply, and written in TOON: one value.
    assert_eq!(
        from_json_reply::<Triage>(&arguments().to_string()).unwrap(),
        t
    );
    let toon = Triage::from_toon(&t.to_toon()).unwrap();
    assert_eq!(toon, t);
}

#[test]
fn the_tool_path_holds_the_constraints_and_the_callers_check() {
    let tool = Tool::of::<Triage>();
    let read = |a: Value| tool.read::<Triage>(&openai_call("Triage", &a));
    for (key, value, path) in [
        ("priority", json!(9), "priority"),
        ("component", json!("net twelve"), "component"),
        ("title", json!("x".repeat(33)), "title"),
    ] {
        let e = read(with(key, value)).unwrap_err();
        assert_eq!(
            (e.kind(), e.path()),
            (ParseErrorKind::Constraint, Some(path)),
            "{e}"
        );
        assert!(e.to_string().starts_with("JSON_PARSE_FAILURE: "), "{e}");
        assert!(e.retry_prompt().contains("one JSON value"), "{e}");
    }
    // The caller's own check, through the parser.
    let parser = ToonOutputParser::<Triage>::new().validate(|t| match t.priority {
        1 if t.severity == Severity::Minor => Err("a minor bug is not priority 1".into()),
        _ => Ok(()),
    });
    let call = openai_call("Triage", &with("severity", json!("MINOR")));
    let mut minor_first = call.clone();
    let mut args = with("severity", json!("MINOR"));
    args["priority"] = json!(1);
    minor_first["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] =
        json!(args.to_string());
    let e = parser.parse_tool_call(&tool, &minor_first).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Constraint);
    assert!(e.message().contains("a minor bug is not priority 1"), "{e}");
    assert_eq!(
        parser.parse_tool_call(&tool, &call).unwrap().value.priority,
        2
    );
    // And the JSON path with the same parser.
    let e = parser.clone().json().parse(&args.to_string()).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Constraint);
}

#[test]
fn a_strict_tool_stays_strict_and_the_decoder_holds_what_moved() {
    let tool = Tool::of::<Triage>();
    // The type's own schema keeps the keyword; the strict form says it in words.
    assert_eq!(tool.parameters()["properties"]["title"]["maxLength"], 32);
    let openai = tool.openai();
    assert_eq!(openai["function"]["strict"], true);
    let title = &openai["function"]["parameters"]["properties"]["title"];
    assert_eq!(
        title,
        &json!({"type": "string", "description": "A short title. At most 32 characters."})
    );
    let strict = strict_form(tool.parameters());
    assert_eq!(strict.moved, ["#/properties/title: maxLength 32"]);
    assert!(strict.violations.is_empty());
    let rf = response_format::<Triage>(SchemaDialect::OpenAi);
    assert_eq!(rf["json_schema"]["strict"], true);
    assert_eq!(rf["json_schema"]["schema"], strict.schema);
    // llama-cpp-python's form is not strict mode's: it keeps the keyword.
    let plain = response_format::<Triage>(SchemaDialect::LlamaCppPython);
    assert_eq!(plain["schema"]["properties"]["title"]["maxLength"], 32);
    // What moved is held on the way back.
    let e =
        from_json_reply::<Triage>(&with("title", json!("y".repeat(40))).to_string()).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Constraint);
}

/// A map has free keys, which strict mode cannot express: not strict, and
/// said so by the strict form's violations, never silently.
#[test]
fn a_schema_strict_mode_cannot_take_says_why() {
    #[derive(Toon, OutputSchema)]
    struct Counts {
        by_word: std::collections::BTreeMap<String, u32>,
    }
    let tool = Tool::of::<Counts>();
    assert_eq!(tool.openai()["function"]["strict"], false);
    let strict = strict_form(tool.parameters());
    assert!(
        strict.violations[0].contains("additionalProperties"),
        "{:?}",
        strict.violations
    );
}

#[test]
fn a_version_number_in_a_text_field_is_read_as_written() {
    let toon = "title: Crash on start\nseverity: MAJOR\npriority: 2\ncomponent: NET-12\nreported_version: 3.20";
    let read = toon_core::ToonOutputParser::<Triage>::new()
        .parse_with_report(toon)
        .unwrap();
    assert_eq!(read.value.reported_version, "3.20");
    assert_eq!(
        (read.repairs[0].kind, read.repairs[0].line),
        (RepairKind::UnquotedScalar, 5)
    );
    assert_eq!(
        read.repairs[0].detail,
        "reported_version: number 3.20 read as text"
    );
    // As an item of a list, a table cell, an `Option`.
    #[derive(Debug, PartialEq, Toon)]
    struct Release {
        name: String,
        note: Option<String>,
    }
    #[derive(Debug, PartialEq, Toon)]
    struct Releases {
        tags: Vec<String>,
        releases: Vec<Release>,
    }
    let r = toon_core::ToonOutputParser::<Releases>::new()
        .parse_with_report(
            "tags[3]: 1e3,v2,2.50\nreleases[2]{name,note}:\n  1.10,-0.0\n  beta,\"7.0\"",
        )
        .unwrap();
    assert_eq!(r.value.tags, ["1e3", "v2", "2.50"]);
    let names: Vec<(&str, Option<&str>)> = r
        .value
        .releases
        .iter()
        .map(|r| (r.name.as_str(), r.note.as_deref()))
        .collect();
    assert_eq!(names, [("1.10", Some("-0.0")), ("beta", Some("7.0"))]);
    let kinds: Vec<RepairKind> = r.repairs.iter().map(|r| r.kind).collect();
    assert_eq!(kinds, [RepairKind::UnquotedScalar; 4]);
    // A number field still reads the number, and `null` is no text.
    #[derive(Debug, PartialEq, Toon)]
    struct Reading {
        value: f64,
        label: String,
    }
    assert_eq!(
        Reading::from_toon("value: 3.20\nlabel: a").unwrap().value,
        3.2
    );
    let e = Reading::from_toon("value: 1\nlabel: null").unwrap_err();
    assert_eq!(
        (e.kind(), e.path()),
        (ParseErrorKind::InvalidValue, Some("label"))
    );
    // The grammar still asks for quotes: a constrained reply needs no repair.
    let gbnf = Triage::toon_grammar(toon_core::GrammarSyntax::Gbnf);
    assert!(gbnf.contains("reported_version"), "{gbnf}");
}

#[test]
fn a_wrapped_tool_reads_its_value_with_the_types_decoder() {
    let tool = Tool::of::<Vec<Severity>>();
    let call = openai_call(tool.name(), &json!({"value": ["MINOR", "MAJOR"]}));
    assert_eq!(
        tool.read::<Vec<Severity>>(&call).unwrap(),
        [Severity::Minor, Severity::Major]
    );
    let lower = openai_call(tool.name(), &json!({"value": ["minor"]}));
    let read = ToonOutputParser::<Vec<Severity>>::new()
        .parse_tool_call(&tool, &lower)
        .unwrap();
    // Forgiven as on the TOON path: the case, reported.
    assert_eq!(read.value, [Severity::Minor]);
    assert!(!read.repairs.is_empty());
}

/// A type that is not `Toon` keeps serde's reading, by its own name.
#[test]
fn a_serde_type_is_read_by_serde() {
    #[derive(Debug, OutputSchema, serde::Deserialize)]
    struct Plain {
        title: String,
    }
    let tool = Tool::of::<Plain>();
    let call = openai_call("Plain", &json!({"title": "x"}));
    assert_eq!(tool.read_serde::<Plain>(&call).unwrap().title, "x");
    let reply =
        toon_core::reply::from_json_serde::<Plain>("{\"title\": \"y\"}", &Default::default());
    assert_eq!(reply.unwrap().value.title, "y");
}

/// A reply that breaks several constraints is refused once, naming each:
/// the retry turn asks for every one to be fixed, not the first alone.
#[test]
fn a_reply_that_breaks_several_constraints_names_them_all() {
    let toon = "title: Crash\nseverity: MAJOR\npriority: 9\ncomponent: net twelve\nreported_version: \"3.2\"";
    let e = Triage::from_toon(toon).unwrap_err();
    assert_eq!((e.kind(), e.line()), (ParseErrorKind::Constraint, Some(3)));
    assert!(
        e.message()
            .starts_with("2 values are outside their constraints"),
        "{e}"
    );
    assert!(
        e.message().contains("`priority` (line 3): 9 is outside"),
        "{e}"
    );
    assert!(e.message().contains("`component` (line 4)"), "{e}");
    assert!(
        e.retry_prompt().contains("`component` (line 4)"),
        "{}",
        e.retry_prompt()
    );
    // The same answer as JSON: each placed by its path, on its line.
    let json = "{\"title\": \"Crash\", \"severity\": \"MAJOR\",\n\"priority\": 9,\n\"component\": \"net twelve\", \"reported_version\": \"3.2\"}";
    let e = from_json_reply::<Triage>(json).unwrap_err();
    assert!(e.message().contains("`priority` (line 2)"), "{e}");
    assert!(e.message().contains("`component` (line 3)"), "{e}");
    // One value outside: the refusal as it always was, at its path.
    let one = toon.replace("net twelve", "NET-12");
    let e = Triage::from_toon(&one).unwrap_err();
    assert_eq!(
        (e.kind(), e.path(), e.line()),
        (ParseErrorKind::Constraint, Some("priority"), Some(3))
    );
    // Rows of a table: every row outside, each by its index.
    #[derive(Debug, Toon)]
    struct Scores {
        rows: Vec<Score>,
    }
    #[derive(Debug, Toon)]
    struct Score {
        name: String,
        #[toon(range(min = 0, max = 10))]
        points: u8,
    }
    let e = Scores::from_toon("rows[3]{name,points}:\n  a,11\n  b,5\n  c,12").unwrap_err();
    assert!(e.message().contains("`rows[0].points` (line 2)"), "{e}");
    assert!(e.message().contains("`rows[2].points` (line 4)"), "{e}");
}

/// Each item of a list, or value of a map, bounded (`inner`, schemars 1.x's
/// spelling), in every artefact and on every path.
#[derive(Debug, PartialEq, Toon, OutputSchema)]
struct Ratings {
    /// The scores given.
    #[toon(inner(range(min = 1, max = 5)))]
    scores: Vec<u32>,
    /// Short tags.
    #[schemars(inner(length(max = 8)))]
    tags: Vec<String>,
    /// Nicknames by person.
    #[toon(inner(pattern = "^[a-z]+$"))]
    nicknames: std::collections::BTreeMap<String, String>,
    /// Weights, if any.
    #[toon(default, inner(range(min = 0, max = 1)))]
    weights: Option<Vec<f64>>,
}

#[test]
fn each_item_of_a_list_or_value_of_a_map_is_bounded_everywhere() {
    let good = "scores[3]: 1,5,3\ntags[1]: short\nnicknames:\n  ann: annie\nweights[2]: 0.5,1";
    let r = Ratings::from_toon(good).unwrap();
    assert_eq!(r.scores, [1, 5, 3]);
    // The decoder: each item outside, by its path.
    let bad = "scores[3]: 1,9,0\ntags[1]: verylongtag\nnicknames:\n  ann: Annie\nweights[1]: 2";
    let e = Ratings::from_toon(bad).unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Constraint);
    for place in [
        "`scores[1]`",
        "`scores[2]`",
        "`tags[0]`",
        "`nicknames.ann`",
        "`weights[0]`",
    ] {
        assert!(e.message().contains(place), "{place}: {e}");
    }
    assert!(e.message().starts_with("5 values"), "{e}");
    // Left out, the optional field is the type's default, with nothing to check.
    let r = Ratings::from_toon("scores[1]: 2\ntags[0]:\nnicknames:\n  a: b").unwrap();
    assert_eq!(r.weights, None);
    // JSON and the tool path read the same way.
    let json = r#"{"scores": [1, 7], "tags": [], "nicknames": {}, "weights": null}"#;
    let e = from_json_reply::<Ratings>(json).unwrap_err();
    assert_eq!(
        (e.kind(), e.path()),
        (ParseErrorKind::Constraint, Some("scores[1]"))
    );
    let tool = Tool::of::<Ratings>();
    let e = tool
        .read::<Ratings>(&openai_call(
            "Ratings",
            &serde_json::from_str(json).unwrap(),
        ))
        .unwrap_err();
    assert_eq!(e.path(), Some("scores[1]"));
    // The schema: on the items, and the map's values.
    let schema = Ratings::json_schema();
    assert_eq!(schema["properties"]["scores"]["items"]["minimum"], 1);
    assert_eq!(schema["properties"]["scores"]["items"]["maximum"], 5);
    assert_eq!(schema["properties"]["tags"]["items"]["maxLength"], 8);
    assert_eq!(
        schema["properties"]["nicknames"]["additionalProperties"]["pattern"],
        "^[a-z]+$"
    );
    // Strict mode: the items' length said in words, and still strict where it can be.
    let strict = strict_form(&Tool::of::<Ratings>().parameters().clone());
    assert!(
        strict
            .moved
            .contains(&"#/properties/tags/items: maxLength 8".to_owned()),
        "{:?}",
        strict.moved
    );
    // The prompt and the declarations.
    let prompt = Ratings::toon_prompt();
    assert!(prompt.contains("Each: 1 to 5."), "{prompt}");
    assert!(prompt.contains("Each: at most 8 characters."), "{prompt}");
    let declared = Ratings::schema_prompt();
    assert!(
        declared.contains("scores: Vec<u32>, // each 1 to 5"),
        "{declared}"
    );
    // The grammar holds the whole-number range of each item.
    let gbnf = Ratings::toon_grammar(toon_core::GrammarSyntax::Gbnf);
    assert!(gbnf.contains("int-1-5"), "{gbnf}");
}

/// Each type of this file, declared at run time from this file's source,
/// gives the derived type's artefacts (tests/declared.rs has the readings).
#[test]
fn declared_at_run_time_alike() {
    common::declared::agree(
        include_str!("one_reading.rs"),
        &crate::derived![Severity, Triage, Ratings],
    );
}
