//! A constrained reply is never cut at the token limit: the longest reply a
//! type's grammar admits (`toon_max_reply_bytes`) is known, every value at its
//! bounds is written within it, `constrain_request` sets a limit that holds it
//! or refuses one that does not; and a reasoning block may come before the
//! document (`GrammarOptions::reasoning`).

mod common;

use common::grammar::Checker;
use common::types::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use toon_core::{
    constrain_request, grammar::GrammarOptions, grammar::DEFAULT_MAX_ITEMS,
    grammar::DEFAULT_MAX_LEN, GrammarServer, GrammarSyntax, RepairKind, Toon,
};

/// Text of exactly `n` characters drawn from ones that take one to four bytes
/// written, or two as an escape (`"`, `\`, a line break), starting with a letter.
fn text_of(n: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            'a', 'Z', ' ', ',', ':', '"', '\\', '\n', 'é', '你', '🚀',
        ]),
        n - 1,
    )
    .prop_map(|rest| std::iter::once('x').chain(rest).collect())
}

/// The compliance answer with every list and text at its default bound.
fn plain_at_bounds() -> impl Strategy<Value = PlainCompliance> {
    let max = DEFAULT_MAX_LEN as usize;
    let violation = (text_of(max), common::strategies::severity(), text_of(max)).prop_map(
        |(category, severity, description)| PlainViolation {
            category,
            severity,
            description,
        },
    );
    (
        prop::collection::vec(violation, DEFAULT_MAX_ITEMS as usize),
        text_of(max),
    )
        .prop_map(|(violations, summary)| PlainCompliance {
            compliance_status: Status::NonCompliant,
            violations,
            summary,
        })
}

/// The bounded compliance answer with every list and text at its own bound.
fn compliance_at_bounds() -> impl Strategy<Value = ComplianceAnalysis> {
    let violation = (
        text_of(16),
        common::strategies::severity(),
        text_of(80),
        text_of(6),
        text_of(60),
    )
        .prop_map(
            |(category, severity, description, related_rule_id, remediation)| Violation {
                category,
                severity,
                description,
                related_rule_id,
                remediation,
            },
        );
    (
        prop::collection::vec(violation, 5),
        text_of(60),
        text_of(120),
    )
        .prop_map(
            |(violations, audit_trail, spoken_response)| ComplianceAnalysis {
                compliance_status: Status::NonCompliant,
                violations,
                audit_trail,
                spoken_response,
                internal_note: String::new(),
                confidence: Some(0.123_456),
            },
        )
}

thread_local! {
    static PLAIN: [Checker; 2] = Checker::both::<PlainCompliance>();
    static COMPLIANCE: [Checker; 2] = Checker::both::<ComplianceAnalysis>();
}

/// The value's TOON is admitted by both grammars and within the worst case.
fn within_worst<T: Toon>(grammars: &[Checker; 2], x: &T) -> Result<(), TestCaseError> {
    let text = x.to_toon();
    for (g, syntax) in grammars.iter().zip(["Lark", "GBNF"]) {
        prop_assert!(
            g.accepts(&text),
            "the {} grammar refuses:\n{}",
            syntax,
            text
        );
    }
    prop_assert!(
        text.len() <= T::toon_max_reply_bytes(),
        "{} bytes written, worst case {}",
        text.len(),
        T::toon_max_reply_bytes()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn values_at_their_default_bounds_are_within_the_worst_case(x in plain_at_bounds()) {
        PLAIN.with(|g| within_worst(g, &x))?;
    }

    #[test]
    fn values_at_their_own_bounds_are_within_the_worst_case(x in compliance_at_bounds()) {
        COMPLIANCE.with(|g| within_worst(g, &x))?;
    }

    /// One character past a text's bound, or one item past a list's, is
    /// refused by both grammars (text that begins with a letter: GBNF holds
    /// the bound exactly there).
    #[test]
    fn one_past_a_bound_is_refused(
        x in plain_at_bounds(),
        field in 0usize..4,
        extra in prop::sample::select(vec!['a', 'é', '🚀', ' ']),
    ) {
        let mut past = x.clone();
        match field {
            0 => past.summary.push('b'),
            1 => past.violations[3].category.insert(1, extra),
            2 => past.violations[9].description.insert(1, extra),
            _ => past.violations.push(x.violations[0].clone()),
        }
        let text = past.to_toon();
        PLAIN.with(|grammars| {
            for (g, syntax) in grammars.iter().zip(["Lark", "GBNF"]) {
                prop_assert!(!g.accepts(&text), "the {} grammar admits one past a bound:\n{}", syntax, text);
            }
            Ok(())
        })?;
    }
}

/// The worst case of every example type, pinned beside its grammar: a change
/// of bounds is a change of what a request's token limit must hold.
fn worst<T: Toon>(name: &str) -> String {
    let [gbnf, lark] = [GrammarSyntax::Gbnf, GrammarSyntax::Lark]
        .map(|s| GrammarOptions::new(s).max_reply_bytes::<T>());
    assert_eq!(T::toon_max_reply_bytes(), gbnf.max(lark), "{name}");
    format!("{name}: GBNF {gbnf}, Lark {lark}\n")
}

#[test]
fn the_worst_case_of_every_example_type_is_pinned() {
    let text = [
        worst::<Capital>("Capital"),
        worst::<Answer>("Answer"),
        worst::<Detections>("Detections"),
        worst::<ComplianceAnalysis>("ComplianceAnalysis"),
        worst::<PlainCompliance>("PlainCompliance"),
        worst::<Sourced>("Sourced"),
        worst::<SourcedProse>("SourcedProse"),
        worst::<LongBounds>("LongBounds"),
        worst::<Vec<String>>("Vec<String>"),
        worst::<bool>("bool"),
    ]
    .concat();
    insta::assert_snapshot!("worst_case_bytes", text);
    // Lark holds a text's bound exactly: two texts of at most 200 characters,
    // quoted, each a control character's six-byte escape (`\u001F`), their
    // keys and a line break.
    let lark = GrammarOptions::new(GrammarSyntax::Lark).max_reply_bytes::<Capital>();
    let quoted = 6 * DEFAULT_MAX_LEN as usize + 2;
    assert_eq!(lark, 2 * quoted + "country: \ncapital: ".len());
    assert_eq!(bool::toon_max_reply_bytes(), "false".len());
    assert_eq!(u8::toon_max_reply_bytes(), "255".len());
}

fn question() -> Value {
    json!({"model": "local", "messages": [{"role": "user", "content": "Check this."}]})
}

/// The worst case in the server's syntax.
fn worst_for(server: GrammarServer) -> usize {
    GrammarOptions::new(server.syntax()).max_reply_bytes::<PlainCompliance>()
}

#[test]
fn a_request_without_a_limit_gets_the_worst_case_in_the_servers_field() {
    for (server, field) in [
        (GrammarServer::LlamaCpp, "max_tokens"),
        (GrammarServer::Vllm, "max_tokens"),
        (GrammarServer::OpenAi, "max_completion_tokens"),
        (GrammarServer::OpenAiResponses, "max_output_tokens"),
    ] {
        let mut body = question();
        if server == GrammarServer::OpenAiResponses {
            body = json!({"model": "gpt-5", "input": "Check this."});
        }
        constrain_request::<PlainCompliance>(&mut body, server).unwrap();
        assert_eq!(body[field], json!(worst_for(server)), "{server:?}");
        let others = ["max_tokens", "max_completion_tokens", "max_output_tokens"];
        for other in others.iter().filter(|o| **o != field) {
            assert!(body.get(*other).is_none(), "{server:?} set {other} too");
        }
    }
}

#[test]
fn a_limit_that_holds_the_worst_case_is_kept() {
    let worst = worst_for(GrammarServer::LlamaCpp) as u64;
    for limit in [worst, worst + 1, 100_000] {
        let mut body = question();
        body["max_tokens"] = json!(limit);
        constrain_request::<PlainCompliance>(&mut body, GrammarServer::LlamaCpp).unwrap();
        assert_eq!(body["max_tokens"], json!(limit));
    }
    // A limit set to null is no limit.
    let mut body = question();
    body["max_tokens"] = Value::Null;
    constrain_request::<PlainCompliance>(&mut body, GrammarServer::LlamaCpp).unwrap();
    assert_eq!(body["max_tokens"], json!(worst));
}

#[test]
fn a_limit_too_small_is_refused_with_both_figures_and_the_largest_fields() {
    for (field, server) in [
        ("max_tokens", GrammarServer::LlamaCpp),
        ("n_predict", GrammarServer::LlamaCpp),
        ("max_completion_tokens", GrammarServer::OpenAi),
        ("max_tokens", GrammarServer::Vllm),
    ] {
        let mut body = question();
        body[field] = json!(400);
        let before = body.clone();
        let err = constrain_request::<PlainCompliance>(&mut body, server).unwrap_err();
        let message = err.to_string();
        assert!(message.contains(&format!("`{field}` is 400")), "{message}");
        let worst = worst_for(server);
        assert!(
            message.contains(&format!("takes {worst} bytes")),
            "{message}"
        );
        // The list of violations takes the most, then the summary.
        let (violations, summary) = (
            message.find("`violations` (up to").expect(&message),
            message.find("`summary` (up to").expect(&message),
        );
        assert!(violations < summary, "{message}");
        assert_eq!(body, before, "nothing is changed on a refusal");
    }
    // The smallest of several limits is the one that counts.
    let worst = worst_for(GrammarServer::LlamaCpp) as u64;
    let mut body = question();
    body["max_tokens"] = json!(worst);
    body["n_predict"] = json!(worst - 1);
    let err = constrain_request::<PlainCompliance>(&mut body, GrammarServer::LlamaCpp);
    assert!(err.unwrap_err().to_string().contains("`n_predict`"));
    // Not a number of tokens.
    let mut body = question();
    body["max_tokens"] = json!("400");
    let err = constrain_request::<PlainCompliance>(&mut body, GrammarServer::LlamaCpp);
    assert!(err.unwrap_err().to_string().contains("not a whole number"));
}

fn capital_reply() -> String {
    Capital {
        country: "France".into(),
        capital: "Paris".into(),
    }
    .to_toon()
}

#[test]
fn no_options_is_the_plain_grammar() {
    for syntax in [GrammarSyntax::Gbnf, GrammarSyntax::Lark] {
        assert_eq!(
            GrammarOptions::new(syntax).grammar::<PlainCompliance>(),
            PlainCompliance::toon_grammar(syntax)
        );
        // Tags without a block change nothing.
        let tags = GrammarOptions::new(syntax).reasoning_tags("<r>", "</r>");
        assert_eq!(tags.grammar::<Capital>(), Capital::toon_grammar(syntax));
    }
}

#[test]
fn a_reasoning_block_may_come_first_and_nowhere_else() {
    let doc = capital_reply();
    let think = "<think>\nThe question names France; its capital is Paris.\n</think>\n";
    for syntax in [GrammarSyntax::Lark, GrammarSyntax::Gbnf] {
        let options = GrammarOptions::new(syntax).reasoning(60);
        let grammar = options.grammar::<Capital>();
        let g = match syntax {
            GrammarSyntax::Lark => Checker::lark(&grammar),
            _ => Checker::gbnf(&grammar),
        };
        assert!(g.accepts(&format!("{think}{doc}")), "{syntax:?}");
        assert!(g.accepts(&doc), "{syntax:?}: the block is optional");
        assert!(g.accepts(&format!("<think></think>\n{doc}")), "{syntax:?}");
        // After the document, twice, unclosed, past its bound, with the closing tag's `<` inside.
        assert!(!g.accepts(&format!("{doc}\n{think}")), "{syntax:?}");
        assert!(!g.accepts(&format!("{think}{think}{doc}")), "{syntax:?}");
        assert!(
            !g.accepts(&format!("<think>\nstill thinking\n{doc}")),
            "{syntax:?}"
        );
        let at_bound = format!("<think>{}</think>\n{doc}", "x".repeat(60));
        let past = format!("<think>{}</think>\n{doc}", "x".repeat(61));
        assert!(g.accepts(&at_bound) && !g.accepts(&past), "{syntax:?}");
        assert!(
            !g.accepts(&format!("<think>a < b</think>\n{doc}")),
            "{syntax:?}"
        );
        // Without the option, no block at all.
        let plain = match syntax {
            GrammarSyntax::Lark => Checker::lark(&Capital::toon_grammar(syntax)),
            _ => Checker::gbnf(&Capital::toon_grammar(syntax)),
        };
        assert!(!plain.accepts(&format!("{think}{doc}")), "{syntax:?}");
    }
    // Other tags, for models that use them.
    let options = GrammarOptions::new(GrammarSyntax::Lark)
        .reasoning(60)
        .reasoning_tags("[THINK]", "[/THINK]");
    let g = Checker::lark(&options.grammar::<Capital>());
    assert!(g.accepts(&format!("[THINK]Paris.[/THINK]\n{doc}")));
    assert!(!g.accepts(&format!("{think}{doc}")));
}

#[test]
fn the_worst_case_counts_the_reasoning_block() {
    let options = GrammarOptions::new(GrammarSyntax::Gbnf).reasoning(600);
    let block = "<think>".len() + 600 * 4 + "</think>\n".len();
    assert_eq!(
        options.max_reply_bytes::<Capital>(),
        GrammarOptions::new(GrammarSyntax::Gbnf).max_reply_bytes::<Capital>() + block
    );
    let mut body = question();
    options
        .constrain_request::<Capital>(&mut body, GrammarServer::LlamaCpp)
        .unwrap();
    assert_eq!(
        body["max_tokens"],
        json!(options.max_reply_bytes::<Capital>())
    );
    assert_eq!(body["grammar"], json!(options.grammar::<Capital>()));
    // A limit that holds the document but not the block is refused, naming it.
    let mut body = question();
    body["max_tokens"] =
        json!(GrammarOptions::new(GrammarSyntax::Gbnf).max_reply_bytes::<Capital>());
    let err = options
        .constrain_request::<Capital>(&mut body, GrammarServer::LlamaCpp)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the reasoning block (up to 600 characters)"),
        "{err}"
    );
    // Options in another syntax than the server's are refused.
    let lark = GrammarOptions::new(GrammarSyntax::Lark);
    let err = lark.constrain_request::<Capital>(&mut question(), GrammarServer::LlamaCpp);
    assert!(err.unwrap_err().to_string().contains("Gbnf"));
}

#[test]
fn the_decoder_strips_the_block_and_reports_it() {
    let reply = format!(
        "<think>\nFrance: the capital is Paris.\n</think>\n{}",
        capital_reply()
    );
    let read = toon_core::ToonOutputParser::<Capital>::new()
        .parse_with_report(&reply)
        .unwrap();
    assert_eq!(read.value.capital, "Paris");
    assert_eq!(read.repairs.len(), 1, "{:?}", read.repairs);
    assert_eq!(read.repairs[0].kind, RepairKind::StrippedReasoning);
    assert_eq!(read.repairs[0].line, 1);
    // The stream strips it as well.
    let mut stream = toon_core::ToonStream::<Capital>::new();
    for piece in reply.as_bytes().chunks(5) {
        let _ = stream.push(std::str::from_utf8(piece).unwrap());
    }
    let _ = stream.end();
    let streamed = stream.finish().unwrap();
    assert_eq!(streamed.value, read.value);
    assert_eq!(streamed.repairs, read.repairs);
}
