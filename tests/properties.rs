//! Property tests across the engine and the reply decoder.
//!
//! - `decode(encode(v)) == v` for arbitrary JSON, every delimiter and indent size,
//!   under the specification's JSON-model equality (§2: numbers by value; the
//!   objects of a table compared after reordering to the header's field order);
//! - `decode_reply` of any valid document equals `decode` of it, with no repair;
//! - mutated replies never panic, and a reply cut at any character is either read
//!   or refused as `Truncated`.

use proptest::prelude::*;
use serde_json::{Map, Number, Value};
use toon_core::{
    decode, encode, spec::json_model_eq, spec::DecodeOptions, spec::Delimiter, spec::EncodeOptions,
    FinishReason, ParseErrorKind, ReplyOptions,
};

/// Text that stresses quoting and typing. `with_markers` adds lines that look
/// like reply wrappers (fences, `</think>`), which the reply decoder treats as
/// wrapped on purpose (see `wrapper_lookalikes_are_read_as_wrappers`).
fn text(with_markers: bool) -> BoxedStrategy<String> {
    let mut special = vec![
        "",
        " ",
        "  x",
        "x ",
        "true",
        "false",
        "null",
        "0",
        "-0",
        "42",
        "-3.5",
        "1e5",
        "1E-7",
        "05",
        "+1",
        "0.10",
        "-",
        "- x",
        "-x",
        "#",
        "# c",
        "a,b",
        "a|b",
        "a\tb",
        "a:b",
        ":",
        "\"",
        "\"q\"",
        "back\\slash",
        "[]",
        "[1]",
        "{}",
        "{a}",
        "line\nbreak",
        "cr\rhere",
        "\u{1}ctl",
        "é",
        "你好",
        "🚀 ok",
        "\u{feff}bom",
        "x[2]: y",
    ];
    if with_markers {
        special.extend(["```", "```toon", "</think>", "<tool_call>"]);
    }
    prop_oneof![
        3 => "[a-zA-Z0-9 _.,:|-]{0,12}",
        1 => "\\PC{0,8}",
        2 => prop::sample::select(special).prop_map(str::to_owned),
    ]
    .boxed()
}

fn key() -> BoxedStrategy<String> {
    prop_oneof![
        3 => "[a-z_][a-z0-9_.]{0,6}",
        1 => text(false),
    ]
    .boxed()
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (prop::num::f64::NORMAL | prop::num::f64::SUBNORMAL | prop::num::f64::ZERO)
            .prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop::sample::select(vec![
            1e-6,
            9.99e-7,
            1e21,
            9.99e20,
            0.1,
            1.5e300,
            -2.5e-300,
            9007199254740993.0
        ])
        .prop_map(|f| Value::Number(Number::from_f64(f).unwrap())),
    ]
}

fn leaf(with_markers: bool) -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text(with_markers).prop_map(Value::String),
    ]
    .boxed()
}

/// Rows that share one key set (in varying order), so tables and nested field
/// groups are exercised, not only the list form.
fn table(cell: BoxedStrategy<Value>) -> impl Strategy<Value = Value> {
    (prop::collection::vec(key(), 1..4), 1usize..5).prop_flat_map(move |(keys, rows)| {
        let nested = prop::collection::vec(cell.clone(), 2);
        prop::collection::vec(
            (
                prop::collection::vec(cell.clone(), keys.len()),
                nested,
                any::<bool>(),
            ),
            rows,
        )
        .prop_map(move |rows| {
            Value::Array(
                rows.into_iter()
                    .map(|(cells, sub, reverse)| {
                        let mut entries: Vec<(String, Value)> =
                            keys.iter().cloned().zip(cells).collect();
                        entries.push(("sub".into(), serde_json::json!({"p": sub[0], "q": sub[1]})));
                        if reverse {
                            entries.reverse();
                        }
                        Value::Object(entries.into_iter().collect())
                    })
                    .collect(),
            )
        })
    })
}

fn value(with_markers: bool) -> impl Strategy<Value = Value> {
    let leaves = leaf(with_markers);
    leaves.clone().prop_recursive(6, 96, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((key(), inner.clone()), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            table(leaves.clone()),
            // An object of uniform objects: the keyed tabular form.
            (table(leaves.clone()), prop::collection::vec(key(), 2..4)).prop_map(
                |(rows, names)| {
                    let rows = rows.as_array().cloned().unwrap_or_default();
                    Value::Object(names.into_iter().zip(rows).collect::<Map<_, _>>())
                }
            ),
        ]
    })
}

/// Reorders the objects of every uniform array (and every object of uniform
/// objects) to the first one's key order, recursively: the §2 equality rule for
/// tabular forms.
fn canonical(v: &Value) -> Value {
    match v {
        Value::Array(items) => {
            let mut items: Vec<Value> = items.iter().map(canonical).collect();
            align(&mut items);
            Value::Array(items)
        }
        Value::Object(map) => {
            let mut map: Map<String, Value> =
                map.iter().map(|(k, v)| (k.clone(), canonical(v))).collect();
            if map.len() >= 2 {
                let mut values: Vec<Value> = map.values().cloned().collect();
                align(&mut values);
                for (slot, v) in map.values_mut().zip(values) {
                    *slot = v;
                }
            }
            Value::Object(map)
        }
        other => other.clone(),
    }
}

fn align(items: &mut [Value]) {
    let Some(Value::Object(first)) = items.first() else {
        return;
    };
    let order: Vec<String> = first.keys().cloned().collect();
    let uniform = !order.is_empty()
        && items.iter().all(|v| {
            v.as_object()
                .is_some_and(|o| o.len() == order.len() && order.iter().all(|k| o.contains_key(k)))
        });
    if !uniform {
        return;
    }
    for item in items.iter_mut() {
        let o = item.as_object().unwrap();
        *item = Value::Object(order.iter().map(|k| (k.clone(), o[k].clone())).collect());
    }
    for k in &order {
        let mut column: Vec<Value> = items.iter().map(|v| v[k.as_str()].clone()).collect();
        align(&mut column);
        for (item, v) in items.iter_mut().zip(column) {
            item.as_object_mut().unwrap().insert(k.clone(), v);
        }
    }
}

fn delimiter() -> impl Strategy<Value = Delimiter> {
    prop_oneof![
        Just(Delimiter::Comma),
        Just(Delimiter::Tab),
        Just(Delimiter::Pipe)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(768))]

    #[test]
    fn decode_inverts_encode(v in value(true), delim in delimiter(), indent in 1usize..=4) {
        let text = encode(&v, &EncodeOptions { indent_size: indent, delimiter: delim });
        let back = decode(&text, &DecodeOptions { indent_size: indent, ..Default::default() })
            .map_err(|e| TestCaseError::fail(format!("{e}\n--- text:\n{text}")))?;
        prop_assert!(json_model_eq(&canonical(&back), &canonical(&v)), "\n{}\n!=\n{}\n--- text:\n{}", back, v, text);
    }

    #[test]
    fn decode_reply_leaves_valid_documents_alone(v in value(false)) {
        let text = encode(&v, &EncodeOptions::default());
        let spec = decode(&text, &DecodeOptions::default()).unwrap();
        let no_content = text.lines().all(|l| l.trim().is_empty());
        match toon_core::reply::read(&text, &toon_core::ReplyOptions::default()) {
            Ok(reply) => {
                prop_assert_eq!(&reply.value, &spec, "text:\n{}", text);
                prop_assert!(reply.repairs.is_empty(), "repairs {:?} on valid text:\n{}", reply.repairs, text);
            }
            // `{}` encodes as the empty document: the one reply that means "nothing".
            Err(e) => prop_assert!(no_content && e.kind() == ParseErrorKind::EmptyCompletion, "{e}\n{text}"),
        }
    }

    #[test]
    fn a_reply_cut_anywhere_is_refused_as_truncated_when_the_server_says_so(v in value(false), at in any::<prop::sample::Index>()) {
        let text = encode(&v, &EncodeOptions::default());
        let cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        let cut = &text[..cuts[at.index(cuts.len())]];
        // With the server's word (`length`), a cut reply is never read.
        let length = ReplyOptions { finish_reason: FinishReason::Length, ..Default::default() };
        let e = toon_core::reply::read(cut, &length).unwrap_err();
        prop_assert_eq!(e.kind(), ParseErrorKind::Truncated, "{}\n--- cut:\n{}", e, cut);
        // Without it, a refusal is `Truncated` where the text shows the cut, and
        // any other refusal stands on the cut's own last line.
        if let Err(e) = toon_core::reply::read(cut, &toon_core::ReplyOptions::default()) {
            let last = cut.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).last().map(|(i, _)| i + 1);
            prop_assert!(
                matches!(e.kind(), ParseErrorKind::Truncated | ParseErrorKind::EmptyCompletion)
                    || e.line() == last,
                "{:?} for a cut reply: {}\n--- cut:\n{}", e.kind(), e, cut
            );
        }
    }

    #[test]
    fn mutated_replies_never_panic(v in value(true), ops in prop::collection::vec((0u8..6, any::<prop::sample::Index>()), 1..4)) {
        let mut lines: Vec<String> = encode(&v, &EncodeOptions::default()).lines().map(str::to_owned).collect();
        for (op, at) in ops {
            if lines.is_empty() {
                break;
            }
            let i = at.index(lines.len());
            match op {
                0 => { lines.remove(i); }
                1 => { let l = lines[i].clone(); lines.insert(i, l); }
                2 => lines[i] = format!("   {}", lines[i]),
                3 => lines[i].push(','),
                4 => {
                    let l = &mut lines[i];
                    let mid = l.char_indices().nth(l.chars().count() / 2).map_or(l.len(), |(j, _)| j);
                    l.insert(mid, '"');
                }
                _ => lines.insert(i, "```toon".into()),
            }
        }
        let text = lines.join("\n");
        // Any outcome but a panic; a refusal always says what and where (or is empty).
        if let Err(e) = toon_core::reply::read(&text, &toon_core::ReplyOptions::default()) {
            prop_assert!(e.to_string().starts_with("TOON_PARSE_FAILURE: "));
            prop_assert!(e.line().is_some() || e.kind() == ParseErrorKind::EmptyCompletion, "no line: {e}");
        }
    }
}

#[test]
fn wrapper_lookalikes_are_read_as_wrappers() {
    // Documented: a line that is exactly a fence, or starts with `</think>`, is
    // taken for the wrapper it looks like, even in otherwise valid TOON.
    let reply = toon_core::reply::read(
        "items[2]:\n  - a\n  - b\n```",
        &toon_core::ReplyOptions::default(),
    )
    .unwrap();
    assert_eq!(reply.value, serde_json::json!({"items": ["a", "b"]}));
    assert_eq!(reply.repairs[0].kind, toon_core::RepairKind::StrippedFence);
}
