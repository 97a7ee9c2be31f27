#![no_main]
//! Fuzz target `murano`: see `harness::murano` (fuzz/harness.rs).

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run("murano", data));
