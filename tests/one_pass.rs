//! The one-pass row reader against the full path: the same replies read with it
//! on and off give the same value, the same repairs on the same lines, or the
//! same refusal. The rows mix cells that read as they stand with cells the full
//! path repairs (a quoted number, an enum in another case, an alias), refuses
//! (a value outside its type, an unknown variant) or reports (an unknown
//! column); headers leave out optional and defaulted columns or add unknown ones.

use proptest::prelude::*;
use serde::Deserialize;
use toon_core::{__private::set_one_pass, Toon};

#[derive(Debug, Clone, PartialEq, Deserialize, Toon)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Alpha,
    #[serde(alias = "b")]
    Beta,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Toon)]
struct Rec {
    id: u8,
    name: String,
    kind: Kind,
    score: Option<f64>,
    flag: bool,
    #[serde(default)]
    note: String,
}

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

/// The outcome of reading `reply` with the one-pass reader on or off, as text.
fn read(reply: &str, one_pass: bool) -> String {
    set_one_pass(one_pass);
    let out = Vec::<Rec>::from_toon_with_report(reply);
    set_one_pass(true);
    match out {
        Ok(r) => format!("{:?}\n{:?}", r.value, r.repairs),
        Err(e) => format!("{:?} {:?} {:?}: {e}", e.kind(), e.line(), e.path()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn one_pass_reads_as_the_full_path(reply in table()) {
        prop_assert_eq!(read(&reply, true), read(&reply, false), "{}", reply);
    }
}

/// A clean table is read by the one pass; a row that needs the full path is
/// read there, with its repairs on its own line, and the rows around it stay.
#[test]
fn rows_that_need_repairs_take_the_full_path() {
    let reply = "[3]{id,name,kind,flag}:\n  1,a,alpha,true\n  2,b,ALPHA,\"false\"\n  3,c,b,false";
    let read = Vec::<Rec>::from_toon_with_report(reply).unwrap();
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
    let read = Vec::<Rec>::from_toon_with_report(reply).unwrap();
    assert_eq!(read.value[0].note, "");
    assert_eq!(read.repairs.len(), 1, "{:?}", read.repairs);
    assert_eq!(read.repairs[0].kind.to_string(), "ignored_key");
    assert_eq!(read.repairs[0].line, 2);
}
