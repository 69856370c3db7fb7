//! Field constraints (`range`, `length`, `pattern`, and the same keys under
//! `#[schemars]` and `#[validate]`): carried into the JSON Schema, the prompts
//! and the grammar, and refused by the decoder as `Constraint`, by path and line.

mod common;

use common::grammar::Checker;
use serde_json::json;
use toon_core::{schema::strict_violations, GrammarSyntax, OutputSchema, ParseErrorKind, Toon};

/// A damage report.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
struct Damage {
    /// How bad, from 0 (none) to 5 (destroyed).
    #[toon(range(min = 0, max = 5))]
    damage_grade: u8,
    /// The share of the building in use.
    #[toon(range(min = 0, max = 1))]
    occupancy: f64,
    /// A short name for the site.
    #[toon(length(min = 2, max = 12))]
    label: String,
    /// The rule that applies.
    #[toon(pattern = "^R-[0-9]+$")]
    rule: String,
    /// At most three.
    #[toon(length(max = 3))]
    tags: Vec<String>,
    /// As schemars spells it.
    #[schemars(range(max = 10))]
    floors: Option<u32>,
}

fn good() -> Damage {
    Damage {
        damage_grade: 3,
        occupancy: 0.5,
        label: "north wing".into(),
        rule: "R-12".into(),
        tags: vec!["roof".into()],
        floors: Some(4),
    }
}

#[test]
fn a_value_outside_its_constraint_is_refused_by_path_and_line() {
    let text = good().to_toon();
    assert_eq!(Damage::from_toon(&text).unwrap(), good());
    let cases = [
        (
            "damage_grade: 3",
            "damage_grade: 6",
            "damage_grade",
            1,
            "6 is outside the allowed 0 to 5",
        ),
        (
            "occupancy: 0.5",
            "occupancy: 3",
            "occupancy",
            2,
            "3 is outside the allowed 0 to 1",
        ),
        (
            "label: north wing",
            "label: n",
            "label",
            3,
            "has 1 characters; 2 to 12 allowed",
        ),
        (
            "label: north wing",
            "label: the whole north wing",
            "label",
            3,
            "2 to 12 allowed",
        ),
        (
            "rule: R-12",
            "rule: rule 12",
            "rule",
            4,
            "does not match the pattern `^R-[0-9]+$`",
        ),
        (
            "tags[1]: roof",
            "tags[4]: roof,wall,door,stairs",
            "tags",
            5,
            "4 items; at most 3 allowed",
        ),
        (
            "floors: 4",
            "floors: 11",
            "floors",
            6,
            "11 is outside the allowed at most 10",
        ),
    ];
    for (from, to, path, line, says) in cases {
        let broken = text.replace(from, to);
        assert_ne!(broken, text, "{from}");
        let e = Damage::from_toon(&broken).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::Constraint, "{e}");
        assert_eq!((e.path(), e.line()), (Some(path), Some(line)), "{e}");
        assert!(e.message().contains(says), "{e}");
        assert!(e.retry_prompt().contains(says), "{}", e.retry_prompt());
    }
    // At each bound, it reads.
    let edge = text
        .replace("damage_grade: 3", "damage_grade: 5")
        .replace("occupancy: 0.5", "occupancy: 1");
    assert_eq!(Damage::from_toon(&edge).unwrap().damage_grade, 5);
    assert_eq!(
        Damage::from_toon(&text.replace("floors: 4", "floors: null"))
            .unwrap()
            .floors,
        None
    );
}

/// A table whose column is bounded.
#[derive(Debug, PartialEq, Toon)]
struct Scores {
    rows: Vec<Score>,
}

#[derive(Debug, PartialEq, Toon)]
struct Score {
    name: String,
    #[toon(range(min = 0, max = 1))]
    score: f64,
}

#[test]
fn a_row_outside_its_constraint_is_refused_not_dropped() {
    let e = Scores::from_toon("rows[2]{name,score}:\n  cup,0.9\n  plate,2.5").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Constraint);
    assert_eq!((e.path(), e.line()), (Some("rows[1].score"), Some(3)));
}

#[test]
fn the_schema_carries_each_constraint() {
    let s = Damage::json_schema();
    let p = &s["properties"];
    assert_eq!(
        (&p["damage_grade"]["minimum"], &p["damage_grade"]["maximum"]),
        (&json!(0), &json!(5))
    );
    assert_eq!(
        (&p["occupancy"]["minimum"], &p["occupancy"]["maximum"]),
        (&json!(0), &json!(1))
    );
    assert_eq!(
        (&p["label"]["minLength"], &p["label"]["maxLength"]),
        (&json!(2), &json!(12))
    );
    assert_eq!(p["rule"]["pattern"], "^R-[0-9]+$");
    assert_eq!(p["tags"]["maxItems"], 3);
    assert_eq!(p["floors"]["anyOf"][0]["maximum"], 10);
    // jsonschema: at each bound valid, just past it invalid.
    let validator = jsonschema::validator_for(&s).unwrap();
    let value =
        serde_json::to_value(toon_core::decode(&good().to_toon(), &Default::default()).unwrap())
            .unwrap();
    assert!(validator.is_valid(&value));
    for (key, past) in [
        ("damage_grade", json!(6)),
        ("occupancy", json!(1.01)),
        ("label", json!("x")),
        ("label", json!("thirteen char")),
        ("rule", json!("R-x")),
        ("tags", json!(["a", "b", "c", "d"])),
        ("floors", json!(11)),
    ] {
        let mut v = value.clone();
        v[key] = past.clone();
        assert!(!validator.is_valid(&v), "{key}: {past}");
    }
    // OpenAI's strict mode takes ranges, item counts and patterns, not text lengths.
    let violations = strict_violations(&s);
    assert!(
        violations.iter().any(|v| v.contains("`minLength`")),
        "{violations:?}"
    );
    assert!(
        !violations.iter().any(|v| v.contains("`pattern`")
            || v.contains("`maximum`")
            || v.contains("`maxItems`")),
        "{violations:?}"
    );
}

#[test]
fn the_prompts_carry_each_constraint() {
    let toon = Damage::toon_prompt();
    for line in [
        "damage_grade: <integer 0 to 5>",
        "occupancy: <number 0 to 1>",
        "label: <text, 2 to 12 characters>",
        "rule: <text, matching `^R-[0-9]+$`>",
        "floors: <integer at most 10> or null",
    ] {
        assert!(toon.contains(line), "{line}\n{toon}");
    }
    assert!(toon.contains("At most 3 items."), "{toon}");
    let rust = Damage::schema_prompt();
    assert!(rust.contains("damage_grade: u8, // 0 to 5"), "{rust}");
    assert!(
        rust.contains("tags: Vec<String>, // at most 3 items"),
        "{rust}"
    );
    insta::assert_snapshot!("damage_prompt", toon);
    insta::assert_snapshot!(
        "damage_schema",
        serde_json::to_string_pretty(&Damage::json_schema()).unwrap()
    );
    insta::assert_snapshot!("damage_lark", Damage::toon_grammar(GrammarSyntax::Lark));
}

#[test]
fn the_grammar_holds_each_constraint_at_and_past_its_bound() {
    let [lark, gbnf] = Checker::both::<Damage>();
    let text = good().to_toon();
    assert!(lark.accepts(&text) && gbnf.accepts(&text), "{text}");
    let both = |t: &str| (lark.accepts(t), gbnf.accepts(t));
    // Whole numbers in a range: exact in both syntaxes.
    assert_eq!(
        both(&text.replace("damage_grade: 3", "damage_grade: 5")),
        (true, true)
    );
    assert_eq!(
        both(&text.replace("damage_grade: 3", "damage_grade: 6")),
        (false, false)
    );
    // A number between whole bounds: as the encoder writes it, in both, with at
    // most FRACTION_DIGITS digits after the point and no exponent form.
    for ok in ["0", "0.25", "1", "1.0", "0.999", "0.000001", "0.123456"] {
        assert_eq!(
            both(&text.replace("occupancy: 0.5", &format!("occupancy: {ok}"))),
            (true, true),
            "{ok}"
        );
    }
    for past in [
        "1.5",
        "2",
        "-0.1",
        "1.01",
        "10",
        "0.1234567",
        "1e-7",
        "2.5e-8",
    ] {
        assert_eq!(
            both(&text.replace("occupancy: 0.5", &format!("occupancy: {past}"))),
            (false, false),
            "{past}"
        );
    }
    // Item counts: exact in both.
    assert_eq!(
        both(&text.replace("tags[1]: roof", "tags[3]: a,b,c")),
        (true, true)
    );
    assert_eq!(
        both(&text.replace("tags[1]: roof", "tags[4]: a,b,c,d")),
        (false, false)
    );
    // Text length: Lark exactly; GBNF holds the maximum for text that does not
    // begin like a number or like `true`, `false` or `null`.
    assert_eq!(
        both(&text.replace("north wing", "large twelve")),
        (true, true)
    );
    assert_eq!(
        both(&text.replace("north wing", "large thirtee")),
        (false, false)
    );
    assert!(
        !lark.accepts(&text.replace("north wing", "n")),
        "Lark holds the minimum"
    );
    // A pattern: in Lark.
    assert!(lark.accepts(&text.replace("R-12", "R-7")));
    assert!(!lark.accepts(&text.replace("R-12", "rule 12")));
}

/// Patterns with a `/`, written plain and escaped: the Lark literal `/.../`
/// needs each escaped once.
#[derive(Debug, PartialEq, Toon)]
struct Route {
    #[toon(pattern = "^/srv/[a-z]+$")]
    plain: String,
    #[toon(pattern = r"^\/srv\/[a-z]+$")]
    escaped: String,
}

#[test]
fn a_slash_in_a_pattern_is_escaped_once_in_lark() {
    let lark = Checker::lark(&Route::toon_grammar(GrammarSyntax::Lark));
    let text = "plain: /srv/app\nescaped: /srv/web";
    assert_eq!(Route::from_toon(text).unwrap().escaped, "/srv/web");
    assert!(lark.accepts(text));
    assert!(!lark.accepts("plain: /srv/app\nescaped: /srv/Web"));
    assert!(!lark.accepts("plain: /srv/App\nescaped: /srv/web"));
}

/// A least length above the grammar's bound: the bound gives way.
#[derive(Debug, PartialEq, Toon)]
struct Code {
    #[toon(max_len = 10, length(min = 12, max = 20))]
    code: String,
}

#[test]
fn a_least_length_above_the_grammars_bound_raises_the_bound() {
    let [lark, gbnf] = Checker::both::<Code>();
    // Lark holds both ends; GBNF holds no least length (docs/constrained.md says so),
    // so only the raised bound.
    for (n, admitted) in [(10, false), (11, false), (12, true), (13, false)] {
        let text = format!("code: {}", "c".repeat(n));
        assert_eq!(lark.accepts(&text), admitted, "Lark, {n} characters");
        assert_eq!(gbnf.accepts(&text), n <= 12, "GBNF, {n} characters");
        // What the grammar admits, the type reads.
        assert_eq!(Code::from_toon(&text).is_ok(), n >= 12, "{n} characters");
    }
}

/// An `f32` is held to its bounds by the number the model wrote: `0.3` is
/// within `max = 0.3` though its exact `f32` value is above it, as the
/// schema, the prompt and the grammar all admit it.
#[test]
fn an_f32_at_a_decimal_bound_is_within_it() {
    #[derive(Debug, PartialEq, Toon, OutputSchema)]
    struct Share {
        #[toon(range(min = 0.1, max = 0.3))]
        share: f32,
    }
    for at in ["0.1", "0.3", "0.25"] {
        let reply = format!("share: {at}");
        assert!(Share::from_toon(&reply).is_ok(), "{at}");
    }
    for out in ["0.31", "0.09", "1"] {
        let e = Share::from_toon(&format!("share: {out}")).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::Constraint, "{out}");
        assert!(e.to_string().contains(&format!("{out} is outside")), "{e}");
    }
}

/// A default the reply leaves to the type is the type's choice: only a value
/// the model wrote is checked against the field's constraints.
#[test]
fn a_default_filled_in_is_not_checked_as_the_models() {
    #[derive(Debug, PartialEq, Toon, OutputSchema)]
    struct Task {
        name: String,
        #[toon(default, range(min = 1, max = 5))]
        tries: u8,
    }
    assert_eq!(
        Task::from_toon("name: a").unwrap(),
        Task {
            name: "a".into(),
            tries: 0
        }
    );
    let e = Task::from_toon("name: a\ntries: 0").unwrap_err();
    assert_eq!((e.kind(), e.line()), (ParseErrorKind::Constraint, Some(2)));
    assert_eq!(Task::from_toon("name: a\ntries: 3").unwrap().tries, 3);
}

/// A free-form value is measured by what it turns out to be: the schema
/// carries each keyword (which applies to its own JSON type) and the prompts
/// say it, as the decoder holds it.
#[test]
fn a_free_form_values_constraints_are_in_the_schema_and_prompts() {
    #[derive(Debug, PartialEq, Toon, OutputSchema)]
    struct Extra {
        /// Anything the model adds.
        #[toon(range(min = 0, max = 5), length(max = 3))]
        extra: serde_json::Value,
    }
    let schema = Extra::json_schema();
    let extra = &schema["properties"]["extra"];
    assert_eq!(
        (
            &extra["minimum"],
            &extra["maximum"],
            &extra["maxLength"],
            &extra["maxItems"]
        ),
        (&json!(0), &json!(5), &json!(3), &json!(3)),
        "{extra}"
    );
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    for (value, ok) in [
        (json!(4), true),
        (json!(9), false),
        (json!("abc"), true),
        (json!("abcd"), false),
        (json!([1, 2, 3, 4]), false),
        (json!({"a": 1}), true),
    ] {
        assert_eq!(
            validator.is_valid(&json!({ "extra": value })),
            ok,
            "{value}"
        );
        let toon = format!("extra: {value}");
        // The decoder agrees, where the TOON line reads as that value.
        if let (Ok(v), true) = (Extra::from_toon(&toon), value.is_number()) {
            assert!(ok, "{toon} read as {v:?}");
        }
    }
    let note = "a number 0 to 5; a text or list of at most 3 characters or items";
    assert!(
        Extra::schema_prompt().contains(note),
        "{}",
        Extra::schema_prompt()
    );
    assert!(
        Extra::toon_prompt().contains(note),
        "{}",
        Extra::toon_prompt()
    );
    assert_eq!(
        Extra::from_toon("extra: 9").unwrap_err().kind(),
        ParseErrorKind::Constraint
    );
}

/// A field group's columns (`who{name,qty}`) carry their constraints into the
/// prompt too, by their path from the row, as the decoder holds them.
#[test]
fn a_field_groups_column_constraints_are_in_the_prompt() {
    #[derive(Debug, PartialEq, Toon, OutputSchema)]
    struct Who {
        #[toon(length(max = 8))]
        name: String,
    }
    #[derive(Debug, PartialEq, Toon, OutputSchema)]
    struct Line {
        who: Who,
        qty: u32,
    }
    #[derive(Debug, PartialEq, Toon, OutputSchema)]
    struct Order {
        lines: Vec<Line>,
    }
    let prompt = Order::toon_prompt();
    assert!(prompt.contains("lines[N]{who{name},qty}:"), "{prompt}");
    assert!(
        prompt.contains("\n# who.name: At most 8 characters.\n"),
        "{prompt}"
    );
    let e = Order::from_toon("lines[1]{who{name},qty}:\n  Bartholomew,2").unwrap_err();
    assert_eq!(
        (e.kind(), e.line()),
        (ParseErrorKind::Constraint, Some(2)),
        "{e}"
    );
}

/// Each type of this file, declared at run time from this file's source,
/// gives the derived type's artefacts (tests/declared.rs has the readings).
#[test]
fn declared_at_run_time_alike() {
    common::declared::agree(
        include_str!("constraints.rs"),
        &crate::derived![Damage, Scores, Score, Route, Code],
    );
}
