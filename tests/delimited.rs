//! Delimited prose fields (`#[toon(delimited)]`): written after the TOON lines
//! between `<name>` and `</name>`, read verbatim, streamed as text, carried by
//! the prompt, the grammar and the schema.

mod common;

use common::grammar::Checker;
use serde_json::json;
use toon_core::{
    stream::Event as StreamEvent, FinishReason, GrammarSyntax, OutputSchema, ParseErrorKind,
    ReplyOptions, Toon, ToonStream,
};

/// An answer from the sources, in the shape of seed 003's: flat, with one long
/// prose field.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema, serde::Deserialize)]
struct Sourced {
    /// Whether the sources answer the question.
    found: bool,
    /// Ids of the sources the answer uses.
    citations: Vec<u32>,
    /// What the reader should be careful about, if anything.
    caveats: Option<String>,
    /// The answer, in plain prose.
    #[toon(delimited, max_len = 400)]
    answer: String,
}

fn sourced(answer: &str) -> Sourced {
    Sourced {
        found: true,
        citations: vec![2, 5],
        caveats: None,
        answer: answer.into(),
    }
}

/// Prose that would break a TOON or JSON value.
const HARD: &[&str] = &[
    "She said \"no\", twice: once in 2019, once in 2021.",
    "Line one.\n\nLine three, after a blank line.",
    "# not a comment\ncitations[2]: 9,9\nfound: false",
    "It ends with </other> and <b>bold</b> text.",
    "A \\ backslash, a tab\tand unicode: café, 東京.",
    "- a list\n- that looks like TOON\n  indented: yes",
];

#[test]
fn the_prompt_shows_the_block_after_the_lines() {
    insta::assert_snapshot!("sourced_prompt", Sourced::toon_prompt());
    assert_eq!(
        Sourced::toon_header(),
        "found: <true|false>\ncitations[N]: <integer>,<integer>\ncaveats: <text> or null\n<answer>\n<text, at most 400 characters>\n</answer>"
    );
}

#[test]
fn to_toon_writes_the_block_and_from_toon_reads_it_back() {
    let x = sourced("Paris, \"the city of light\".");
    assert_eq!(
        x.to_toon(),
        "found: true\ncitations[2]: 2,5\ncaveats: null\n<answer>\nParis, \"the city of light\".\n</answer>"
    );
    for text in HARD {
        let x = sourced(text);
        assert_eq!(Sourced::from_toon(&x.to_toon()).unwrap(), x, "{text}");
    }
}

#[test]
fn prose_is_read_verbatim_from_replies() {
    for text in HARD {
        for reply in [
            format!("found: true\ncitations[2]: 2,5\n<answer>\n{text}\n</answer>"),
            format!("found: true\ncitations[2]: 2,5\n\n<answer>{text}</answer>\n"),
            format!("```toon\nfound: true\ncitations[2]: 2,5\n<answer>\n{text}\n</answer>\n```"),
            format!("Here is my answer.\nfound: true\ncitations[2]: 2,5\n  <answer>\n\n{text}\n\n</answer>"),
        ] {
            let got = Sourced::from_toon(&reply).unwrap_or_else(|e| panic!("{e}\n{reply}"));
            assert_eq!(got.answer, *text, "{reply}");
            assert_eq!((got.found, got.citations.as_slice()), (true, &[2, 5][..]));
        }
    }
}

#[test]
fn an_unclosed_or_missing_block_is_refused_by_name() {
    let cut = "found: true\ncitations[1]: 2\n<answer>\nParis is the";
    let e = Sourced::from_toon(cut).unwrap_err();
    assert_eq!((e.kind(), e.line()), (ParseErrorKind::Truncated, Some(4)));
    let stopped = toon_core::ToonOutputParser::<Sourced>::new()
        .options(ReplyOptions {
            finish_reason: FinishReason::Stop,
            ..Default::default()
        })
        .parse_with_report(cut)
        .unwrap_err();
    assert_eq!(
        (stopped.kind(), stopped.line()),
        (ParseErrorKind::Syntax, Some(3))
    );
    assert!(stopped.to_string().contains("</answer>"), "{stopped}");
    let missing = Sourced::from_toon("found: true\ncitations[1]: 2").unwrap_err();
    assert_eq!(missing.kind(), ParseErrorKind::MissingField);
    let twice =
        Sourced::from_toon("found: true\ncitations[0]:\nanswer: Paris\n<answer>\nParis\n</answer>")
            .unwrap_err();
    assert_eq!(twice.kind(), ParseErrorKind::InvalidValue);
    // Written as an ordinary TOON line instead, it reads as the field.
    assert_eq!(
        Sourced::from_toon("found: true\ncitations[0]:\nanswer: Paris")
            .unwrap()
            .answer,
        "Paris"
    );
}

/// `max_bytes` is the whole reply's limit, its prose included: a reply whose
/// TOON lines are short but whose block runs long is refused by its length,
/// before the block is cut out, by `from_toon` and by the stream alike.
#[test]
fn a_reply_over_max_bytes_is_refused_whatever_its_prose() {
    let reply = format!("{}\n", sourced(&"All is well. ".repeat(40)).to_toon());
    let toon_lines = reply.find("<answer>").unwrap();
    let options = ReplyOptions {
        max_bytes: toon_lines + 100,
        ..Default::default()
    };
    assert!(reply.len() > options.max_bytes);
    let e = toon_core::ToonOutputParser::<Sourced>::new()
        .options(options)
        .parse_with_report(&reply)
        .unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::LimitExceeded, "{e}");
    assert!(
        e.to_string()
            .contains(&format!("the reply is {} bytes", reply.len())),
        "{e}"
    );
    let mut stream = ToonStream::<Sourced>::with_options(options);
    for chunk in reply.as_bytes().chunks(5) {
        stream.push(std::str::from_utf8(chunk).unwrap());
    }
    stream.end();
    assert_eq!(stream.finish().unwrap_err().to_string(), e.to_string());
    // At the limit, the same reply reads.
    let roomy = ReplyOptions {
        max_bytes: reply.len(),
        ..Default::default()
    };
    assert_eq!(
        toon_core::ToonOutputParser::<Sourced>::new()
            .options(roomy)
            .parse_with_report(&reply)
            .unwrap()
            .value,
        Sourced::from_toon(&reply).unwrap()
    );
}

#[test]
fn the_stream_emits_the_prose_as_it_arrives() {
    let x = sourced(HARD[1]);
    let reply = format!("{}\n", x.to_toon());
    for size in [1, 2, 3, 7, 64] {
        let mut stream = ToonStream::<Sourced>::new();
        let mut text = String::new();
        let mut fields = Vec::new();
        let mut deltas = 0;
        let chars: Vec<char> = reply.chars().collect();
        for chunk in chars.chunks(size) {
            let chunk: String = chunk.iter().collect();
            for e in stream.push(&chunk) {
                match e {
                    StreamEvent::Text { key, delta } => {
                        assert_eq!(key, "answer");
                        text.push_str(&delta);
                        deltas += 1;
                    }
                    StreamEvent::Field { key, .. } | StreamEvent::Item { key, .. } => {
                        fields.push(key)
                    }
                    _ => {}
                }
            }
        }
        stream.end();
        assert_eq!(text, x.answer, "chunk size {size}");
        if size == 1 {
            // Before the block closed, its first line had already arrived.
            assert!(deltas > 1, "{deltas} deltas");
        }
        assert!(fields.iter().any(|f| f == "found"), "{fields:?}");
        assert_eq!(stream.finish().unwrap().value, x);
    }
}

#[test]
fn the_grammar_admits_the_block_and_only_the_block() {
    let [lark, gbnf] = Checker::both::<Sourced>();
    for text in HARD
        .iter()
        .filter(|t| !t.contains('<') && !t.contains('\t'))
    {
        let doc = sourced(text).to_toon();
        assert!(lark.accepts(&doc), "Lark refuses:\n{doc}");
        assert!(gbnf.accepts(&doc), "GBNF refuses:\n{doc}");
        assert_eq!(Sourced::from_toon(&doc).unwrap().answer, *text);
    }
    let good = sourced("Paris.").to_toon();
    for bad in [
        good.replace("</answer>", ""),
        good.replace("Paris.", "Paris </answer> more"),
        good.replace("<answer>\n", "<answer>"),
        good.replace("\n<answer>\nParis.\n</answer>", ""),
    ] {
        assert!(
            !lark.accepts(&bad) && !gbnf.accepts(&bad),
            "admitted:\n{bad}"
        );
    }
    // max_len = 400: GBNF holds it exactly, Lark (counting the line break) to one more.
    let long = |n: usize| good.replace("Paris.", &"x".repeat(n));
    assert!(lark.accepts(&long(400)) && gbnf.accepts(&long(400)));
    assert!(!gbnf.accepts(&long(401)) && !lark.accepts(&long(402)));
    insta::assert_snapshot!("sourced_gbnf", Sourced::toon_grammar(GrammarSyntax::Gbnf));
}

#[test]
fn the_schema_holds_an_ordinary_string() {
    let schema = Sourced::json_schema();
    assert_eq!(schema["properties"]["answer"]["type"], "string");
    let json = json!({"found": true, "citations": [1], "caveats": null, "answer": "Two\nlines, \"quoted\"."});
    assert!(jsonschema::validator_for(&schema).unwrap().is_valid(&json));
    let x: Sourced = toon_core::from_json_reply(&json.to_string()).unwrap();
    assert_eq!(x.answer, "Two\nlines, \"quoted\".");
}

/// A reply that is nothing but its prose.
#[derive(Debug, Clone, PartialEq, Toon)]
struct Essay {
    #[toon(delimited)]
    body: String,
}

#[test]
fn a_struct_of_delimited_fields_alone_reads_its_blocks() {
    for text in HARD {
        let x = Essay {
            body: (*text).into(),
        };
        let reply = x.to_toon();
        assert!(reply.starts_with("<body>\n"), "{reply}");
        let back = toon_core::ToonOutputParser::<Essay>::new()
            .parse_with_report(&reply)
            .unwrap();
        assert_eq!(back.value, x);
        assert!(back.repairs.is_empty(), "{:?}", back.repairs);
    }
    // No block at all is still a model that said nothing.
    let e = Essay::from_toon("").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::EmptyCompletion);
}

#[test]
fn a_block_streams_wherever_the_whole_reply_finds_it_and_once() {
    // Within reasoning, a block is a draft the reasoning is stripped with:
    // no answer (tests/principles.rs streams it).
    let drafted = "<think>\n<answer>\nParis.\n</answer>\n</think>\nfound: true\ncitations[2]: 2,5\ncaveats: null\n";
    assert_eq!(
        Sourced::from_toon(drafted).unwrap_err().kind(),
        ParseErrorKind::MissingField
    );
    // After a closing fence: the whole reply cuts a block out before
    // anything else, so the stream streams it there too.
    for reply in [
        "```toon\nfound: true\ncitations[2]: 2,5\ncaveats: null\n```\n<answer>\nParis.\n</answer>\n",
        "<think>\nfirst the facts\n</think>\nfound: true\ncitations[2]: 2,5\ncaveats: null\n<answer>\nParis.\n</answer>\n",
    ] {
        let whole = Sourced::from_toon(reply).unwrap();
        assert_eq!(whole.answer, "Paris.");
        for size in [1, 3, 64] {
            let mut stream = ToonStream::<Sourced>::new();
            let mut text = String::new();
            let chars: Vec<char> = reply.chars().collect();
            for chunk in chars.chunks(size) {
                for e in stream.push(&chunk.iter().collect::<String>()) {
                    if let StreamEvent::Text { delta, .. } = e {
                        text.push_str(&delta);
                    }
                }
            }
            stream.end();
            assert_eq!(text, whole.answer, "{reply:?} by {size}");
            assert_eq!(stream.finish().unwrap().value, whole);
        }
    }
}

#[test]
fn a_long_line_is_looked_at_once_for_an_opening_tag() {
    // Each push used to search the whole unread line for a tag: a 2 MB line
    // fed 4 bytes at a time took minutes. Read as the whole reply reads it.
    let reply = format!(
        "caveats: {}\nfound: true\ncitations[0]:\n<answer>\nx\n</answer>\n",
        "a".repeat(2 << 20)
    );
    let mut stream = ToonStream::<Sourced>::new();
    let started = std::time::Instant::now();
    for at in (0..reply.len()).step_by(4) {
        stream.push(&reply[at..(at + 4).min(reply.len())]);
    }
    stream.end();
    assert_eq!(stream.finish().unwrap().value.answer, "x");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

/// Two blocks, the first declared written second.
#[derive(Debug, Clone, PartialEq, Toon)]
struct Notes {
    #[toon(delimited)]
    short: String,
    #[toon(delimited)]
    long: String,
}

/// A block is cut where it opens, in the order the reply writes the blocks,
/// as the stream meets them: a tag inside an open block is its text, even
/// the tag of another field, and the stream's text is the final value's.
#[test]
fn a_tag_inside_an_open_block_is_its_text() {
    let reply = "<long>\nSee the note:\n<short>\nquoted\n</short>\nthe end.\n</long>\n<short>\nReal.\n</short>\n";
    let expected = Notes {
        short: "Real.".into(),
        long: "See the note:\n<short>\nquoted\n</short>\nthe end.".into(),
    };
    assert_eq!(Notes::from_toon(reply).unwrap(), expected);
    for size in [1, 3, 8, 200] {
        let mut stream = ToonStream::<Notes>::new();
        let (mut short, mut long) = (String::new(), String::new());
        let chars: Vec<char> = reply.chars().collect();
        let mut events = Vec::new();
        for chunk in chars.chunks(size) {
            events.extend(stream.push(&chunk.iter().collect::<String>()));
        }
        events.extend(stream.end());
        for e in events {
            if let StreamEvent::Text { key, delta } = e {
                match &*key {
                    "short" => short.push_str(&delta),
                    _ => long.push_str(&delta),
                }
            }
        }
        assert_eq!(
            (short.as_str(), long.as_str()),
            (&*expected.short, &*expected.long),
            "chunks of {size}"
        );
        assert_eq!(stream.finish().unwrap().value, expected);
    }
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Line {
    name: String,
    n: u8,
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Report {
    rows: Vec<Line>,
    #[toon(delimited)]
    body: String,
}

/// A table cell that begins with a block's tag is a cell: `to_toon` quotes
/// text beginning with `<` in a reply with delimited fields, and the grammar
/// admits it only quoted; written bare, an indented tag opens a block only
/// alone on its line or closed on it. The whole reply and the stream agree.
#[test]
fn a_cell_that_begins_with_a_tag_is_a_cell() {
    let report = |names: &[&str]| Report {
        rows: names
            .iter()
            .map(|name| Line {
                name: (*name).into(),
                n: 1,
            })
            .collect(),
        body: "hello".into(),
    };
    let checkers = Checker::both::<Report>();
    for names in [
        &["<body>x"][..],
        &["<body>x</body>"],
        &["<body>"],
        &["<body>", "</body>"],
        &["<b>bold</b>"],
    ] {
        let x = report(names);
        let written = x.to_toon();
        assert!(
            written.contains(&format!("  \"{}\",1", names[0])),
            "{written}"
        );
        let read = toon_core::ToonOutputParser::<Report>::new()
            .parse_with_report(&written)
            .unwrap();
        assert_eq!((&read.value, read.repairs.len()), (&x, 0), "{written}");
        for checker in &checkers {
            assert!(checker.accepts(&written), "{written}");
            assert!(!checker.accepts(&written.replace('"', "")), "{written}");
        }
    }
    // Written bare, the cell is still read as a cell.
    let x = report(&["<body>x"]);
    let written = "rows[1]{name,n}:\n  <body>x,1\n<body>\nhello\n</body>";
    let read = toon_core::ToonOutputParser::<Report>::new()
        .parse_with_report(written)
        .unwrap();
    assert_eq!((&read.value, read.repairs.len()), (&x, 0));
    for size in [1, 3, 8, 200] {
        let chars: Vec<char> = written.chars().collect();
        let mut stream = ToonStream::<Report>::new();
        let mut text = String::new();
        for chunk in chars.chunks(size) {
            for e in stream.push(&chunk.iter().collect::<String>()) {
                if let StreamEvent::Text { delta, .. } = e {
                    text.push_str(&delta);
                }
            }
        }
        stream.end();
        assert_eq!(text, "hello", "chunks of {size}");
        assert_eq!(stream.finish().unwrap().value, x, "chunks of {size}");
    }
    // Alone on its line, or closed on it, an indented tag still opens the
    // block, in the whole reply as in the stream.
    for indented in [
        "rows[1]{name,n}:\n  a,1\n  <body>\nhello\n</body>",
        "rows[1]{name,n}:\n  a,1\n  <body>hello</body>",
    ] {
        assert_eq!(Report::from_toon(indented).unwrap().body, "hello");
        let mut stream = ToonStream::<Report>::new();
        let mut text = String::new();
        let mut events = Vec::new();
        for c in indented.chars() {
            events.extend(stream.push(&c.to_string()));
        }
        events.extend(stream.end());
        for e in events {
            if let StreamEvent::Text { delta, .. } = e {
                text.push_str(&delta);
            }
        }
        assert_eq!(text, "hello", "{indented:?}");
        assert_eq!(stream.finish().unwrap().value.body, "hello");
    }
}

/// Each type of this file, declared at run time from this file's source,
/// gives the derived type's artefacts (tests/declared.rs has the readings).
#[test]
fn declared_at_run_time_alike() {
    common::declared::agree(
        include_str!("delimited.rs"),
        &crate::derived![Sourced, Essay, Notes, Line, Report],
    );
}
