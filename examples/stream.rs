//! Streaming: each violation printed the moment its row is complete, while the
//! model is still writing the rest.
//!
//! ```sh
//! cargo run --example stream                       # a recorded reply, fed 4 characters at a time
//! cargo run --example stream -- --server http://127.0.0.1:8080/v1/chat/completions
//! ```

#[allow(dead_code)] // the example uses only the streaming half of the helper
#[path = "support/chat.rs"]
mod chat;

use std::io::Write;

use toon_core::{
    stream::Event as StreamEvent, stream::Events as StreamEvents, FinishReason, Toon, ToonStream,
};

/// The result of checking a document against the compliance rules.
#[derive(Debug, Toon)]
pub struct ComplianceAnalysis {
    /// COMPLIANT only if no rule is broken.
    pub compliance_status: String,
    /// Every rule the document breaks, one row each.
    pub violations: Vec<Violation>,
    /// One or two sentences a voice assistant can say to the user.
    pub spoken_response: String,
}

#[derive(Debug, PartialEq, Toon)]
pub struct Violation {
    /// The rule family: privacy, security, retention, consent, ...
    pub category: String,
    /// HIGH, MEDIUM or LOW.
    pub severity: String,
    /// What is wrong, in one sentence.
    pub description: String,
}

/// A stream decoder that prints each violation the moment it is decided.
pub struct Printer {
    stream: ToonStream<ComplianceAnalysis>,
    seen: Vec<Violation>,
}

impl Default for Printer {
    fn default() -> Self {
        Self::new()
    }
}

impl Printer {
    pub fn new() -> Self {
        Printer {
            stream: ToonStream::new(),
            seen: Vec::new(),
        }
    }

    /// Feeds the next piece of the reply, printing what it decided.
    pub fn push(&mut self, chunk: &str, out: &mut dyn Write) {
        let events = self.stream.push(chunk);
        self.show(events, out);
    }

    /// The reply has ended: prints what its end decided; returns the
    /// violations in the order printed, and the finished value's.
    pub fn finish(
        mut self,
        finish_reason: FinishReason,
        out: &mut dyn Write,
    ) -> Result<(Vec<Violation>, Vec<Violation>), String> {
        let events = self.stream.end();
        self.show(events, out);
        let done = self
            .stream
            .finish_with(finish_reason)
            .map_err(|e| e.to_string())?;
        Ok((self.seen, done.value.violations))
    }

    fn show(&mut self, events: StreamEvents, out: &mut dyn Write) {
        for event in events {
            match &event {
                StreamEvent::Item { key, index, .. } if key == "violations" => {
                    if let Ok(v) = event.decode::<Violation>() {
                        let _ = writeln!(
                            out,
                            "violation {}: [{}] {}: {}",
                            index + 1,
                            v.severity,
                            v.category,
                            v.description
                        );
                        let _ = out.flush();
                        self.seen.push(v);
                    }
                }
                StreamEvent::Field { key, value, .. } => {
                    let _ = writeln!(out, "{key}: {value}");
                }
                // The lines so far were reasoning or prose, not the answer.
                StreamEvent::Withdrawn => {
                    self.seen.clear();
                    let _ = writeln!(out, "(withdrawn: the lines above were not the answer)");
                }
                _ => {}
            }
        }
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
