//! What the command's tests share: the binary, and the type they ask for.
#![allow(dead_code)] // each test file uses its own part

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The triage example's own source, read as it is: the application's file.
pub const TRIAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/triage.rs");

/// Runs `toon` with `args`, `stdin` on its standard input.
pub fn toon(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toon"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// `toon ask` for the triage type at `server`, then `rest`.
pub fn ask<'a>(server: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "ask", "--decl", TRIAGE, "--type", "Triage", "--server", server,
    ];
    args.extend(rest);
    args
}
