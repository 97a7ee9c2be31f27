#![no_main]
//! Fuzz target `pairs`: see `harness::pairs` (fuzz/harness.rs).

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run("pairs", data));
