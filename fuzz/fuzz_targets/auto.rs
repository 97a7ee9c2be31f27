#![no_main]
//! Fuzz target `auto`: see `harness::auto` (fuzz/harness.rs).

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run("auto", data));
