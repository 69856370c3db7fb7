//! An answer with citations: "found, with citations" and "not found" are two
//! variants of one enum, so they cannot both be claimed. And a successful parse
//! proves shape, not truth: each citation is checked against the sources that
//! were actually sent.
//!
//! ```sh
//! cargo run --example answer                      # a recorded reply that cites a source never sent
//! cargo run --example answer -- path/to/reply.txt
//! ```
//!
//! Exit status: 0 answered with valid citations (or honestly not found), 2 the
//! reply is unusable, 3 it parsed but cites a source that was not sent.

use std::io::Write;

use toon_core::Toon;

/// The sources sent with the question, numbered from 1.
pub const SOURCES: [&str; 3] = [
    "The lease runs from 1 March 2021 for four years.",
    "Either party may end the lease with three months' notice.",
    "Rent is reviewed every January.",
];

/// An answer to a question about the numbered sources.
#[derive(Debug, PartialEq, Toon)]
pub struct Answer {
    pub finding: Finding,
}

/// Whether the sources answer the question.
#[derive(Debug, PartialEq, Toon)]
#[toon(tag = "status", rename_all = "snake_case")]
pub enum Finding {
    /// The sources answer it.
    Found {
        /// The answer, in one sentence.
        answer: String,
        /// The numbers of the sources that say so.
        citations: Vec<u32>,
    },
    /// No source answers it.
    NotFound {
        /// What the sources do not say, briefly.
        reason: String,
    },
}

/// The prompt: the sources, the question, and the format.
pub fn prompt(question: &str) -> String {
    let sources: Vec<String> = SOURCES
        .iter()
        .enumerate()
        .map(|(i, s)| format!("[{}] {s}", i + 1))
        .collect();
    format!(
        "Sources:\n{}\n\nQuestion: {question}\n\n{}",
        sources.join("\n"),
        Answer::toon_prompt()
    )
}

/// Reads a reply and checks its citations; returns the exit status.
pub fn run(completion: &str, out: &mut impl Write, err: &mut impl Write) -> u8 {
    let answer = match Answer::from_toon(completion) {
        Ok(a) => a,
        Err(e) => {
            let _ = writeln!(err, "{e}");
            return 2;
        }
    };
    match answer.finding {
        Finding::NotFound { reason } => {
            let _ = writeln!(out, "not found: {reason}");
            0
        }
        Finding::Found { answer, citations } => {
            let _ = writeln!(out, "answer: {answer}");
            let unsent: Vec<u32> = citations
                .iter()
                .copied()
                .filter(|&c| c == 0 || c as usize > SOURCES.len())
                .collect();
            for c in citations.iter().filter(|c| !unsent.contains(c)) {
                let _ = writeln!(out, "  [{c}] {}", SOURCES[*c as usize - 1]);
            }
            if unsent.is_empty() && !citations.is_empty() {
                return 0;
            }
            let _ = writeln!(
                err,
                "the reply parsed, but it cites {unsent:?}, and only sources 1 to {} were sent (or it cites none): \
                 a valid shape is not a true answer",
                SOURCES.len()
            );
            3
        }
    }
}

fn main() -> std::process::ExitCode {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/examples/replies/answer.txt").to_owned()
    });
    let completion = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    println!(
        "{}\n\nreply:\n{completion}\n",
        prompt("When can the tenant end the lease?")
    );
    std::process::ExitCode::from(run(
        &completion,
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    ))
}
