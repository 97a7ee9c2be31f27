//! Long outputs made in parallel, in parts, and written in order: each
//! batch of items is split into parts formatted on rayon's threads into
//! buffers that every other batch uses again (fresh memory costs page
//! faults), and written while the next batch is formatted. Nothing is held
//! whole.

use rayon::prelude::*;
use std::io::{self, Write};

pub struct Parts {
    /// Items a part holds, and parts held at once: half of them a batch
    /// being written, half the next batch being made.
    part: usize,
    parts: usize,
    /// The buffers of the batch being written, and of the one being made.
    pool: Vec<Vec<u8>>,
    spare: Vec<Vec<u8>>,
}

impl Parts {
    pub fn new(part: usize, parts: usize) -> Parts {
        Parts { part, parts, pool: Vec::new(), spare: Vec::new() }
    }

    /// Write `items` to `out`, each formatted by `format(index, item,
    /// buffer)`; the bytes are those of formatting them one after another.
    /// An item `format` fails on stops the writing, with its error.
    pub fn write<T: Sync>(
        &mut self,
        items: &[T],
        out: &mut dyn Write,
        format: impl Fn(usize, &T, &mut Vec<u8>) -> io::Result<()> + Sync,
    ) -> io::Result<()> {
        let (part, batch_len) = (self.part, (self.part * (self.parts / 2).max(1)).max(1));
        let mut batches = items.chunks(batch_len);
        let Some(first) = batches.next() else { return Ok(()) };
        let mut made = fill(&mut self.pool, first, 0, part, &format)?;
        for (b, batch) in batches.enumerate() {
            // The batch made is written (on this thread: `out` stays here)
            // while the next is made on rayon's.
            let start = (b + 1) * batch_len;
            let (pool, spare) = (&self.pool, &mut self.spare);
            let (written, next) = std::thread::scope(|s| {
                let making = s.spawn(|| fill(spare, batch, start, part, &format));
                let written = pool.iter().take(made).try_for_each(|buf| out.write_all(buf));
                let next = making.join().unwrap_or_else(|_| Err(io::Error::other("a part of the output failed")));
                (written, next)
            });
            written?;
            made = next?;
            std::mem::swap(&mut self.pool, &mut self.spare);
        }
        self.pool.iter().take(made).try_for_each(|buf| out.write_all(buf))
    }
}

/// Format `batch` (its first item the `start`th) into the first buffers of
/// `pool`, `part` items a buffer, in parallel; how many buffers it filled.
fn fill<T: Sync>(
    pool: &mut Vec<Vec<u8>>,
    batch: &[T],
    start: usize,
    part: usize,
    format: &(impl Fn(usize, &T, &mut Vec<u8>) -> io::Result<()> + Sync),
) -> io::Result<usize> {
    let part = part.max(1);
    let parts = batch.len().div_ceil(part);
    if pool.len() < parts {
        pool.resize_with(parts, Vec::new);
    }
    pool.par_iter_mut().take(parts).zip(batch.par_chunks(part)).enumerate().try_for_each(|(c, (buf, chunk))| {
        buf.clear();
        let first = start + c * part;
        chunk.iter().enumerate().try_for_each(|(k, item)| format(first + k, item, buf))
    })?;
    Ok(parts)
}
