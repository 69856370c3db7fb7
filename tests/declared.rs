//! Types declared at run time (`toon-decl`) against the same types derived:
//! every artefact byte for byte, and every reply of the corpora read to the
//! same value, or refused with the same kind on the same line.
// The examples each include their shared chat helper; this file includes
// several examples.
#![allow(clippy::duplicate_mod)]

mod common;

#[allow(dead_code)]
#[path = "../examples/answer.rs"]
mod answer;
#[allow(dead_code)]
#[path = "../examples/capitals.rs"]
mod capitals;
#[allow(dead_code)]
#[path = "../examples/compliance.rs"]
mod compliance;
#[allow(dead_code)]
#[path = "../examples/retry.rs"]
mod retry;
#[allow(dead_code)]
#[path = "../examples/stream.rs"]
mod stream;
#[allow(dead_code)]
#[path = "../examples/triage.rs"]
mod triage;

use common::corpus::load;
use common::declared::agree;
use common::types::*;
use serde_json::Value;
use toon_core::runtime::RuntimeType;
use toon_core::spec::json_model_eq;
use toon_core::{ParseError, ReplyOptions, Toon};
use toon_decl::Declarations;

fn declarations(text: &str) -> Declarations {
    Declarations::parse(text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_shared_types_give_the_derived_artefacts() {
    agree(
        include_str!("common/types.rs"),
        &crate::derived![
            Severity,
            Status,
            Violation,
            ComplianceAnalysis,
            SourceId,
            Finding,
            Answer,
            Label,
            Detection,
            Detections,
            Capital,
            Sourced,
            SourcedProse,
            LongBounds,
            PlainViolation,
            PlainCompliance,
        ],
    );
}

#[test]
fn the_examples_give_the_derived_artefacts() {
    agree(
        include_str!("../examples/answer.rs"),
        &crate::derived![answer::Answer, answer::Finding],
    );
    agree(
        include_str!("../examples/capitals.rs"),
        &crate::derived![capitals::Capital],
    );
    agree(
        include_str!("../examples/compliance.rs"),
        &crate::derived![
            compliance::ComplianceAnalysis,
            compliance::ComplianceStatus,
            compliance::Severity,
            compliance::Violation,
        ],
    );
    agree(
        include_str!("../examples/retry.rs"),
        &crate::derived![retry::Scene, retry::Object, retry::Label],
    );
    agree(
        include_str!("../examples/stream.rs"),
        &crate::derived![stream::ComplianceAnalysis, stream::Violation],
    );
    agree(
        include_str!("../examples/triage.rs"),
        &crate::derived![triage::Severity, triage::Triage],
    );
}

/// Types written for this test, each form the derive reads, declared once
/// for the derive and once as text.
macro_rules! both {
    ($($item:item)*) => {
        mod variety {
            use toon_core::{OutputSchema, Toon};
            $($item)*
        }
        const VARIETY: &str = stringify!($($item)*);
    };
}

both! {
    /// A node of a tree, recursive.
    #[derive(Debug, Default, Toon, OutputSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct TreeNode {
        /// The node's label.
        #[toon(max_len = 40, length(min = 1))]
        pub node_label: String,
        #[toon(max_items = 4)]
        pub child_nodes: Vec<TreeNode>,
        #[serde(default)]
        pub weight: Option<f32>,
    }

    #[doc = "The kinds, in the attribute's own form."]
    #[derive(Debug, Default, Toon, OutputSchema)]
    #[serde(rename_all = "kebab-case")]
    pub enum Kind {
        #[default]
        /// The first kind.
        PlainText,
        #[serde(alias = "img")]
        ImageData,
        #[toon(rename = "other")]
        Else,
    }

    #[derive(Debug, Toon, OutputSchema)]
    pub struct Score(pub u8);

    /// What was found, tagged.
    #[derive(Debug, Toon, OutputSchema)]
    #[serde(tag = "type", rename_all = "snake_case")]
    pub enum Event {
        /// A click.
        Click {
            x: i32,
            #[toon(range(min = 0, max = 4096))]
            y: i32,
        },
        KeyPress {
            key: String,
            #[serde(default)]
            repeat: u16,
        },
        Idle,
    }

    /// Everything at once.
    #[derive(Debug, Default, Toon, OutputSchema)]
    #[serde(default)]
    pub struct Form {
        #[toon(pattern = "^[A-Z]{2}-[0-9]+$", alias = "ident")]
        pub id: String,
        pub kind: Kind,
        pub scores: Vec<u8>,
        #[toon(inner(range(min = 1, max = 5)))]
        pub ratings: std::collections::BTreeMap<String, u8>,
        pub tags: std::collections::HashMap<String, String>,
        pub extra: serde_json::Value,
        #[serde(skip)]
        pub cache: Vec<String>,
        pub root: Option<Box<TreeNode>>,
        #[serde(rename = "n")]
        pub count: i64,
        pub big: u64,
        pub ratio: f64,
        pub ok: bool,
    }

    #[derive(Debug, Toon, OutputSchema)]
    pub struct Small {
        pub x: u8,
    }

    #[derive(Debug, Toon, OutputSchema)]
    pub struct Word {
        pub x: String,
    }

    /// A key two fields of two types answer to, and a free-form value's length.
    #[derive(Debug, Toon, OutputSchema)]
    pub struct Clash {
        #[toon(alias = "rows")]
        pub items: Option<Vec<Small>>,
        pub rows: Option<Vec<Word>>,
        #[toon(length(max = 1))]
        pub extra: Option<serde_json::Value>,
    }

    /// A reply with prose after it.
    #[derive(Debug, Toon, OutputSchema)]
    pub struct Report {
        pub events: Vec<Event>,
        pub score: Score,
        /// The write-up.
        #[toon(delimited)]
        pub body: String,
    }
}

#[test]
fn every_form_gives_the_derived_artefacts() {
    use variety::*;
    agree(
        VARIETY,
        &crate::derived![TreeNode, Kind, Score, Event, Form, Small, Word, Clash, Report],
    );
}

/// What a reading gave, comparable across the two: the value as JSON and
/// the repairs, or the refusal's kind and line.
fn outcome<T: Toon>(
    read: Result<toon_core::Reply<T>, ParseError>,
) -> Result<(Value, String), String> {
    read.map(|r| {
        let kinds: Vec<&str> = r.repairs.iter().map(|x| x.kind.as_str()).collect();
        (T::__TOON.to_value(&r.value), kinds.join(" "))
    })
    .map_err(|e| format!("{:?} at {:?}", e.kind(), e.line()))
}

fn runtime_outcome(
    rt: &RuntimeType,
    reply: &str,
    options: &ReplyOptions,
) -> Result<(Value, String), String> {
    outcome(rt.read(reply, options))
}

fn same<T: Toon>(rt: &RuntimeType, reply: &str, options: &ReplyOptions, what: &str) {
    let derived = outcome(
        toon_core::ToonOutputParser::<T>::new()
            .options(*options)
            .parse_with_report(reply),
    );
    let runtime = runtime_outcome(rt, reply, options);
    match (&derived, &runtime) {
        (Ok((a, ra)), Ok((b, rb))) => {
            assert!(json_model_eq(a, b), "{what}: {a} != {b}");
            assert_eq!(ra, rb, "{what}: repairs");
        }
        _ => assert_eq!(derived, runtime, "{what}"),
    }
    // Asked for as JSON, the same reading.
    let derived = outcome(
        toon_core::ToonOutputParser::<T>::new()
            .options(*options)
            .json()
            .parse_with_report(reply),
    );
    let runtime_json = outcome(rt.read_json(reply, options));
    match (&derived, &runtime_json) {
        (Ok((a, ra)), Ok((b, rb))) => {
            assert!(json_model_eq(a, b), "{what}: JSON {a} != {b}");
            assert_eq!(ra, rb, "{what}: JSON repairs");
        }
        _ => assert_eq!(derived, runtime_json, "{what}: JSON"),
    }
    // The stream's finish reads it alike, at an odd chunking.
    let mut stream = rt.stream(*options);
    let bytes = reply.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let mut end = (at + 7).min(bytes.len());
        while !reply.is_char_boundary(end) {
            end += 1;
        }
        let _ = stream.push(&reply[at..end]);
        at = end;
    }
    let streamed = outcome(stream.finish());
    match (&runtime, &streamed) {
        (Ok((a, _)), Ok((b, _))) => assert!(json_model_eq(a, b), "{what}: stream {a} != {b}"),
        _ => assert_eq!(
            runtime.is_ok(),
            streamed.is_ok(),
            "{what}: stream {streamed:?}"
        ),
    }
}

fn files(dir: &str) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn the_real_replies_read_alike() {
    let d = declarations(include_str!("common/types.rs"));
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/replies/real");
    let mut count = 0;
    for server in ["llama-server", "llama-cpp-python"] {
        for dir in ["", "mechanisms/", "never-cut/"] {
            for ty in ["capitals", "compliance", "detections", "sourced"] {
                for path in files(&format!("{root}/{server}/{dir}{ty}")) {
                    let reply = std::fs::read_to_string(&path).unwrap();
                    let name = path.file_name().unwrap().to_string_lossy().into_owned();
                    let finish = name.split('.').nth(1).unwrap_or_default();
                    let options = ReplyOptions {
                        finish_reason: toon_core::FinishReason::from_openai(finish),
                        ..Default::default()
                    };
                    let what = path.display().to_string();
                    match ty {
                        "capitals" => {
                            same::<Capital>(d.get("Capital").unwrap(), &reply, &options, &what)
                        }
                        "compliance" => same::<ComplianceAnalysis>(
                            d.get("ComplianceAnalysis").unwrap(),
                            &reply,
                            &options,
                            &what,
                        ),
                        "detections" => same::<Detections>(
                            d.get("Detections").unwrap(),
                            &reply,
                            &options,
                            &what,
                        ),
                        _ if name.starts_with("toon-delimited") => same::<SourcedProse>(
                            d.get("SourcedProse").unwrap(),
                            &reply,
                            &options,
                            &what,
                        ),
                        _ => same::<Sourced>(d.get("Sourced").unwrap(), &reply, &options, &what),
                    }
                    count += 1;
                }
            }
        }
    }
    assert!(count >= 300, "{count} replies");
}

/// The typed corpus's cases, read through its own types declared at run
/// time, give the outcomes pinned for the derived types.
#[test]
fn the_typed_corpus_reads_as_pinned() {
    let shared = declarations(include_str!("common/types.rs"));
    let local = declarations(include_str!("typed_corpus.rs"));
    let cases = load(include_str!("replies/typed.txt"));
    let mut checked = 0;
    for c in &cases {
        let name = match c.ty.as_deref().unwrap() {
            "compliance" => "ComplianceAnalysis",
            "detections" => "Detections",
            "answer" => "Answer",
            "notes" => "Notes",
            "tasks" => "Tasks",
            "docs" => "Doc",
            "shelf" => "Shelf",
            "settings" => "Settings",
            other => panic!("unknown type {other}"),
        };
        let rt = shared.get(name).or_else(|| local.get(name)).unwrap();
        let got = rt.read(&c.reply, &c.options);
        match (got, &c.value, &c.error) {
            (Ok(r), Some(expected), None) => {
                let text = rt.enter(|| toon_core::runtime::Dynamic(r.value.clone()).to_toon());
                let model = toon_core::decode(&text, &Default::default()).unwrap();
                assert!(
                    json_model_eq(&model, expected),
                    "{}: {model} != {expected}",
                    c.name
                );
                let kinds: Vec<&str> = r.repairs.iter().map(|x| x.kind.as_str()).collect();
                assert_eq!(
                    c.repairs.as_deref(),
                    Some(kinds.join(" ").as_str()),
                    "{}",
                    c.name
                );
            }
            (Err(e), None, Some(kind)) => {
                assert_eq!(format!("{:?}", e.kind()), *kind, "{}: {e}", c.name);
                if let Some(line) = c.line {
                    assert_eq!(e.line().unwrap_or(0), line, "{}: {e}", c.name);
                }
            }
            (got, value, error) => panic!("{}: got {got:?}, pinned {value:?} / {error:?}", c.name),
        }
        checked += 1;
    }
    assert_eq!(checked, cases.len());
}

/// The refusals of a compile-fail case's `.stderr`: message, line, column.
fn refusals(stderr: &str) -> Vec<(String, usize, usize, bool)> {
    let lines: Vec<&str> = stderr.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(rest) = l.strip_prefix("error") else {
            continue;
        };
        let (rustc, message) = match rest.strip_prefix('[') {
            Some(r) => (true, r.split_once("]: ").map_or("", |(_, m)| m)),
            None => (false, rest.strip_prefix(": ").unwrap_or("")),
        };
        let at = lines[i + 1..]
            .iter()
            .find_map(|l| l.trim_start().strip_prefix("--> "));
        let mut place = at
            .into_iter()
            .flat_map(|a| a.split(':').skip(1))
            .map(|n| n.parse().ok());
        if let (Some(Some(line)), Some(Some(column))) = (place.next(), place.next()) {
            out.push((message.to_owned(), line, column, rustc));
        }
    }
    out
}

/// Each compile-fail case is refused at run time: the derive's own refusals
/// with the same message at the same line and column, and each of the compiler's (a
/// trait bound the type does not meet) on its line, in words of our own.
#[test]
fn every_compile_fail_case_is_refused_alike() {
    let mut checked = 0;
    for dir in ["toon", "schema"] {
        let root = format!("{}/tests/ui/{dir}", env!("CARGO_MANIFEST_DIR"));
        for path in files(&root)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        {
            let text = std::fs::read_to_string(&path).unwrap();
            let stderr = std::fs::read_to_string(path.with_extension("stderr")).unwrap();
            let what = path.display();
            let diagnostics = match Declarations::parse(&text) {
                Ok(d) => panic!("{what}: read, as {:?}", d.names().collect::<Vec<_>>()),
                Err(e) => e.diagnostics,
            };
            for (message, line, column, rustc) in refusals(&stderr) {
                let found = diagnostics.iter().any(|d| {
                    d.line == line && (rustc || (d.message == message && d.column == column))
                });
                assert!(
                    found,
                    "{what}: `{message}` on line {line} not among {diagnostics:#?}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 60, "{checked} cases");
}

/// What only running code could say is refused at its line, in words that
/// say what to write instead.
#[test]
fn what_a_run_time_reading_cannot_know_is_refused_at_its_line() {
    let cases = [
        ("struct Wrap<T> {\n    value: T,\n}", 1, "is generic"),
        (
            "struct A {\n    #[serde(default = \"one\")]\n    n: u8,\n}",
            2,
            "calls a function",
        ),
        (
            "struct A {\n    #[serde(default)]\n    b: B,\n}\nstruct B {\n    x: u8,\n}",
            3,
            "its own `impl Default`",
        ),
        (
            "struct A {\n    when: Instant,\n}",
            2,
            "`Instant` is not a type a reply is read into",
        ),
        (
            "struct A {\n    x: u8,\n}\nstruct A {\n    y: u8,\n}",
            4,
            "declared twice",
        ),
        (
            "#[doc = include_str!(\"a.md\")]\nstruct A {\n    x: u8,\n}",
            2,
            "written by a macro",
        ),
        ("struct A {\n    x: u8,\n", 1, "not Rust"),
        (
            "struct A {\n    x: HashMap<u8, String>,\n}",
            2,
            "map keys must be `String`",
        ),
        ("enum E {\n    A(u8),\n}", 2, "#[derive(Toon)]"),
    ];
    for (text, line, says) in cases {
        let e = Declarations::parse(text).expect_err(text);
        let d = &e.diagnostics[0];
        assert_eq!(d.line, line, "{text}: {e}");
        assert!(d.message.contains(says), "{text}: {e}");
    }
}

/// A derived `Default` is read: each field's type's default, a `#[default]`
/// variant; and a text with no derive reads every declaration, while a
/// source file that derives reads only the types that derive.
#[test]
fn defaults_and_which_declarations_are_read() {
    let d = declarations(
        "#[derive(Default)]\nenum Mode {\n    #[default]\n    Fast,\n    Slow,\n}\n\
         #[derive(Default)]\nstruct Opts {\n    mode: Mode,\n    depth: u8,\n    name: String,\n}\n\
         #[serde(default)]\n#[derive(Default)]\nstruct Job {\n    id: u32,\n    opts: Opts,\n}",
    );
    let job = d.get("Job").unwrap();
    let value = job.from_toon("id: 7").unwrap();
    assert_eq!(
        value,
        serde_json::json!({"id": 7, "opts": {"mode": "Fast", "depth": 0, "name": ""}})
    );
    let d = declarations(
        "use std::fmt;\n#[derive(Debug)]\nstruct Config {\n    path: PathBuf,\n}\n\
         #[derive(Toon)]\nstruct Answer {\n    text: String,\n}\n\
         impl fmt::Display for Answer {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) }\n}",
    );
    assert_eq!(d.names().collect::<Vec<_>>(), ["Answer"]);
}

/// The events of a derived stream and of the run-time stream, at a chunking.
fn events_alike<T: Toon>(rt: &RuntimeType, reply: &str, chunk: usize) {
    let bytes = reply.as_bytes();
    let (mut derived, mut runtime) = (
        toon_core::ToonStream::<T>::new(),
        rt.stream(ReplyOptions::default()),
    );
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut at = 0;
    while at < bytes.len() {
        let mut end = (at + chunk).min(bytes.len());
        while !reply.is_char_boundary(end) {
            end += 1;
        }
        a.extend(
            derived
                .push(&reply[at..end])
                .into_iter()
                .map(|e| format!("{e:?}")),
        );
        b.extend(
            runtime
                .push(&reply[at..end])
                .into_iter()
                .map(|e| format!("{e:?}")),
        );
        at = end;
    }
    a.extend(derived.end().into_iter().map(|e| format!("{e:?}")));
    b.extend(runtime.end().into_iter().map(|e| format!("{e:?}")));
    assert_eq!(a, b, "{reply:?} at {chunk}");
}

/// Replies of the types written for this test read alike, whole, as JSON
/// and streamed event by event: defaults, aliases, a key two fields answer
/// to (every row kept, as the derive keeps it), a free-form value measured
/// as `serde_json::Value` measures it.
#[test]
fn the_forms_read_alike_whole_and_streamed() {
    use variety::*;
    let d = declarations(VARIETY);
    let cases: [(&str, &str); 6] = [
        ("Form", "ident: AB-12\nkind: img\nratings:\n  a: 3\n  b: 9\nn: 4"),
        ("Form", "id: AB-12\nkind: PLAIN_TEXT\nscores[3]: 1,2,300\nroot:\n  nodeLabel: top\n  childNodes[1]{nodeLabel,childNodes,weight}:\n    leaf,[],0.5"),
        ("Clash", "rows[2]{x}:\n  1\n  two"),
        ("Clash", "items[2]{x}:\n  1\n  2\nextra:\n  a: 1\n  b: 2"),
        ("Report", "events[2]:\n  - type: click\n    x: 1\n    y: 5000\n  - type: idle\nscore: 7\n<body>\nAll fine.\n</body>"),
        ("Report", "events[1]:\n  - type: key_press\n    key: q\nscore: \"8\"\n<body>\nok\n</body>"),
    ];
    for (name, reply) in cases {
        let rt = d.get(name).unwrap();
        let options = ReplyOptions::default();
        match name {
            "Form" => same::<Form>(rt, reply, &options, reply),
            "Clash" => same::<Clash>(rt, reply, &options, reply),
            _ => same::<Report>(rt, reply, &options, reply),
        }
        for chunk in [1, 3, 64] {
            match name {
                "Form" => events_alike::<Form>(rt, reply, chunk),
                "Clash" => events_alike::<Clash>(rt, reply, chunk),
                _ => events_alike::<Report>(rt, reply, chunk),
            }
        }
    }
}

/// What would never end is refused at load, not a stack overflow: newtypes
/// that hold each other, a derived default that holds itself; and a doc
/// file outside the declarations' folder is not read.
#[test]
fn what_would_never_end_or_reach_outside_is_refused() {
    let e = Declarations::parse("struct A(Vec<B>);\nstruct B(Vec<A>);").unwrap_err();
    assert!(e.to_string().contains("again, so no value"), "{e}");
    let e = Declarations::parse(
        "#[derive(Default)]\nstruct A {\n    #[serde(default)]\n    b: Box<A>,\n}",
    )
    .unwrap_err();
    assert!(e.to_string().contains("again, so no value"), "{e}");
    assert_eq!(e.diagnostics[0].line, 4, "{e}");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    for path in ["../Cargo.toml", "/etc/hostname"] {
        let text = format!("#[doc = include_str!(\"{path}\")]\nstruct A {{\n    x: u8,\n}}");
        let e = Declarations::parse_in(&text, &dir).unwrap_err();
        assert!(e.to_string().contains("cannot be read"), "{e}");
    }
    // The last item, open at the end of the text, is said.
    let e = Declarations::parse("struct A {\n    x: u8,\n}\nstruct Id(String)").unwrap_err();
    assert_eq!(e.diagnostics[0].line, 4, "{e}");
}
