//! The request helpers with the client most Rust projects use: async-openai,
//! through its raw-JSON requests (`create_byot`, `create_stream_byot`), against
//! an OpenAI-compatible server. One type gives each request:
//!
//! 1. TOON constrained by the type's grammar, through the exchange
//!    (`toon_core::exchange`, which builds each request and reads each
//!    response; the glue is the five lines of `ask`);
//! 2. the type as a forced tool call, through the exchange;
//! 3. the JSON Schema as `response_format`, through the exchange;
//! 4. the grammar-constrained request streamed (`constrain_request`), each
//!    row read into its type as it arrives (`PartialStream`, the typed view of
//!    `ToonStream`).
//!
//! ```text
//! cargo run --manifest-path clients/async-openai/Cargo.toml -- http://127.0.0.1:8765 [llama-server|llama-cpp-python]
//! ```
//!
//! The server's kind (the second argument, or `TOON_MODEL_SERVER_KIND`; by
//! default llama-server) picks its JSON-Schema dialect. The end-to-end run
//! (`.ci/run`) runs it against each real server; it exits with status 1 if a
//! request fails or a reply is refused. On llama-server b11434 with
//! SmolLM2's own chat template, which describes no tools, the server ignores
//! `tools` and `tool_choice`: there the tool step reports that no call came
//! and goes on.

use async_openai::config::OpenAIConfig;
use async_openai::Client;
use serde_json::{json, Value};
use tokio_stream::StreamExt;
use toon_core::exchange::{Exchange, Mechanism, Server};
use toon_core::retry::Retried;
use toon_core::stream::{PartialStream, Update};
use toon_core::{constrain_request, FinishReason, GrammarServer, OutputSchema, Toon};

/// Objects seen in a described scene.
#[derive(Debug, Toon, OutputSchema)]
#[toon(partial)] // SceneEvent names each streamed row by its field
struct Scene {
    /// Every object, one row each.
    #[toon(max_items = 4)]
    objects: Vec<Object>,
}

/// One object.
#[derive(Debug, Toon, OutputSchema)]
struct Object {
    /// What it is, in one or two words.
    #[toon(max_len = 20)]
    name: String,
    /// How many of it.
    #[toon(range(min = 1, max = 9))]
    count: u8,
}

const SCENE: &str = "Scene: two cups and a plate on a table.";

fn messages(system: &str) -> Value {
    json!([
        {"role": "system", "content": system},
        {"role": "user", "content": "Scene: a spoon."},
        {"role": "assistant", "content": "objects[1]{name,count}:\n  spoon,1"},
        {"role": "user", "content": SCENE},
    ])
}

type Failure = Box<dyn std::error::Error>;

/// A typed value through the exchange: it builds each request and reads each
/// response; the glue is this loop.
async fn ask<T: Toon + OutputSchema>(
    client: &Client<OpenAIConfig>,
    exchange: &Exchange<T>,
    question: &str,
) -> Result<Retried<T>, Failure> {
    let mut ask = exchange.ask(question);
    loop {
        let response: Value = client.chat().create_byot(ask.body()).await?;
        if let Some(done) = ask.read(&response)? {
            return Ok(done);
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let server = std::env::args()
        .nth(1)
        .or_else(|| std::env::var("TOON_MODEL_SERVER").ok())
        .unwrap_or_else(|| "http://127.0.0.1:8765".into());
    let kind = std::env::args()
        .nth(2)
        .or_else(|| std::env::var("TOON_MODEL_SERVER_KIND").ok())
        .unwrap_or_else(|| "llama-server".into());
    if let Err(e) = run(&server, &kind).await {
        eprintln!("async-openai example: {e}");
        std::process::exit(1);
    }
}

async fn run(server: &str, kind: &str) -> Result<(), Failure> {
    let (kind, ignores_tools) = match kind {
        "llama-server" => (Server::LlamaServer, true),
        "llama-cpp-python" => (Server::LlamaCppPython, false),
        other => {
            return Err(
                format!("unknown server kind `{other}`: llama-server or llama-cpp-python").into(),
            )
        }
    };
    let config = OpenAIConfig::new()
        .with_api_base(format!("{server}/v1"))
        .with_api_key("local");
    let client = Client::with_config(config);
    let example = Scene {
        objects: vec![Object {
            name: "spoon".into(),
            count: 1,
        }],
    };
    let exchange = |mechanism| {
        Exchange::<Scene>::new(mechanism, kind)
            .instructions("List the objects in the scene.")
            .example("Scene: a spoon.", &example)
            .field("model", json!("local"))
            .field("temperature", json!(0))
    };

    // 1. TOON, constrained by the type's grammar (which sets the token limit
    // to the longest reply it admits: the reply is never cut).
    let scene = ask(&client, &exchange(Mechanism::Grammar), SCENE).await?;
    println!("grammar: {:?}", scene.value);

    // 2. The type as a tool the model must call.
    let tool = exchange(Mechanism::Tool).field("max_tokens", json!(200));
    match ask(&client, &tool, SCENE).await {
        Ok(scene) => println!("tool call: {:?}", scene.value),
        // llama-server with this model's chat template answers in text.
        Err(e) if ignores_tools => println!("tool call: none came ({e})"),
        Err(e) => return Err(e),
    }

    // 3. The JSON Schema as response_format.
    let json = exchange(Mechanism::JsonSchema).field("max_tokens", json!(200));
    let scene = ask(&client, &json, SCENE).await?;
    println!("JSON Schema: {:?}", scene.value);

    // 4. The grammar-constrained request streamed: rows as they arrive.
    let toon_system = format!(
        "List the objects in the scene, in TOON.\n\n{}",
        Scene::toon_prompt()
    );
    let mut body = json!({"model": "local", "messages": messages(&toon_system), "temperature": 0, "stream": true});
    constrain_request::<Scene>(&mut body, GrammarServer::LlamaCpp)?;
    let mut chunks = client.chat().create_stream_byot::<_, Value>(&body).await?;
    let mut stream = PartialStream::<Scene>::new();
    let mut finish = FinishReason::Unknown;
    let mut rows = 0;
    // Each row arrives read into its type, named by its field.
    let count = |updates: Vec<Update<SceneEvent>>, rows: &mut usize| {
        for update in updates {
            match update {
                Update::Event(SceneEvent::Objects(row)) => {
                    println!("streamed row {}: {:?}", row.index, row.value);
                    *rows += 1;
                }
                // The rows so far were not the answer's.
                Update::Withdrawn => *rows = 0,
            }
        }
    };
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk?;
        let choice = &chunk["choices"][0];
        if let Some(reason) = choice["finish_reason"].as_str() {
            finish = FinishReason::from_openai(reason);
        }
        let delta = choice["delta"]["content"].as_str().unwrap_or("");
        count(stream.push(delta), &mut rows);
    }
    count(stream.end(), &mut rows);
    let shown = stream.partial().objects.as_ref().map_or(0, Vec::len);
    // A stream that ended with no finish reason stopped early (llama.cpp sends
    // a failure as an `error:` line, which SSE readers skip): what came may be
    // part of the reply only.
    if finish == FinishReason::Unknown {
        return Err("the stream ended with no finish reason: the reply may be cut".into());
    }
    let scene = stream.finish_with(finish)?.value;
    if rows != scene.objects.len() || shown != rows {
        return Err(format!(
            "{rows} rows streamed, {shown} in the partial value, {} in the reply",
            scene.objects.len()
        )
        .into());
    }
    println!("streamed: {scene:?}");
    Ok(())
}
