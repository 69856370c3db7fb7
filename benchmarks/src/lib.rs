//! The data the benchmarks decode and count: realistic answers of the example
//! types, the same values as TOON and JSON.

use serde::{Deserialize, Serialize};
use toon_core::{OutputSchema, Toon};

/// How urgent the fix is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Severity {
    /// Fix before release.
    High,
    Medium,
    Low,
}

/// One rule the document breaks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
pub struct Violation {
    /// The rule family: privacy, security, retention, consent, ...
    pub category: String,
    pub severity: Severity,
    /// What is wrong, in one sentence.
    pub description: String,
    /// The id of the broken rule, e.g. R-12.
    pub related_rule_id: String,
    /// What to change.
    pub remediation: String,
}

/// The result of checking a document against the compliance rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
pub struct ComplianceAnalysis {
    /// COMPLIANT only if no rule is broken.
    pub compliance_status: String,
    /// Every rule the document breaks, one row each.
    pub violations: Vec<Violation>,
    /// Which rules were checked, in a few words.
    pub audit_trail: String,
    /// One or two sentences a voice assistant can say to the user.
    pub spoken_response: String,
}

/// One object found in an image.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
pub struct Detection {
    /// What the object is.
    pub label: String,
    /// How sure, from 0 to 1.
    pub score: f64,
    /// Left edge, in pixels.
    pub x: u32,
    /// Top edge, in pixels.
    pub y: u32,
    /// Width, in pixels.
    pub width: u32,
    /// Height, in pixels.
    pub height: u32,
}

/// Every object found in an image.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
pub struct Detections {
    pub objects: Vec<Detection>,
}

const CATEGORIES: [&str; 5] = ["privacy", "security", "retention", "consent", "access"];
const WORDS: [&str; 12] = [
    "customer", "emails", "are", "written", "to", "logs", "without", "masking", "backups", "kept",
    "for", "years",
];

/// `n` realistic violations, deterministic.
pub fn violations(n: usize) -> Vec<Violation> {
    (0..n)
        .map(|i| Violation {
            category: CATEGORIES[i % 5].to_owned(),
            severity: [Severity::High, Severity::Medium, Severity::Low][i % 3].clone(),
            description: (0..8)
                .map(|w| WORDS[(i * 7 + w * 3) % 12])
                .collect::<Vec<_>>()
                .join(" "),
            related_rule_id: format!("R-{}", i % 40 + 1),
            remediation: format!("Mask {} before logging", WORDS[i % 12]),
        })
        .collect()
}

/// A compliance answer with `n` violations.
pub fn compliance(n: usize) -> ComplianceAnalysis {
    ComplianceAnalysis {
        compliance_status: "NON_COMPLIANT".into(),
        violations: violations(n),
        audit_trail: "Checked rules R-1 to R-40 against the data-handling section".into(),
        spoken_response: format!(
            "I found {n} problems; the most urgent is unmasked emails in the logs."
        ),
    }
}

/// A detection answer with `n` objects.
pub fn detections(n: usize) -> Detections {
    Detections {
        objects: (0..n)
            .map(|i| Detection {
                label: ["cup", "spoon", "plate", "fork"][i % 4].into(),
                score: 0.5 + (i % 50) as f64 / 100.0,
                x: (i * 37 % 600) as u32,
                y: (i * 53 % 440) as u32,
                width: 20 + (i % 90) as u32,
                height: 15 + (i % 70) as u32,
            })
            .collect(),
    }
}

/// How a file was changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Added,
    Modified,
    Deleted,
    Renamed,
}

/// One file of a change: records of short cells (an id, a path, an enum, integers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Toon, OutputSchema)]
pub struct FileChange {
    pub id: u32,
    pub path: String,
    pub kind: ChangeKind,
    pub added: u32,
    pub removed: u32,
}

/// `n` file changes, deterministic.
pub fn changes(n: usize) -> Vec<FileChange> {
    const DIRS: [&str; 4] = ["src", "src/reply", "tests", "benches"];
    const FILES: [&str; 5] = ["mod.rs", "lex.rs", "node.rs", "decode.rs", "strip.rs"];
    const KINDS: [ChangeKind; 4] = [
        ChangeKind::Added,
        ChangeKind::Modified,
        ChangeKind::Deleted,
        ChangeKind::Renamed,
    ];
    (0..n)
        .map(|i| FileChange {
            id: i as u32 + 1,
            path: format!("{}/{}", DIRS[i % 4], FILES[i % 5]),
            kind: KINDS[i % 4].clone(),
            added: (i * 7 % 300) as u32,
            removed: (i * 3 % 120) as u32,
        })
        .collect()
}

/// The same reply as a small model might write it: inside a fence after a line
/// of prose, indented by four spaces, with a wrong row count.
pub fn repaired_reply(toon: &str) -> String {
    let mut lines = toon.lines();
    let header = lines.next().unwrap_or_default();
    let header = header.replacen(|c: char| c.is_ascii_digit(), "9", 1);
    let body: Vec<String> = lines.map(|l| format!("  {l}")).collect();
    format!(
        "Here is the result:\n```toon\n{header}\n{}\n```",
        body.join("\n")
    )
}

/// The reply with cell `column` of its last row replaced by a value no enum
/// has: a reply the type refuses on its last row.
pub fn refused_reply(toon: &str, column: usize) -> String {
    let (head, last) = toon.rsplit_once('\n').expect("a table of rows");
    let mut cells: Vec<&str> = last.split(',').collect();
    cells[column] = "UNHEARD_OF";
    format!("{head}\n{}", cells.join(","))
}

/// Reads a reply with rows the type cannot read refused, not dropped
/// (`refuse_dropped_rows`): by default such a row is dropped and reported.
pub fn read_refused<T: Toon>(reply: &str) -> Result<T, toon_core::ParseError> {
    let options = toon_core::ReplyOptions {
        refuse_dropped_rows: true,
        ..Default::default()
    };
    toon_core::ToonOutputParser::<T>::new()
        .options(options)
        .parse_with_report(reply)
        .map(|r| r.value)
}

/// A decoder under test: its benchmark name and what it runs.
pub type Decoder<'a, T> = (&'static str, Box<dyn Fn() -> Vec<T> + 'a>);

/// The fastest of `rounds` runs of each decoder, the decoders taking turns, so
/// that a change in the machine's load falls on all of them alike.
pub fn interleaved<T>(
    decoders: &[Decoder<'_, T>],
    rounds: usize,
) -> Vec<(&'static str, std::time::Duration)> {
    let mut best = vec![std::time::Duration::MAX; decoders.len()];
    for _ in 0..rounds {
        for (i, (_, decode)) in decoders.iter().enumerate() {
            let start = std::time::Instant::now();
            std::hint::black_box(decode());
            best[i] = best[i].min(start.elapsed());
        }
    }
    decoders.iter().map(|d| d.0).zip(best).collect()
}

/// The rows as most types hold them: a table under a key of a struct, and a
/// field after it.
#[derive(Debug, PartialEq, Serialize, Deserialize, Toon)]
pub struct Rooted<T> {
    pub rows: Vec<T>,
    pub done: bool,
}

/// The texts the decode benchmarks read: the same rows as TOON, as JSON, as
/// TOON needing repairs, and as TOON the type refuses on its last row; and
/// the same three TOON texts as a [`Rooted`] struct's.
pub struct DecodeInputs<T> {
    /// Prefixed to each benchmark's name (`""` or `"short_"`).
    pub prefix: &'static str,
    pub data: Vec<T>,
    pub toon: String,
    pub json: String,
    pub repaired: String,
    pub refused: String,
    /// `toon`, `repaired` and `refused` with the table under `rows:` and
    /// `done: true` after it.
    pub rooted: [String; 3],
}

/// A root table's reply (`[N]{..}:` and its rows) as a [`Rooted`] struct's:
/// the header keyed `rows` and `done: true` after the rows, inside the
/// fence where there is one.
fn rooted(reply: &str) -> String {
    let at = reply.find("[").expect("a table header");
    let (head, rest) = reply.split_at(at);
    match rest.strip_suffix("\n```") {
        Some(table) => format!("{head}rows{table}\ndone: true\n```"),
        None => format!("{head}rows{rest}\ndone: true"),
    }
}

/// `rows` violations (the compliance records: sentences in two cells).
pub fn violation_inputs(rows: usize) -> DecodeInputs<Violation> {
    // `severity` is the second column.
    DecodeInputs::new("", violations(rows), 1)
}

/// `rows` file changes (short cells).
pub fn change_inputs(rows: usize) -> DecodeInputs<FileChange> {
    // `kind` is the third column.
    DecodeInputs::new("short_", changes(rows), 2)
}

impl<T> DecodeInputs<T>
where
    T: Toon + Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    /// The inputs for `data`, refused at the enum cell `column` of the last row;
    /// checks that every decoder reads them back (the refused reply as refused,
    /// on its last line).
    pub fn new(prefix: &'static str, data: Vec<T>, column: usize) -> Self {
        let toon = data.to_toon();
        let (repaired, refused) = (repaired_reply(&toon), refused_reply(&toon, column));
        let inputs = DecodeInputs {
            prefix,
            json: serde_json::to_string(&data).unwrap(),
            rooted: [rooted(&toon), rooted(&repaired), rooted(&refused)],
            repaired,
            refused,
            toon,
            data,
        };
        for (name, decode) in inputs.decoders() {
            let reads_nothing = name.ends_with("refused")
                || name.ends_with("feed_4_bytes")
                || name.ends_with("events_4_bytes");
            let expected = if reads_nothing {
                &[][..]
            } else {
                &inputs.data[..]
            };
            assert_eq!(decode(), expected, "{name} reads the data back");
        }
        let Err(e) = read_refused::<Vec<T>>(&inputs.refused) else {
            panic!("the refused reply was read");
        };
        assert_eq!(e.line(), Some(inputs.refused.lines().count()), "{e}");
        let Err(e) = read_refused::<Rooted<T>>(&inputs.rooted[2]) else {
            panic!("the refused struct-rooted reply was read");
        };
        assert_eq!(e.line(), Some(inputs.rooted[2].lines().count() - 1), "{e}");
        inputs
    }

    /// Each decoder, by the name its criterion benchmark has: the same data
    /// into `Vec<T>` (the refused reply gives an empty list once refused).
    pub fn decoders(&self) -> Vec<Decoder<'_, T>> {
        let named = |name: &str| -> &'static str {
            Box::leak(format!("{}{name}", self.prefix).into_boxed_str())
        };
        // The streams are fed chunks cut before the clock starts, as a client
        // receives a server's deltas already cut: the time is the stream's.
        // The text is ASCII, so 4-byte chunks are whole characters.
        let chunks: Vec<&str> = (0..self.toon.len())
            .step_by(4)
            .map(|at| &self.toon[at..self.toon.len().min(at + 4)])
            .collect();
        let lines: Vec<&str> = self.toon.split_inclusive('\n').collect();
        let (read_chunks, feed_chunks, event_chunks) =
            (chunks.clone(), chunks.clone(), chunks.clone());
        let rooted = &self.rooted[0];
        let struct_chunks: Vec<&str> = (0..rooted.len())
            .step_by(4)
            .map(|at| &rooted[at..rooted.len().min(at + 4)])
            .collect();
        vec![
            (
                named("serde_json"),
                Box::new(|| serde_json::from_str(&self.json).unwrap()),
            ),
            (
                // A `Toon` type read from the same data as a JSON reply.
                named("from_json_reply"),
                Box::new(|| toon_core::from_json_reply::<Vec<T>>(&self.json).unwrap()),
            ),
            (
                named("from_toon"),
                Box::new(|| Vec::<T>::from_toon(&self.toon).unwrap()),
            ),
            (
                named("from_toon_repairs"),
                Box::new(|| Vec::<T>::from_toon(&self.repaired).unwrap()),
            ),
            (
                named("from_toon_refused"),
                Box::new(|| match read_refused::<Vec<T>>(&self.refused) {
                    Ok(_) => panic!("the refused reply was read"),
                    Err(e) => {
                        std::hint::black_box(e);
                        Vec::new()
                    }
                }),
            ),
            (
                named("toon_format"),
                Box::new(|| toon_format::decode_default(&self.toon).unwrap()),
            ),
            (
                named("serde_toon"),
                Box::new(|| serde_toon::from_str(&self.toon).unwrap()),
            ),
            (
                named("stream_4_bytes"),
                Box::new(move || {
                    let mut s = toon_core::ToonStream::<Vec<T>>::new();
                    for chunk in &chunks {
                        s.push(chunk);
                    }
                    s.end();
                    s.finish().unwrap().value
                }),
            ),
            (
                // The same stream fed a line at a time: beside `stream_4_bytes`,
                // what a stream costs per push and what per row.
                named("stream_lines"),
                Box::new(move || {
                    let mut s = toon_core::ToonStream::<Vec<T>>::new();
                    for line in &lines {
                        s.push(line);
                    }
                    s.end();
                    s.finish().unwrap().value
                }),
            ),
            (
                // The stream as a consumer of each row uses it: every row read
                // into the type as its event arrives, then `finish`. Returns the
                // rows the events gave, so the check above holds them to the data.
                named("stream_4_bytes_read"),
                Box::new(move || {
                    let mut s = toon_core::ToonStream::<Vec<T>>::new();
                    let mut rows = Vec::with_capacity(self.data.len());
                    for chunk in &read_chunks {
                        for e in s.push(chunk) {
                            rows.push(e.decode::<T>().unwrap());
                        }
                    }
                    for e in s.end() {
                        rows.push(e.decode::<T>().unwrap());
                    }
                    assert_eq!(s.finish().unwrap().value.len(), rows.len());
                    rows
                }),
            ),
            (
                named("struct_from_toon"),
                Box::new(|| Rooted::<T>::from_toon(&self.rooted[0]).unwrap().rows),
            ),
            (
                named("struct_from_toon_repairs"),
                Box::new(|| Rooted::<T>::from_toon(&self.rooted[1]).unwrap().rows),
            ),
            (
                named("struct_from_toon_refused"),
                Box::new(|| match read_refused::<Rooted<T>>(&self.rooted[2]) {
                    Ok(_) => panic!("the refused reply was read"),
                    Err(e) => {
                        std::hint::black_box(e);
                        Vec::new()
                    }
                }),
            ),
            (
                named("struct_stream_4_bytes"),
                Box::new(move || {
                    let mut s = toon_core::ToonStream::<Rooted<T>>::new();
                    for chunk in &struct_chunks {
                        s.push(chunk);
                    }
                    s.end();
                    s.finish().unwrap().value.rows
                }),
            ),
            (
                // The stream's pushes alone, every event decided and dropped,
                // no `finish`: beside `stream_4_bytes`, what the events cost
                // apart from the whole reply's decode.
                named("events_4_bytes"),
                Box::new(move || {
                    let mut s = toon_core::stream::ToonEvents::<Vec<T>>::new();
                    let mut events = 0;
                    for chunk in &event_chunks {
                        events += s.push(chunk).len();
                    }
                    events += s.end().len();
                    assert_eq!(events, self.data.len());
                    Vec::new()
                }),
            ),
            (
                // The floor of any stream fed this way: the chunks appended to a
                // String, nothing decoded.
                named("feed_4_bytes"),
                Box::new(move || {
                    let mut text = String::new();
                    for chunk in &feed_chunks {
                        text.push_str(std::hint::black_box(chunk));
                    }
                    assert_eq!(text.len(), self.toon.len());
                    Vec::new()
                }),
            ),
        ]
    }
}
