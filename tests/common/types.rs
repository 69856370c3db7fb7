//! The example types the tests decode into: the compliance analysis, an answer
//! with citations, and object detections.
#![allow(dead_code)] // each test binary uses its own subset

use toon_core::{OutputSchema, Toon};

/// How serious a violation is.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
#[toon(rename_all = "UPPERCASE")]
pub enum Severity {
    /// Must be fixed before release.
    High,
    Medium,
    Low,
}

#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
pub enum Status {
    #[toon(rename = "COMPLIANT")]
    Compliant,
    #[toon(rename = "NON_COMPLIANT")]
    NonCompliant,
}

// The grammar's bounds (`max_len`) are what a short answer needs: a word, a
// sentence, a rule id. The prompt shows them, as it shows a `length`.
/// One rule the document breaks.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
pub struct Violation {
    /// The rule family, e.g. privacy or retention.
    #[toon(max_len = 16)]
    pub category: String,
    pub severity: Severity,
    /// What is wrong, in one sentence.
    #[toon(max_len = 80)]
    pub description: String,
    /// The id of the rule broken, e.g. R-12.
    #[toon(max_len = 6)]
    pub related_rule_id: String,
    /// What to change.
    #[toon(max_len = 60)]
    pub remediation: String,
}

/// The result of checking a document against the rules.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
#[toon(partial)]
pub struct ComplianceAnalysis {
    /// COMPLIANT only if no rule is broken.
    pub compliance_status: Status,
    /// Every violation found.
    #[toon(max_items = 5)]
    pub violations: Vec<Violation>,
    /// Which rules were checked, briefly.
    #[toon(max_len = 60)]
    pub audit_trail: String,
    /// One or two sentences for a voice assistant to say.
    #[toon(max_len = 120)]
    pub spoken_response: String,
    #[toon(skip)]
    pub internal_note: String,
    #[serde(default)]
    #[toon(range(min = 0, max = 1))]
    pub confidence: Option<f64>,
}

/// A source id, written as the bare number.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
pub struct SourceId(pub u32);

/// Whether the sources answer the question.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
#[toon(tag = "status", rename_all = "snake_case")]
pub enum Finding {
    /// The sources answer it.
    Found {
        /// The answer, in one sentence.
        answer: String,
        /// Numbers of the sources that support it.
        citations: Vec<SourceId>,
    },
    /// No source answers it.
    NotFound {
        /// Why not, briefly.
        reason: String,
    },
    /// The question cannot be answered from text.
    Unanswerable,
}

/// An answer to a question about a set of numbered sources.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
pub struct Answer {
    /// The question, restated.
    pub question: String,
    pub finding: Finding,
}

/// What a detector may call an object.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
#[toon(rename_all = "snake_case")]
pub enum Label {
    Cup,
    Spoon,
    Plate,
}

/// One object found in the image.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
pub struct Detection {
    pub label: Label,
    /// How sure, from 0 to 1.
    #[toon(range(min = 0, max = 1))]
    pub score: f64,
    /// What the object looks like, briefly.
    pub note: String,
}

/// Every object found in the image.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
#[toon(partial)]
pub struct Detections {
    pub objects: Vec<Detection>,
    pub count: u32,
}

/// A country and its capital city.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema, serde::Deserialize)]
pub struct Capital {
    /// The country's name in English, as asked about.
    pub country: String,
    /// The name of the capital city of that country; a city, never the country's own name.
    pub capital: String,
}

/// A one-violation compliance answer, as tests and few-shot examples use it.
pub fn example_compliance() -> ComplianceAnalysis {
    ComplianceAnalysis {
        compliance_status: Status::NonCompliant,
        violations: vec![Violation {
            category: "privacy".into(),
            severity: Severity::High,
            description: "Health records are stored unencrypted".into(),
            related_rule_id: "R-1".into(),
            remediation: "Encrypt the records".into(),
        }],
        audit_trail: "Checked R-1 to R-5".into(),
        spoken_response: "One problem: health records are not encrypted.".into(),
        internal_note: String::new(),
        confidence: Some(0.9),
    }
}

/// An answer from numbered sources, in the shape of seed 003's task: flat, one
/// long prose field.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
#[toon(partial)]
pub struct Sourced {
    /// Whether the sources answer the question.
    pub found: bool,
    /// The numbers of the sources the answer uses.
    #[toon(max_items = 3)]
    pub citations: Vec<u32>,
    /// What the reader should be careful about, if anything.
    #[toon(max_len = 80)]
    pub caveats: Option<String>,
    /// The answer in two or three sentences, or why the sources do not give it.
    #[toon(max_len = 300)]
    pub answer: String,
}

/// The same answer with its prose between `<answer>` tags.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
#[toon(partial)]
pub struct SourcedProse {
    /// Whether the sources answer the question.
    pub found: bool,
    /// The numbers of the sources the answer uses.
    #[toon(max_items = 3)]
    pub citations: Vec<u32>,
    /// What the reader should be careful about, if anything.
    #[toon(max_len = 80)]
    pub caveats: Option<String>,
    /// The answer in two or three sentences, or why the sources do not give it.
    #[toon(delimited, max_len = 300)]
    pub answer: String,
}

/// Bounds far above the defaults, up to the largest the derive takes: llama.cpp
/// refuses a repetition of more than 2000, and a group whose repetitions expand
/// into 2000 rules or more; llguidance holds at most 2000 alternatives at once.
#[derive(Debug, Clone, PartialEq, Toon)]
pub struct LongBounds {
    #[toon(max_len = 1000)]
    pub summary: String,
    #[toon(max_len = 3000)]
    pub body: String,
    #[toon(max_items = 1000)]
    pub scores: Vec<u8>,
}

/// A violation with none of its own grammar bounds: every text at most
/// `DEFAULT_MAX_LEN` characters.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
pub struct PlainViolation {
    /// The rule family, e.g. privacy or retention.
    pub category: String,
    pub severity: Severity,
    /// What is wrong, in one sentence.
    pub description: String,
}

/// The compliance answer with the grammar's default bounds (at most
/// `DEFAULT_MAX_ITEMS` violations): what a new user writes first.
#[derive(Debug, Clone, PartialEq, Toon, OutputSchema)]
pub struct PlainCompliance {
    /// COMPLIANT only if no rule is broken.
    pub compliance_status: Status,
    /// Every violation found.
    pub violations: Vec<PlainViolation>,
    /// One or two sentences for a voice assistant to say.
    pub summary: String,
}
