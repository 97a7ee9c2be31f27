//! What `teardown plan --all -o json` must do beyond `check -o json`, at
//! the least, measured on one core (scripts/bench.sh, issue 40): hash each
//! input (a plan records every input's sha256: the contract's `inputs`),
//! and write the plan: serde_json writing the same pretty JSON to a file
//! (64 KiB buffered) from a value already in memory (parsed before the
//! clock starts).
//!
//! Run: cargo run --release --example plan_floor -- INPUT PLAN.json OUT
//! (PLAN.json: a plan teardown wrote for INPUT; OUT: a file to write).
//! Prints the milliseconds of each part and their sum.

use sha2::Digest;
use std::io::Write;
use std::time::Instant;

/// The allocator teardown uses, so that the floor measures code, not allocators.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    eprintln!("plan_floor: {what}: {e}");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, plan, out] = args.as_slice() else {
        eprintln!("usage: plan_floor INPUT PLAN.json OUT");
        std::process::exit(2)
    };
    let input = std::fs::read(input).unwrap_or_else(|e| fail(input, e));
    let plan: serde_json::Value = match std::fs::read(plan) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| fail(plan, e)),
        Err(e) => fail(plan, e),
    };

    let t = Instant::now();
    let digest = sha2::Sha256::digest(&input);
    let hashed = t.elapsed();

    let t = Instant::now();
    let file = std::fs::File::create(out).unwrap_or_else(|e| fail(out, e));
    let mut file = std::io::BufWriter::with_capacity(1 << 16, file);
    serde_json::to_writer_pretty(&mut file, &plan).unwrap_or_else(|e| fail(out, e));
    file.write_all(b"\n").unwrap_or_else(|e| fail(out, e));
    file.flush().unwrap_or_else(|e| fail(out, e));
    drop(file);
    let written = t.elapsed();

    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    println!(
        "sha256 {:.1} ms ({} bytes, {}…), written {:.1} ms, sum {:.1} ms",
        ms(hashed),
        input.len(),
        digest.iter().take(2).map(|b| format!("{b:02x}")).collect::<String>(),
        ms(written),
        ms(hashed) + ms(written)
    );
}
