//! Time linear in the input, for the paths a hostile reply can make long:
//! the JSON mend (raw line breaks, comments, single quotes), a header of
//! thousands of fields, through the reply decoder and a stream, rows a cell
//! short or wide under such a header, which the type reads, and a stream
//! fed one long line in small pushes. Each is timed
//! at n and at 4n: linear work takes about four times as long, quadratic
//! sixteen. One test, so nothing else in this binary runs meanwhile.

use std::time::{Duration, Instant};

use serde_json::Value;
use toon_core::{decode_reply, from_json_reply, ToonStream};

/// The fastest of five runs of `f`.
fn fastest(f: impl Fn()) -> Duration {
    (0..5)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap()
}

/// `text` (ASCII) fed to a stream `n` bytes a push, then finished.
fn streamed(text: &str, n: usize) {
    let mut stream = ToonStream::<Value>::new();
    for piece in text.as_bytes().chunks(n) {
        let _ = stream.push(std::str::from_utf8(piece).unwrap());
    }
    let _ = stream.end();
    stream.finish().unwrap();
}

/// `make(n)` read by `read` at n and at 4n: linear growth takes about four
/// times as long, quadratic sixteen. The bound, eight times and a few
/// milliseconds, holds for linear work on a loaded machine.
fn grows_linearly(what: &str, make: impl Fn(usize) -> String, read: impl Fn(&str), n: usize) {
    let (small, large) = (make(n), make(4 * n));
    read(&small); // warm up
    let (t1, t4) = (fastest(|| read(&small)), fastest(|| read(&large)));
    assert!(
        t4 <= t1 * 8 + Duration::from_millis(20),
        "{what}: {t1:?} at {} bytes, {t4:?} at {} bytes",
        small.len(),
        large.len()
    );
}

#[test]
fn time_is_linear_in_the_input() {
    the_json_mend_is_linear_in_the_reply();
    a_wide_header_is_linear_in_its_fields();
    a_wide_row_is_read_by_the_type_in_linear_time();
    rows_dropped_on_every_line_are_named_in_linear_time();
    a_push_costs_its_own_bytes();
}

/// A push reads its own bytes, not the line so far again: one long line fed
/// 4 bytes at a time (a text value, a row of many cells) costs time linear in
/// the line, as the pushes' total bytes are.
fn a_push_costs_its_own_bytes() {
    for (what, make) in [
        (
            "a long text value, pushed 4 bytes at a time",
            (|n: usize| format!("note: {}\ndone: true", "word ".repeat(n))) as fn(usize) -> String,
        ),
        ("a long row, pushed 4 bytes at a time", |n: usize| {
            format!("rows[1]{{a,b}}:\n  x,{}\ndone: true", "y".repeat(5 * n))
        }),
    ] {
        grows_linearly(what, make, |s| streamed(s, 4), 20_000);
    }
}

fn the_json_mend_is_linear_in_the_reply() {
    // Raw line breaks inside a string.
    grows_linearly(
        "raw line breaks",
        |n| format!("{{\"a\": \"{}\"}}", "a line\n".repeat(n)),
        |s| {
            from_json_reply::<Value>(s).unwrap();
        },
        4_000,
    );
    // `//` comments.
    grows_linearly(
        "comments",
        |n| {
            let items: Vec<String> = (0..n).map(|i| format!("  {i}, // item {i}")).collect();
            format!("[\n{}\n  0\n]", items.join("\n"))
        },
        |s| {
            from_json_reply::<Value>(s).unwrap();
        },
        4_000,
    );
    // Single quotes.
    grows_linearly(
        "single quotes",
        |n| {
            let items: Vec<String> = (0..n).map(|i| format!("'k{i}': 'v'")).collect();
            format!("{{{}}}", items.join(",\n"))
        },
        |s| {
            from_json_reply::<Value>(s).unwrap();
        },
        4_000,
    );
}

fn a_wide_header_is_linear_in_its_fields() {
    let make = |n: usize| {
        let names: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
        let cells: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        format!(
            "rows[2]{{{}}}:\n  {}\n  {}",
            names.join(","),
            cells.join(","),
            cells.join(",")
        )
    };
    grows_linearly(
        "decode_reply",
        make,
        |s| {
            decode_reply(s).unwrap();
        },
        1_000,
    );
    grows_linearly("a stream", make, |s| streamed(s, 64), 1_000);
}

/// A row a cell short of a header of thousands of fields, or a cell wider,
/// in a reply to a type: which column is missing, or holds the extra cell,
/// is looked for once along the row, not once for each column. (Here every
/// column the type does not have could be it: the rows are dropped.)
fn a_wide_row_is_read_by_the_type_in_linear_time() {
    #[derive(Debug, toon_core::Toon)]
    struct Row {
        id: u32,
        note: Option<String>,
    }
    #[derive(Debug, toon_core::Toon)]
    struct Rows {
        rows: Vec<Row>,
    }
    for over in [-1, 1] {
        let make = |n: usize| {
            let names: Vec<String> = (0..n).map(|i| format!("f{i}")).collect();
            let width = n + 2;
            let row: Vec<String> = (0..width.saturating_add_signed(over))
                .map(|i| i.to_string())
                .collect();
            format!(
                "rows[2]{{id,note,{}}}:\n  {}\n  {}",
                names.join(","),
                row.join(","),
                row.join(",")
            )
        };
        let read = |s: &str| {
            let e = <Rows as toon_core::Toon>::from_toon(s).unwrap_err();
            assert_eq!(e.line(), Some(2), "{e}");
        };
        grows_linearly("a row one cell off its header", make, read, 1_000);
    }
}

/// A row dropped on every line, each short of the one column the type says
/// it lacks: what the report and the refusal say of each row is looked up,
/// not searched for among the others.
fn rows_dropped_on_every_line_are_named_in_linear_time() {
    #[derive(Debug, toon_core::Toon)]
    struct Row {
        id: u32,
        name: String,
        flag: bool,
    }
    #[derive(Debug, toon_core::Toon)]
    struct Rows {
        rows: Vec<Row>,
    }
    let make = |n: usize| {
        let rows: Vec<String> = (0..n).map(|i| format!("  {i},x")).collect();
        format!(
            "rows[{}]{{id,name,flag}}:\n  0,x,true\n{}\nnote: end",
            n + 1,
            rows.join("\n")
        )
    };
    let read = |s: &str| {
        let reply = toon_core::ToonOutputParser::<Rows>::new()
            .parse_with_report(s)
            .unwrap();
        assert_eq!(reply.value.rows.len(), 1);
        let dropped = reply
            .repairs
            .iter()
            .filter(|r| r.kind == toon_core::RepairKind::DroppedRow);
        assert!(dropped.clone().count() > 1);
        for r in dropped {
            assert!(r.detail.contains("has no `flag`"), "{r}");
        }
    };
    grows_linearly("rows dropped on every line", make, read, 4_000);
}
