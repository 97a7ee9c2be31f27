#![no_main]
//! Fuzz target `kubevela`: see `harness::kubevela` (fuzz/harness.rs).

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run("kubevela", data));
