//! The compliance agent's last step, end to end: the struct, the text it puts in
//! the system prompt, a model's reply with the usual mistakes, the typed value,
//! what was repaired, and what happens when a reply is unusable.
//!
//! With `--server URL` it asks a real OpenAI-compatible server (llama.cpp's or
//! llama-cpp-python's) and constrains the reply with the type's own grammar
//! (`toon_grammar`), so the model can write nothing but this type's TOON.
//!
//! ```sh
//! cargo run --example compliance                      # the whole loop on recorded replies
//! cargo run --example compliance -- path/to/reply.txt # one reply; exit status 2 if unusable
//! cargo run --example compliance -- --server http://127.0.0.1:8080/v1/chat/completions \
//!     --document "We keep customer emails in plain-text logs."
//! ```

#[allow(dead_code)] // the example uses part of the shared chat helper
#[path = "support/chat.rs"]
mod chat;

use std::io::Write;
use std::process::ExitCode;

use serde_json::json;
use toon_core::{
    constrain_request, FinishReason, GrammarServer, RepairKind, Toon, ToonOutputParser,
};

/// The result of checking a document against the compliance rules.
#[derive(Debug, Toon)]
pub struct ComplianceAnalysis {
    /// COMPLIANT only if no rule is broken.
    compliance_status: ComplianceStatus,
    /// Every rule the document breaks, one row each.
    violations: Vec<Violation>,
    /// Which rules were checked, in a few words.
    audit_trail: String,
    /// One or two sentences a voice assistant can say to the user.
    spoken_response: String,
}

#[derive(Debug, PartialEq, Toon)]
#[toon(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ComplianceStatus {
    Compliant,
    NonCompliant,
}

/// How urgent the fix is.
#[derive(Debug, Toon)]
#[toon(rename_all = "UPPERCASE")]
pub enum Severity {
    /// Fix before release.
    High,
    Medium,
    Low,
}

#[derive(Debug, Toon)]
pub struct Violation {
    /// The rule family: privacy, security, retention, consent, ...
    category: String,
    severity: Severity,
    /// What is wrong, in one sentence.
    description: String,
    /// The id of the broken rule, e.g. R-12.
    related_rule_id: String,
    /// What to change.
    remediation: String,
}

/// The application's own response type (standing in for a generated wire message).
#[derive(Debug, PartialEq)]
pub struct ComplianceResponse {
    pub compliant: bool,
    pub findings: Vec<Finding>,
    pub audit_log: String,
    pub speech: String,
}

#[derive(Debug, PartialEq)]
pub struct Finding {
    pub rule: String,
    pub severity: &'static str,
    pub summary: String,
    pub fix: String,
}

/// Field by field onto the application's type: nothing is defaulted, so nothing
/// unread can pass for "no violations".
fn to_response(a: ComplianceAnalysis) -> ComplianceResponse {
    ComplianceResponse {
        compliant: a.compliance_status == ComplianceStatus::Compliant,
        findings: a
            .violations
            .into_iter()
            .map(|v| Finding {
                rule: v.related_rule_id,
                severity: match v.severity {
                    Severity::High => "high",
                    Severity::Medium => "medium",
                    Severity::Low => "low",
                },
                summary: format!("{}: {}", v.category, v.description),
                fix: v.remediation,
            })
            .collect(),
        audit_log: a.audit_trail,
        speech: a.spoken_response,
    }
}

/// Reads one completion; on success prints the repairs and the response and
/// returns it, on failure prints why and returns `None`. Never a default value.
pub fn run(
    completion: &str,
    finish_reason: FinishReason,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Option<ComplianceResponse> {
    let parser = ToonOutputParser::<ComplianceAnalysis>::new().finish_reason(finish_reason);
    match parser.parse_with_report(completion) {
        Ok(reply) => {
            for repair in &reply.repairs {
                let _ = writeln!(out, "repaired  {repair}");
            }
            // A dropped row is a violation the model wrote and the result lacks: say so.
            let dropped: Vec<_> = reply
                .repairs
                .iter()
                .filter(|r| r.kind == RepairKind::DroppedRow)
                .collect();
            if !dropped.is_empty() {
                let _ = writeln!(
                    out,
                    "WARNING   {} row(s) the model wrote could not be read and are not in the result (lines {}); refuse such replies with ToonOutputParser::refuse_dropped_rows",
                    dropped.len(),
                    dropped.iter().map(|r| r.line.to_string()).collect::<Vec<_>>().join(", ")
                );
            }
            let response = to_response(reply.value);
            let _ = writeln!(out, "compliant: {}", response.compliant);
            for f in &response.findings {
                let _ = writeln!(
                    out,
                    "finding   [{}] {} {} -> {}",
                    f.severity, f.rule, f.summary, f.fix
                );
            }
            let _ = writeln!(out, "audit     {}", response.audit_log);
            let _ = writeln!(out, "speech    {}", response.speech);
            Some(response)
        }
        Err(e) => {
            let _ = writeln!(
                err,
                "{e}\nThe reply is unusable; no compliance result is reported."
            );
            None
        }
    }
}

/// The rules the model checks against, in the system prompt.
const RULES: &str = "Rules: R-1 personal data must be encrypted; R-2 data must be deleted when no longer needed; \
    R-3 consent is required before collecting data; R-4 access must be limited and reviewed; R-5 passwords must be protected.";

/// One worked exchange for the prompt: small models copy its form.
fn example_answer() -> ComplianceAnalysis {
    ComplianceAnalysis {
        compliance_status: ComplianceStatus::NonCompliant,
        violations: vec![Violation {
            category: "privacy".into(),
            severity: Severity::High,
            description: "Health records are stored unencrypted".into(),
            related_rule_id: "R-1".into(),
            remediation: "Encrypt the records".into(),
        }],
        audit_trail: "Checked R-1 to R-5".into(),
        spoken_response: "One problem: health records are not encrypted.".into(),
    }
}

/// The request: the rules and the format in the system prompt, one example
/// exchange, the document; constrained to the type's grammar.
pub fn constrained_request(document: &str) -> serde_json::Value {
    let system = format!(
        "You check documents against rules and answer in TOON.\n{RULES}\n\n{}",
        ComplianceAnalysis::toon_prompt()
    );
    let example = example_answer().to_toon();
    let mut body = chat::request_with_example(
        &system,
        Some((
            "Document: We keep health records in a shared folder without encryption.",
            &example,
        )),
        &format!("Document: {document}"),
        // No `max_tokens`: `constrain_request` sets the longest reply the
        // grammar admits, so the reply is never cut.
        json!({"temperature": 0}),
    );
    constrain_request::<ComplianceAnalysis>(&mut body, GrammarServer::LlamaCpp)
        .expect("a plain chat request takes a grammar");
    body
}

fn ask(url: &str, document: &str) -> ExitCode {
    let completion = match chat::complete(url, &constrained_request(document)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    println!(
        "== The reply (finish_reason: {}):\n\n{}\n",
        completion.finish_reason, completion.content
    );
    let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
    let finish = FinishReason::from_openai(&completion.finish_reason);
    match run(&completion.content, finish, &mut out, &mut err) {
        Some(_) => ExitCode::SUCCESS,
        None => ExitCode::from(2),
    }
}

fn recorded(name: &str) -> String {
    let path = format!("{}/examples/replies/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn main() -> ExitCode {
    let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--server") {
        let Some(url) = args.get(1) else {
            eprintln!("usage: compliance --server URL [--document TEXT]");
            return ExitCode::from(1);
        };
        let document = match args.get(2).map(String::as_str) {
            Some("--document") => args.get(3).map_or("", String::as_str),
            _ => "We store customer emails in plain-text logs and never delete them.",
        };
        return ask(url, document);
    }
    if let Some(path) = args.first() {
        return match std::fs::read_to_string(path) {
            Ok(completion) => match run(&completion, FinishReason::Unknown, &mut out, &mut err) {
                Some(_) => ExitCode::SUCCESS,
                None => ExitCode::from(2),
            },
            Err(e) => {
                eprintln!("cannot read {path}: {e}");
                ExitCode::from(1)
            }
        };
    }
    println!("== The system prompt's format section (ComplianceAnalysis::toon_prompt()):\n");
    println!("{}\n", ComplianceAnalysis::toon_prompt());
    let reply = recorded("compliance.txt");
    println!("== A small model's reply:\n\n{reply}\n");
    println!("== Read with ToonOutputParser, mapped onto the application's type:\n");
    let ok = run(&reply, FinishReason::Unknown, &mut out, &mut err).is_some();
    let cut = recorded("compliance-truncated.txt");
    println!("\n== A reply cut off at the token limit:\n\n{cut}\n");
    let refused = run(&cut, FinishReason::Unknown, &mut out, &mut err).is_none();
    let dropped = recorded("compliance-dropped-row.txt");
    println!("\n== A reply with a row the model left a cell out of (the server said `stop`):\n\n{dropped}\n");
    let kept = run(&dropped, FinishReason::Stop, &mut out, &mut err).is_some();
    if ok && refused && kept {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}
