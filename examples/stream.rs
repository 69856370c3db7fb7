//! Streaming: the answer fills in while the model is still writing it. Each
//! violation is printed the moment its row is complete, and the partial value
//! (what the reply has given so far, typed) is rendered after each piece that
//! decided something.
//!
//! ```sh
//! cargo run --example stream                       # a recorded reply, fed 4 characters at a time
//! cargo run --example stream -- --server http://127.0.0.1:8080/v1/chat/completions
//! ```

#[allow(dead_code)] // the example uses only the streaming half of the helper
#[path = "support/chat.rs"]
mod chat;

use std::io::Write;

use toon_core::stream::{PartialStream, Update};
use toon_core::{FinishReason, Toon};

/// The result of checking a document against the compliance rules.
#[derive(Debug, Toon)]
#[toon(partial)] // generates ComplianceAnalysisPartial and ComplianceAnalysisEvent
pub struct ComplianceAnalysis {
    /// COMPLIANT only if no rule is broken.
    pub compliance_status: String,
    /// Every rule the document breaks, one row each.
    pub violations: Vec<Violation>,
    /// One or two sentences a voice assistant can say to the user.
    pub spoken_response: String,
}

#[derive(Debug, Clone, PartialEq, Toon)]
pub struct Violation {
    /// The rule family: privacy, security, retention, consent, ...
    pub category: String,
    /// HIGH, MEDIUM or LOW.
    pub severity: String,
    /// What is wrong, in one sentence.
    pub description: String,
}

/// A stream decoder that prints each violation the moment it is decided,
/// and what the answer holds so far.
pub struct Printer {
    stream: PartialStream<ComplianceAnalysis>,
    seen: Vec<Violation>,
}

impl Default for Printer {
    fn default() -> Self {
        Self::new()
    }
}

/// One line of what the answer holds so far: a field the model has not
/// reached is shown as not yet there, never as empty.
pub fn render(so_far: &ComplianceAnalysisPartial) -> String {
    let status = so_far.compliance_status.as_deref().unwrap_or("…");
    let rows = match &so_far.violations {
        Some(rows) => format!("{} violation(s)", rows.len()),
        None => "violations …".to_owned(),
    };
    let spoken = match &so_far.spoken_response {
        Some(said) => format!("\"{said}\""),
        None => "…".to_owned(),
    };
    format!("  [so far: status {status}, {rows}, spoken {spoken}]")
}

impl Printer {
    pub fn new() -> Self {
        Printer {
            stream: PartialStream::new(),
            seen: Vec::new(),
        }
    }

    /// Feeds the next piece of the reply, printing what it decided.
    pub fn push(&mut self, chunk: &str, out: &mut dyn Write) {
        let updates = self.stream.push(chunk);
        self.show(updates, out);
    }

    /// The reply has ended: prints what its end decided; returns the
    /// violations in the order printed, and the finished value's.
    pub fn finish(
        mut self,
        finish_reason: FinishReason,
        out: &mut dyn Write,
    ) -> Result<(Vec<Violation>, Vec<Violation>), String> {
        let updates = self.stream.end();
        self.show(updates, out);
        let done = self
            .stream
            .finish_with(finish_reason)
            .map_err(|e| e.to_string())?;
        Ok((self.seen, done.value.violations))
    }

    fn show(&mut self, updates: Vec<Update<ComplianceAnalysisEvent>>, out: &mut dyn Write) {
        if updates.is_empty() {
            return;
        }
        for update in updates {
            // Each value is named by its field: a typo is a compile error.
            match update {
                Update::Event(ComplianceAnalysisEvent::ComplianceStatus(status)) => {
                    let _ = writeln!(out, "compliance_status: {status}");
                }
                Update::Event(ComplianceAnalysisEvent::Violations(row)) => {
                    let v = row.value;
                    let _ = writeln!(
                        out,
                        "violation {}: [{}] {}: {}",
                        row.index + 1,
                        v.severity,
                        v.category,
                        v.description
                    );
                    self.seen.push(v);
                }
                Update::Event(ComplianceAnalysisEvent::SpokenResponse(said)) => {
                    let _ = writeln!(out, "spoken_response: {said}");
                }
                // The lines so far were reasoning or prose, not the answer.
                Update::Withdrawn => {
                    self.seen.clear();
                    let _ = writeln!(out, "(withdrawn: the lines above were not the answer)");
                }
            }
        }
        let _ = writeln!(out, "{}", render(self.stream.partial()));
        let _ = out.flush();
    }
}

/// Feeds `chunks` to a [`Printer`]; returns the violations in the order
/// printed, and the finished value's.
pub fn run<'a>(
    chunks: impl IntoIterator<Item = &'a str>,
    finish_reason: FinishReason,
    out: &mut impl Write,
) -> Result<(Vec<Violation>, Vec<Violation>), String> {
    let mut printer = Printer::new();
    for chunk in chunks {
        printer.push(chunk, out);
    }
    printer.finish(finish_reason, out)
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = std::io::stdout();
    let result = match args.as_slice() {
        [flag, url] if flag == "--server" => {
            let example = ComplianceAnalysis {
                compliance_status: "NON_COMPLIANT".into(),
                violations: vec![Violation {
                    category: "security".into(),
                    severity: "HIGH".into(),
                    description: "Passwords are stored in plain text".into(),
                }],
                spoken_response: "One problem: passwords are not protected.".into(),
            }
            .to_toon();
            let body = chat::request_with_example(
                &format!(
                    "Check the document against rules R-1 to R-9 and answer in TOON.\n\n{}",
                    ComplianceAnalysis::toon_prompt()
                ),
                Some(("Document: we store passwords in plain text.", &example)),
                "Document: we keep customer emails in plain-text logs forever and never ask for consent.",
                serde_json::json!({ "max_tokens": 256, "temperature": 0 }),
            );
            // Each piece goes to the decoder as it arrives: a violation is
            // printed while the model is still writing the rest.
            let mut printer = Printer::new();
            let finish = match chat::stream(url, &body, |piece| printer.push(piece, &mut out)) {
                Ok(reason) => {
                    eprintln!("finish_reason: {reason}");
                    FinishReason::from_openai(&reason)
                }
                Err(e) => {
                    eprintln!("{e}");
                    return std::process::ExitCode::from(1);
                }
            };
            printer.finish(finish, &mut out)
        }
        [] => {
            let reply = include_str!("replies/stream.txt");
            let chars: Vec<char> = reply.chars().collect();
            let chunks: Vec<String> = chars.chunks(4).map(|c| c.iter().collect()).collect();
            run(
                chunks.iter().map(String::as_str),
                FinishReason::Unknown,
                &mut out,
            )
        }
        _ => {
            eprintln!("usage: stream [--server URL]");
            return std::process::ExitCode::from(1);
        }
    };
    match result {
        Ok(_) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            std::process::ExitCode::from(2)
        }
    }
}
