#![no_main]
//! Fuzz target `krake`: see `harness::krake` (fuzz/harness.rs).

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run("krake", data));
