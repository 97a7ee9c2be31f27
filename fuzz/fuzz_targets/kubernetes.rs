#![no_main]
//! Fuzz target `kubernetes`: see `harness::kubernetes` (fuzz/harness.rs).

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run("kubernetes", data));
