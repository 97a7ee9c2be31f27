#![no_main]
//! Fuzz target `apply`: see `harness::apply` (fuzz/harness.rs).

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run("apply", data));
