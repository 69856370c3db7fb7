//! The one documented exception to TOON: object detection, where vision models
//! answer in their own `bbox_2d` JSON idiom (Qwen2.5-VL's, for one). Asking them
//! for TOON fights their training, so the reply is read through the JSON path
//! and mapped onto the application's structs.
//!
//! ```sh
//! cargo run --example detect                       # the recorded reply
//! cargo run --example detect -- path/to/reply.txt
//! ```

use std::io::Write;

use serde::Deserialize;

/// One detection as the model writes it: `{"bbox_2d": [x1, y1, x2, y2], "label": "cup"}`.
#[derive(Debug, Deserialize)]
struct RawDetection {
    bbox_2d: [i64; 4],
    label: String,
}

/// The application's detection: a label and a box with its origin and size.
#[derive(Debug, PartialEq)]
pub struct Detection {
    pub label: String,
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// Maps a raw box onto the image, refusing boxes that are inverted or outside it.
fn to_detection(raw: RawDetection, image: (u32, u32)) -> Result<Detection, String> {
    let [x1, y1, x2, y2] = raw.bbox_2d;
    let inside = |v: i64, max: u32| (0..=i64::from(max)).contains(&v);
    if !(inside(x1, image.0) && inside(x2, image.0) && inside(y1, image.1) && inside(y2, image.1))
        || x2 <= x1
        || y2 <= y1
    {
        return Err(format!(
            "box {:?} for `{}` is not inside the {}x{} image",
            raw.bbox_2d, raw.label, image.0, image.1
        ));
    }
    // In range by the check above.
    let c = |v: i64| u32::try_from(v).unwrap_or(0);
    Ok(Detection {
        label: raw.label,
        x: c(x1),
        y: c(y1),
        width: c(x2 - x1),
        height: c(y2 - y1),
    })
}

/// Reads a reply for an image of `image` pixels; returns the detections or the exit status.
pub fn run(
    completion: &str,
    image: (u32, u32),
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<Vec<Detection>, u8> {
    // `[i64; 4]` is no `Toon` type: serde reads it.
    let options = toon_core::ReplyOptions::default();
    let raw: Vec<RawDetection> = toon_core::reply::from_json_serde(completion, &options)
        .map(|r| r.value)
        .map_err(|e| {
            let _ = writeln!(err, "{e}");
            2
        })?;
    let mut found = Vec::new();
    for r in raw {
        match to_detection(r, image) {
            Ok(d) => {
                let _ = writeln!(
                    out,
                    "{:<8} at ({}, {}) size {}x{}",
                    d.label, d.x, d.y, d.width, d.height
                );
                found.push(d);
            }
            Err(e) => {
                let _ = writeln!(err, "TOON_PARSE_FAILURE: {e}");
                return Err(2);
            }
        }
    }
    Ok(found)
}

fn main() -> std::process::ExitCode {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/examples/replies/detect.txt").to_owned()
    });
    let completion = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    match run(
        &completion,
        (640, 480),
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    ) {
        Ok(_) => std::process::ExitCode::SUCCESS,
        Err(code) => std::process::ExitCode::from(code),
    }
}
