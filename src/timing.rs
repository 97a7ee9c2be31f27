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
            eprintln!("timing: {phase:<12} {:>8.1} ms", (now - self.last).as_secs_f64() * 1000.0);
            self.last = now;
        }
    }
}
