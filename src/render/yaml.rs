//! YAML output: any serialisable result, written as serde_yaml writes it.

use serde::Serialize;
use std::io::{self, Write};

/// Write `value` as YAML. A writer's error stays that error (a closed pipe
/// stays a closed pipe, exit 0), not a YAML error.
pub fn write<T: Serialize>(value: &T, out: &mut dyn Write) -> io::Result<()> {
    // serde_yaml wraps the writer's error: keep it.
    struct Keep<'a> {
        out: &'a mut dyn Write,
        error: Option<io::Error>,
    }
    impl Write for Keep<'_> {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.out.write(buf).inspect_err(|e| self.error = Some(io::Error::new(e.kind(), e.to_string())))
        }
        fn flush(&mut self) -> io::Result<()> {
            self.out.flush().inspect_err(|e| self.error = Some(io::Error::new(e.kind(), e.to_string())))
        }
    }
    let mut keep = Keep { out, error: None };
    match serde_yaml::to_writer(&mut keep, value) {
        Ok(()) => Ok(()),
        Err(e) => Err(keep.error.take().unwrap_or_else(|| io::Error::other(e))),
    }
}
