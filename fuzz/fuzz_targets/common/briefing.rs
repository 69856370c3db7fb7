//! A type with a table and two delimited prose fields: a reply may write the
//! blocks in either order, one inside the other, or around the table's lines.

use toon_core::Toon;

use crate::compliance::Violation;

#[derive(Debug, PartialEq, Toon)]
pub struct Briefing {
    pub found: bool,
    #[toon(delimited)]
    pub summary: String,
    pub violations: Vec<Violation>,
    #[toon(delimited)]
    pub answer: String,
}
