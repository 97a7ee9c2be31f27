//! Phase timings on stderr when `TEARDOWN_TIMINGS` is set: for benchmarks
//! and for finding where time goes. Costs one environment lookup otherwise.

use std::sync::OnceLock;
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("TEARDOWN_TIMINGS").is_some())
}

/// Measures from its creation to each `lap`.
pub struct Timer {
    last: Instant,
}

impl Timer {
    pub fn start() -> Timer {
        Timer { last: Instant::now() }
    }

    pub fn lap(&mut self, phase: &str) {
        if enabled() {
            let now = Instant::now();
            eprintln!(
                "timing: {phase:<12} {:>8.1} ms  rss {:>6} MB  peak {:>6} MB",
                (now - self.last).as_secs_f64() * 1000.0,
                rss_mb(),
                peak_mb()
            );
            self.last = now;
        }
    }
}

/// Resident memory now (Linux; 0 elsewhere).
fn rss_mb() -> u64 {
    let Ok(statm) = std::fs::read_to_string("/proc/self/statm") else { return 0 };
    let pages: u64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
    pages * 4096 / (1 << 20)
}

/// Peak resident memory so far (Linux; 0 elsewhere).
fn peak_mb() -> u64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else { return 0 };
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb / 1024)
        .unwrap_or(0)
}
