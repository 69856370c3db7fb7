//! The examples' logic, run on their recorded replies: the typed result and the exit code.

#[allow(dead_code)] // `main` is the example's own entry point
#[path = "../examples/compliance.rs"]
mod compliance;

fn run(reply_file: &str) -> (u8, String, String) {
    let path = format!(
        "{}/examples/replies/{reply_file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let completion = std::fs::read_to_string(path).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = compliance::run(&completion, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn compliance_reads_the_recorded_reply() {
    let (code, out, err) = run("compliance.txt");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("compliant: false"));
    assert!(out.contains(
        "finding   [HIGH] R-12 privacy: Customer emails are written to application logs, unmasked -> Mask emails before logging"
    ));
    assert!(out.contains("finding   [MEDIUM] R-4 retention: Backups kept for seven years"));
    assert_eq!(out.matches("finding").count(), 2);
    assert!(out.contains("line 4: corrected_length (declared [3], found 2)"));
}

#[test]
fn compliance_refuses_a_truncated_reply_and_exits_non_zero() {
    let (code, out, err) = run("compliance-truncated.txt");
    assert_eq!(code, 2);
    assert!(
        !out.contains("compliant"),
        "nothing is reported for an unusable reply: {out}"
    );
    assert!(
        err.starts_with("TOON_PARSE_FAILURE: line 7: the reply stops mid-document"),
        "{err}"
    );
    assert!(err.contains("repeat one another"));
}
