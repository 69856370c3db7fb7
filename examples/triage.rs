//! A typed value from a server, through the exchange, with ureq: the glue
//! beyond sending the request is the loop in `ask_server`, four lines. The
//! exchange builds each request (the instructions, the type's format, the
//! constraint, the token limit) and reads each response; on a refusal its
//! next body asks again.
//!
//! ```sh
//! cargo run --example triage        # recorded responses: a refusal, then the value
//! cargo run --example triage -- --server http://127.0.0.1:8765 [grammar|json-schema|tool|prompted] [llama-server|llama-cpp-python]
//! ```

use std::error::Error;

use serde_json::{json, Value};
use toon_core::exchange::{Exchange, Mechanism, Server};
use toon_core::retry::Retried;
use toon_core::{OutputSchema, Toon};

/// How bad a bug is.
#[derive(Debug, Clone, Copy, PartialEq, Toon, OutputSchema)]
#[toon(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Severity {
    /// Cosmetic, or with an easy workaround.
    Minor,
    /// A feature does not work.
    Major,
    /// Data is lost, or nothing works.
    Critical,
}

/// A bug report, triaged.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
pub struct Triage {
    /// What is wrong, in a few words.
    #[toon(length(max = 60))]
    pub title: String,
    /// How bad it is.
    pub severity: Severity,
    /// When to fix it: 1 now, 5 some day.
    #[toon(range(min = 1, max = 5))]
    pub priority: u8,
    /// The part of the program it is in, in one word.
    #[toon(max_len = 20)]
    pub component: String,
    /// The version the reporter used, as written in the report.
    #[toon(max_len = 12)]
    pub reported_version: String,
}

/// The exchange this program uses for a mechanism and a server.
pub fn exchange(mechanism: Mechanism, server: Server) -> Exchange<Triage> {
    Exchange::<Triage>::new(mechanism, server)
        .instructions("You triage bug reports for a photo editor.")
        .example(
            "Report: Version 2.1 crashes when I open a PNG file.",
            &Triage {
                title: "Crash opening PNG files".into(),
                severity: Severity::Critical,
                priority: 1,
                component: "import".into(),
                reported_version: "2.1".into(),
            },
        )
        .field("temperature", json!(0))
        .field("seed", json!(7))
}

/// Asks the server at `url` (its `/v1/chat/completions`) until a reply reads
/// or the exchange's attempts run out.
pub fn ask_server(
    url: &str,
    exchange: &Exchange<Triage>,
    report: &str,
) -> Result<Retried<Triage>, Box<dyn Error>> {
    let mut ask = exchange.ask(report);
    loop {
        let response: Value = ureq::post(url)
            .send_json(ask.body())?
            .body_mut()
            .read_json()?;
        if let Some(done) = ask.read(&response)? {
            return Ok(done);
        }
    }
}

/// The same loop over recorded responses, in order.
pub fn ask_recorded(
    exchange: &Exchange<Triage>,
    report: &str,
    responses: &[Value],
) -> Result<Retried<Triage>, Box<dyn Error>> {
    let mut ask = exchange.ask(report);
    for response in responses {
        if let Some(done) = ask.read(response)? {
            return Ok(done);
        }
    }
    Err("the recorded responses ran out".into())
}

/// The report the example asks about.
pub const REPORT: &str =
    "Report: Since 3.20 the brush tool draws a line one pixel off from the cursor. Annoying but I can live with it.";

/// Two responses as llama-server sends them: a reply that breaks the
/// priority's range, then one that reads.
pub fn recorded() -> Vec<Value> {
    let reply = |content: &str| {
        json!({"choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
               "usage": {"prompt_tokens": 310, "completion_tokens": 31}})
    };
    vec![
        reply("title: Brush offset by one pixel\nseverity: MINOR\npriority: 7\ncomponent: brush\nreported_version: 3.20"),
        reply("title: Brush offset by one pixel\nseverity: MINOR\npriority: 4\ncomponent: brush\nreported_version: 3.20"),
    ]
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let done = match args.first().map(String::as_str) {
        Some("--server") => {
            let url = format!(
                "{}/v1/chat/completions",
                args.get(1).ok_or("--server needs a URL")?
            );
            let mechanism = match args.get(2).map(String::as_str) {
                None | Some("grammar") => Mechanism::Grammar,
                Some("json-schema") => Mechanism::JsonSchema,
                Some("tool") => Mechanism::Tool,
                Some("prompted") => Mechanism::Prompted,
                Some(other) => return Err(format!("no mechanism `{other}`").into()),
            };
            let server = match args.get(3).map(String::as_str) {
                None | Some("llama-server") => Server::LlamaServer,
                Some("llama-cpp-python") => Server::LlamaCppPython,
                Some(other) => return Err(format!("no server `{other}`").into()),
            };
            ask_server(&url, &exchange(mechanism, server), REPORT)?
        }
        _ => ask_recorded(
            &exchange(Mechanism::Grammar, Server::LlamaServer),
            REPORT,
            &recorded(),
        )?,
    };
    for (i, attempt) in done.attempts.iter().enumerate() {
        match &attempt.outcome {
            Ok(_) => eprintln!("attempt {}: read", i + 1),
            Err(e) => eprintln!("attempt {}: {e}", i + 1),
        }
    }
    println!("{:?}", done.value);
    Ok(())
}
