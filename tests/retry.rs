//! The caller's own check, the retry turn a refusal becomes, and the retry
//! helper that asks again through any client.

mod common;

use common::types::{Answer, ComplianceAnalysis, Finding};
use serde_json::{json, Value};
use toon_core::{
    retry::RetryError, retry::Turn, FinishReason, ParseErrorKind, Toon, ToonOutputParser,
};

const GOOD: &str =
    "question: When does it end?\nfinding:\n  status: found\n  answer: In 2025.\n  citations[1]: 2";

/// Citations must name one of the sources sent (here, six).
fn cited() -> ToonOutputParser<Answer> {
    ToonOutputParser::<Answer>::new().validate(|a: &Answer| match &a.finding {
        Finding::Found { citations, .. } => {
            match citations.iter().find(|c| !(1..=6).contains(&c.0)) {
                Some(c) => Err(format!(
                    "source {} does not exist: cite sources 1 to 6",
                    c.0
                )),
                None => Ok(()),
            }
        }
        _ => Ok(()),
    })
}

#[test]
fn the_callers_check_refuses_as_constraint_and_is_never_a_repair() {
    assert_eq!(cited().parse(GOOD).unwrap().question, "When does it end?");
    let wrong = GOOD.replace("citations[1]: 2", "citations[2]: 2,7");
    let err = cited().parse(&wrong).unwrap_err();
    assert_eq!(err.kind(), ParseErrorKind::Constraint);
    assert!(err.message().contains("source 7 does not exist"), "{err}");
    // The shape alone reads, as before.
    assert!(Answer::from_toon(&wrong).is_ok());
}

/// The turn is for the model: what it wrote and what to write instead, never
/// the caller's side of it (the server's finish reason, "the model"), and
/// nothing to keep where nothing was written.
#[test]
fn the_retry_turn_tells_the_model_what_to_write() {
    use common::types::Capital;
    let turn = |reply: &str, finish: FinishReason| {
        let options = toon_core::ReplyOptions {
            finish_reason: finish,
            ..Default::default()
        };
        let e = toon_core::ToonOutputParser::<Capital>::new()
            .options(options)
            .parse_with_report(reply)
            .unwrap_err();
        (e.to_string(), e.retry_prompt())
    };
    // A sentence where the fields should be: its line, and the keys to write.
    let (said, asked) = turn(
        "```toon\nI could not find the capital.\n```",
        FinishReason::Unknown,
    );
    assert!(said.contains("line 2: the reply is the text"), "{said}");
    assert!(
        asked.contains("write its fields (`country`, `capital`)"),
        "{asked}"
    );
    assert!(
        !asked.contains("(root)") && !asked.contains("Capital"),
        "{asked}"
    );
    // A misspelt key is named beside the field it missed.
    let (_, asked) = turn("countryy: Peru\ncapital: Lima", FinishReason::Unknown);
    assert!(
        asked.contains("required field `country` is missing from the reply; it has `countryy`"),
        "{asked}"
    );
    // A quote left open where the server says the reply ended normally: the
    // display says so, the turn does not.
    let (said, asked) = turn("country: Peru\ncapital: \"Lima", FinishReason::Stop);
    assert!(said.contains("finish_reason: stop"), "{said}");
    assert!(
        !asked.contains("finish_reason") && !asked.contains("the model"),
        "{asked}"
    );
    assert!(asked.contains("no closing quote"), "{asked}");
    // Out of room while reasoning: the answer never began.
    let (_, asked) = turn("<think>Peru is in South America, so", FinishReason::Unknown);
    assert!(asked.contains("the reasoning never ended"), "{asked}");
    assert!(
        !asked.contains("keep everything else"),
        "nothing was written to keep: {asked}"
    );
    // A tab: the lines need not disagree, the tab has no width.
    let e =
        Answer::from_toon("question: q\nfinding:\n\tstatus: not_found\n\treason: r").unwrap_err();
    assert!(
        e.message().starts_with("the line is indented with a tab"),
        "{e}"
    );
    // Every row short of one column: the model's part stays out of the turn.
    let short = ComplianceAnalysis::from_toon(
        "compliance_status: NON_COMPLIANT\nviolations[2]{category,severity,description,related_rule_id,remediation}:\n  privacy,Emails logged,R-1,Mask them\n  privacy,Names logged,R-2,Mask them\naudit_trail: a\nspoken_response: b",
    )
    .unwrap_err();
    assert!(
        short.to_string().contains("the model left it out"),
        "{short}"
    );
    let asked = short.retry_prompt();
    assert!(
        asked.contains("every row of the table needs a value for it.")
            && !asked.contains("the model"),
        "{asked}"
    );
    // Rows dropped before a refusal are named in the turn too, so that the
    // next answer fixes them instead of keeping them as they were; the
    // caller's advice still stays out of it.
    let both = ComplianceAnalysis::from_toon(
        "compliance_status: NON_COMPLIANT\nviolations[3]{category,severity,description,related_rule_id,remediation}:\n  privacy,HI,Emails logged,R-1,Mask them\n  privacy,HIGH,Names logged,R-2,Mask them\n  access,LOWER,Open bucket,R-3,Close it\naudit_trail: a",
    )
    .unwrap_err();
    let asked = both.retry_prompt();
    assert!(
        asked.contains("`spoken_response` is missing from the reply; the rows on lines 3 and 5 were also left out; line 3: violations[0]: the row cannot be read (at `violations[0].severity`: "),
        "{asked}"
    );
    assert!(
        asked.ends_with("with this fixed; keep everything else as it was."),
        "{asked}"
    );
    // Named: rows of the type's tables only, and not those of a table that
    // is itself the refusal (none of its rows reads).
    let lacks = ComplianceAnalysis::from_toon(
        "compliance_status: NON_COMPLIANT\nnotes[2]{a,b}:\n  x,y\n  z\nviolations[0]{category,severity,description,related_rule_id,remediation}:\naudit_trail: a",
    )
    .unwrap_err();
    assert_eq!(lacks.kind(), toon_core::ParseErrorKind::MissingField);
    assert!(!lacks.to_string().contains("left out"), "{lacks}");
    let whole = ComplianceAnalysis::from_toon(
        "compliance_status: NON_COMPLIANT\nviolations[2]{category,severity,description,related_rule_id,remediation}:\n  privacy,HI,Emails logged,R-1,Mask them\n  access,HI,Open bucket,R-2,Close it\naudit_trail: a\nspoken_response: b",
    )
    .unwrap_err();
    assert_eq!(whole.line(), Some(3), "{whole}");
    assert!(!whole.to_string().contains("left out"), "{whole}");
    // Past a limit, with no place to lead in: a sentence that starts as one.
    let limit = toon_core::ReplyOptions {
        max_bytes: 10,
        ..Default::default()
    };
    let asked = toon_core::ToonOutputParser::<Capital>::new()
        .options(limit)
        .parse_with_report("country: Peru\ncapital: Lima")
        .unwrap_err()
        .retry_prompt();
    assert!(
        asked.starts_with("Your answer could not be used. The answer is far too long"),
        "{asked}"
    );
}

#[test]
fn the_retry_turn_says_what_where_and_in_which_format() {
    let typed = "question: When?\nfinding:\n  status: found\n  answer: Soon.\n  citations[1]: lots";
    let turn = Answer::from_toon(typed).unwrap_err().retry_prompt();
    assert!(
        turn.starts_with("Your answer could not be used. At line 5, `finding.citations[0]`: "),
        "{turn}"
    );
    assert!(turn.contains("found the text `lots`"), "{turn}");
    assert!(turn.ends_with("in TOON, exactly as the instructions show, with this fixed; keep everything else as it was."), "{turn}");
    assert!(turn.lines().count() <= 3, "a few lines: {turn}");

    let cut = "question: When?\nfinding:\n  status: found\n  answer: \"So";
    let turn = Answer::from_toon(cut).unwrap_err().retry_prompt();
    assert!(
        turn.contains("the answer stops before its end. Give a shorter answer"),
        "{turn}"
    );

    let empty = Answer::from_toon("  \n").unwrap_err().retry_prompt();
    assert!(empty.contains("You wrote no answer."), "{empty}");

    let json = toon_core::from_json_reply::<common::types::Capital>("{\"country\": \"Peru\"}")
        .unwrap_err();
    assert!(
        json.retry_prompt()
            .contains("in one JSON value, as the instructions describe"),
        "{}",
        json.retry_prompt()
    );

    let short = ComplianceAnalysis::from_toon(
        "compliance_status: NON_COMPLIANT\nviolations[1]{category,severity,description,related_rule_id,remediation}:\n  privacy,Emails logged,R-1,Mask them\naudit_trail: a\nspoken_response: b",
    )
    .unwrap_err();
    assert!(
        short
            .retry_prompt()
            .contains("At line 3: the row has no `severity`"),
        "{}",
        short.retry_prompt()
    );
}

#[test]
fn the_helper_asks_again_with_the_reply_and_the_turn_appended() {
    let replies = [
        GOOD.replace("citations[1]: 2", "citations[1]: 9"),
        GOOD.to_owned(),
    ];
    let mut seen: Vec<Vec<Value>> = Vec::new();
    let start = vec![json!({"role": "user", "content": "When does it end?"})];
    let got = cited()
        .parse_with_retries(start, 3, |messages| {
            seen.push(messages.to_vec());
            Ok::<_, String>(Turn::new(
                replies[seen.len() - 1].clone(),
                FinishReason::Stop,
            ))
        })
        .unwrap();
    assert_eq!(got.attempts.len(), 2);
    assert_eq!(
        got.attempts[0].outcome.as_ref().unwrap_err().kind(),
        ParseErrorKind::Constraint
    );
    assert!(got.attempts[1].outcome.is_ok());
    // The second request: the question, the model's refused reply, and the retry turn.
    assert_eq!(seen[1].len(), 3);
    assert_eq!(
        seen[1][1],
        json!({"role": "assistant", "content": replies[0]})
    );
    assert_eq!(seen[1][2]["role"], "user");
    assert!(seen[1][2]["content"]
        .as_str()
        .unwrap()
        .contains("source 9 does not exist"));
}

#[test]
fn the_helper_gives_up_after_its_retries_and_reports_every_attempt() {
    let mut calls = 0;
    let err = cited()
        .parse_with_retries(vec![], 2, |_| {
            calls += 1;
            Ok::<_, String>(Turn::new(
                "question: When?\nfinding: maybe",
                FinishReason::Stop,
            ))
        })
        .unwrap_err();
    assert_eq!(calls, 3, "the first answer and two retries");
    let RetryError::Refused { attempts } = &err else {
        panic!("{err}")
    };
    assert_eq!(attempts.len(), 3);
    assert!(
        err.to_string()
            .starts_with("every one of 3 attempts was refused; the last: TOON_PARSE_FAILURE"),
        "{err}"
    );

    // A cut reply (the server said `length`) is refused as such, and retried.
    let mut replies = vec![
        Turn::new(GOOD, FinishReason::Stop),
        Turn::new("question: Wh", FinishReason::Length),
    ];
    let got = cited()
        .parse_with_retries(vec![], 1, |_| Ok::<_, String>(replies.pop().unwrap()))
        .unwrap();
    assert_eq!(
        got.attempts[0].outcome.as_ref().unwrap_err().kind(),
        ParseErrorKind::Truncated
    );

    // A sender's failure ends it at once.
    let err = cited()
        .parse_with_retries(vec![], 5, |_| Err::<Turn, _>("connection refused"))
        .unwrap_err();
    assert!(matches!(
        err,
        RetryError::Send {
            error: "connection refused",
            ..
        }
    ));
}

/// The retry turn is for the model: what the error says to the caller (which
/// option to pass, which is set) stays in the error, not in the turn.
#[test]
fn the_retry_turn_leaves_out_the_advice_to_the_caller() {
    // A short last row, with no word from the server on how the reply ended.
    let reply = "[2]{name,n}:\n  a,1\n  b";
    #[derive(Debug, Toon)]
    struct Item {
        name: String,
        n: u32,
    }
    let e = <Vec<Item>>::from_toon(reply).unwrap_err();
    assert!(e.to_string().contains("ReplyOptions::finish_reason"), "{e}");
    let turn = e.retry_prompt();
    assert!(
        !turn.contains("ReplyOptions") && !turn.contains("finish_reason"),
        "{turn}"
    );
    assert!(turn.contains("At line 3"), "{turn}");

    // A reply over a limit: the turn asks for a short answer, and the reply
    // goes back cut short.
    let long = format!("[1]: {}", "x".repeat(5000));
    let parser = ToonOutputParser::<Vec<String>>::new().options(toon_core::ReplyOptions {
        max_bytes: 1000,
        ..Default::default()
    });
    let mut sent: Vec<Vec<Value>> = Vec::new();
    let got =
        parser.parse_with_retries(vec![json!({"role": "user", "content": "List."})], 1, |m| {
            sent.push(m.to_vec());
            Ok::<_, String>(Turn::new(
                if sent.len() == 1 {
                    long.clone()
                } else {
                    "[1]: ok".into()
                },
                FinishReason::Stop,
            ))
        });
    assert_eq!(got.unwrap().value, ["ok"]);
    let again = &sent[1];
    let back = again[1]["content"].as_str().unwrap();
    assert!(
        back.len() < 2100 && back.ends_with("[… 3005 more bytes]"),
        "{}",
        &back[back.len() - 40..]
    );
    let turn = again[2]["content"].as_str().unwrap();
    assert!(
        turn.contains("far too long") && !turn.contains("ReplyOptions"),
        "{turn}"
    );
}

/// Each way a refusal is settled against the finish reason and the options
/// tells the caller how it was weighed, in words pinned here whole; the
/// model's retry turn carries what went wrong but none of those words.
#[test]
fn each_settled_refusal_tells_the_caller_how_it_was_weighed() {
    use common::types::ComplianceAnalysis;
    use toon_core::ReplyOptions;
    const HEAD: &str = "compliance_status: NON_COMPLIANT\nviolations[2]{category,severity,description,related_rule_id,remediation}:\n";
    const TAIL: &str = "audit_trail: R-1\nspoken_response: x";
    let unknown = ReplyOptions::default();
    let stop = ReplyOptions {
        finish_reason: FinishReason::Stop,
        ..unknown
    };
    let strict = ReplyOptions {
        refuse_dropped_rows: true,
        ..unknown
    };
    let cases = [
        (
            format!("{HEAD}  privacy,HIGH,Emails,R-1,Mask\n  security,LOW,Weak,R-2,Fix\naudit_trail: R-1\nspoken_response \"x\" y"),
            unknown,
            (ParseErrorKind::Syntax, Some(6)),
            "text ` y` follows the closing quote; put it inside the quotes or remove it (column 21)",
            "; it is the reply's last line: if the server stopped the reply at its token limit, it was cut off there (pass the server's finish_reason, ReplyOptions::finish_reason, to have it named so)",
        ),
        (
            format!("{HEAD}  privacy,HIGH,Emails,R-1,Mask\n"),
            unknown,
            (ParseErrorKind::MissingField, None),
            "required field `audit_trail` is missing from the reply",
            "; the reply ends inside a table short of the rows its header declares, so it was either cut off by the token limit or the model left the rest out: pass the server's finish_reason (ReplyOptions::finish_reason) to decide which",
        ),
        (
            format!("{HEAD}  privacy,HIGH,Emails,R-1,Mask\n  security,LOW,\"Weak"),
            stop,
            (ParseErrorKind::Syntax, Some(4)),
            "string has no closing quote before the end of the line (column 16)",
            "; the server says the reply ended normally (finish_reason: stop), so it was not cut off: the model wrote it this way",
        ),
        (
            format!("{HEAD}  privacy,Emails,R-1,Mask\n  security,Weak,R-2,Fix\n{TAIL}"),
            unknown,
            (ParseErrorKind::MissingField, Some(3)),
            "the row has no `severity`: every row of the table needs a value for it",
            "; the model left it out, and no row of the table can be read without it",
        ),
        (
            format!("{HEAD}  privacy,HIGH,Emails,R-1,Mask\n  security,LOW,Weak,R-2,Fix,extra,more\n{TAIL}"),
            strict,
            (ParseErrorKind::Syntax, Some(4)),
            "the row cannot be read (`security,LOW,Weak,R-2,Fix,extra,more`: row has 7 cells but the header names 5 fields; quote any cell that contains the delimiter)",
            "; dropping it would lose a record, and ReplyOptions::refuse_dropped_rows is set",
        ),
        (
            format!("{TAIL}\n{HEAD}  privacy,HIGH,Emails,R-1,Mask\n  security,LOW,Weak"),
            unknown,
            (ParseErrorKind::Syntax, Some(6)),
            "the row cannot be read (`security,LOW,Weak`: row has 3 cells but the header names 5 fields; quote any cell that contains the delimiter)",
            ", and it is the reply's last line, short of cells: the reply was either cut off by the token limit or the model left a cell out; pass the server's finish_reason (ReplyOptions::finish_reason) to decide which",
        ),
    ];
    for (reply, options, (kind, line), said, advice) in cases {
        let e = ToonOutputParser::<ComplianceAnalysis>::new()
            .options(options)
            .parse_with_report(&reply)
            .unwrap_err();
        assert_eq!((e.kind(), e.line()), (kind, line), "{e}");
        assert_eq!(e.message(), format!("{said}{advice}"));
        let turn = e.retry_prompt();
        let first = said.split(" (").next().unwrap_or(said);
        assert!(turn.contains(first), "{turn}");
        assert!(
            !turn.contains(advice.trim_start_matches([';', ',', ' '])),
            "{turn}"
        );
        assert!(
            !turn.contains("ReplyOptions") && !turn.contains("finish_reason"),
            "{turn}"
        );
    }
}

/// A reply the server says it cut off is refused as `Truncated` whatever
/// failed in it, and the refusal stays where the failure is: its line, its
/// column and the field's path, as the same reply with no word from the
/// server has them.
#[test]
fn a_refusal_in_a_reply_the_server_cut_keeps_its_place() {
    use common::types::ComplianceAnalysis;
    use toon_core::ReplyOptions;
    let reply = "violations[0]:\naudit_trail: R-1\nspoken_response: x\ncompliance_status: MAYBE";
    let read = |finish_reason| {
        ToonOutputParser::<ComplianceAnalysis>::new()
            .options(ReplyOptions {
                finish_reason,
                ..Default::default()
            })
            .parse_with_report(reply)
            .unwrap_err()
    };
    let (plain, cut) = (read(FinishReason::Unknown), read(FinishReason::Length));
    assert_eq!(plain.kind(), ParseErrorKind::InvalidValue, "{plain}");
    assert_eq!(cut.kind(), ParseErrorKind::Truncated, "{cut}");
    let place = |e: &toon_core::ParseError| (e.line(), e.column(), e.path().map(str::to_owned));
    assert_eq!(place(&cut), place(&plain));
    assert_eq!(
        place(&cut),
        (Some(4), Some(20), Some("compliance_status".to_owned()))
    );
    assert_eq!(
        cut.message(),
        format!(
            "the server stopped the reply at its token limit, and what it wrote does not read ({}); raise max_tokens or ask for fewer items",
            plain.message()
        )
    );
}
