//! What a call site can measure: each ask's `Measures` (attempts, repairs by
//! kind, refusals, finish reasons, tokens), summed over a day of asks into
//! the counts a drift dashboard reads: how often a first answer needed a
//! second, which repairs the model needs, how it was refused, what it cost.
//! With the `tracing` feature the same counts are `tracing` events (target
//! `toon_core`), for a subscriber to ship.
//!
//! ```sh
//! cargo run --example dashboard      # recorded responses, as a server sent them
//! ```

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::{json, Value};
use toon_core::exchange::{Exchange, Mechanism, Server};
use toon_core::retry::Measures;
use toon_core::{OutputSchema, Toon};

/// A support ticket, routed.
#[derive(Debug, Toon, OutputSchema)]
pub struct Route {
    /// The team that takes it.
    pub team: Team,
    /// How soon: 1 today, 3 this week.
    #[toon(range(min = 1, max = 3))]
    pub urgency: u8,
}

/// The teams.
#[derive(Debug, PartialEq, Toon, OutputSchema)]
#[toon(rename_all = "lowercase")]
pub enum Team {
    Billing,
    Accounts,
    Outages,
}

/// A response as an OpenAI-compatible server sends it.
fn response(content: &str, finish: &str, tokens: u64) -> Value {
    json!({"choices": [{"finish_reason": finish, "message": {"content": content}}],
           "usage": {"completion_tokens": tokens}})
}

/// The recorded responses of each ask, in order.
pub fn recorded() -> Vec<Vec<Value>> {
    vec![
        vec![response("team: billing\nurgency: 2", "stop", 9)],
        vec![response(
            "Here you go:\nteam: Outages\nurgency: 1",
            "stop",
            14,
        )],
        vec![
            response("team: billing\nurgency: 7", "stop", 9),
            response("team: billing\nurgency: 3", "stop", 9),
        ],
        vec![
            response("I would route this to", "length", 6),
            response("team: accounts\nurgency: 1", "stop", 9),
        ],
        vec![
            response("team: legal\nurgency: 1", "stop", 9),
            response("team: legal\nurgency: 1", "stop", 9),
        ],
    ]
}

/// Each ask's measures, asked through the exchange over `responses`.
pub fn measure(asks: &[Vec<Value>]) -> Vec<Measures> {
    let exchange = Exchange::<Route>::new(Mechanism::Prompted, Server::LlamaServer)
        .instructions("You route support tickets.")
        .attempts(2);
    asks.iter()
        .map(|responses| {
            let mut ask = exchange.ask("My card was charged twice.");
            for r in responses {
                match ask.read(r) {
                    Ok(Some(done)) => return done.measures(),
                    Ok(None) => {}
                    Err(e) => return e.measures(),
                }
            }
            unreachable!("each recorded ask ends in a value or in giving up")
        })
        .collect()
}

/// The dashboard: the sums of `measures`, one line each.
pub fn dashboard(measures: &[Measures], out: &mut impl Write) {
    let asks = measures.len();
    let first = measures
        .iter()
        .filter(|m| m.read && m.attempts == 1)
        .count();
    let second = measures.iter().filter(|m| m.read && m.attempts > 1).count();
    let gave_up = measures.iter().filter(|m| !m.read).count();
    let mut repairs: BTreeMap<&str, usize> = BTreeMap::new();
    let mut refusals: BTreeMap<&str, usize> = BTreeMap::new();
    let mut cut = 0;
    let mut tokens = 0;
    for m in measures {
        for (kind, n) in &m.repairs {
            *repairs.entry(kind.as_str()).or_default() += n;
        }
        for (kind, _) in &m.refusals {
            *refusals.entry(kind.as_str()).or_default() += 1;
        }
        cut += m
            .finish_reasons
            .iter()
            .filter(|f| **f == toon_core::FinishReason::Length)
            .count();
        tokens += m.completion_tokens.unwrap_or(0);
    }
    let _ = writeln!(out, "asks                     {asks}");
    let _ = writeln!(out, "read on the first answer {first}");
    let _ = writeln!(out, "read on a later answer   {second}");
    let _ = writeln!(out, "gave up                  {gave_up}");
    let _ = writeln!(out, "answers cut off          {cut}");
    let _ = writeln!(out, "completion tokens        {tokens}");
    for (kind, n) in repairs {
        let _ = writeln!(out, "repair {kind:<17} {n}");
    }
    for (kind, n) in refusals {
        let _ = writeln!(out, "refusal {kind:<16} {n}");
    }
}

fn main() {
    let measures = measure(&recorded());
    dashboard(&measures, &mut std::io::stdout().lock());
}
