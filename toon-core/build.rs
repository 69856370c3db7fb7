//! Sets `toon_diagnostic` where rustc reads `#[diagnostic::on_unimplemented]`
//! (1.78 on; the crate supports 1.75), so that a constraint on a field whose
//! type it cannot measure is explained at the field in words.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-check-cfg=cfg(toon_diagnostic)");
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    // `rustc 1.95.0 (...)`: the minor version is the second number.
    let minor = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|v| v.split('.').nth(1).and_then(|m| m.parse::<u32>().ok()));
    if minor.is_some_and(|m| m >= 78) {
        println!("cargo:rustc-cfg=toon_diagnostic");
    }
}
