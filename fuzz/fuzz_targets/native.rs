#![no_main]
//! Fuzz target `native`: see `harness::native` (fuzz/harness.rs).

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run("native", data));
