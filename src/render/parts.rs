//! Long outputs made in parallel, in parts, and written in order: each
//! batch of items is split into parts formatted on rayon's threads into
//! buffers that every batch uses again (fresh memory costs page faults), then
//! written as they are. Nothing is held whole.

use rayon::prelude::*;
use std::io::{self, Write};

pub struct Parts {
    /// Items a part holds, and parts a batch holds.
    part: usize,
    parts: usize,
    pool: Vec<Vec<u8>>,
}

impl Parts {
    pub fn new(part: usize, parts: usize) -> Parts {
        Parts { part, parts, pool: Vec::new() }
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
        let (part, batch_len) = (self.part, self.part * self.parts);
        for (b, batch) in items.chunks(batch_len).enumerate() {
            let parts = batch.len().div_ceil(part);
            if self.pool.len() < parts {
                self.pool.resize_with(parts, Vec::new);
            }
            let pool = self.pool.par_iter_mut().take(parts);
            batch.par_chunks(part).zip(pool).enumerate().try_for_each(|(c, (chunk, buf))| {
                buf.clear();
                let first = b * batch_len + c * part;
                chunk.iter().enumerate().try_for_each(|(k, item)| format(first + k, item, buf))
            })?;
            for buf in self.pool.iter().take(parts) {
                out.write_all(buf)?;
            }
        }
        Ok(())
    }
}
