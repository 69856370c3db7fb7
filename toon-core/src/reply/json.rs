//! Replies written as JSON instead of TOON: small models fall back to JSON, and
//! the data is the same data model, so it is read as JSON.

use serde_json::Value;

use super::{truncation_message, ParseError, ParseErrorKind, Repair, RepairKind};
use crate::header::{parse_header, HeaderParse};

/// A reply whose first significant line opens a JSON object, or a JSON array
/// that is not a TOON root header (`[3]: a,b`).
pub(crate) fn looks_like_json(lines: &[String]) -> bool {
    let Some(first) = lines.iter().map(|l| l.trim()).find(|l| !l.is_empty()) else {
        return false;
    };
    first.starts_with('{')
        || (first.starts_with('[') && !matches!(parse_header(first, 8), HeaderParse::Header(_)))
}

/// Reads the first JSON value in the text; prose after it is dropped and reported.
pub(crate) fn decode_json(
    lines: &[String],
    repairs: &mut Vec<Repair>,
) -> Result<Value, ParseError> {
    let text = lines.join("\n");
    let first_line = lines
        .iter()
        .position(|l| !l.trim().is_empty())
        .map_or(1, |i| i + 1);
    let mut stream = serde_json::Deserializer::from_str(&text).into_iter::<Value>();
    match stream.next() {
        Some(Ok(value)) => {
            repairs.push(Repair::new(
                RepairKind::ReadJson,
                first_line,
                "reply was JSON",
            ));
            let end = stream.byte_offset();
            let rest = &text[end..];
            if !rest.trim().is_empty() {
                let after = text[..end + (rest.len() - rest.trim_start().len())]
                    .matches('\n')
                    .count()
                    + 1;
                repairs.push(Repair::new(
                    RepairKind::StrippedProse,
                    after,
                    "prose after the JSON value",
                ));
            }
            Ok(value)
        }
        Some(Err(e)) if e.is_eof() => {
            let units = json_units(&text);
            Err(ParseError::new(
                ParseErrorKind::Truncated,
                Some(e.line()),
                truncation_message(&units, units.len() + 1, &format!("JSON ends early: {e}")),
            ))
        }
        Some(Err(e)) => Err(ParseError::new(
            ParseErrorKind::Syntax,
            Some(e.line()),
            format!("the reply is not valid JSON: {e}"),
        )),
        None => Err(ParseError::empty()),
    }
}

/// The JSON text cut into items (at each `}`), so a repetition loop inside one
/// long line can be recognised; the last, unfinished item is left out.
fn json_units(text: &str) -> Vec<String> {
    let mut units: Vec<String> = text
        .split('}')
        .map(|u| {
            u.trim_start_matches([',', ' ', '\n', ']'])
                .trim()
                .to_owned()
        })
        .collect();
    units.pop();
    units
}
