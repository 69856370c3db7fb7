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

/// The texts the decode benchmarks read: `rows` violations as TOON, as JSON,
/// and as TOON needing repairs.
pub struct DecodeInputs {
    pub data: Vec<Violation>,
    pub toon: String,
    pub json: String,
    pub repaired: String,
}

impl DecodeInputs {
    /// The inputs for `rows` violations; checks that every decoder reads them back.
    pub fn new(rows: usize) -> Self {
        let data = violations(rows);
        let toon = data.to_toon();
        let inputs = DecodeInputs {
            json: serde_json::to_string(&data).unwrap(),
            repaired: repaired_reply(&toon),
            toon,
            data,
        };
        for (name, decode) in inputs.decoders() {
            assert_eq!(decode(), inputs.data, "{name} reads the data back");
        }
        inputs
    }

    /// Each decoder, by the name its criterion benchmark has: the same data into
    /// `Vec<Violation>`.
    #[allow(clippy::type_complexity)]
    pub fn decoders(&self) -> Vec<(&'static str, Box<dyn Fn() -> Vec<Violation> + '_>)> {
        vec![
            (
                "serde_json",
                Box::new(|| serde_json::from_str(&self.json).unwrap()),
            ),
            (
                "from_toon",
                Box::new(|| Vec::<Violation>::from_toon(&self.toon).unwrap()),
            ),
            (
                "from_toon_repairs",
                Box::new(|| Vec::<Violation>::from_toon(&self.repaired).unwrap()),
            ),
            (
                "toon_format",
                Box::new(|| toon_format::decode_default(&self.toon).unwrap()),
            ),
            (
                "serde_toon",
                Box::new(|| serde_toon::from_str(&self.toon).unwrap()),
            ),
            (
                "stream_4_bytes",
                Box::new(|| {
                    let mut s = toon_core::ToonStream::<Vec<Violation>>::new();
                    for chunk in self.toon.as_bytes().chunks(4) {
                        // The text is ASCII, so 4-byte chunks are whole characters.
                        s.push(std::str::from_utf8(chunk).unwrap());
                    }
                    s.end();
                    s.finish().unwrap().value
                }),
            ),
        ]
    }
}
