#![no_main]
//! Fuzz target `fast_yaml`: see `harness::fast_yaml` (fuzz/harness.rs).

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run("fast_yaml", data));
