//! `toon`: a type declared in a file, as Rust, gives what a derived type
//! gives, for a script or a program in another language.
//!
//! ```text
//! toon prompt  --decl FILE --type NAME
//! toon schema  --decl FILE --type NAME [--dialect openai|llama-cpp-python]
//! toon grammar --decl FILE --type NAME --syntax gbnf|lark
//! toon tool    --decl FILE --type NAME [--provider openai|anthropic]
//! toon decode  --decl FILE --type NAME [--finish-reason stop|length|unknown] [--format toon|json]
//! toon ask     --decl FILE --type NAME --server URL [--mechanism grammar|schema|tool]
//!              [--server-kind llama-server|llama-cpp-python|vllm|openai] [--model NAME]
//!              [--instructions TEXT] [--field KEY=JSON]... QUESTION
//! ```
//!
//! `decode` reads the completion on standard input and writes the value as
//! JSON on standard output, and nothing else; each repair goes to standard
//! error, one a line. `ask` writes the value the same way.
//!
//! Exit status: 0 with a value (or an artefact); 1 for a declaration or an
//! argument that cannot be read, with its line; 2 for a reply refused (the
//! refusal on standard error); 3 where the server could not be reached or
//! answered with an error.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::process::ExitCode;

use serde_json::Value;
use toon_core::exchange::{Exchange, Mechanism, Server};
use toon_core::retry::RetryError;
use toon_core::runtime::{Dynamic, RuntimeType};
use toon_core::schema::SchemaDialect;
use toon_core::{FinishReason, GrammarSyntax, Repair, ReplyOptions};
use toon_decl::Declarations;

const USAGE: &str = "usage:
  toon prompt  --decl FILE --type NAME
  toon schema  --decl FILE --type NAME [--dialect openai|llama-cpp-python]
  toon grammar --decl FILE --type NAME --syntax gbnf|lark
  toon tool    --decl FILE --type NAME [--provider openai|anthropic]
  toon decode  --decl FILE --type NAME [--finish-reason stop|length|unknown] [--format toon|json]
  toon ask     --decl FILE --type NAME --server URL [--mechanism grammar|schema|tool]
               [--server-kind llama-server|llama-cpp-python|vllm|openai] [--model NAME]
               [--instructions TEXT] [--field KEY=JSON]... QUESTION";

/// Why the command stopped, and its exit status.
enum Failure {
    /// A declaration or an argument that cannot be read: 1.
    Input(String),
    /// A reply refused: 2.
    Refused(String),
    /// The server could not be reached or answered with an error: 3.
    Server(String),
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr().lock();
    let status = match run(&args, &mut out, &mut err) {
        Ok(()) => 0,
        Err(failure) => {
            let (status, message) = match failure {
                Failure::Input(m) => (1, m),
                Failure::Refused(m) => (2, m),
                Failure::Server(m) => (3, m),
            };
            let _ = writeln!(err, "{message}");
            status
        }
    };
    ExitCode::from(status)
}

/// The command line: the command, its `--key value` options and the rest.
struct Args<'a> {
    command: &'a str,
    options: HashMap<&'a str, &'a str>,
    /// `--field KEY=JSON`, each time it is given.
    fields: Vec<&'a str>,
    rest: Vec<&'a str>,
}

impl<'a> Args<'a> {
    fn parse(args: &'a [String]) -> Result<Args<'a>, Failure> {
        let Some((command, args)) = args.split_first() else {
            return Err(Failure::Input(USAGE.to_owned()));
        };
        let allowed: &[&str] = match command.as_str() {
            "prompt" => &["decl", "type"],
            "schema" => &["decl", "type", "dialect"],
            "grammar" => &["decl", "type", "syntax"],
            "tool" => &["decl", "type", "provider"],
            "decode" => &["decl", "type", "finish-reason", "format"],
            "ask" => &[
                "decl",
                "type",
                "server",
                "mechanism",
                "server-kind",
                "model",
                "instructions",
                "field",
            ],
            "--help" | "-h" | "help" => return Err(Failure::Input(USAGE.to_owned())),
            other => {
                return Err(Failure::Input(format!(
                    "`{other}` is not a command of toon\n{USAGE}"
                )))
            }
        };
        let mut options = HashMap::new();
        let mut fields = Vec::new();
        let mut rest = Vec::new();
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let Some(key) = arg.strip_prefix("--") else {
                rest.push(arg.as_str());
                continue;
            };
            if !allowed.contains(&key) {
                return Err(Failure::Input(format!(
                    "`--{key}` is not an option of `toon {command}`\n{USAGE}"
                )));
            }
            let Some(value) = args.next() else {
                return Err(Failure::Input(format!("`--{key}` needs a value")));
            };
            if key == "field" {
                fields.push(value.as_str());
            } else if options.insert(key, value.as_str()).is_some() {
                return Err(Failure::Input(format!("`--{key}` is given twice")));
            }
        }
        if command != "ask" && !rest.is_empty() {
            return Err(Failure::Input(format!(
                "`toon {command}` takes no `{}`\n{USAGE}",
                rest[0]
            )));
        }
        Ok(Args {
            command,
            options,
            fields,
            rest,
        })
    }

    fn required(&self, key: &str) -> Result<&'a str, Failure> {
        self.options.get(key).copied().ok_or_else(|| {
            Failure::Input(format!("`toon {}` needs `--{key}`\n{USAGE}", self.command))
        })
    }

    /// The option's value among `choices`, or `default` where it is not given.
    fn choice(
        &self,
        key: &str,
        choices: &[&'static str],
        default: Option<&'static str>,
    ) -> Result<&'a str, Failure> {
        let value = match (self.options.get(key).copied(), default) {
            (Some(v), _) => v,
            (None, Some(d)) => return Ok(d),
            (None, None) => self.required(key)?,
        };
        if choices.contains(&value) {
            Ok(value)
        } else {
            Err(Failure::Input(format!(
                "`--{key} {value}` is not one of {}",
                choices.join(", ")
            )))
        }
    }
}

/// The type named by `--type` in the file named by `--decl`.
fn load(args: &Args<'_>) -> Result<RuntimeType, Failure> {
    let path = args.required("decl")?;
    let name = args.required("type")?;
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::Input(format!("{path}: cannot be read: {e}")))?;
    let dir = std::path::Path::new(path)
        .parent()
        .unwrap_or_else(|| std::path::Path::new("."));
    let decls = Declarations::parse_in(&text, dir).map_err(|e| {
        // `FILE:LINE:COLUMN: message`, as compilers write it and editors read it.
        let lines: Vec<String> = e
            .diagnostics
            .iter()
            .map(|d| format!("{path}:{}:{}: {}", d.line, d.column, d.message))
            .collect();
        Failure::Input(lines.join("\n"))
    })?;
    match decls.get(name) {
        Some(ty) => Ok(ty.clone()),
        None => {
            let names: Vec<&str> = decls.names().collect();
            Err(Failure::Input(if names.is_empty() {
                format!("{path} declares no struct or enum")
            } else {
                format!(
                    "{path} declares no type `{name}`; it declares {}",
                    names.join(", ")
                )
            }))
        }
    }
}

fn run(args: &[String], out: &mut impl Write, err: &mut impl Write) -> Result<(), Failure> {
    let args = Args::parse(args)?;
    let ty = load(&args)?;
    let text = match args.command {
        "prompt" => ty.toon_prompt(),
        "schema" => {
            let schema = match args.options.get("dialect").copied() {
                None => ty.json_schema(),
                Some(_) => match args.choice("dialect", &["openai", "llama-cpp-python"], None)? {
                    "openai" => ty.response_format(SchemaDialect::OpenAi),
                    _ => ty.response_format(SchemaDialect::LlamaCppPython),
                },
            };
            pretty(&schema)
        }
        "grammar" => match args.choice("syntax", &["gbnf", "lark"], None)? {
            "gbnf" => ty.toon_grammar(GrammarSyntax::Gbnf),
            _ => ty.toon_grammar(GrammarSyntax::Lark),
        },
        "tool" => {
            let tool = ty.tool();
            match args.choice("provider", &["openai", "anthropic"], Some("openai"))? {
                "anthropic" => pretty(&tool.anthropic()),
                _ => pretty(&tool.openai()),
            }
        }
        "decode" => return decode(&args, &ty, out, err),
        _ => return ask(&args, &ty, out, err),
    };
    let _ = writeln!(out, "{}", text.trim_end());
    Ok(())
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// The completion on standard input, read into the type.
fn decode(
    args: &Args<'_>,
    ty: &RuntimeType,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<(), Failure> {
    let finish = args.choice(
        "finish-reason",
        &["stop", "length", "unknown"],
        Some("unknown"),
    )?;
    let format = args.choice("format", &["toon", "json"], Some("toon"))?;
    let mut completion = String::new();
    std::io::stdin()
        .read_to_string(&mut completion)
        .map_err(|e| Failure::Input(format!("standard input cannot be read as text: {e}")))?;
    let options = ReplyOptions {
        finish_reason: FinishReason::from_openai(finish),
        ..ReplyOptions::default()
    };
    let read = match format {
        "json" => ty.read_json(&completion, &options),
        _ => ty.read(&completion, &options),
    };
    let reply = read.map_err(|e| Failure::Refused(e.to_string()))?;
    write_value(&reply.value, &reply.repairs, out, err);
    Ok(())
}

/// The value on standard output, and nothing else; each repair on standard
/// error, one a line.
fn write_value(value: &Value, repairs: &[Repair], out: &mut impl Write, err: &mut impl Write) {
    for repair in repairs {
        let _ = writeln!(err, "{repair}");
    }
    let _ = writeln!(out, "{value}");
}

/// Asks the server until a reply reads or the attempts run out.
fn ask(
    args: &Args<'_>,
    ty: &RuntimeType,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<(), Failure> {
    let server = args.required("server")?;
    let mechanism =
        match args.choice("mechanism", &["grammar", "schema", "tool"], Some("grammar"))? {
            "schema" => Mechanism::JsonSchema,
            "tool" => Mechanism::Tool,
            _ => Mechanism::Grammar,
        };
    let kind = match args.choice(
        "server-kind",
        &["llama-server", "llama-cpp-python", "vllm", "openai"],
        Some("llama-server"),
    )? {
        "llama-cpp-python" => Server::LlamaCppPython,
        "vllm" => Server::Vllm,
        "openai" => Server::OpenAi,
        _ => Server::LlamaServer,
    };
    if args.rest.is_empty() {
        return Err(Failure::Input(format!(
            "`toon ask` needs a question\n{USAGE}"
        )));
    }
    let question = args.rest.join(" ");
    // `--field temperature=0`: a field of every request, its value JSON
    // (or, where it is not JSON, the text as it is).
    let fields: Vec<(&str, Value)> = args
        .fields
        .iter()
        .map(|f| match f.split_once('=') {
            Some((key, value)) if !key.is_empty() => Ok((
                key,
                serde_json::from_str(value).unwrap_or_else(|_| Value::from(value)),
            )),
            _ => Err(Failure::Input(format!(
                "`--field {f}` is not KEY=VALUE (`--field temperature=0`)"
            ))),
        })
        .collect::<Result<_, _>>()?;
    let url = if server.ends_with("/chat/completions") {
        server.to_owned()
    } else {
        format!("{}/v1/chat/completions", server.trim_end_matches('/'))
    };
    let done = ty.enter(|| {
        let mut exchange = Exchange::<Dynamic>::new(mechanism, kind);
        if let Some(instructions) = args.options.get("instructions") {
            exchange = exchange.instructions(*instructions);
        }
        if let Some(model) = args.options.get("model") {
            exchange = exchange.field("model", Value::from(*model));
        }
        for (key, value) in &fields {
            exchange = exchange.field(key, value.clone());
        }
        // A server's error status still has its `{"error": ..}` body to show.
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let mut asking = exchange.ask(&question);
        loop {
            let response: Value = agent
                .post(&url)
                .send_json(asking.body())
                .and_then(|mut r| r.body_mut().read_json())
                .map_err(|e| Failure::Server(format!("{url}: {e}")))?;
            match asking.read(&response) {
                Ok(Some(done)) => return Ok(done),
                Ok(None) => {}
                Err(RetryError::Send { error, .. }) => {
                    return Err(Failure::Server(error.to_string()))
                }
                Err(e) => return Err(Failure::Refused(e.to_string())),
            }
        }
    })?;
    write_value(&done.value.0, &done.repairs, out, err);
    Ok(())
}
