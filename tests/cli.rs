//! Snapshot tests of whole command lines (tests/cmd/*.trycmd), and the
//! examples in the README, which must show real output.

#[test]
fn cmd() {
    trycmd::TestCases::new().env("NO_COLOR", "1").case("tests/cmd/*.trycmd").case("README.md");
}
