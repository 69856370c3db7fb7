//! The types of the real model's compliance replies, shared by the targets
//! that read them as a derived type.

use toon_core::Toon;

#[derive(Debug, PartialEq, Toon)]
pub struct ComplianceAnalysis {
    pub compliance_status: Status,
    pub violations: Vec<Violation>,
    pub audit_trail: String,
    pub spoken_response: String,
    pub confidence: Option<f64>,
}

#[derive(Debug, PartialEq, Toon)]
#[toon(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Status {
    Compliant,
    NonCompliant,
}

#[derive(Debug, PartialEq, Toon)]
#[toon(rename_all = "UPPERCASE")]
pub enum Severity {
    High,
    Medium,
    Low,
}

#[derive(Debug, PartialEq, Toon)]
pub struct Violation {
    pub category: String,
    pub severity: Severity,
    pub description: String,
    pub related_rule_id: String,
    pub remediation: String,
}
