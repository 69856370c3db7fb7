//! Asking again when a reply is refused: the refusal becomes the next user turn
//! (`ParseError::retry_prompt`), and `ToonOutputParser::parse_with_retries`
//! sends it through whatever client the program already has.
//!
//! ```sh
//! cargo run --example retry                      # two recorded answers: refused, then read
//! cargo run --example retry -- --server http://127.0.0.1:8080/v1/chat/completions
//! ```

#[allow(dead_code)] // the example uses the one-shot half of the helper
#[path = "support/chat.rs"]
mod chat;

use std::io::Write;

use serde_json::{json, Value};
use toon_core::{retry::RetryError, retry::Turn, FinishReason, Toon, ToonOutputParser};

/// Objects seen in a described scene.
#[derive(Debug, Toon)]
pub struct Scene {
    /// Every object, one row each.
    pub objects: Vec<Object>,
    /// How many objects there are.
    pub count: u32,
}

#[derive(Debug, Toon)]
pub struct Object {
    pub label: Label,
    /// How sure, from 0 to 1.
    pub score: f64,
}

#[derive(Debug, PartialEq, Toon)]
#[toon(rename_all = "snake_case")]
pub enum Label {
    Cup,
    Spoon,
    Plate,
}

/// The parser with the call site's own check: the count must match the rows.
pub fn parser() -> ToonOutputParser<Scene> {
    ToonOutputParser::<Scene>::new().validate(|s: &Scene| {
        if s.count as usize == s.objects.len() {
            Ok(())
        } else {
            Err(format!(
                "`count` is {} but {} objects are listed; make them agree",
                s.count,
                s.objects.len()
            ))
        }
    })
}

/// How a run ended.
#[derive(Debug, PartialEq)]
pub enum Done {
    /// The answer was read, after this many attempts.
    Read(usize),
    /// Every attempt was refused.
    Refused,
    /// Sending failed (the attempts before it are printed).
    SendFailed,
}

/// Asks through `send`, at most two retries; prints each attempt and how it ended.
pub fn run<E: std::fmt::Display>(
    send: impl FnMut(&[Value]) -> Result<Turn, E>,
    out: &mut impl Write,
) -> Done {
    let messages = vec![
        json!({"role": "system", "content": format!("You list the objects in a scene and answer in TOON.\n\n{}", Scene::toon_prompt())}),
        json!({"role": "user", "content": "Scene: two cups and a spoon"}),
    ];
    let report = |attempts: &[toon_core::retry::Attempt], out: &mut dyn Write| {
        for (i, a) in attempts.iter().enumerate() {
            match &a.outcome {
                Ok(repairs) => {
                    let _ = writeln!(out, "attempt {}: read ({} repairs)", i + 1, repairs.len());
                }
                Err(e) => {
                    let _ = writeln!(
                        out,
                        "attempt {}: {e}\n  next turn: {}",
                        i + 1,
                        e.retry_prompt().replace('\n', "\n  ")
                    );
                }
            }
        }
    };
    match parser().parse_with_retries(messages, 2, send) {
        Ok(got) => {
            report(&got.attempts, out);
            let _ = writeln!(out, "{} objects: {:?}", got.value.count, got.value.objects);
            Done::Read(got.attempts.len())
        }
        Err(RetryError::Refused { attempts }) => {
            report(&attempts, out);
            let _ = writeln!(out, "every attempt was refused; nothing is reported");
            Done::Refused
        }
        Err(RetryError::Send { error, attempts }) => {
            report(&attempts, out);
            let _ = writeln!(out, "sending failed: {error}");
            Done::SendFailed
        }
        Err(e) => {
            let _ = writeln!(out, "{e}");
            Done::SendFailed
        }
    }
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = std::io::stdout();
    let done = match args.as_slice() {
        [flag, url] if flag == "--server" => run(
            |messages| {
                let mut body = json!({"model": "local", "messages": messages, "temperature": 0.8, "max_tokens": 200});
                body["seed"] = json!(7);
                chat::complete(url, &body)
                    .map(|c| Turn::new(c.content, FinishReason::from_openai(&c.finish_reason)))
            },
            &mut out,
        ),
        [] => {
            let mut recorded = vec![
                "objects[3]{label,score}:\n  cup,0.9\n  cup,0.8\n  spoon,0.7\ncount: 3",
                "objects[3]{label,score}:\n  cup,0.9\n  cup,0.8\n  spoon,0.7\ncount: 2",
            ];
            run(
                |_| {
                    Ok::<_, String>(Turn::new(
                        recorded.pop().unwrap_or_default(),
                        FinishReason::Stop,
                    ))
                },
                &mut out,
            )
        }
        _ => {
            eprintln!("usage: retry [--server URL]");
            return std::process::ExitCode::from(1);
        }
    };
    match done {
        Done::Read(_) => std::process::ExitCode::SUCCESS,
        Done::Refused => std::process::ExitCode::from(2),
        // As the other examples: a network failure is not a refused answer.
        Done::SendFailed => std::process::ExitCode::from(1),
    }
}
