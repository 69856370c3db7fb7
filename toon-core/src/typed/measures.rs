//! What a call site can measure: how many attempts an answer took, which
//! repairs a model needs, how it was refused, what it cost in tokens. As a
//! plain struct ([`Measures`]) for callers who log their own way, and, with
//! the `tracing` feature, as `tracing` events.

use crate::reply::{FinishReason, ParseError, ParseErrorKind, Repair, RepairKind};

/// One answer the model gave and what became of it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Attempt {
    /// The reply as the model wrote it.
    pub reply: String,
    /// How the server said it ended.
    pub finish_reason: FinishReason,
    /// The tokens it took, where the server said (its response's `usage`;
    /// an exchange reads it, `parse_with_retries` has only the text).
    pub completion_tokens: Option<u64>,
    /// Its repairs, or why it was refused.
    pub outcome: Result<Vec<Repair>, ParseError>,
}

/// The counts of one ask (or one parse): what a dashboard of a model's
/// answers reads, from [`Retried::measures`](crate::retry::Retried::measures)
/// or [`RetryError::measures`](crate::retry::RetryError::measures).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Measures {
    /// The attempts made: 1 where the first answer read.
    pub attempts: usize,
    /// Whether an answer read at last.
    pub read: bool,
    /// The repairs of the answer that read, by kind, in the order first met.
    pub repairs: Vec<(RepairKind, usize)>,
    /// Each refused answer's kind and line, in order.
    pub refusals: Vec<(ParseErrorKind, Option<usize>)>,
    /// How the server said each answer ended.
    pub finish_reasons: Vec<FinishReason>,
    /// The completion tokens summed over every attempt; `None` where the
    /// server gave no count for one of them (a sum without it would be short).
    pub completion_tokens: Option<u64>,
}

impl Measures {
    /// The counts of these attempts, in order.
    pub fn of_attempts(attempts: &[Attempt]) -> Measures {
        let mut m = Measures {
            attempts: attempts.len(),
            ..Measures::default()
        };
        let mut tokens = Some(0u64);
        for a in attempts {
            m.finish_reasons.push(a.finish_reason);
            tokens = tokens.zip(a.completion_tokens).map(|(t, n)| t + n);
            match &a.outcome {
                Ok(repairs) => {
                    m.read = true;
                    m.repairs = by_kind(repairs);
                }
                Err(e) => m.refusals.push((e.kind(), e.line())),
            }
        }
        m.completion_tokens = tokens.filter(|_| !attempts.is_empty());
        m
    }

    /// The repairs, written `kind=count` and joined by commas (`enum_case=2`).
    pub fn repairs_text(&self) -> String {
        counts_text(&self.repairs)
    }
}

/// Counts by kind, written `kind=count` and joined by commas.
fn counts_text(counts: &[(RepairKind, usize)]) -> String {
    let counts: Vec<String> = counts
        .iter()
        .map(|(k, n)| format!("{}={n}", k.as_str()))
        .collect();
    counts.join(",")
}

/// How many repairs of each kind, in the order first met.
pub(crate) fn by_kind(repairs: &[Repair]) -> Vec<(RepairKind, usize)> {
    let mut counts: Vec<(RepairKind, usize)> = Vec::new();
    for r in repairs {
        match counts.iter_mut().find(|(k, _)| *k == r.kind) {
            Some((_, n)) => *n += 1,
            None => counts.push((r.kind, 1)),
        }
    }
    counts
}

/// The name a type goes by in events: its own (`Capital`, a run-time
/// type's declared name), or its Rust path where it has none (`Vec<…>`).
#[cfg(feature = "tracing")]
pub(crate) fn type_label<T: super::Toon>() -> String {
    match crate::schema::name_and_doc(&T::__TOON.shape()).0 {
        "answer" => std::any::type_name::<T>().to_owned(),
        name => name.to_owned(),
    }
}

/// A `tracing` event for one reading of a reply, at `DEBUG` (target
/// `toon_core`): the type, the format, the finish reason, and the repairs
/// or the refusal.
#[cfg(feature = "tracing")]
pub(crate) fn trace_read(
    type_name: &dyn Fn() -> String,
    format: crate::reply::Format,
    finish: FinishReason,
    outcome: Result<&[Repair], &ParseError>,
) {
    let format = match format {
        crate::reply::Format::Toon => "toon",
        crate::reply::Format::Json => "json",
    };
    match outcome {
        Ok(repairs) => {
            tracing::debug!(
                target: "toon_core",
                r#type = %type_name(),
                format,
                finish_reason = ?finish,
                read = true,
                repairs = repairs.len(),
                repair_kinds = %counts_text(&by_kind(repairs)),
            "reply read"
            );
        }
        Err(e) => tracing::debug!(
            target: "toon_core",
            r#type = %type_name(),
            format,
            finish_reason = ?finish,
            read = false,
            refusal = e.kind().as_str(),
            line = e.line().unwrap_or(0),
            "reply refused"
        ),
    }
}

/// A `tracing` event at `INFO` (target `toon_core`) for one ask settled
/// (read, given up, or ended by a send error): every count of [`Measures`].
#[cfg(feature = "tracing")]
pub(crate) fn trace_ask(attempts: &[Attempt]) {
    if !tracing::enabled!(target: "toon_core", tracing::Level::INFO) {
        return;
    }
    let m = Measures::of_attempts(attempts);
    let refusals: Vec<String> = m
        .refusals
        .iter()
        .map(|(k, line)| format!("{}@{}", k.as_str(), line.unwrap_or(0)))
        .collect();
    tracing::info!(
        target: "toon_core",
        attempts = m.attempts,
        read = m.read,
        repair_kinds = %m.repairs_text(),
        refusals = %refusals.join(","),
        finish_reasons = ?m.finish_reasons,
        completion_tokens = m.completion_tokens,
        "ask settled"
    );
}

#[cfg(not(feature = "tracing"))]
pub(crate) fn trace_ask(_: &[Attempt]) {}

#[cfg(not(feature = "tracing"))]
pub(crate) fn trace_read(
    _: &dyn Fn() -> String,
    _: crate::reply::Format,
    _: FinishReason,
    _: Result<&[Repair], &ParseError>,
) {
}
