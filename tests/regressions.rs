//! Inputs the property tests found; each was a bug, each is fixed and pinned here.

mod common;

use serde_json::json;
use toon_core::{decode, decode_reply, encode, FinishReason, ParseErrorKind, ReplyOptions, Toon};

fn kind(reply: &str) -> ParseErrorKind {
    decode_reply(reply).unwrap_err().kind()
}

/// The kind of refusal when the server said the token limit ended the reply.
fn kind_when_cut(reply: &str) -> ParseErrorKind {
    let length = ReplyOptions {
        finish_reason: FinishReason::Length,
        ..Default::default()
    };
    toon_core::reply::read(reply, &length).unwrap_err().kind()
}

#[test]
fn a_root_string_starting_with_a_byte_order_mark_keeps_it() {
    // The encoder wrote U+FEFF bare at the start; the 4.1 decoder removed it as a BOM.
    let v = json!("\u{feff}bom");
    let text = encode(&v, &Default::default());
    assert_eq!(text, "\"\u{feff}bom\"");
    assert_eq!(decode(&text, &Default::default()).unwrap(), v);
}

/// A reply that is one text written as the reply decoder would strip it (a
/// fence, a reasoning or tool tag, only Unicode spaces) read back as an empty
/// completion; `to_toon` quotes it, and the plain texts beside it stay bare.
#[test]
fn a_root_text_that_looks_like_a_wrapper_is_quoted() {
    for s in [
        "```",
        "```toon",
        "<think>",
        "</think>",
        "<tool_call>",
        "</tool_call>",
        "\u{a0}",
        "\u{2028}",
        "\u{3000}\u{3000}",
    ] {
        let text = s.to_owned().to_toon();
        assert_eq!(text, format!("\"{s}\""));
        assert_eq!(
            String::from_toon(&text).as_ref(),
            Ok(&s.to_owned()),
            "{text:?}"
        );
        assert_eq!(
            Option::<String>::from_toon(&Some(s.to_owned()).to_toon()),
            Ok(Some(s.to_owned()))
        );
    }
    for s in ["Paris", "a ``` b", "think"] {
        assert_eq!(s.to_owned().to_toon(), s);
    }
}

/// A key written twice on the last line is whole: the error does not guess
/// that the server cut the reply there, as it does for a line that may be a cut.
#[test]
fn a_duplicate_key_on_the_last_line_is_not_taken_for_a_cut() {
    let e = decode_reply("x: 1\ny: a\nx: 2").unwrap_err();
    assert_eq!((e.kind(), e.line()), (ParseErrorKind::Syntax, Some(3)));
    assert!(!e.message().contains("cut off"), "{e}");
    let e = decode_reply("x: 1\ny: \"a").unwrap_err();
    assert!(e.message().contains("cut off"), "{e}");
}

#[test]
fn a_keyed_table_cut_inside_an_entry_key_is_truncated() {
    let cut = "users[3:]{age,city}:\n  alice: 30,Berlin\n  bo";
    assert_eq!(kind_when_cut(cut), ParseErrorKind::Truncated);
    // Without the server's word, a key without its colon may be the model's own
    // slip: refused as what it is, on its line, saying how to tell.
    let e = decode_reply(cut).unwrap_err();
    assert_eq!((e.kind(), e.line()), (ParseErrorKind::Syntax, Some(3)));
    assert!(e.message().contains("finish_reason"), "{e}");
}

#[test]
fn a_root_keyed_header_cut_after_its_length_is_truncated_not_json() {
    assert_eq!(kind("[2:"), ParseErrorKind::Truncated);
    // A JSON array is still JSON.
    assert_eq!(decode_reply("[2, 3]").unwrap(), json!([2, 3]));
}

#[test]
fn a_quoted_key_cut_after_its_bracket_is_truncated() {
    // An unclosed header: the text shows the cut.
    assert_eq!(kind("\"A 0Aa|a|_,\"["), ParseErrorKind::Truncated);
    assert_eq!(kind_when_cut("\"A 0Aa|a|_,\"["), ParseErrorKind::Truncated);
}

#[derive(Debug, PartialEq, Toon)]
struct Row {
    category: String,
}

#[test]
fn a_cell_of_backticks_is_data_not_a_fence() {
    // `T::from_toon(&x.to_toon())` failed when a cell began with three backticks.
    let x = vec![
        Row {
            category: "```".into(),
        },
        Row {
            category: "```,x".into(),
        },
    ];
    assert_eq!(Vec::<Row>::from_toon(&x.to_toon()).unwrap(), x);
    // One such row, the last line: not a closing fence. Two: not a fenced block.
    for n in [1, 2] {
        let x: Vec<Row> = (0..n)
            .map(|_| Row {
                category: "```".into(),
            })
            .collect();
        let back = toon_core::ToonOutputParser::<Vec<Row>>::new()
            .parse_with_report(&x.to_toon())
            .unwrap();
        assert_eq!(back.value, x, "{}", x.to_toon());
        assert!(back.repairs.is_empty(), "{:?}", back.repairs);
    }
}

#[test]
fn json_floats_keep_every_digit() {
    // serde_json's default float parser read 6.936639184104181e257 as ...182e257.
    let f: f64 = 6.936639184104181e257;
    assert_eq!(f64::from_toon(&format!("{f:e}")).unwrap(), f);
    assert_eq!(
        toon_core::from_json_reply::<f64>("6.936639184104181e+257")
            .unwrap_err()
            .kind(),
        ParseErrorKind::Syntax
    );
    assert_eq!(
        toon_core::from_json_reply::<Vec<f64>>("[6.936639184104181e+257]").unwrap(),
        [f]
    );
}

#[derive(Debug, Clone, PartialEq, Toon)]
struct Message {
    text: String,
    n: u32,
}

#[test]
fn a_cell_that_looks_like_a_tag_is_data_in_a_table() {
    // `to_toon` leaves `<` unquoted; the reply stripper took these cells for
    // tool-call or reasoning tags and cut them.
    for text in ["<tool_call>x", "x</tool_call>", "</think>x", "<think>x"] {
        let x = vec![
            Message {
                text: "first".into(),
                n: 1,
            },
            Message {
                text: text.into(),
                n: 2,
            },
        ];
        let reply = x.to_toon();
        let back = toon_core::ToonOutputParser::<Vec<Message>>::new()
            .parse_with_report(&reply)
            .unwrap();
        assert_eq!(back.value, x, "{reply}");
        assert!(back.repairs.is_empty(), "{:?}", back.repairs);
        // The stream's events and its final value agree with it.
        let mut s = toon_core::ToonStream::<Vec<Message>>::new();
        let mut events = s.push(&reply);
        events.extend(s.end());
        let rows: Vec<Message> = events.iter().map(|e| e.decode().unwrap()).collect();
        assert_eq!(rows, x, "{reply}");
        assert_eq!(s.finish().unwrap().value, x);
    }
}

#[derive(Debug, PartialEq, Toon)]
struct Group {
    rows: Vec<Row>,
}

#[test]
fn a_cell_of_backticks_is_data_in_a_table_on_a_list_items_line() {
    let x = vec![
        Group {
            rows: vec![
                Row {
                    category: "a".into(),
                },
                Row {
                    category: "b".into(),
                },
            ],
        },
        Group {
            rows: vec![
                Row {
                    category: "c".into(),
                },
                Row {
                    category: "```".into(),
                },
            ],
        },
    ];
    let reply = x.to_toon();
    assert!(reply.contains("- rows[2]{category}:"), "{reply}");
    let back = toon_core::ToonOutputParser::<Vec<Group>>::new()
        .parse_with_report(&reply)
        .unwrap();
    assert_eq!(back.value, x, "{reply}");
    assert!(back.repairs.is_empty(), "{:?}", back.repairs);
}

#[test]
fn an_f32_refuses_a_number_past_its_range_instead_of_reading_infinity() {
    #[derive(Debug, PartialEq, Toon)]
    struct Share {
        v: f32,
    }
    #[derive(Debug, PartialEq, Toon)]
    struct Shares {
        rows: Vec<Share>,
    }
    // `1e39 as f32` is infinity: a value the model did not write.
    for reply in ["v: 1e39", "v: -1e39", "v: \"1e39\""] {
        let err = Share::from_toon(reply).unwrap_err();
        assert_eq!(err.kind(), ParseErrorKind::InvalidValue, "{reply}");
        assert!(
            err.to_string().contains("outside the range of f32"),
            "{err}"
        );
    }
    // The largest f32 and an f64 of the same text still read.
    assert_eq!(Share::from_toon("v: 3.4e38").unwrap().v, 3.4e38);
    #[derive(Debug, PartialEq, Toon)]
    struct Wide {
        v: f64,
    }
    assert_eq!(Wide::from_toon("v: 1e39").unwrap().v, 1e39);
    // In a table, the row is the type's to refuse, as with any cell it cannot read.
    let reply = toon_core::ToonOutputParser::<Shares>::new()
        .parse_with_report("rows[2]{v}:\n  1.5\n  1e39")
        .unwrap();
    assert_eq!(reply.value.rows, vec![Share { v: 1.5 }]);
    assert!(reply.repairs.iter().any(|r| r.line == 3));
}

#[test]
fn the_json_path_reads_short_arrays_as_json() {
    use toon_core::from_json_reply;
    // `[]` and `[5]` are TOON headers too, but this path reads only JSON.
    assert_eq!(
        from_json_reply::<Vec<u32>>("[]").unwrap(),
        Vec::<u32>::new()
    );
    assert_eq!(from_json_reply::<Vec<u32>>("[5]").unwrap(), vec![5]);
    assert_eq!(
        from_json_reply::<Vec<u32>>("```json\n[]\n```").unwrap(),
        Vec::<u32>::new()
    );
    // Asked again, the model is asked for a JSON value, which a list is.
    let e = from_json_reply::<Vec<u32>>("[1, x]").unwrap_err();
    assert!(
        e.retry_prompt().contains("in one JSON value"),
        "{}",
        e.retry_prompt()
    );
}

#[test]
fn json_closed_with_a_wrong_bracket_is_a_syntax_error_not_a_cut() {
    use toon_core::from_json_reply;
    for reply in [
        "{\"items\": [{\"a\": 1}, {\"a\": 2}}",
        "{\"a\": [1, 2}",
        // The `//` reads as a comment that would take the closing brace with it.
        "{\"url\": http://example.com}",
    ] {
        let e = from_json_reply::<serde_json::Value>(reply).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::Syntax, "{reply}: {e}");
    }
    // Still a cut: a bracket left open.
    let e = from_json_reply::<serde_json::Value>("{\"a\": [1, 2").unwrap_err();
    assert_eq!(e.kind(), ParseErrorKind::Truncated);
}

#[test]
fn a_block_comment_over_lines_keeps_the_lines_after_it() {
    use toon_core::{from_json_reply, reply::from_json_serde, RepairKind, ReplyOptions};
    let e = from_json_reply::<serde_json::Value>("{\"a\": 1, /* note\nspanning */\n\"b\": x}")
        .unwrap_err();
    assert_eq!(e.line(), Some(3), "{e}");
    let repairs = from_json_serde::<serde_json::Value>(
        "{\"a\": 1, /* a\nb\nc */\n\"b\": 2,}\nThat is all.",
        &ReplyOptions::default(),
    )
    .unwrap()
    .repairs;
    let prose = repairs
        .iter()
        .find(|r| r.kind == RepairKind::StrippedProse)
        .unwrap();
    assert_eq!(prose.line, 5, "{repairs:?}");
}

#[test]
fn rows_written_at_the_margin_under_a_table_are_never_dropped_as_prose() {
    #[derive(Debug, Toon)]
    #[allow(dead_code)]
    struct V {
        category: String,
        description: String,
    }
    #[derive(Debug, Toon)]
    struct Vs {
        violations: Vec<V>,
    }
    for reply in [
        // After a blank line under the header: read as "no violations" before.
        "violations[2]{category,description}:\n\nprivacy,Emails are logged.\nretention,Backups are kept forever.",
        // The last row, after an indented one: dropped as prose before.
        "violations[2]{category,description}:\n  privacy,Emails are logged.\nretention,Backups are kept forever.",
    ] {
        let untyped = decode_reply(reply).unwrap_err();
        assert_eq!(untyped.kind(), ParseErrorKind::Syntax, "{reply}");
        let typed = Vs::from_toon(reply).unwrap_err();
        assert_eq!(typed.line(), Some(3), "{typed}");
        assert!(typed.to_string().contains("indented under its header"), "{typed}");
    }
    // Prose after a table whose rows are all there is still prose.
    let done =
        "violations[1]{category,description}:\n  privacy,Emails are logged.\nThat is all, thanks.";
    assert_eq!(Vs::from_toon(done).unwrap().violations.len(), 1);
}

#[test]
fn only_what_the_text_shows_cut_is_called_truncated() {
    // A header that is whole but malformed is the model's mistake.
    for reply in [
        "tags[]: a,b",
        "tags[two]: a,b",
        "tags[2] : a,b",
        "status: OK\ntags[]:",
    ] {
        assert_eq!(kind(reply), ParseErrorKind::Syntax, "{reply}");
    }
    // A quote left open, after which the reply went on: not a cut.
    for reply in [
        "```toon\ntags[2]: a,\"b\n```",
        "```toon\nrows[2]{name,n}:\n  a,1\n  \"b,2\n```\nLet me know!",
        "tags[2]: a,\"b\n\nHope this helps.",
    ] {
        assert_eq!(kind(reply), ParseErrorKind::Syntax, "{reply}");
    }
    // Where the reply ends: a cut.
    assert_eq!(kind("tags[2]: a,\"b"), ParseErrorKind::Truncated);
    assert_eq!(
        kind("status: OK\nrows[2]{name,n"),
        ParseErrorKind::Truncated
    );
    assert_eq!(kind_when_cut("tags[]: a,b"), ParseErrorKind::Truncated);
}

#[test]
fn a_header_that_promised_values_and_has_none_is_refused() {
    for (reply, says) in [
        (
            "violations[2]{category,description}:",
            "declares 2 value(s)",
        ),
        (
            "```toon\nviolations[2]{category,description}:\n```",
            "declares 2 value(s)",
        ),
        ("tags[3]:\nstatus: OK", "declares 3 value(s)"),
        // The prompt's placeholder copied, and nothing under it.
        ("items[N]{name,qty}:\ndone: true\n", "placeholder"),
        ("done: true\nitems[N]{name,qty}:\n", "placeholder"),
        ("done: true\ntags[N]:\n", "placeholder"),
    ] {
        let e = decode_reply(reply).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::Syntax, "{reply}");
        assert!(
            e.to_string().contains(&format!("{says} and none follow")),
            "{e}"
        );
    }
    // Cut by the token limit after the header: named so.
    assert_eq!(
        kind_when_cut("violations[2]{category,description}:"),
        ParseErrorKind::Truncated
    );
    // Declared empty, or a count that is wrong but not zero: read as before.
    assert_eq!(decode_reply("tags[0]:").unwrap(), json!({"tags": []}));
    assert_eq!(
        decode_reply("tags[3]: a,b").unwrap(),
        json!({"tags": ["a", "b"]})
    );
}

#[test]
fn a_tool_call_tag_is_stripped_only_where_it_wraps() {
    // As data, the same whether or not another repair runs (`[3]` over two values).
    for (reply, b) in [
        ("tags[2]: a,b\nb: x</tool_call>", "x</tool_call>"),
        ("tags[3]: a,b\nb: x</tool_call>", "x</tool_call>"),
        ("tags[3]: a,b\nb: <tool_call>", "<tool_call>"),
    ] {
        assert_eq!(decode_reply(reply).unwrap()["b"], json!(b), "{reply}");
    }
    // Wrapping: an opening tag that starts a line, a closing one that closes it.
    assert_eq!(
        decode_reply("<tool_call>tags[2]: a,b\nb: x</tool_call>").unwrap(),
        json!({"tags": ["a", "b"], "b": "x"})
    );
    assert_eq!(
        decode_reply("tags[2]: a,b\n</tool_call>").unwrap(),
        json!({"tags": ["a", "b"]})
    );
}

#[test]
fn a_root_header_with_the_prompts_placeholder_is_toon_not_json() {
    #[derive(Debug, PartialEq, Toon)]
    struct Row {
        name: String,
        n: u32,
    }
    // What the prompt shows a list reply as, copied with its placeholder.
    assert_eq!(<Vec<Row>>::toon_header(), "[N]{name,n}:");
    let reply = toon_core::ToonOutputParser::<Vec<Row>>::new()
        .parse_with_report("[N]{name,n}:\n  a,1\n  b,2")
        .unwrap();
    assert_eq!(reply.value.len(), 2);
    assert_eq!(
        reply.repairs[0].kind,
        toon_core::RepairKind::CompletedHeader
    );
    assert_eq!(
        <Vec<String>>::from_toon("[N]: a,b").unwrap(),
        vec!["a".to_owned(), "b".to_owned()]
    );
}

#[test]
fn a_row_with_a_colon_in_its_first_cell_is_refused_with_what_to_quote() {
    for (reply, line, cell) in [
        (
            "events[2]{time,event}:\n  10:30,start\n  11:00,stop",
            2,
            "10:30",
        ),
        (
            "events[2]{time,event}:\n  \"10:30\",start\n  11:00,stop",
            3,
            "11:00",
        ),
    ] {
        // Read as a record of keys `10` and `11` before: keys the header never names.
        let e = decode_reply(reply).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::Syntax, "{e}");
        assert_eq!(e.line(), Some(line));
        assert!(e.to_string().contains(&format!("(`\"{cell}\"`)")), "{e}");
    }
    // Records whose keys are the header's fields are still read as its rows.
    assert_eq!(
        decode_reply("events[2]{time,event}:\n  time: a\n  event: start\n  time: b\n  event: stop")
            .unwrap(),
        json!({"events": [{"time": "a", "event": "start"}, {"time": "b", "event": "stop"}]})
    );
}

#[test]
fn comments_in_json_are_skipped_when_telling_a_cut() {
    use toon_core::from_json_reply;
    // A comment holding a quote or a brace, then the model's own slip.
    for reply in [
        "{\"a\": 1, // it's \"fine\n\"b\": nope}",
        "{\"a\": [1, 2], // note {x\n\"b\": nope}",
    ] {
        assert_eq!(kind(reply), ParseErrorKind::Syntax, "{reply}");
        let e = from_json_reply::<serde_json::Value>(reply).unwrap_err();
        assert_eq!(e.kind(), ParseErrorKind::Syntax, "{reply}");
    }
    // Cut after `3`, a comment mentioning a brace on the way.
    assert_eq!(
        kind("{\"a\": [1, // the last }\n2, 3"),
        ParseErrorKind::Truncated
    );
    // The slip right after a block comment is on the comment's last line.
    let reply = "{\"a\": 1,\n\"b\": /* to do\n */}";
    assert_eq!(decode_reply(reply).unwrap_err().line(), Some(3));
    assert_eq!(
        from_json_reply::<serde_json::Value>(reply)
            .unwrap_err()
            .line(),
        Some(3)
    );
}

#[test]
fn a_placeholder_header_over_values_starts_the_document() {
    // Read, not dropped as prose before the document.
    assert_eq!(
        decode_reply("items[N]{name,qty}:\n  a,1\ndone: true\n").unwrap(),
        json!({"items": [{"name": "a", "qty": 1}], "done": true})
    );
}

#[derive(Debug, PartialEq, Toon)]
struct Ticket {
    title: String,
    detail: String,
    owner: Option<String>,
}

#[derive(Debug, PartialEq, Toon)]
struct Tickets {
    tickets: Vec<Ticket>,
}

/// A header naming fewer columns than the type over rows with more cells is
/// completed from the type only where the rows have no other reading. Here
/// the extra cell could be the title's text or the detail's (`Fix login,Users
/// cannot log in` and `see ticket`, or `Fix login` and `Users cannot log in,
/// see ticket`): two readings, so neither is taken and the row is refused.
#[test]
fn a_header_is_not_completed_where_the_rows_read_as_written() {
    for reply in [
        "tickets[1]{title,detail}:\n  Fix login,Users cannot log in, see ticket",
        "tickets[1]{title,detail,owner}:\n  Fix login,Users cannot log in, see ticket,bob",
    ] {
        let err = toon_core::ToonOutputParser::<Tickets>::new()
            .parse_with_report(reply)
            .unwrap_err();
        assert_eq!(err.kind(), toon_core::ParseErrorKind::Syntax, "{err}");
        assert_eq!(err.line(), Some(2), "{err}");
        assert!(err.message().contains("quote any cell"), "{err}");
    }
    // Where a column left out is required (the detail), no other reading: completed.
    let reply = "tickets[1]{title}:\n  Fix login,Users cannot log in,bob";
    let read = toon_core::ToonOutputParser::<Tickets>::new()
        .parse_with_report(reply)
        .unwrap();
    assert_eq!(read.value.tickets[0].owner.as_deref(), Some("bob"));
}

#[derive(Debug, PartialEq, Toon)]
enum Kind {
    #[toon(alias = "defect")]
    Bug,
    Feature,
}

#[derive(Debug, PartialEq, Toon)]
enum Sev {
    High,
    Low,
}

#[derive(Debug, PartialEq, Toon)]
struct Issue {
    kind: Option<Kind>,
    note: Option<String>,
    sev: Option<Sev>,
}

#[derive(Debug, PartialEq, Toon)]
struct Issues {
    issues: Vec<Issue>,
}

/// A cell is filled in only where one column alone can be the missing one:
/// `defect` is an alias of `Bug`, so the kind may be `defect` and the note
/// missing as well as the other way round. Two readings: not filled.
#[test]
fn a_cell_is_not_filled_where_an_alias_gives_a_second_reading() {
    let reply = "issues[1]{kind,note,sev}:\n  defect,High";
    match toon_core::ToonOutputParser::<Issues>::new().parse_with_report(reply) {
        Ok(read) => assert!(
            read.repairs
                .iter()
                .all(|r| r.kind != toon_core::RepairKind::FilledCell),
            "{read:?}"
        ),
        Err(e) => assert_eq!(e.line(), Some(2), "{e}"),
    }
    // Where the first cell is no kind by any name, only the kind can be
    // missing: filled as before.
    let reply = "issues[1]{kind,note,sev}:\n  printer jam,High";
    let read = toon_core::ToonOutputParser::<Issues>::new()
        .parse_with_report(reply)
        .unwrap();
    assert_eq!(read.value.issues[0].note.as_deref(), Some("printer jam"));
    assert_eq!(read.value.issues[0].kind, None);
}

/// From 2^53 on an `f64` holds only some integers: a whole number the model
/// wrote with a point or an exponent was read as the integer its `f64` rounds
/// to (`123456789012345678.0` as ...680, a value the model did not write).
/// It is refused, with what to write; in digits it reads, and below 2^53 a
/// float form still reads as the integer it is.
#[test]
fn a_wide_whole_number_in_float_form_is_refused_not_rounded() {
    #[derive(Debug, PartialEq, Toon)]
    struct Wide {
        n: u64,
        i: i64,
    }
    #[derive(Debug, PartialEq, Toon)]
    struct Rows {
        rows: Vec<Wide>,
    }
    for reply in [
        "n: 1\ni: 123456789012345678.0",
        "n: 9007199254740993.0\ni: 0",
        "n: 1e19\ni: 0",
        "n: 1\ni: 999999999999999999.9",
        "{\"n\": 9007199254740993.0, \"i\": 0}",
    ] {
        let err = Wide::from_toon(reply).unwrap_err();
        assert_eq!(err.kind(), ParseErrorKind::InvalidValue, "{reply}");
        assert!(
            err.to_string().contains("write it in digits"),
            "{reply}: {err}"
        );
    }
    // In a table's cells the row is the type's to drop, as with any cell it cannot read.
    let rows = toon_core::ToonOutputParser::<Rows>::new()
        .parse_with_report("rows[2]{n,i}:\n  1,2\n  1e18,1")
        .unwrap();
    assert_eq!(rows.value.rows, vec![Wide { n: 1, i: 2 }]);
    assert!(
        rows.repairs.iter().any(|r| r.line == 3),
        "{:?}",
        rows.repairs
    );
    // In digits, any width; in float form below 2^53, the integer it is.
    let read = |reply: &str| Wide::from_toon(reply).map(|w| (w.n, w.i)).unwrap();
    assert_eq!(
        read("n: 18446744073709551615\ni: -123456789012345678"),
        (u64::MAX, -123_456_789_012_345_678)
    );
    assert_eq!(
        read("n: 1e3\ni: -9007199254740991.0"),
        (1000, -9_007_199_254_740_991)
    );
}

/// serde's data errors on the JSON path were all "has the wrong type", an
/// enum value that is none of its variants too.
#[test]
fn a_json_value_none_of_the_allowed_ones_is_called_so() {
    #[derive(Debug, serde::Deserialize)]
    #[serde(rename_all = "UPPERCASE")]
    enum Level {
        High,
        Low,
    }
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Finding {
        level: Level,
        count: u32,
    }
    let said = |reply: &str| {
        toon_core::reply::from_json_serde::<Finding>(reply, &Default::default())
            .unwrap_err()
            .to_string()
    };
    let e = said("{\"level\": \"CRITICAL\", \"count\": 1}");
    assert!(
        e.contains("is none of the allowed ones: unknown variant `CRITICAL`"),
        "{e}"
    );
    let e = said("{\"level\": \"HIGH\", \"count\": \"two\"}");
    assert!(
        e.contains("has the wrong type: invalid type: string \"two\""),
        "{e}"
    );
}

/// A serde type's refusal of a JSON reply says where in the value it is, as
/// the TOON path does: a reply on one line has only a column otherwise.
#[test]
fn a_json_refusal_names_the_field_it_is_about() {
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Item {
        name: String,
        count: u8,
    }
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Order {
        items: Vec<Item>,
    }
    let refused = |reply: &str| {
        toon_core::reply::from_json_serde::<Order>(reply, &Default::default()).unwrap_err()
    };
    let e = refused(r#"{"items": [{"name": "a", "count": 1}, {"name": "b", "count": "2"}]}"#);
    assert_eq!(e.path(), Some("items[1].count"), "{e}");
    // Where serde_json stopped reading: the end of the value, `"2"`; its
    // words without the place they repeat ("at line 1 column 64").
    assert_eq!(
        e.to_string(),
        "JSON_PARSE_FAILURE: line 1, column 64, at `items[1].count`: a value in the JSON reply has the wrong type: invalid type: string \"2\", expected u8"
    );
    assert!(
        e.retry_prompt().contains("At line 1, `items[1].count`: "),
        "{}",
        e.retry_prompt()
    );
    // Past the field's range (serde_json calls it a syntax error).
    let e = refused(r#"{"items": [{"name": "a", "count": 300}]}"#);
    assert_eq!(e.path(), Some("items[0].count"), "{e}");
    // A missing field: the object it is missing from.
    let e = refused(r#"{"items": [{"name": "a"}]}"#);
    assert_eq!(e.kind(), toon_core::ParseErrorKind::MissingField);
    assert_eq!(e.path(), Some("items[0]"), "{e}");
    // Mended first (a trailing comma), then refused: the path in the mended text.
    let e = refused(r#"{"items": [{"name": "a", "count": -1},]}"#);
    assert_eq!(e.path(), Some("items[0].count"), "{e}");
    assert_eq!(
        e.column(),
        None,
        "a column of the mended text is not the reply's"
    );
    // Malformed JSON has no field to name; its column is the reply's.
    let e = refused(r#"{"items": [{"name": "a" "count": 1}]}"#);
    assert_eq!(e.path(), None, "{e}");
    assert_eq!(e.column(), Some(25), "{e}");
    assert!(
        e.message().contains("not valid JSON: expected `,` or `}`;"),
        "{e}"
    );
    // Cut off after a value the type refuses: the cut is what is wrong, so
    // neither that value's field nor its column is named.
    let e = refused(r#"{"items": [{"name": "a", "count": "2"}, {"name": "b", "cou"#);
    assert_eq!(e.kind(), toon_core::ParseErrorKind::Truncated, "{e}");
    assert_eq!((e.path(), e.column()), (None, None), "{e}");
    // After reasoning closed on the value's line: the line read is not the
    // reply's line as written, so no column is given for it.
    let e = refused("<think>one item</think>{\"items\": [{\"name\": 1, \"count\": 1}]}");
    assert_eq!(e.path(), Some("items[0].name"), "{e}");
    assert_eq!(e.column(), None, "{e}");
}

/// Each type of this file, declared at run time from this file's source,
/// gives the derived type's artefacts (tests/declared.rs has the readings).
#[test]
fn declared_at_run_time_alike() {
    common::declared::agree(
        include_str!("regressions.rs"),
        &crate::derived![Row, Message, Group, Ticket, Tickets, Kind, Sev, Issue, Issues],
    );
}
