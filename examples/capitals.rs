//! The JSON-Schema path, as a script-friendly command: the schema constrains the
//! server's decoding, the declarations tell the model what each field means, and
//! stdout carries nothing but the JSON of the typed value.
//!
//! ```sh
//! cargo run --example capitals                                  # the recorded reply
//! cargo run --example capitals -- --reply path/to/reply.json
//! cargo run --example capitals -- --server http://127.0.0.1:8080/v1/chat/completions \
//!     --dialect llama-cpp-python --country Japan
//! ```
//!
//! The request body and the prompt go to stderr. Exit status: 0 read, 2 the
//! reply is unusable (cut off, not JSON, wrong shape), 1 a usage or network error.

#[allow(dead_code)] // the example uses only the one-shot half of the helper
#[path = "support/chat.rs"]
mod chat;

use std::io::Write;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use toon_core::{
    schema::response_format, schema::SchemaDialect, FinishReason, OutputSchema, Toon,
    ToonOutputParser,
};

/// A country and its capital city.
#[derive(Debug, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
pub struct Capital {
    /// The country's name in English, as asked about.
    pub country: String,
    /// The name of the capital city of that country; a city, never the country's own name.
    pub capital: String,
}

/// The chat request: the declarations in the system prompt, the schema in `response_format`.
pub fn request_body(country: &str, dialect: SchemaDialect) -> Value {
    let system = format!(
        "Answer with one JSON object that follows these declarations:\n\n{}",
        Capital::schema_prompt()
    );
    chat::request(
        &system,
        &format!("What is the capital of {country}?"),
        json!({ "response_format": response_format::<Capital>(dialect), "max_tokens": 64, "temperature": 0 }),
    )
}

/// Decodes one reply, told how the server said it ended: the JSON on `out`
/// and status 0, or the reason on `err` and status 2.
pub fn run(
    completion: &str,
    finish_reason: FinishReason,
    out: &mut impl Write,
    err: &mut impl Write,
) -> u8 {
    let parser = ToonOutputParser::<Capital>::new()
        .json()
        .finish_reason(finish_reason);
    match parser.parse(completion) {
        Ok(capital) => {
            let _ = writeln!(
                out,
                "{}",
                serde_json::to_string(&capital).unwrap_or_default()
            );
            0
        }
        Err(e) => {
            let _ = writeln!(err, "{e}");
            2
        }
    }
}

struct Args {
    server: Option<String>,
    reply: Option<String>,
    country: String,
    dialect: SchemaDialect,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        server: None,
        reply: None,
        country: "France".into(),
        dialect: SchemaDialect::OpenAi,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--server" => a.server = Some(value()?),
            "--reply" => a.reply = Some(value()?),
            "--country" => a.country = value()?,
            "--dialect" => {
                a.dialect = match value()?.as_str() {
                    "openai" => SchemaDialect::OpenAi,
                    "llama-cpp-python" => SchemaDialect::LlamaCppPython,
                    other => {
                        return Err(format!(
                            "unknown dialect {other}; use openai or llama-cpp-python"
                        ))
                    }
                }
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

fn main() -> std::process::ExitCode {
    let args = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}\nusage: capitals [--server URL] [--dialect openai|llama-cpp-python] [--country NAME] [--reply FILE]");
            return std::process::ExitCode::from(1);
        }
    };
    let body = request_body(&args.country, args.dialect);
    eprintln!(
        "request body:\n{}\n",
        serde_json::to_string_pretty(&body).unwrap_or_default()
    );
    let (completion, finish) = match (&args.server, &args.reply) {
        (Some(url), _) => match chat::complete(url, &body) {
            Ok(c) => {
                eprintln!("finish_reason: {}", c.finish_reason);
                (c.content, FinishReason::from_openai(&c.finish_reason))
            }
            Err(e) => {
                eprintln!("{e}");
                return std::process::ExitCode::from(1);
            }
        },
        (None, path) => {
            let path = path.clone().unwrap_or_else(|| {
                concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/examples/replies/capitals.json"
                )
                .into()
            });
            match std::fs::read_to_string(&path) {
                Ok(text) => (text, FinishReason::Unknown),
                Err(e) => {
                    eprintln!("cannot read {path}: {e}");
                    return std::process::ExitCode::from(1);
                }
            }
        }
    };
    eprintln!("reply:\n{completion}\n");
    std::process::ExitCode::from(run(
        &completion,
        finish,
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    ))
}
