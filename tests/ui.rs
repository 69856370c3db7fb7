//! Compile-fail cases for the derives: each file in tests/ui/ is one refused
//! shape, its `.stderr` the message the user sees (pinned to this toolchain).

#[test]
fn toon_derive_refusals() {
    trybuild::TestCases::new().compile_fail("tests/ui/toon/*.rs");
}

#[test]
fn output_schema_derive_refusals() {
    trybuild::TestCases::new().compile_fail("tests/ui/schema/*.rs");
}
