//! The `toon` command: each command's output, and each exit status.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;

use serde_json::{json, Value};
use toon_core::schema::SchemaDialect;
use toon_core::GrammarSyntax;

use support::{ask, toon, TRIAGE};

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn triage() -> toon_core::runtime::RuntimeType {
    let source = std::fs::read_to_string(TRIAGE).unwrap();
    let decls = toon_decl::Declarations::parse(&source).unwrap();
    decls.get("Triage").unwrap().clone()
}

#[test]
fn each_artefact_is_the_libraries() {
    let ty = triage();
    let base = ["--decl", TRIAGE, "--type", "Triage"];
    let run = |command: &str, extra: &[&str]| {
        let mut args = vec![command];
        args.extend(base);
        args.extend(extra);
        let out = toon(&args, "");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(out.stderr.is_empty());
        text(&out.stdout)
    };
    let json = |s: String| -> Value { serde_json::from_str(&s).unwrap() };
    assert_eq!(run("prompt", &[]), ty.toon_prompt() + "\n");
    assert_eq!(json(run("schema", &[])), ty.json_schema());
    assert_eq!(
        json(run("schema", &["--dialect", "openai"])),
        ty.response_format(SchemaDialect::OpenAi)
    );
    assert_eq!(
        json(run("schema", &["--dialect", "llama-cpp-python"])),
        ty.response_format(SchemaDialect::LlamaCppPython)
    );
    assert_eq!(
        run("grammar", &["--syntax", "gbnf"]),
        ty.toon_grammar(GrammarSyntax::Gbnf).trim_end().to_owned() + "\n"
    );
    assert_eq!(
        run("grammar", &["--syntax", "lark"]),
        ty.toon_grammar(GrammarSyntax::Lark).trim_end().to_owned() + "\n"
    );
    assert_eq!(json(run("tool", &[])), ty.tool().openai());
    assert_eq!(
        json(run("tool", &["--provider", "anthropic"])),
        ty.tool().anthropic()
    );
}

#[test]
fn decode_writes_the_value_and_nothing_else() {
    let reply = "Here it is:\ntitle: Brush off by one pixel\nseverity: minor\npriority: 4\ncomponent: brush\nreported_version: \"3.20\"\n";
    let out = toon(&["decode", "--decl", TRIAGE, "--type", "Triage"], reply);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let value: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        value,
        json!({"title": "Brush off by one pixel", "severity": "MINOR", "priority": 4,
               "component": "brush", "reported_version": "3.20"})
    );
    // The repairs, one a line: the prose stripped, the enum's case.
    let stderr = text(&out.stderr);
    let kinds: Vec<&str> = stderr
        .lines()
        .map(|l| l.split(": ").nth(1).unwrap().split(' ').next().unwrap())
        .collect();
    assert_eq!(kinds, ["stripped_prose", "enum_case"], "{stderr}");
    // The same reply asked for as JSON.
    let json_reply = r#"{"title": "Crash", "severity": "CRITICAL", "priority": 1, "component": "io", "reported_version": "4.0.1"}"#;
    let out = toon(
        &[
            "decode", "--decl", TRIAGE, "--type", "Triage", "--format", "json",
        ],
        json_reply,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        serde_json::from_str::<Value>(&text(&out.stdout)).unwrap()["priority"],
        1
    );
}

#[test]
fn a_refusal_is_status_two_on_standard_error() {
    // Out of its range, and a reply cut at `length`.
    let out = toon(
        &["decode", "--decl", TRIAGE, "--type", "Triage"],
        "title: t\nseverity: MAJOR\npriority: 9\ncomponent: c\nreported_version: v",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("priority") && stderr.contains("1 to 5"),
        "{stderr}"
    );
    let out = toon(
        &[
            "decode",
            "--decl",
            TRIAGE,
            "--type",
            "Triage",
            "--finish-reason",
            "length",
        ],
        "title: t\nseverity: MAJOR\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("token limit"),
        "{}",
        text(&out.stderr)
    );
    // Nothing said is not an answer that found nothing.
    let out = toon(&["decode", "--decl", TRIAGE, "--type", "Triage"], "  \n");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_bad_declaration_or_argument_is_status_one_with_its_line() {
    let dir = std::env::temp_dir().join(format!("toon-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.rs");
    std::fs::write(
        &file,
        "struct A {\n    ok: String,\n    #[toon(flatten)]\n    b: String,\n}\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let out = toon(&["prompt", "--decl", path, "--type", "A"], "");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "{path}:3:12: unknown attribute `#[toon(flatten)]`"
        )),
        "{stderr}"
    );
    let no_question = ask("http://127.0.0.1:9", &[]);
    let cases: [&[&str]; 7] = [
        &["prompt", "--decl", TRIAGE, "--type", "Nope"],
        &["prompt", "--decl", "/no/such/file.rs", "--type", "A"],
        &["prompt", "--type", "Triage"],
        &[
            "grammar", "--decl", TRIAGE, "--type", "Triage", "--syntax", "ebnf",
        ],
        &[
            "schema", "--decl", TRIAGE, "--type", "Triage", "--strict", "yes",
        ],
        &["frobnicate"],
        &no_question,
    ];
    let says = [
        "declares no type `Nope`; it declares Severity, Triage",
        "cannot be read",
        "needs `--decl`",
        "`--syntax ebnf` is not one of gbnf, lark",
        "`--strict` is not an option of `toon schema`",
        "`frobnicate` is not a command of toon",
        "needs a question",
    ];
    for (args, says) in cases.iter().zip(says) {
        let out = toon(args, "");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            text(&out.stderr).contains(says),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty());
    }
}

/// A server on a local port that answers each request with the next of
/// `responses` (status and body), and gives back the bodies it was sent.
fn serve(responses: Vec<(u16, Value)>) -> (String, std::thread::JoinHandle<Vec<Value>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let mut bodies = Vec::new();
        for (status, body) in responses {
            let (mut stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line.trim().is_empty() {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
            }
            let mut request = vec![0; length];
            reader.read_exact(&mut request).unwrap();
            bodies.push(serde_json::from_slice(&request).unwrap());
            let body = body.to_string();
            write!(
                stream,
                "HTTP/1.1 {status} OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
        }
        bodies
    });
    (url, handle)
}

fn completion(content: &str) -> Value {
    json!({"choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
           "usage": {"completion_tokens": 20}})
}

#[test]
fn ask_asks_again_after_a_refusal_and_prints_the_value() {
    let good = "title: Crash on save\nseverity: CRITICAL\npriority: 1\ncomponent: io\nreported_version: \"4.0.1\"";
    let (url, server) = serve(vec![
        (200, completion("I cannot tell.")),
        (200, completion(good)),
    ]);
    let out = toon(
        &ask(
            &url,
            &[
                "--field",
                "temperature=0",
                "--instructions",
                "You triage bug reports.",
                "Saving",
                "corrupts",
                "files",
            ],
        ),
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let value: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(value["severity"], "CRITICAL");
    let bodies = server.join().unwrap();
    // The grammar and its never-cut limit in llama-server's fields, the
    // field given, the question; the second body carries the refusal.
    assert!(bodies[0]["grammar"]
        .as_str()
        .unwrap()
        .starts_with("root ::= "));
    assert_eq!(
        bodies[0]["max_tokens"].as_u64(),
        Some(triage().toon_max_reply_bytes() as u64)
    );
    assert_eq!(bodies[0]["temperature"], 0);
    let messages = bodies[1]["messages"].as_array().unwrap();
    assert_eq!(messages[1]["content"], "Saving corrupts files");
    assert!(messages.len() > bodies[0]["messages"].as_array().unwrap().len());
}

#[test]
fn ask_through_the_schema_reads_json_and_refuses_with_status_two() {
    let bad = completion(
        r#"{"title": "x", "severity": "MAJOR", "priority": 7, "component": "c", "reported_version": "1"}"#,
    );
    let (url, server) = serve(vec![(200, bad.clone()), (200, bad.clone()), (200, bad)]);
    let out = toon(
        &ask(
            &url,
            &[
                "--mechanism",
                "schema",
                "--server-kind",
                "llama-cpp-python",
                "q",
            ],
        ),
        "",
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("priority"),
        "{}",
        text(&out.stderr)
    );
    let bodies = server.join().unwrap();
    assert_eq!(bodies.len(), 3);
    assert_eq!(bodies[0]["response_format"]["type"], "json_object");
}

#[test]
fn a_server_that_fails_is_status_three() {
    let (url, server) = serve(vec![(
        400,
        json!({"error": {"message": "model not loaded"}}),
    )]);
    let out = toon(&ask(&url, &["q"]), "");
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("model not loaded"),
        "{}",
        text(&out.stderr)
    );
    server.join().unwrap();
    // Nothing listening.
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let out = toon(&ask(&format!("http://{closed}"), &["q"]), "");
    assert_eq!(out.status.code(), Some(3));
}
