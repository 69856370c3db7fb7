//! The compliance agent's last step: read the model's reply into the
//! application's own response type, and say so loudly when the reply is unusable.
//!
//! ```sh
//! cargo run --example compliance                      # the recorded reply
//! cargo run --example compliance -- path/to/reply.txt # any other reply
//! ```
//!
//! It never reports "no violations" for a reply it could not read: an unusable
//! reply prints the reason and exits with status 2.

use std::io::Write;
use std::process::ExitCode;

use serde::Deserialize;

/// The intermediate shape the model is asked to write.
#[derive(Debug, Deserialize)]
struct ComplianceAnalysis {
    compliance_status: String,
    violations: Vec<Violation>,
    audit_trail: String,
    spoken_response: String,
}

#[derive(Debug, Deserialize)]
struct Violation {
    category: String,
    severity: String,
    description: String,
    related_rule_id: String,
    remediation: String,
}

/// The application's own response type (standing in for a generated wire message).
#[derive(Debug)]
struct ComplianceResponse {
    compliant: bool,
    findings: Vec<Finding>,
    audit_log: String,
    speech: String,
}

#[derive(Debug)]
struct Finding {
    rule: String,
    severity: String,
    summary: String,
    fix: String,
}

fn to_response(a: ComplianceAnalysis) -> ComplianceResponse {
    ComplianceResponse {
        compliant: a.compliance_status == "COMPLIANT",
        findings: a
            .violations
            .into_iter()
            .map(|v| Finding {
                rule: v.related_rule_id,
                severity: v.severity,
                summary: format!("{}: {}", v.category, v.description),
                fix: v.remediation,
            })
            .collect(),
        audit_log: a.audit_trail,
        speech: a.spoken_response,
    }
}

fn main() -> ExitCode {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/replies/compliance.txt"
        )
        .to_owned()
    });
    match std::fs::read_to_string(&path) {
        Ok(completion) => ExitCode::from(run(
            &completion,
            &mut std::io::stdout(),
            &mut std::io::stderr(),
        )),
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            ExitCode::from(1)
        }
    }
}

/// Reads one completion; returns the exit status (0 read, 2 unusable).
pub fn run(completion: &str, out: &mut impl Write, err: &mut impl Write) -> u8 {
    let reply = match toon_core::decode_reply_with_report(completion) {
        Ok(reply) => reply,
        Err(e) => {
            let _ = writeln!(
                err,
                "{e}\nThe reply is unusable; no compliance result is reported."
            );
            return 2;
        }
    };
    for repair in &reply.repairs {
        let _ = writeln!(out, "repaired  {repair}");
    }
    let analysis: ComplianceAnalysis = match serde_json::from_value(reply.value) {
        Ok(a) => a,
        Err(e) => {
            let _ = writeln!(
                err,
                "TOON_PARSE_FAILURE: the reply does not have the expected shape: {e}"
            );
            return 2;
        }
    };
    let response = to_response(analysis);
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
    0
}
