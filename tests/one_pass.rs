//! The one-pass row reader against the full path: the same replies read with it
//! on and off give the same value, the same repairs on the same lines, or the
//! same refusal. The rows mix cells that read as they stand with cells the full
//! path repairs (a quoted number, an enum in another case, an alias), refuses
//! (a value outside its type, an unknown variant) or reports (an unknown
//! column); headers leave out optional and defaulted columns or add unknown ones.
//! The same tables, streamed, give every row an event that reads as the whole
//! reply reads it.

mod common;

use proptest::prelude::*;
use serde::Deserialize;
use toon_core::Toon;

#[derive(Debug, Clone, PartialEq, Deserialize, Toon)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Alpha,
    #[serde(alias = "b")]
    Beta,
}

/// A record type and, with `#[serde(alias = "zz")]` on `id`, its twin.
macro_rules! record {
    ($name:ident $(, #[$id:meta])?) => {
        #[derive(Debug, Clone, PartialEq, Deserialize, Toon)]
        struct $name {
            $(#[$id])?
            id: u8,
            name: String,
            kind: Kind,
            score: Option<f64>,
            flag: bool,
            #[serde(default)]
            note: String,
        }
    };
}

record!(Rec);

// `Rec` with every row on the full path: a field with an alias has no
// one-pass reader (no table here has the column `zz`), so this twin reads
// each row as `Rec`'s full path does.
record!(FullPath, #[serde(alias = "zz")]);

/// Each column's cells: first the ones that read as they stand, then the rest.
fn cells(column: &str) -> &'static [&'static str] {
    match column {
        "id" => &["7", "0", "255", "\"7\"", "256", "-1", "x", "null"],
        "name" => &["abc", "\"a,b\"", "\"\"", "12", "true", "null", "1.5"],
        "kind" => &["alpha", "beta", "ALPHA", "b", "gamma", "\"beta\"", "3"],
        "score" => &["0.5", "null", "-2", "\"0.5\"", "high", "true"],
        "flag" => &["true", "false", "\"true\"", "yes", "null"],
        "note" => &["see R-1", "\"x: y\"", "null", "4"],
        _ => &["?", "1", "null"],
    }
}

/// A table of `Rec` rows: the columns in some order, some left out, unknown ones added.
fn table() -> impl Strategy<Value = String> {
    let columns = (
        Just(vec!["id", "name", "kind", "flag"]),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(mut cols, score, note, extra)| {
            if score {
                cols.push("score");
            }
            if note {
                cols.push("note");
            }
            if extra {
                cols.push("extra");
            }
            cols
        })
        .prop_shuffle();
    columns.prop_flat_map(|cols| {
        let row = cols
            .iter()
            .map(|c| {
                let pool = cells(c);
                // Mostly clean cells, so most tables have rows of both kinds.
                prop_oneof![
                    4 => (0..pool.len().min(2)).prop_map(move |i| pool[i]),
                    1 => (0..pool.len()).prop_map(move |i| pool[i]),
                ]
            })
            .collect::<Vec<_>>();
        prop::collection::vec(row, 0..6).prop_map(move |rows| {
            let mut out = format!("[{}]{{{}}}:", rows.len(), cols.join(","));
            for row in rows {
                out.push_str("\n  ");
                out.push_str(&row.join(","));
            }
            out
        })
    })
}

/// The outcome of reading `reply` as a list of `T`, as text: the values as
/// `to_toon` writes them (the same for `Rec` and its twin), then the repairs,
/// or the refusal.
fn read<T: Toon>(reply: &str) -> String {
    match toon_core::ToonOutputParser::<Vec<T>>::new().parse_with_report(reply) {
        Ok(r) => format!("{}\n{:?}", r.value.to_toon(), r.repairs),
        Err(e) => format!("{:?} {:?} {:?}: {e}", e.kind(), e.line(), e.path()),
    }
}

/// The same table as a model might wrap it: after a line of prose, in a fence,
/// indented by four spaces.
fn wrapped(reply: &str) -> String {
    let body: Vec<String> = reply
        .lines()
        .map(|l| format!("  {l}").replace("  ", "    "))
        .collect();
    format!("Here it is:\n```toon\n{}\n```\n", body.join("\n"))
}

/// Streamed 3 bytes at a time: `finish` is `from_toon`, and every row's event
/// reads into the type as the whole reply reads that row, its repairs among
/// the whole reply's, on the same lines.
fn streamed_as_whole(reply: &str) -> Result<(), TestCaseError> {
    let mut stream = toon_core::ToonStream::<Vec<Rec>>::new();
    let mut events = Vec::new();
    let bytes: Vec<char> = reply.chars().collect();
    for chunk in bytes.chunks(3) {
        events.extend(stream.push(&chunk.iter().collect::<String>()));
    }
    events.extend(stream.end());
    let whole = toon_core::ToonOutputParser::<Vec<Rec>>::new().parse_with_report(reply);
    let finished = stream.finish();
    prop_assert_eq!(format!("{finished:?}"), format!("{whole:?}"));
    let Ok(whole) = whole else { return Ok(()) };
    // A dropped row has no event, so the events are the final value's rows.
    let rows = events
        .iter()
        .filter(|e| matches!(e, toon_core::stream::Event::Item { .. }))
        .count();
    prop_assert_eq!(rows, whole.value.len(), "every kept row streamed");
    for e in &events {
        let toon_core::stream::Event::Item { index, element, .. } = e else {
            continue;
        };
        for r in element.repairs() {
            prop_assert!(
                whole.repairs.contains(r),
                "{} not in {:?}",
                r,
                whole.repairs
            );
        }
        let row = element.decode::<Rec>().ok();
        prop_assert_eq!(row.as_ref(), whole.value.get(*index));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn one_pass_reads_as_the_full_path(reply in table()) {
        prop_assert_eq!(read::<Rec>(&reply), read::<FullPath>(&reply), "{}", reply);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn streamed_rows_read_as_the_whole_reply(reply in table()) {
        streamed_as_whole(&reply)?;
        streamed_as_whole(&wrapped(&reply))?;
    }
}

/// A clean table is read by the one pass; a row that needs the full path is
/// read there, with its repairs on its own line, and the rows around it stay.
#[test]
fn rows_that_need_repairs_take_the_full_path() {
    let reply = "[3]{id,name,kind,flag}:\n  1,a,alpha,true\n  2,b,ALPHA,\"false\"\n  3,c,b,false";
    let read = toon_core::ToonOutputParser::<Vec<Rec>>::new()
        .parse_with_report(reply)
        .unwrap();
    let kinds: Vec<Kind> = read.value.iter().map(|r| r.kind.clone()).collect();
    assert_eq!(kinds, [Kind::Alpha, Kind::Alpha, Kind::Beta]);
    assert!(!read.value[1].flag);
    let repairs: Vec<(String, usize)> = read
        .repairs
        .iter()
        .map(|r| (r.kind.to_string(), r.line))
        .collect();
    assert_eq!(
        repairs,
        [
            ("enum_case".to_string(), 3),
            ("unquoted_scalar".to_string(), 3)
        ]
    );
}

/// A column the type does not have is reported, not read past, by either path.
#[test]
fn an_unknown_column_is_reported() {
    let reply = "[1]{id,name,kind,flag,extra}:\n  1,a,alpha,true,?";
    let read = toon_core::ToonOutputParser::<Vec<Rec>>::new()
        .parse_with_report(reply)
        .unwrap();
    assert_eq!(read.value[0].note, "");
    assert_eq!(read.repairs.len(), 1, "{:?}", read.repairs);
    assert_eq!(read.repairs[0].kind.to_string(), "ignored_key");
    assert_eq!(read.repairs[0].line, 2);
}

/// Each type of this file, declared at run time from this file's source,
/// gives the derived type's artefacts (tests/declared.rs has the readings).
#[test]
fn declared_at_run_time_alike() {
    common::declared::agree(include_str!("one_pass.rs"), &crate::derived![Kind]);
}
