//! `#[derive(OutputSchema)]`: the schema's shape, snapshots of what the server and
//! the model are shown, and proof against real consumers: the draft 2020-12
//! meta-schema (`jsonschema`), OpenAI's strict-mode rules, and the constrained-
//! decoding engine llama.cpp and OpenAI use (`llguidance`).

mod common;

use std::collections::BTreeMap;

use common::types::*;
use llguidance::api::TopLevelGrammar;
use llguidance::toktrie::ApproximateTokEnv;
use llguidance::{Matcher, ParserFactory};
use serde_json::{json, Value};
use toon_core::{
    decode, from_json_reply, schema::response_format, schema::strict_violations,
    schema::SchemaDialect, OutputSchema, ParseErrorKind, Toon,
};

fn example_answer() -> Answer {
    Answer {
        question: "When does it end?".into(),
        finding: Finding::Found {
            answer: "2025".into(),
            citations: vec![SourceId(2)],
        },
    }
}

/// The JSON a model would write for `x` (its JSON model, via TOON).
fn json_of<T: Toon>(x: &T) -> Value {
    decode(&x.to_toon(), &Default::default()).unwrap()
}

/// Every schema the tests check, with a value of its type.
fn schemas() -> Vec<(&'static str, Value, Value)> {
    vec![
        (
            "capital",
            Capital::json_schema(),
            json_of(&Capital {
                country: "France".into(),
                capital: "Paris".into(),
            }),
        ),
        (
            "compliance",
            ComplianceAnalysis::json_schema(),
            json_of(&example_compliance()),
        ),
        ("answer", Answer::json_schema(), json_of(&example_answer())),
        (
            "detections",
            Detections::json_schema(),
            json_of(&Detections {
                objects: vec![Detection {
                    label: Label::Cup,
                    score: 0.5,
                    note: "mug".into(),
                }],
                count: 1,
            }),
        ),
    ]
}

#[test]
fn snapshots_of_schemas_and_declarations() {
    insta::assert_snapshot!(
        "capital_schema",
        serde_json::to_string_pretty(&Capital::json_schema()).unwrap()
    );
    insta::assert_snapshot!("capital_prompt", Capital::schema_prompt());
    insta::assert_snapshot!(
        "compliance_schema",
        serde_json::to_string_pretty(&ComplianceAnalysis::json_schema()).unwrap()
    );
    insta::assert_snapshot!("compliance_prompt", ComplianceAnalysis::schema_prompt());
    insta::assert_snapshot!(
        "answer_schema",
        serde_json::to_string_pretty(&Answer::json_schema()).unwrap()
    );
    insta::assert_snapshot!("answer_prompt", Answer::schema_prompt());
}

#[test]
fn properties_and_required_keep_declaration_order() {
    let s = ComplianceAnalysis::json_schema();
    let keys: Vec<&String> = s["properties"].as_object().unwrap().keys().collect();
    let order = [
        "compliance_status",
        "violations",
        "audit_trail",
        "spoken_response",
        "confidence",
    ];
    assert_eq!(keys, order);
    assert_eq!(s["required"], json!(order));
    let c = Capital::json_schema();
    assert_eq!(c["required"], json!(["country", "capital"]), "never sorted");
    assert_eq!(c["additionalProperties"], json!(false));
    assert_eq!(c["description"], "A country and its capital city.");
    assert_eq!(
        c["properties"]["capital"]["description"],
        "The name of the capital city of that country; a city, never the country's own name."
    );
}

#[test]
fn options_are_required_and_nullable_integers_bounded_enums_named() {
    let s = ComplianceAnalysis::json_schema();
    assert_eq!(
        s["properties"]["confidence"]["type"],
        json!(["number", "null"])
    );
    assert_eq!(
        s["properties"]["violations"]["items"],
        json!({"$ref": "#/$defs/Violation"})
    );
    assert_eq!(
        s["$defs"]["Severity"]["enum"],
        json!(["HIGH", "MEDIUM", "LOW"])
    );
    assert_eq!(
        s["$defs"]["Status"]["enum"],
        json!(["COMPLIANT", "NON_COMPLIANT"])
    );
    assert!(
        s["properties"].get("internal_note").is_none(),
        "skipped fields are not in the schema"
    );
    let d = Detections::json_schema();
    assert_eq!(
        d["properties"]["count"],
        json!({"type": "integer", "minimum": 0, "maximum": 4294967295u64})
    );
    // A tagged enum is anyOf closed objects whose tag is a const.
    let a = Answer::json_schema();
    let variants = a["$defs"]["Finding"]["anyOf"].as_array().unwrap();
    assert_eq!(variants.len(), 3);
    assert_eq!(
        variants[0]["properties"]["status"],
        json!({"type": "string", "const": "found"})
    );
    assert_eq!(
        variants[0]["required"],
        json!(["status", "answer", "citations"])
    );
    assert_eq!(variants[2]["required"], json!(["status"]));
    // A newtype is its inner type.
    assert_eq!(
        variants[0]["properties"]["citations"]["items"]["maximum"],
        json!(4294967295u64)
    );
}

/// Where a reply came from.
#[derive(OutputSchema)]
#[allow(dead_code)]
enum Source {
    /// Read in the document
    /// given with the question.
    Document,
    Memory,
    /// Worked out from the other answers.
    Inferred,
}

#[derive(OutputSchema)]
#[allow(dead_code)]
enum Plain {
    /// The first.
    First,
    Second,
}

#[test]
fn unit_variant_docs_are_in_the_enum_description() {
    let s = Source::json_schema();
    assert_eq!(s["enum"], json!(["Document", "Memory", "Inferred"]));
    assert_eq!(
        s["description"],
        "Where a reply came from.\n\nDocument: Read in the document given with the question.\n\
         Inferred: Worked out from the other answers."
    );
    // With no doc on the enum, the variants' lines alone.
    assert_eq!(Plain::json_schema()["description"], "First: The first.");
    // With no doc anywhere, no description.
    assert!(Status::json_schema().get("description").is_none());
}

#[derive(OutputSchema)]
#[allow(dead_code)]
struct Tree {
    name: String,
    children: Vec<Tree>,
    weights: BTreeMap<String, u8>,
    extra: Option<Box<Leaf>>,
}

#[derive(OutputSchema)]
#[allow(dead_code)]
struct Leaf {
    next: Option<Box<Leaf>>,
}

#[test]
fn recursive_types_and_maps() {
    let s = Tree::json_schema();
    assert_eq!(s["properties"]["children"]["items"], json!({"$ref": "#"}));
    assert_eq!(
        s["properties"]["extra"],
        json!({"anyOf": [{"$ref": "#/$defs/Leaf"}, {"type": "null"}]})
    );
    assert_eq!(
        s["$defs"]["Leaf"]["properties"]["next"]["anyOf"][0],
        json!({"$ref": "#/$defs/Leaf"})
    );
    assert_eq!(
        s["properties"]["weights"],
        json!({"type": "object", "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 255}})
    );
    // A map cannot be expressed in strict mode: the checker says so, and the helper does not claim strict.
    let v = strict_violations(&s);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].contains("#/properties/weights: objects must have `additionalProperties: false`"));
    assert_eq!(
        response_format::<Tree>(SchemaDialect::OpenAi)["json_schema"]["strict"],
        json!(false)
    );
    assert!(Tree::schema_prompt().contains("weights: BTreeMap<String, u8>,"));
}

#[test]
fn every_schema_is_valid_draft_2020_12_and_accepts_its_values() {
    for (name, schema, value) in schemas() {
        jsonschema::meta::validate(&schema)
            .unwrap_or_else(|e| panic!("{name}: not a valid schema: {e}"));
        let validator = jsonschema::draft202012::new(&schema).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{name}: {value} is rejected: {errors:?}");
        // And rejects a value with an extra key.
        let mut extra = value.clone();
        extra["surprise"] = json!(1);
        assert!(
            !validator.is_valid(&extra),
            "{name}: an extra key is accepted"
        );
    }
}

#[test]
fn every_schema_meets_openai_strict_mode() {
    for (name, schema, _) in schemas() {
        assert_eq!(strict_violations(&schema), Vec::<String>::new(), "{name}");
    }
    // The checker itself catches what it claims to.
    let bad = json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}, "b": {}}, "required": ["a"]});
    let v = strict_violations(&bad);
    assert!(
        v.iter().any(|m| m.contains("additionalProperties: false")),
        "{v:?}"
    );
    assert!(
        v.iter().any(|m| m.contains("property `b` must be listed")),
        "{v:?}"
    );
    assert!(
        v.iter().any(|m| m.contains("`minLength` is not supported")),
        "{v:?}"
    );
    assert!(v.iter().any(|m| m.contains("free-form values")), "{v:?}");
    // OpenAI answers a `$ref` with a keyword beside it with HTTP 400.
    let beside = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A", "description": "x"}}, "required": ["a"], "additionalProperties": false, "$defs": {"A": {"type": "string"}}});
    let v = strict_violations(&beside);
    assert!(
        v.iter()
            .any(|m| m.contains("a `$ref` cannot have other keywords")),
        "{v:?}"
    );
    assert!(
        strict_violations(&json!({"anyOf": [{"type": "object"}]}))[0]
            .contains("the root must be an object")
    );
}

/// Feeds `text` to a grammar compiled from `schema`, one byte per token; true if
/// every byte is allowed and the grammar accepts at the end.
fn grammar_accepts(schema: &Value, text: &str) -> bool {
    let env = ApproximateTokEnv::single_byte_env();
    let factory = ParserFactory::new_simple(&env).unwrap();
    let mut m =
        Matcher::new(factory.create_parser(TopLevelGrammar::from_json_schema(schema.clone())));
    assert!(
        !m.is_error(),
        "the schema does not compile: {:?}",
        m.get_error()
    );
    for b in text.bytes() {
        if m.consume_token(u32::from(b)).is_err() || m.is_error() {
            return false;
        }
    }
    m.is_accepting().unwrap_or(false)
}

/// `{"a":1,"b":2}` with the first two keys of its top object swapped.
fn swap_first_two_keys(v: &Value) -> Value {
    let o = v.as_object().unwrap();
    let mut keys: Vec<&String> = o.keys().collect();
    keys.swap(0, 1);
    Value::Object(
        keys.into_iter()
            .map(|k| (k.clone(), o[k].clone()))
            .collect(),
    )
}

#[test]
fn every_schema_compiles_in_llguidance_and_constrains_like_the_type() {
    for (name, schema, value) in schemas() {
        let text = serde_json::to_string(&value).unwrap();
        assert!(
            grammar_accepts(&schema, &text),
            "{name}: the grammar rejects {text}"
        );
        let swapped = serde_json::to_string(&swap_first_two_keys(&value)).unwrap();
        assert!(
            !grammar_accepts(&schema, &swapped),
            "{name}: the grammar accepts swapped keys {swapped}"
        );
        let mut extra = value.clone();
        extra["surprise"] = json!(1);
        let extra = serde_json::to_string(&extra).unwrap();
        assert!(
            !grammar_accepts(&schema, &extra),
            "{name}: the grammar accepts an extra key {extra}"
        );
    }
    let mut wrong = json_of(&example_compliance());
    wrong["violations"][0]["severity"] = json!("CRITICAL");
    assert!(
        !grammar_accepts(&ComplianceAnalysis::json_schema(), &wrong.to_string()),
        "a wrong enum value is accepted"
    );
    let mut wrong_tag = json_of(&example_answer());
    wrong_tag["finding"]["status"] = json!("maybe");
    assert!(
        !grammar_accepts(&Answer::json_schema(), &wrong_tag.to_string()),
        "a wrong tag is accepted"
    );
}

#[test]
fn response_format_in_both_dialects() {
    let openai = response_format::<Capital>(SchemaDialect::OpenAi);
    assert_eq!(openai["type"], "json_schema");
    assert_eq!(openai["json_schema"]["name"], "Capital");
    assert_eq!(openai["json_schema"]["strict"], true);
    assert_eq!(openai["json_schema"]["schema"], Capital::json_schema());
    let llama = response_format::<Capital>(SchemaDialect::LlamaCppPython);
    assert_eq!(
        llama,
        json!({"type": "json_object", "schema": Capital::json_schema()})
    );
}

/// Prompted JSON, mended where the mistake has one reading, on the typed path:
/// the value is serde's, the repairs are named with their lines, and what needs
/// a guess is still refused.
#[test]
fn prompted_json_is_mended_safely() {
    let paris = Capital {
        country: "France".into(),
        capital: "Paris".into(),
    };
    for (reply, kinds) in [
        ("{'country': 'France', 'capital': 'Paris'}", vec!["single_quotes"; 4]),
        ("{country: \"France\", capital: \"Paris\",}", vec!["quoted_key", "quoted_key", "trailing_comma"]),
        ("```json\n{\n  // asked for\n  \"country\": \"France\",\n  \"capital\": \"Paris\"\n}\n```", vec!["stripped_fence", "stripped_comment", "stripped_fence"]),
    ] {
        let toon_core::Reply { value, repairs, .. } = toon_core::ToonOutputParser::<Capital>::new().json().parse_with_report(reply).unwrap();
        assert_eq!(value, paris, "{reply}");
        let got: Vec<&str> = repairs.iter().map(|r| r.kind.as_str()).collect();
        assert_eq!(got, kinds, "{reply}");
    }
    let toon_core::Reply {
        value: c, repairs, ..
    } = toon_core::ToonOutputParser::<Capital>::new()
        .json()
        .parse_with_report("{\"country\": \"France\",\n\"capital\": \"Paris\nCity\"}")
        .unwrap();
    assert_eq!(c.capital, "Paris\nCity");
    assert_eq!(
        (repairs[0].kind, repairs[0].line),
        (toon_core::RepairKind::EscapedLineBreak, 2)
    );
    // After mending, what the data lacks is said, by its path.
    let e = from_json_reply::<Capital>("{'country':\n 'France\nand more',\n}").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::MissingField);
    assert!(e.message().contains("field `capital` is missing"), "{e}");
    assert_eq!(e.path(), Some("capital"));
    // A missing comma, a stray word, a cut reply: refused as before.
    let e = from_json_reply::<Capital>("{'country': 'France' 'capital': 'Paris'}").unwrap_err();
    assert_eq!((e.kind(), e.line()), (ParseErrorKind::Syntax, Some(1)));
    let e =
        from_json_reply::<Capital>("{\"country\": France, \"capital\": \"Paris\"}").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Syntax);
    let e = from_json_reply::<Capital>("{'country': 'France', 'capital': 'Par").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Truncated);
}

#[test]
fn json_replies_through_the_types_decoder() {
    let c: Capital = from_json_reply("<think>easy</think>\nSure:\n```json\n{\"country\": \"France\", \"capital\": \"Paris\"}\n```").unwrap();
    assert_eq!(
        c,
        Capital {
            country: "France".into(),
            capital: "Paris".into()
        }
    );
    // The reply of the end-to-end issue, cut off at max_tokens inside a string.
    let e = from_json_reply::<Capital>("{ \"country\": \"FRANCE\", \"capital\": \"Paris }")
        .unwrap_err();
    assert_eq!((e.kind(), e.line()), (ParseErrorKind::Truncated, Some(1)));
    assert!(e.to_string().contains("token limit"));
    let e = from_json_reply::<Capital>("{\"country\": \"France\"}").unwrap_err();
    assert_eq!(
        (e.kind(), e.line(), e.path()),
        (ParseErrorKind::MissingField, Some(1), Some("capital"))
    );
    assert!(e.message().contains("field `capital` is missing"), "{e}");
    // A number where the type wants text: its digits, reported, as on the TOON path.
    let seven = toon_core::ToonOutputParser::<Capital>::new()
        .json()
        .parse_with_report("{\"country\": \"France\", \"capital\": 7}")
        .unwrap();
    assert_eq!(seven.value.capital, "7");
    assert_eq!(seven.repairs[0].kind, toon_core::RepairKind::UnquotedScalar);
    let e = from_json_reply::<Capital>("{\"country\": \"France\", \"capital\": [7]}").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::InvalidValue);
    let e = from_json_reply::<Capital>("country: France\ncapital: Paris").unwrap_err();
    assert_eq!((e.kind(), e.line()), (ParseErrorKind::Syntax, Some(1)));
    assert_eq!(
        from_json_reply::<Capital>("<think>hm</think>")
            .unwrap_err()
            .kind(),
        ParseErrorKind::EmptyCompletion
    );
    // A type deriving Toon reads the same JSON through from_toon.
    assert_eq!(
        Capital::from_toon("{\"country\": \"France\", \"capital\": \"Paris\"}")
            .unwrap()
            .capital,
        "Paris"
    );
}

/// A page of items: one generic type at two types.
#[derive(Debug, PartialEq, Toon, OutputSchema)]
struct Page<T> {
    items: Vec<T>,
}

#[derive(Debug, PartialEq, Toon, OutputSchema)]
struct User {
    name: String,
}

#[derive(Debug, PartialEq, Toon, OutputSchema)]
struct Order {
    total: u32,
}

/// Users and orders, each a page.
#[derive(Debug, PartialEq, Toon, OutputSchema)]
struct Listing {
    /// The users.
    users: Page<User>,
    /// The orders.
    orders: Page<Order>,
}

#[test]
fn a_generic_type_at_two_types_is_two_definitions() {
    let schema = Listing::json_schema();
    assert_eq!(strict_violations(&schema), Vec::<String>::new());
    let defs = schema["$defs"].as_object().unwrap();
    assert_eq!(
        defs["Page"]["properties"]["items"]["items"]["$ref"],
        "#/$defs/User"
    );
    assert_eq!(
        defs["Page-2"]["properties"]["items"]["items"]["$ref"],
        "#/$defs/Order"
    );
    // A field's description stands beside an `anyOf` of its one `$ref`.
    assert_eq!(
        schema["properties"]["orders"]["anyOf"][0]["$ref"],
        "#/$defs/Page-2"
    );
    assert_eq!(schema["properties"]["orders"]["description"], "The orders.");

    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let good = json!({"users": {"items": [{"name": "Ada"}]}, "orders": {"items": [{"total": 3}]}});
    assert!(validator.is_valid(&good));
    let swapped =
        json!({"users": {"items": [{"total": 3}]}, "orders": {"items": [{"name": "Ada"}]}});
    assert!(!validator.is_valid(&swapped));

    let prompt = Listing::schema_prompt();
    assert!(
        prompt.contains("users: Page,") && prompt.contains("orders: Page-2,"),
        "{prompt}"
    );
    assert!(
        prompt.contains("struct Page {\n    items: Vec<User>,"),
        "{prompt}"
    );
    assert!(
        prompt.contains("struct Page-2 {\n    items: Vec<Order>,"),
        "{prompt}"
    );
}

#[test]
fn the_declarations_of_a_list_reply_name_its_items() {
    let prompt = Vec::<Capital>::schema_prompt();
    assert!(
        prompt.starts_with("type Reply = Vec<Capital>;\n\n"),
        "{prompt}"
    );
    assert!(prompt.contains("struct Capital {"), "{prompt}");
}

mod north {
    /// An item of one module.
    #[derive(Debug, PartialEq, toon_core::Toon, toon_core::OutputSchema)]
    pub struct Item {
        pub x: u8,
    }
}

mod south {
    /// An item of another module, of the same name.
    #[derive(Debug, PartialEq, toon_core::Toon, toon_core::OutputSchema)]
    pub struct Item {
        pub y: String,
    }
}

/// Pages of two types that share a name: each nested type goes by its own name.
#[derive(Debug, PartialEq, Toon, OutputSchema)]
struct Atlas {
    north: Page<north::Item>,
    south: Page<south::Item>,
}

#[test]
fn types_of_one_name_one_level_down_are_told_apart() {
    let schema = Atlas::json_schema();
    let defs = schema["$defs"].as_object().unwrap();
    assert_eq!(
        defs["Page"]["properties"]["items"]["items"]["$ref"],
        "#/$defs/Item"
    );
    assert_eq!(
        defs["Page-2"]["properties"]["items"]["items"]["$ref"],
        "#/$defs/Item-2"
    );
    assert_eq!(defs["Item"]["required"], json!(["x"]));
    assert_eq!(defs["Item-2"]["required"], json!(["y"]));
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    assert!(validator
        .is_valid(&json!({"north": {"items": [{"x": 1}]}, "south": {"items": [{"y": "a"}]}})));
    assert!(!validator
        .is_valid(&json!({"north": {"items": [{"y": "a"}]}, "south": {"items": [{"x": 1}]}})));
    // The grammar, too: each page's rows in its own item's shape.
    let [lark, gbnf] = common::grammar::Checker::both::<Atlas>();
    let good = "north:\n  items[1]{x}:\n    1\nsouth:\n  items[1]{y}:\n    a";
    let swapped = "north:\n  items[1]{y}:\n    a\nsouth:\n  items[1]{x}:\n    1";
    for g in [&lark, &gbnf] {
        assert!(g.accepts(good));
        assert!(!g.accepts(swapped));
    }
}

#[test]
fn the_declarations_name_each_float_by_its_width() {
    #[derive(Debug, PartialEq, Toon, OutputSchema, serde::Deserialize)]
    struct Reading {
        /// Degrees Celsius.
        celsius: f32,
        ratio: f64,
    }
    let prompt = Reading::schema_prompt();
    assert!(prompt.contains("    celsius: f32,"), "{prompt}");
    assert!(prompt.contains("    ratio: f64,"), "{prompt}");
    // Both are JSON numbers with no bounds of their own (llguidance cannot
    // compile `f32::MAX` as one); past it, both readers refuse an `f32`.
    let schema = Reading::json_schema();
    for field in ["celsius", "ratio"] {
        let number = &schema["properties"][field];
        assert_eq!(number["type"], "number");
        assert!(number.get("maximum").is_none() && number.get("minimum").is_none());
    }
    let largest = serde_json::to_string(&f32::MAX).unwrap();
    let at = format!("{{\"celsius\": {largest}, \"ratio\": 1.5}}");
    assert_eq!(from_json_reply::<Reading>(&at).unwrap().celsius, f32::MAX);
    let past = "{\"celsius\": 1e39, \"ratio\": 1.5}";
    for e in [
        from_json_reply::<Reading>(past).unwrap_err(),
        Reading::from_toon(past).unwrap_err(),
    ] {
        assert_eq!(e.kind(), ParseErrorKind::InvalidValue, "{e}");
    }
}

/// OpenAI takes only an object at a schema's root: a type that is not one is
/// wrapped as the one property `value`, which `Wrapped` reads back; the form
/// for llama-cpp-python, which takes any root, is the type's own schema.
#[test]
fn response_format_wraps_a_root_that_is_not_an_object_for_openai() {
    fn check<T: OutputSchema>(wrapped_value: Value) {
        let openai = response_format::<T>(SchemaDialect::OpenAi);
        let schema = &openai["json_schema"]["schema"];
        assert_eq!(schema["type"], "object", "{schema}");
        assert_eq!(schema["required"], json!(["value"]));
        assert!(strict_violations(schema).is_empty(), "{schema}");
        assert_eq!(openai["json_schema"]["strict"], true);
        let validator = jsonschema::draft202012::new(schema).unwrap();
        assert!(validator.is_valid(&wrapped_value), "{wrapped_value}");
        assert!(!validator.is_valid(&wrapped_value["value"]));
        let llama = response_format::<T>(SchemaDialect::LlamaCppPython);
        assert_eq!(llama["schema"], T::json_schema());
    }
    let capitals = json!([{"country": "Peru", "capital": "Lima"}]);
    check::<Vec<Capital>>(json!({ "value": capitals }));
    check::<Option<Capital>>(json!({"value": null}));
    check::<Severity>(json!({"value": "HIGH"}));
    check::<Finding>(json!({"value": {"status": "unanswerable"}}));

    let toon_core::reply::Wrapped(read) =
        from_json_reply::<toon_core::reply::Wrapped<Vec<Capital>>>(
            &json!({ "value": capitals }).to_string(),
        )
        .unwrap();
    assert_eq!(read[0].capital, "Lima");
    // The wrapper is read strictly: without it, or beside another key, refused.
    assert!(
        from_json_reply::<toon_core::reply::Wrapped<Vec<Capital>>>(&capitals.to_string()).is_err()
    );
    let extra = json!({"value": capitals, "note": "x"}).to_string();
    assert!(from_json_reply::<toon_core::reply::Wrapped<Vec<Capital>>>(&extra).is_err());
    // An object root is as it was.
    assert_eq!(
        response_format::<Capital>(SchemaDialect::OpenAi)["json_schema"]["schema"],
        Capital::json_schema()
    );
}

/// Wire names that are not one Rust name are quoted in the declarations, so a
/// variant `a,b` does not read as two, nor `1` as a number.
#[test]
fn the_declarations_quote_names_that_are_not_identifiers() {
    #[derive(Debug, PartialEq, Toon, OutputSchema)]
    enum Odd {
        #[toon(rename = "a,b")]
        Pair,
        #[toon(rename = "1")]
        One,
        Plain,
    }
    #[derive(Debug, PartialEq, Toon, OutputSchema)]
    struct Holder {
        #[toon(rename = "my key")]
        key: Odd,
    }
    let declared = Holder::schema_prompt();
    assert!(declared.contains("    \"my key\": Odd,"), "{declared}");
    assert!(
        declared.contains("    \"a,b\",\n    \"1\",\n    Plain,"),
        "{declared}"
    );
}

/// Wide and float fields.
#[derive(Debug, PartialEq, Toon, OutputSchema)]
struct Wide {
    ratio: f32,
    id: i64,
    offset: isize,
    parent: Option<i64>,
    history: Vec<i64>,
    #[toon(range(max = 1))]
    share: f32,
    total: u64,
}

/// Every integer and float type's schema compiles in llguidance: an `f32`
/// bounded by `f32::MAX` failed ("Failed to generate regex for float range")
/// and `i64`'s least value overflowed in it, refusing the whole schema.
#[test]
fn the_schema_of_every_number_type_compiles_in_llguidance() {
    let schema = Wide::json_schema();
    let value = r#"{"ratio":0.5,"id":-9000000000000000000,"offset":-3,"parent":null,"history":[1,-2],"share":0.25,"total":9000000000000000000}"#;
    assert!(grammar_accepts(&schema, value), "{schema}");
    let read = Wide::from_toon(value).unwrap();
    let far = 9_000_000_000_000_000_000;
    assert_eq!((read.id, read.total), (-(far as i64), far));
    // The user's bound is kept; the type's own are where an engine takes them.
    assert_eq!(schema["properties"]["share"]["maximum"], 1.0);
    assert_eq!(schema["properties"]["total"]["maximum"], u64::MAX);
    assert!(
        schema["properties"]["id"].get("minimum").is_none(),
        "{schema}"
    );
    assert_eq!(schema["properties"]["id"]["maximum"], i64::MAX);
    let past = r#"{"ratio":0.5,"id":1,"offset":1,"parent":null,"history":[],"share":2,"total":1}"#;
    assert!(!grammar_accepts(&schema, past));
}

/// A JSON array of one number (`[5]`, what a schema with a list at its root
/// admits for one item) is JSON, bare or fenced: as TOON it is a header
/// without its colon, which was refused, or read as the text `[5]`.
#[test]
fn a_json_array_of_one_number_is_json() {
    for reply in ["[5]", "```json\n[5]\n```", "  [5]\n"] {
        let read = toon_core::ToonOutputParser::<Vec<u32>>::new()
            .parse_with_report(reply)
            .unwrap();
        assert_eq!(read.value, vec![5], "{reply}");
        assert!(read
            .repairs
            .iter()
            .any(|r| r.kind == toon_core::RepairKind::ReadJson));
        assert_eq!(Value::from_toon(reply).unwrap(), json!([5]), "{reply}");
        assert_eq!(from_json_reply::<Vec<u32>>(reply).unwrap(), vec![5]);
    }
    // Where the server says it cut the reply, `[5]` is a header cut before
    // its colon as much as a whole array: refused.
    let cut = toon_core::ReplyOptions {
        finish_reason: toon_core::FinishReason::Length,
        ..Default::default()
    };
    let e = toon_core::ToonOutputParser::<Vec<u32>>::new()
        .options(cut)
        .parse_with_report("[5]")
        .unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Truncated);
    // With its colon, or with rows below it, the bracket is TOON's.
    assert_eq!(Vec::<u32>::from_toon("[1]: 5").unwrap(), vec![5]);
    assert_eq!(Vec::<u32>::from_toon("[0]:").unwrap(), Vec::<u32>::new());
    let e = Vec::<u32>::from_toon("[2]\n  - 1\n  - 2").map(|v| v.len());
    assert_ne!(e.ok(), Some(1), "never the JSON [2]");
}

/// A pattern's `\d`, `\w` and `\s` are ASCII classes in the JSON Schema, as
/// the decoder reads them: llguidance (1.9) read `\s` as any Unicode space, so
/// a server held to the schema let through text (`12\u{a0}a`, a no-break
/// space) the decoder then refused.
#[test]
fn a_patterns_classes_mean_in_the_schema_what_the_decoder_reads() {
    #[derive(Debug, PartialEq, Toon, OutputSchema)]
    struct Code {
        #[toon(pattern = r"^\d+\s\w$")]
        code: String,
    }
    let schema = Code::json_schema();
    assert_eq!(
        schema["properties"]["code"]["pattern"],
        r"^[0-9]+[\t\n\x0B\x0C\r ][0-9A-Za-z_]$"
    );
    for (text, ok) in [
        ("12 a", true),
        ("\u{663}2 a", false),
        ("12\u{a0}a", false),
        ("12 \u{e9}", false),
    ] {
        let json = json!({ "code": text }).to_string();
        assert_eq!(grammar_accepts(&schema, &json), ok, "schema on {text:?}");
        assert_eq!(Code::from_toon(&json).is_ok(), ok, "decoder on {text:?}");
    }
}

/// Each type of this file the run-time reading takes, declared from this
/// file's source, gives the derived type's artefacts; the others (generic,
/// a default from a function, a name given twice) are refused at load.
#[test]
fn declared_at_run_time_alike() {
    common::declared::agree_each(
        include_str!("schema.rs"),
        &crate::derived![Source, Plain, Tree, Leaf, User, Order, Wide],
    );
}
