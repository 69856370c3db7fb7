//! The derives' attribute model against serde: for every serde key the derives
//! follow, serde and `from_toon` read the same value from the same data, `to_toon`
//! writes what serde reads back, and the JSON Schema accepts that data (and
//! serde's own output where serde writes what it reads); doc comments of every
//! form reach the prompt and the schema. Refused and misplaced keys are in tests/ui/.

mod common;

use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use toon_core::{decode, encode, OutputSchema, Toon};

/// Reads `data` with serde, and as TOON with `from_toon`: both must give the
/// same value, and `to_toon` of it must read back the same through serde.
fn same_reading<T>(data: Value) -> T
where
    T: Toon + DeserializeOwned + PartialEq + Debug,
{
    let by_serde: T = serde_json::from_value(data.clone()).expect("serde reads the data");
    let toon = encode(&data, &Default::default());
    let by_toon = T::from_toon(&toon).unwrap_or_else(|e| panic!("from_toon refused\n{toon}\n{e}"));
    assert_eq!(by_toon, by_serde, "the TOON read:\n{toon}");
    let written = decode(&by_toon.to_toon(), &Default::default()).unwrap();
    let back: T = serde_json::from_value(written.clone())
        .unwrap_or_else(|e| panic!("serde refused what to_toon wrote, {written}: {e}"));
    assert_eq!(back, by_serde);
    by_serde
}

fn schema_accepts<T: OutputSchema>(value: &Value) {
    let schema = T::json_schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(
        validator.is_valid(value),
        "the schema {schema:#} refuses {value:#}"
    );
}

/// Both of serde's forms of `rename` and `rename_all`: the model writes, and
/// every artefact shows, the name serde deserializes.
#[derive(Debug, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
#[serde(rename_all(serialize = "SCREAMING_SNAKE_CASE", deserialize = "camelCase"))]
struct Report {
    full_name: String,
    #[serde(rename(serialize = "out", deserialize = "score_in"))]
    score: u32,
    #[serde(rename = "remark")]
    remark_text: String,
    #[serde(rename(serialize = "only_out"))]
    kept_name: bool,
}

#[test]
fn rename_in_both_forms_reads_the_deserialize_name() {
    let data = json!({"fullName": "Ada", "score_in": 3, "remark": "fine", "keptName": true});
    let r: Report = same_reading(data.clone());
    assert_eq!(r.score, 3);
    assert_eq!(
        Report::json_schema()["required"],
        json!(["fullName", "score_in", "remark", "keptName"])
    );
    assert_eq!(
        Report::toon_header(),
        "fullName: <text>\nscore_in: <integer>\nremark: <text>\nkeptName: <true|false>"
    );
    assert!(Report::schema_prompt().contains("score_in: u32"));
    schema_accepts::<Report>(&data);
    // serde writes other names than it reads: that output is not the model's to write.
    let out = serde_json::to_value(&r).unwrap();
    assert_eq!(out["out"], 3);
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
#[serde(rename_all = "kebab-case")]
enum Severity {
    Low,
    VeryHigh,
    #[serde(rename(serialize = "CRIT", deserialize = "crit"), alias = "critical")]
    Critical,
}

/// `tag`, `rename_all`, `rename_all_fields`, a variant's own `rename_all`,
/// `rename(deserialize = ..)` and `alias` on variants.
#[derive(Debug, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
enum Finding {
    #[serde(rename(deserialize = "hit"))]
    Found { source_id: u32, quoted_text: String },
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    NotFound { why_not: String },
    #[serde(alias = "unclear")]
    Ambiguous { severity: Severity },
}

#[test]
fn enum_renames_and_aliases_read_as_serde_reads_them() {
    let hit = json!({"kind": "hit", "sourceId": 2, "quotedText": "Paris"});
    assert_eq!(
        same_reading::<Finding>(hit.clone()),
        Finding::Found {
            source_id: 2,
            quoted_text: "Paris".into()
        }
    );
    schema_accepts::<Finding>(&hit);
    let missing = json!({"kind": "not_found", "WHY_NOT": "no source"});
    same_reading::<Finding>(missing.clone());
    schema_accepts::<Finding>(&missing);
    for (severity, expected) in [
        ("very-high", Severity::VeryHigh),
        ("crit", Severity::Critical),
        ("critical", Severity::Critical),
    ] {
        let data = json!({"kind": "unclear", "severity": severity});
        assert_eq!(
            same_reading::<Finding>(data),
            Finding::Ambiguous { severity: expected }
        );
    }
    // Where serde writes what it reads, the schema accepts serde's own output.
    for value in [
        Finding::NotFound {
            why_not: "none".into(),
        },
        Finding::Ambiguous {
            severity: Severity::Low,
        },
    ] {
        schema_accepts::<Finding>(&serde_json::to_value(&value).unwrap());
    }
    let prompt = Finding::toon_prompt();
    assert!(prompt.contains("sourceId"), "{prompt}");
    assert!(prompt.contains("very-high"), "{prompt}");
}

fn five() -> u32 {
    5
}

/// The struct's own default fills what the reply leaves out, field by field,
/// unless the field says otherwise, as serde does.
#[derive(Debug, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
#[serde(default)]
struct Settings {
    retries: u32,
    label: String,
    #[serde(default = "five")]
    limit: u32,
    #[serde(default)]
    verbose: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            retries: 3,
            label: "standard".into(),
            limit: 1,
            verbose: true,
        }
    }
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
#[serde(default = "Limits::strict")]
struct Limits {
    most: u32,
    least: u32,
}

impl Limits {
    fn strict() -> Self {
        Limits { most: 2, least: 1 }
    }
}

#[test]
fn defaults_come_from_where_serde_takes_them() {
    let labelled = same_reading::<Settings>(json!({"label": "mine"}));
    assert_eq!(
        labelled,
        Settings {
            retries: 3,
            label: "mine".into(),
            limit: 5,
            verbose: false
        }
    );
    // Every field has a default, yet a model that said nothing is not read as
    // one that chose every default.
    assert_eq!(
        Settings::from_toon("").unwrap_err().kind(),
        toon_core::ParseErrorKind::EmptyCompletion
    );
    let some = same_reading::<Settings>(json!({"retries": 7, "verbose": true}));
    assert_eq!((some.retries, some.limit, some.verbose), (7, 5, true));
    let all = json!({"retries": 0, "label": "x", "limit": 9, "verbose": false});
    same_reading::<Settings>(all.clone());
    schema_accepts::<Settings>(&all);
    schema_accepts::<Settings>(&serde_json::to_value(Settings::default()).unwrap());
    assert_eq!(
        same_reading::<Limits>(json!({"most": 4})),
        Limits { most: 4, least: 1 }
    );
}

fn unseen() -> u32 {
    41
}

/// `skip`, `skip_deserializing` (with a default function), and keys that only
/// change what serde writes.
#[derive(Debug, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
#[serde(deny_unknown_fields, expecting = "a note")]
struct Note {
    #[serde(skip_serializing_if = "String::is_empty")]
    text: String,
    #[serde(skip)]
    cache: Vec<u8>,
    // Never read, so wider than any field a reply fills may be.
    #[serde(skip)]
    wide: u128,
    #[serde(skip_deserializing, default = "unseen")]
    seen: u32,
    #[serde(serialize_with = "serialize_upper")]
    tag: String,
}

fn serialize_upper<S: serde::Serializer>(s: &str, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(&s.to_uppercase())
}

#[test]
fn skipped_fields_are_neither_shown_nor_read() {
    let data = json!({"text": "hello", "tag": "a"});
    let n = same_reading::<Note>(data.clone());
    assert_eq!((n.cache.len(), n.seen, n.wide), (0, 41, 0));
    schema_accepts::<Note>(&data);
    assert_eq!(Note::json_schema()["required"], json!(["text", "tag"]));
    assert_eq!(Note::toon_header(), "text: <text>\ntag: <text>");
}

/// `transparent`: a one-field struct, named or not, is its field.
#[derive(Debug, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
#[serde(transparent)]
struct Label {
    text: String,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
#[serde(transparent)]
struct Id(u32);

#[derive(Debug, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
struct Labelled {
    id: Id,
    labels: Vec<Label>,
}

#[test]
fn transparent_structs_read_as_their_field() {
    let data = json!({"id": 4, "labels": ["a", "b"]});
    let l = same_reading::<Labelled>(data.clone());
    assert_eq!(l.labels[1].text, "b");
    schema_accepts::<Labelled>(&data);
    schema_accepts::<Labelled>(&serde_json::to_value(&l).unwrap());
    assert_eq!(
        Labelled::toon_header(),
        "id: <integer>\nlabels[N]: <text>,<text>"
    );
}

#[doc = include_str!("fixtures/docs/report.md")]
#[derive(Debug, PartialEq, Toon, OutputSchema)]
struct Documented {
    /// A `///` line.
    plain: String,
    #[doc = concat!("Between ", 1, " and ", 5, " words.")]
    words: u32,
    #[doc = "The attribute form."]
    attribute_form: bool,
    /// A line,
    #[doc = concat!("then a line from ", "a macro.")]
    mixed: String,
}

#[test]
fn doc_comments_in_every_form_reach_prompt_and_schema() {
    let schema = Documented::json_schema();
    let file = "A report of one document, as the model fills it in.\n\nIts text comes from a file.";
    assert_eq!(schema["description"], file);
    let props = &schema["properties"];
    assert_eq!(props["plain"]["description"], "A `///` line.");
    assert_eq!(props["words"]["description"], "Between 1 and 5 words.");
    assert_eq!(
        props["attribute_form"]["description"],
        "The attribute form."
    );
    assert_eq!(
        props["mixed"]["description"],
        "A line,\nthen a line from a macro."
    );
    let prompt = Documented::toon_prompt();
    for text in [
        "Between 1 and 5 words.",
        "The attribute form.",
        "then a line from a macro.",
    ] {
        assert!(prompt.contains(text), "{text:?} missing from\n{prompt}");
    }
    let declarations = Documented::schema_prompt();
    assert!(
        declarations.contains("Its text comes from a file."),
        "{declarations}"
    );
}

macro_rules! every_case {
    ($($field_ty:ident, $variant_ty:ident => $rule:literal;)*) => {$(
        /// Field names as Rust writes them, and one that is not snake case.
        #[derive(Debug, Default, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
        #[serde(rename_all = $rule)]
        #[allow(non_snake_case)]
        struct $field_ty {
            user_id: u8,
            userID: u8,
            plain: u8,
        }

        #[derive(Debug, Default, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
        #[serde(rename_all = $rule)]
        #[allow(clippy::upper_case_acronyms)]
        enum $variant_ty {
            #[default]
            NotFound,
            HTTPError,
            A,
        }
    )*};
}

every_case! {
    FieldsLower, VariantsLower => "lowercase";
    FieldsUpper, VariantsUpper => "UPPERCASE";
    FieldsPascal, VariantsPascal => "PascalCase";
    FieldsCamel, VariantsCamel => "camelCase";
    FieldsSnake, VariantsSnake => "snake_case";
    FieldsScreamingSnake, VariantsScreamingSnake => "SCREAMING_SNAKE_CASE";
    FieldsKebab, VariantsKebab => "kebab-case";
    FieldsScreamingKebab, VariantsScreamingKebab => "SCREAMING-KEBAB-CASE";
}

/// serde's wire names of a struct's fields, in order.
fn serde_keys<T: Serialize + Default>() -> Vec<String> {
    match serde_json::to_value(T::default()).unwrap() {
        Value::Object(m) => m.keys().cloned().collect(),
        other => panic!("{other}"),
    }
}

/// Every `rename_all` rule names fields and variants as serde names them
/// (`user_id` stays `user_id` under lowercase; `userID` keeps its case).
#[test]
fn rename_all_names_fields_and_variants_as_serde_does() {
    fn check<F, V>(rule: &str, variants: [V; 3])
    where
        F: Serialize + DeserializeOwned + Default + Toon + OutputSchema + PartialEq + Debug,
        V: Serialize + OutputSchema,
    {
        let keys = serde_keys::<F>();
        let ours: Vec<String> = F::json_schema()["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap().to_owned())
            .collect();
        assert_eq!(ours, keys, "fields under {rule}");
        same_reading::<F>(serde_json::to_value(F::default()).unwrap());
        let names: Vec<Value> = variants
            .iter()
            .map(|v| serde_json::to_value(v).unwrap())
            .collect();
        assert_eq!(
            V::json_schema()["enum"],
            json!(names),
            "variants under {rule}"
        );
    }
    use VariantsCamel as C;
    check::<FieldsLower, _>(
        "lowercase",
        [
            VariantsLower::NotFound,
            VariantsLower::HTTPError,
            VariantsLower::A,
        ],
    );
    check::<FieldsUpper, _>(
        "UPPERCASE",
        [
            VariantsUpper::NotFound,
            VariantsUpper::HTTPError,
            VariantsUpper::A,
        ],
    );
    check::<FieldsPascal, _>(
        "PascalCase",
        [
            VariantsPascal::NotFound,
            VariantsPascal::HTTPError,
            VariantsPascal::A,
        ],
    );
    check::<FieldsCamel, _>("camelCase", [C::NotFound, C::HTTPError, C::A]);
    check::<FieldsSnake, _>(
        "snake_case",
        [
            VariantsSnake::NotFound,
            VariantsSnake::HTTPError,
            VariantsSnake::A,
        ],
    );
    check::<FieldsScreamingSnake, _>(
        "SCREAMING_SNAKE_CASE",
        [
            VariantsScreamingSnake::NotFound,
            VariantsScreamingSnake::HTTPError,
            VariantsScreamingSnake::A,
        ],
    );
    check::<FieldsKebab, _>(
        "kebab-case",
        [
            VariantsKebab::NotFound,
            VariantsKebab::HTTPError,
            VariantsKebab::A,
        ],
    );
    check::<FieldsScreamingKebab, _>(
        "SCREAMING-KEBAB-CASE",
        [
            VariantsScreamingKebab::NotFound,
            VariantsScreamingKebab::HTTPError,
            VariantsScreamingKebab::A,
        ],
    );
}

/// A variant named by a raw identifier, as serde names it.
#[derive(Debug, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
#[allow(non_camel_case_types)]
enum Keyword {
    r#type,
    Plain,
}

#[test]
fn a_raw_identifier_is_named_without_its_prefix() {
    assert_eq!(
        serde_json::to_value(Keyword::r#type).unwrap(),
        json!("type")
    );
    assert_eq!(Keyword::json_schema()["enum"], json!(["type", "Plain"]));
    assert_eq!(Keyword::from_toon("type").unwrap(), Keyword::r#type);
}

/// Each type of this file the run-time reading takes, declared from this
/// file's source, gives the derived type's artefacts; the others (generic,
/// a default from a function, a name given twice) are refused at load.
#[test]
fn declared_at_run_time_alike() {
    common::declared::agree_each(
        include_str!("derive_attrs.rs"),
        &crate::derived![Report, Severity, Finding, Note, Label, Id, Labelled, Keyword, Documented],
    );
}
