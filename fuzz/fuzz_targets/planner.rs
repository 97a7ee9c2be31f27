#![no_main]
//! Fuzz target `planner`: see `harness::planner` (fuzz/harness.rs).

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run("planner", data));
