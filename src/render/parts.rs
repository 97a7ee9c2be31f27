//! Long outputs made in parallel, in parts, and written in order: each
//! batch of items is split into parts formatted on rayon's threads into
//! buffers that every other batch uses again (fresh memory costs page
//! faults), and written while the next batch is formatted. Nothing is held
//! whole.

use rayon::prelude::*;
use std::io::{self, IoSlice, Write};

pub struct Parts {
    /// Items a part holds, and parts held at once: half of them a batch
    /// being written, half the next batch being made.
    part: usize,
    parts: usize,
    /// Bytes a part's buffer is made ready for at first, per item: about
    /// what an item takes, so that a buffer is not grown (and copied) a
    /// dozen times while its first part is formatted.
    item_bytes: usize,
    /// The buffers of the batch being written, and of the one being made.
    pool: Vec<Vec<u8>>,
    spare: Vec<Vec<u8>>,
}

impl Parts {
    pub fn new(part: usize, parts: usize) -> Parts {
        Parts { part, parts, item_bytes: 0, pool: Vec::new(), spare: Vec::new() }
    }

    /// The same, each buffer made ready at first for `item_bytes` bytes an
    /// item (the bytes written are the same whatever it is).
    pub fn sized(self, item_bytes: usize) -> Parts {
        Parts { item_bytes, ..self }
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
        let size = part.saturating_mul(self.item_bytes);
        let mut made = fill(&mut self.pool, first, 0, (part, size), &format)?;
        for (b, batch) in batches.enumerate() {
            // The batch made is written (on this thread: `out` stays here)
            // while the next is made on rayon's.
            let start = (b + 1) * batch_len;
            let (pool, spare) = (&self.pool, &mut self.spare);
            let (written, next) = std::thread::scope(|s| {
                let making = s.spawn(|| fill(spare, batch, start, (part, size), &format));
                let written = write_all(out, pool.get(..made).unwrap_or_default());
                let next = making.join().unwrap_or_else(|_| Err(io::Error::other("a part of the output failed")));
                (written, next)
            });
            written?;
            made = next?;
            std::mem::swap(&mut self.pool, &mut self.spare);
        }
        write_all(out, self.pool.get(..made).unwrap_or_default())
    }
}

/// Write `parts` one after another, in as few calls as `out` takes them:
/// a batch of parts is larger than a buffered writer's buffer, which then
/// hands them on whole instead of copying each into its buffer first.
fn write_all(out: &mut dyn Write, parts: &[Vec<u8>]) -> io::Result<()> {
    let mut slices: Vec<IoSlice> = parts.iter().filter(|p| !p.is_empty()).map(|p| IoSlice::new(p)).collect();
    let mut rest = slices.as_mut_slice();
    while !rest.is_empty() {
        match out.write_vectored(rest) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut rest, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Format `batch` (its first item the `start`th) into the first buffers of
/// `pool`, `part` items a buffer (each made ready for `size` bytes), in
/// parallel; how many buffers it filled.
fn fill<T: Sync>(
    pool: &mut Vec<Vec<u8>>,
    batch: &[T],
    start: usize,
    (part, size): (usize, usize),
    format: &(impl Fn(usize, &T, &mut Vec<u8>) -> io::Result<()> + Sync),
) -> io::Result<usize> {
    let part = part.max(1);
    let parts = batch.len().div_ceil(part);
    if pool.len() < parts {
        pool.resize_with(parts, Vec::new);
    }
    pool.par_iter_mut().take(parts).zip(batch.par_chunks(part)).enumerate().try_for_each(|(c, (buf, chunk))| {
        buf.clear();
        buf.reserve(size);
        let first = start + c * part;
        chunk.iter().enumerate().try_for_each(|(k, item)| format(first + k, item, buf))
    })?;
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that takes at most `most` bytes a call, vectored or not.
    struct Slow {
        bytes: Vec<u8>,
        most: usize,
        calls: usize,
    }

    impl Write for Slow {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.calls += 1;
            let n = buf.len().min(self.most);
            self.bytes.extend_from_slice(buf.get(..n).unwrap_or_default());
            Ok(n)
        }
        fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
            self.calls += 1;
            let mut n = 0;
            for b in bufs {
                let take = b.len().min(self.most - n);
                self.bytes.extend_from_slice(b.get(..take).unwrap_or_default());
                n += take;
            }
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Items formatted in parts of any size, any number held at once, and
    /// written to a writer that takes a few bytes a call, are the bytes of
    /// formatting them one after another; a failing item stops the writing
    /// with its error.
    #[test]
    fn parts_join_into_the_whole() {
        let items: Vec<u32> = (0..40).collect();
        let format = |i: usize, x: &u32, buf: &mut Vec<u8>| {
            buf.extend_from_slice(if i == 0 { b"[" } else { b"," });
            buf.extend_from_slice(format!("\"{x}\\\"\"").as_bytes());
            Ok(())
        };
        for len in [0, 1, 2, 3, 7, 40] {
            let items = items.get(..len).unwrap_or_default();
            let mut whole = Vec::new();
            for (i, x) in items.iter().enumerate() {
                format(i, x, &mut whole).unwrap();
            }
            for (part, parts, most) in [(1, 1, 1), (1, 2, 3), (2, 2, 5), (3, 4, 64), (3, 6, 2), (256, 16, 1 << 20)] {
                // Buffers made ready for none, fewer or more bytes than an
                // item takes (a buffer used again holds a former part's).
                for size in [0, 1, 4, 100] {
                    let mut out = Slow { bytes: Vec::new(), most, calls: 0 };
                    Parts::new(part, parts).sized(size).write(items, &mut out, format).unwrap();
                    assert_eq!(
                        out.bytes, whole,
                        "{len} items, parts of {part} ({size} B), {parts} at once, {most} B a call"
                    );
                }
            }
        }
        let failing = |_: usize, x: &u32, buf: &mut Vec<u8>| match *x {
            17 => Err(io::Error::other("item 17")),
            _ => {
                buf.push(b'.');
                Ok(())
            }
        };
        let mut out = Slow { bytes: Vec::new(), most: 8, calls: 0 };
        let err = Parts::new(2, 4).write(&items, &mut out, failing).unwrap_err();
        assert_eq!(err.to_string(), "item 17");
        assert!(out.bytes.len() < 17, "{}", out.bytes.len());
    }

    /// A batch of parts goes to the writer in one vectored call when it
    /// takes them whole.
    #[test]
    fn a_batch_is_one_call() {
        let items: Vec<u32> = (0..64).collect();
        let mut out = Slow { bytes: Vec::new(), most: usize::MAX, calls: 0 };
        Parts::new(4, 8)
            .write(&items, &mut out, |_, x, buf| {
                buf.push(*x as u8);
                Ok(())
            })
            .unwrap();
        assert_eq!(out.bytes, items.iter().map(|&x| x as u8).collect::<Vec<_>>());
        // 64 items, 16 a batch (four parts of four).
        assert_eq!(out.calls, 4);
    }
}
