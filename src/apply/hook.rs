//! Points where a test can stop `apply` or make it fail, so that races
//! (a link pointed elsewhere while it runs, a second run, a kill between
//! two renames) and failures (a rename that fails after another worked)
//! are tested deterministically.
//!
//! Only in debug builds (the test builds): a release build has no such
//! code, and no environment can reach it. `TEARDOWN_APPLY_HOOK` holds
//! comma-separated items:
//! - `pause@POINT=DIR`: at POINT, create `DIR/POINT.reached`, then wait
//!   until `DIR/POINT.go` exists (at most a minute);
//! - `fail@POINT`: at POINT, fail as the file system call there would,
//!   with an error that says it was asked for.
//!
//! The points, in the order a run reaches them: `locked` (every input
//! found, locked and read; nothing planned yet), `created:N` (the Nth
//! changed file's new file created beside it, with its owner, mode and
//! attributes, before a byte is written), `staged` (every new text
//! written beside its file; nothing renamed yet), `commit:N` (before the
//! Nth changed file is renamed into place), `swapped:N` (after it), and
//! `backup:N` (before the Nth original is renamed to its backup).

use std::io;

/// Stop or fail at `point`, as `TEARDOWN_APPLY_HOOK` asks (debug builds).
#[cfg(debug_assertions)]
pub fn at(point: &str) -> io::Result<()> {
    let Some(spec) = std::env::var_os("TEARDOWN_APPLY_HOOK") else { return Ok(()) };
    let spec = spec.to_string_lossy().into_owned();
    for item in spec.split(',') {
        if let Some(rest) = item.strip_prefix("pause@") {
            let Some((p, dir)) = rest.split_once('=') else { continue };
            if p == point {
                let dir = std::path::Path::new(dir);
                std::fs::write(dir.join(format!("{point}.reached")), b"")?;
                let go = dir.join(format!("{point}.go"));
                let start = std::time::Instant::now();
                while !go.exists() && start.elapsed() < std::time::Duration::from_secs(60) {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
            }
        } else if item.strip_prefix("fail@") == Some(point) {
            return Err(io::Error::other(format!("failure asked for at {point} (TEARDOWN_APPLY_HOOK)")));
        }
    }
    Ok(())
}

/// Release builds: no hook.
#[cfg(not(debug_assertions))]
#[inline(always)]
pub fn at(_point: &str) -> io::Result<()> {
    Ok(())
}
