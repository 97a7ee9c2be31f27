//! The text of the inputs. Every byte the tool reads lives in a
//! [`SourceFile`], which also knows how to turn a byte offset into a line and
//! column. Later stages refer to places in the input with a [`Span`] (file id
//! + byte range) and never copy text.

use crate::span::{FileId, Span};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::{Mutex, OnceLock};

/// How a file's content should be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `.json`: a sequence of JSON values (one value, or NDJSON).
    Json,
    /// Anything else: a YAML stream (JSON documents inside it are recognised).
    Yaml,
}

/// One input file, fully read and known to be UTF-8.
pub struct SourceFile {
    /// The name findings use: the path as the user gave it (or as found under
    /// a directory the user gave), `<stdin>` for standard input.
    pub name: String,
    /// The path on disk; `None` for standard input.
    pub path: Option<PathBuf>,
    pub format: Format,
    pub text: Text,
    /// The file started with a UTF-8 byte order mark (not part of `text`).
    pub bom: bool,
    line_starts: OnceLock<LineStarts>,
    sha256: OnceLock<String>,
    /// How far a background thread has hashed the file (see
    /// [`digest_in_background`]).
    hashed: Mutex<Hashed>,
    /// The last line a column was computed in (see `line_col`).
    column_cache: Mutex<Option<ColumnCache>>,
}

#[derive(Clone, Copy)]
struct ColumnCache {
    line: usize,
    ascii: bool,
    offset: usize,
    column: usize,
}

/// A file's text, read into memory (see `files` for why a file is not
/// mapped): owned, or (large files) in memory of its own, mapped for it
/// alone, in huge pages where the system has them.
pub struct Text(TextRepr);

enum TextRepr {
    Owned(Box<str>),
    /// Anonymous memory, private to this process: checked as UTF-8 from
    /// `start` (after a byte order mark) once read, and never written again.
    Buffer {
        map: memmap2::MmapMut,
        start: usize,
    },
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        match &self.0 {
            TextRepr::Owned(s) => s,
            // SAFETY: `Text::buffer` checked these bytes with `str::from_utf8`;
            // the memory is anonymous and private (no other process or file
            // can change it) and `Text` never hands out a mutable view.
            TextRepr::Buffer { map, start } => unsafe {
                std::str::from_utf8_unchecked(map.get(*start..).unwrap_or_default())
            },
        }
    }
}

impl Text {
    /// A buffer that holds UTF-8 from `start`; `Err` gives the buffer back
    /// with the offset of the first invalid byte (from `start`).
    pub(crate) fn buffer(map: memmap2::MmapMut, start: usize) -> Result<Text, (memmap2::MmapMut, usize)> {
        let bytes = map.get(start..).unwrap_or_default();
        if utf8_in_pieces(bytes) {
            return Ok(Text(TextRepr::Buffer { map, start }));
        }
        match std::str::from_utf8(bytes) {
            Ok(_) => Ok(Text(TextRepr::Buffer { map, start })),
            Err(e) => Err((map, e.valid_up_to())),
        }
    }
}

/// Whether `bytes` is UTF-8, checked in pieces of 4 MiB in parallel (a
/// 108 MB file in 5 ms, not 10, on two cores). Each piece is cut before a
/// byte that starts a character, so that the pieces are UTF-8 exactly when
/// the whole is (a character a cut ends early is refused in its piece,
/// and in the whole, where a character's first byte follows it).
fn utf8_in_pieces(bytes: &[u8]) -> bool {
    use rayon::prelude::*;
    const PIECE: usize = 4 << 20;
    let is_start = |at: usize| bytes.get(at).is_none_or(|&b| b & 0xC0 != 0x80);
    // A continuation byte is one of at most three after a character's
    // first: a fourth is invalid wherever the cut falls.
    let cut = |at: usize| (at..at + 4).find(|&at| is_start(at)).unwrap_or(at);
    let cuts: Vec<usize> =
        (0..bytes.len().div_ceil(PIECE)).map(|n| if n == 0 { 0 } else { cut(n * PIECE).min(bytes.len()) }).collect();
    cuts.par_iter().enumerate().all(|(n, &from)| {
        let to = cuts.get(n + 1).copied().unwrap_or(bytes.len());
        bytes.get(from..to).is_some_and(|piece| std::str::from_utf8(piece).is_ok())
    })
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(TextRepr::Owned(s.into_boxed_str()))
    }
}

/// Where lines are, without storing every line start (a 1 GB dump has tens
/// of millions of lines): the number of newlines before each 4 KiB block.
/// A lookup counts newlines inside one block, a machine word at a time.
struct LineStarts {
    /// `before[b]`: newlines in `text[..b * BLOCK]`.
    before: Vec<u32>,
    /// Total number of lines.
    lines: usize,
    len: usize,
}

const BLOCK: usize = 4096;

/// Newlines in `s`: counted in 32 byte lanes, each lane's count a byte
/// for up to 255 blocks of 32 bytes, which vectorises (a word at a time
/// with a population count took three times the instructions; a byte
/// fold over 255-byte chunks, as `json::too_deep` counts brackets, 1.7
/// times: it leaves each chunk's last bytes to a loop of their own).
fn count_newlines(s: &[u8]) -> usize {
    const W: usize = 32;
    let mut total = 0usize;
    let mut blocks = s.chunks_exact(W);
    loop {
        let mut lanes = [0u8; W];
        let mut n = 0;
        while n < 255 {
            let Some(block) = blocks.next() else { break };
            let block: &[u8; W] = block.try_into().unwrap_or(&[0; W]);
            for (lane, &b) in lanes.iter_mut().zip(block) {
                *lane += u8::from(b == b'\n');
            }
            n += 1;
        }
        total += lanes.iter().map(|&c| usize::from(c)).sum::<usize>();
        if n < 255 {
            break;
        }
    }
    total + blocks.remainder().iter().filter(|&&b| b == b'\n').count()
}

impl LineStarts {
    fn build(bytes: &[u8]) -> LineStarts {
        use rayon::prelude::*;
        let counts: Vec<usize> = bytes.par_chunks(BLOCK).map(count_newlines).collect();
        let mut before = Vec::with_capacity(counts.len() + 1);
        let mut total = 0usize;
        for c in counts {
            before.push(total.min(u32::MAX as usize) as u32);
            total += c;
        }
        // Files with more than 4 billion lines are beyond what this indexes.
        LineStarts { before, lines: total + 1, len: bytes.len() }
    }

    fn lines(&self) -> usize {
        self.lines
    }

    /// 0-based line of a byte offset.
    fn line_of(&self, bytes: &[u8], offset: usize) -> usize {
        let offset = offset.min(self.len);
        let b = offset / BLOCK;
        match self.before.get(b) {
            Some(&n) => n as usize + bytes.get(b * BLOCK..offset).map_or(0, count_newlines),
            None => self.lines - 1,
        }
    }

    /// Byte offset at which 0-based `line` starts (the end for lines past it).
    fn get(&self, bytes: &[u8], line: usize) -> usize {
        if line == 0 {
            return 0;
        }
        if line >= self.lines {
            return self.len;
        }
        // The block holding newline number `line` (1-based).
        let b = self.before.partition_point(|&n| (n as usize) < line).saturating_sub(1);
        let Some(&before) = self.before.get(b) else { return self.len };
        let skip = line - before as usize - 1;
        let start = b * BLOCK;
        let rest = bytes.get(start..).unwrap_or_default();
        memchr::memchr_iter(b'\n', rest).nth(skip).map(|i| start + i + 1).unwrap_or(self.len)
    }
}

/// A 1-based line and column (columns count characters, not bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

impl SourceFile {
    pub fn new(name: String, path: Option<PathBuf>, format: Format, text: impl Into<Text>) -> SourceFile {
        SourceFile {
            name,
            path,
            format,
            text: text.into(),
            bom: false,
            line_starts: OnceLock::new(),
            sha256: OnceLock::new(),
            hashed: Mutex::new(Hashed::NotYet),
            column_cache: Mutex::new(None),
        }
    }

    /// Line starts (built on first use: only files with findings pay for it,
    /// and in parallel: a 1 GB dump has tens of millions of lines).
    fn starts(&self) -> &LineStarts {
        self.line_starts.get_or_init(|| LineStarts::build(self.text.as_bytes()))
    }

    /// Number of lines.
    pub fn line_count(&self) -> usize {
        self.starts().lines()
    }

    /// Byte offset at which 0-based `line` starts.
    pub fn line_start(&self, line: usize) -> usize {
        self.starts().get(self.text.as_bytes(), line)
    }

    /// Newlines in a byte range.
    pub fn newlines(&self, range: Range<usize>) -> usize {
        let bytes = self.text.as_bytes();
        let end = range.end.min(bytes.len());
        bytes.get(range.start.min(end)..end).map_or(0, count_newlines)
    }

    /// 0-based line index of a byte offset.
    pub fn line_index(&self, offset: usize) -> usize {
        self.starts().line_of(self.text.as_bytes(), offset)
    }

    /// The byte range of a 0-based line, without its line terminator.
    pub fn line_range(&self, line: usize) -> Range<usize> {
        let starts = self.starts();
        let bytes = self.text.as_bytes();
        let start = if line < starts.lines() { starts.get(bytes, line) } else { self.text.len() };
        let mut end = if line + 1 < starts.lines() { starts.get(bytes, line + 1) - 1 } else { self.text.len() };
        if end > start && self.text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        start..end.max(start)
    }

    /// Columns count characters. Positions asked for in order along one long
    /// line (a minified JSON list with many findings) cost one pass over it,
    /// not one per position: the last line's column is remembered, and an
    /// ASCII line needs no counting at all.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = self.floor_char_boundary(offset.min(self.text.len()));
        let line = self.line_index(offset);
        // The line's start and end are the newlines around the offset (as
        // `line_start` and `line_range` find them, without counting lines).
        let b = self.text.as_bytes();
        let start = b.get(..offset).and_then(|before| memchr::memrchr(b'\n', before)).map_or(0, |i| i + 1);
        let mut cache = self.column_cache.lock().unwrap_or_else(|e| e.into_inner());
        let (ascii, column) = match *cache {
            Some(c) if c.line == line && c.ascii => (true, offset - start),
            Some(c) if c.line == line && c.offset <= offset => (false, c.column + self.chars(c.offset..offset)),
            Some(c) if c.line == line => (false, self.chars(start..offset)),
            _ => {
                let end =
                    b.get(offset..).and_then(|after| memchr::memchr(b'\n', after)).map_or(b.len(), |i| offset + i);
                let ascii = b.get(start..end).is_some_and(<[u8]>::is_ascii);
                let column = if ascii { offset - start } else { self.chars(start..offset) };
                (ascii, column)
            }
        };
        *cache = Some(ColumnCache { line, ascii, offset, column });
        LineCol { line: line + 1, column: column + 1 }
    }

    /// Characters in a byte range between character boundaries (bytes, if
    /// it is not one: a column near the place rather than none).
    fn chars(&self, range: Range<usize>) -> usize {
        let bytes = range.end.saturating_sub(range.start);
        self.text.get(range).map_or(bytes, |s| s.chars().count())
    }

    /// Byte offset of a 1-based line and column (clamped to the text).
    pub fn offset_of(&self, line: usize, column: usize) -> usize {
        let range = self.line_range(line.saturating_sub(1));
        let text = self.text.get(range.clone()).unwrap_or_default();
        let skip = column.saturating_sub(1);
        text.char_indices().nth(skip).map(|(i, _)| range.start + i).unwrap_or(range.end)
    }

    /// SHA-256 of the file's bytes as read (hex), for plans to pin their
    /// inputs (computed once). What a background thread has hashed of it
    /// already ([`digest_in_background`]) is taken over, not hashed again.
    pub fn sha256(&self) -> &str {
        self.sha256.get_or_init(|| {
            use sha2::Digest;
            let taken = std::mem::replace(&mut *self.hashed.lock().unwrap_or_else(|e| e.into_inner()), Hashed::Taken);
            let (mut h, at) = match taken {
                Hashed::Part(h, at) => (h, at),
                Hashed::NotYet | Hashed::Taken => (self.hasher(), 0),
            };
            update(&mut h, self.text.as_bytes().get(at..).unwrap_or_default());
            h.finalize().iter().map(|b| format!("{b:02x}")).collect()
        })
    }

    /// A hasher that has read the byte order mark, if the file had one.
    fn hasher(&self) -> sha2::Sha256 {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        if self.bom {
            h.update(b"\xEF\xBB\xBF");
        }
        h
    }

    /// Hash the next piece of the file in the background: `false` once
    /// there is nothing more to do (all of it hashed, or the digest asked
    /// for and taken over by [`SourceFile::sha256`]).
    fn hash_piece(&self) -> bool {
        if self.sha256.get().is_some() {
            return false;
        }
        let lock = || self.hashed.lock().unwrap_or_else(|e| e.into_inner());
        // Hashed on a copy, without the lock: whoever asks for the digest
        // meanwhile takes the state as it was, and this piece is dropped.
        let (mut h, at) = match &*lock() {
            Hashed::NotYet => (self.hasher(), 0),
            Hashed::Part(h, at) => (h.clone(), *at),
            Hashed::Taken => return false,
        };
        let bytes = self.text.as_bytes();
        if at >= bytes.len() {
            // All hashed: whoever asks finishes the digest.
            return false;
        }
        let to = (at + HASH_PIECE).min(bytes.len());
        update(&mut h, bytes.get(at..to).unwrap_or_default());
        let mut state = lock();
        match &*state {
            Hashed::Part(_, was) if *was != at => return false,
            Hashed::Taken => return false,
            _ => *state = Hashed::Part(h, to),
        }
        true
    }

    pub fn floor_char_boundary(&self, mut offset: usize) -> usize {
        while offset > 0 && !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }
}

/// Bytes hashed at a time by [`update`], the next as many fetched meanwhile.
const AHEAD: usize = 4096;

/// Hash `bytes` into `h`, a piece of 4 KiB at a time, first reading a byte
/// of each cache line of the next piece: its fetch from memory overlaps the
/// hashing of this one. The hash's own reads come one after another too
/// late for the hardware's prefetching: 108 MB hashed in 92 ms from memory,
/// 65 ms so (58 ms from the cache), sha_ni on the benchmark machine (issue
/// 40).
fn update(h: &mut sha2::Sha256, bytes: &[u8]) {
    use sha2::Digest;
    let mut pieces = bytes.chunks(AHEAD).peekable();
    while let Some(piece) = pieces.next() {
        if let Some(next) = pieces.peek() {
            std::hint::black_box(next.iter().step_by(64).fold(0u8, |a, &b| a ^ b));
        }
        h.update(piece);
    }
}

/// How far the background thread has hashed a file.
enum Hashed {
    NotYet,
    /// The hasher, having read the text up to this offset.
    Part(sha2::Sha256, usize),
    /// [`SourceFile::sha256`] took over (or there was nothing to take).
    Taken,
}

/// Bytes hashed at a time in the background (about a millisecond).
const HASH_PIECE: usize = 1 << 20;

/// Hash `files` on a thread of their own, at the lowest priority: it
/// runs when a core would idle (the serial phases of loading and planning)
/// rather than taking one from work spread over every core. Whoever asks
/// for a digest first ([`SourceFile::sha256`]) takes over where this thread
/// got to, at its own priority, so the digest never waits on a starved
/// thread. (Plan files record each input's sha256, issue 40.)
pub fn digest_in_background(files: Vec<Arc<SourceFile>>) {
    std::thread::spawn(move || {
        // On Linux a thread's nice value is its own (on other systems the
        // call would lower the whole process: not made there).
        #[cfg(target_os = "linux")]
        {
            _ = rustix::process::setpriority_process(None, 19);
        }
        for f in &files {
            while f.hash_piece() {}
        }
    });
}

/// All files of one run. `FileId(i)` is `files[i]`.
#[derive(Default)]
pub struct Sources {
    /// Shared, so that a thread may digest them while the rest of the run
    /// goes on (plan files record each input's sha256).
    pub files: Vec<Arc<SourceFile>>,
}

impl Sources {
    // A `FileId` is made by `read_inputs` as the index its file is pushed
    // at (files.rs), and files are never removed: every id of a run is in
    // its `Sources`. (An id from another run's `Sources` is the only way
    // to miss; no code keeps one.)
    #[allow(clippy::indexing_slicing, reason = "a FileId is the index read_inputs pushed its file at")]
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }
    pub fn ids(&self) -> impl Iterator<Item = FileId> {
        (0..self.files.len() as u32).map(FileId)
    }
    pub fn text(&self, span: Span) -> &str {
        // A span is made over its file's text; one that is not (a bug)
        // reads as no text.
        self.get(span.file).text.get(span.range()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_in_pieces_is_from_utf8() {
        // Four-byte characters across every cut between pieces, then bytes
        // that break them at a cut, just before it and just after it.
        let text = "a😀".repeat(3 << 20);
        let piece = 4 << 20;
        assert!(utf8_in_pieces(text.as_bytes()));
        for at in [piece - 3, piece - 2, piece - 1, piece, piece + 1, piece + 2, 2 * piece, text.len() - 1] {
            for byte in [0x80, 0xBF, 0xF0, 0xC3, b'a', 0xFF] {
                let mut bytes = text.clone().into_bytes();
                bytes[at] = byte;
                assert_eq!(utf8_in_pieces(&bytes), std::str::from_utf8(&bytes).is_ok(), "{byte:#x} at {at}");
            }
        }
        // A piece that starts with continuation bytes, and one that starts
        // with a fourth.
        let mut bytes = vec![b'a'; piece + 8];
        bytes[piece - 1..piece + 3].copy_from_slice("😀".as_bytes());
        assert!(utf8_in_pieces(&bytes));
        bytes[piece + 3] = 0x80;
        assert!(!utf8_in_pieces(&bytes));
        assert!(utf8_in_pieces(b""));
        assert!(!utf8_in_pieces(b"\x80"));
    }

    /// Hashed a piece at a time with the next fetched meanwhile, any length
    /// (none, under a piece, on and around a piece's end) is the bytes'
    /// sha256.
    #[test]
    fn hashed_ahead_is_the_sha256() {
        use sha2::{Digest, Sha256};
        let bytes: Vec<u8> = (0..AHEAD * 3 + 5).map(|i| (i * 7 % 251) as u8).collect();
        for len in [0, 1, 63, 64, AHEAD - 1, AHEAD, AHEAD + 1, 2 * AHEAD, AHEAD * 3 + 5] {
            let mut h = Sha256::new();
            update(&mut h, &bytes[..len]);
            assert_eq!(h.finalize(), Sha256::digest(&bytes[..len]), "{len} bytes");
        }
    }

    #[test]
    fn a_digest_taken_over_from_the_background_is_the_files() {
        use sha2::{Digest, Sha256};
        // Three and a half pieces, with and without a byte order mark.
        let text: String = (0..HASH_PIECE * 7 / 2).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        for bom in [false, true] {
            let mut whole = Sha256::new();
            if bom {
                whole.update(b"\xEF\xBB\xBF");
            }
            whole.update(text.as_bytes());
            let want: String = whole.finalize().iter().map(|b| format!("{b:02x}")).collect();
            // Asked for after 0 to 5 pieces hashed in the background.
            for pieces in 0..=5 {
                let mut f = file(&text);
                f.bom = bom;
                let mut more = true;
                for _ in 0..pieces {
                    more = f.hash_piece();
                }
                assert_eq!(more, pieces < 5, "{pieces} pieces");
                assert_eq!(f.sha256(), want, "after {pieces} pieces, bom {bom}");
                // Taken over: the background stops.
                assert!(!f.hash_piece());
            }
        }
        // From a thread of its own, then asked for.
        let f = Arc::new(file(&text));
        digest_in_background(vec![f.clone()]);
        let mut alone = Sha256::new();
        alone.update(text.as_bytes());
        assert_eq!(f.sha256(), alone.finalize().iter().map(|b| format!("{b:02x}")).collect::<String>());
        assert_eq!(file("").sha256(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    fn file(text: &str) -> SourceFile {
        SourceFile::new("t".into(), None, Format::Yaml, text.to_string())
    }

    #[test]
    fn line_col_counts_characters() {
        let f = file("ab\nçd\r\nef");
        assert_eq!(f.line_col(0), LineCol { line: 1, column: 1 });
        assert_eq!(f.line_col(3), LineCol { line: 2, column: 1 });
        assert_eq!(f.line_col(5), LineCol { line: 2, column: 2 });
        assert_eq!(f.line_col(8), LineCol { line: 3, column: 1 });
        assert_eq!(f.line_range(1), 3..6);
        assert_eq!(f.offset_of(2, 2), 5);
        assert_eq!(f.offset_of(3, 99), 10);
    }

    #[test]
    fn sparse_line_index_agrees_with_counting() {
        let mut text = String::new();
        for i in 0..3000 {
            text.push_str(&"x".repeat(i % 37));
            text.push('\n');
        }
        let f = file(&text);
        let starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        assert_eq!(f.line_count(), starts.len());
        for (line, &start) in starts.iter().enumerate() {
            assert_eq!(f.line_start(line), start, "line {line}");
            assert_eq!(f.line_index(start), line);
            if start > 0 {
                assert_eq!(f.line_index(start - 1), line - 1);
            }
        }
        assert_eq!(count_newlines(b"a\nb\n\n\x0a\x8a\n"), 5);
    }

    #[test]
    fn newlines_are_counted_across_lanes_blocks_and_tails() {
        let naive = |s: &[u8]| s.iter().filter(|&&b| b == b'\n').count();
        // Nothing but newlines: a lane counts to 255 and no further.
        let all = vec![b'\n'; 32 * 255 * 3 + 45];
        // Newlines at varied spacing (and bytes like them but for a bit).
        let mixed: Vec<u8> =
            (0..40_000u32).map(|i| if i % 7 == 0 || i % 31 == 3 { b'\n' } else { (i % 251) as u8 ^ 0x08 }).collect();
        for text in [&all, &mixed] {
            for start in [0, 1, 31, 32, 33] {
                for end in [start, start + 1, start + 31, start + 32, start + 8160, start + 8161, text.len()] {
                    let s = &text[start..end.min(text.len())];
                    assert_eq!(count_newlines(s), naive(s), "{start}..{end}");
                }
            }
        }
    }

    #[test]
    fn line_col_agrees_with_counting() {
        // Lines across 4 KiB blocks, with CRLF and multi-byte characters,
        // asked in order, backwards and at random (the column cache).
        let mut text = String::new();
        for i in 0..900 {
            text.push_str(&["ab", "çé", "x\r", "", "\u{1F600}y"][i % 5].repeat(i % 23));
            text.push('\n');
        }
        let f = file(&text);
        // Counted in one pass: each character boundary's line and column.
        let mut naive = std::collections::BTreeMap::new();
        let (mut line, mut column) = (1, 1);
        for (i, c) in text.char_indices() {
            naive.insert(i, LineCol { line, column });
            (line, column) = if c == '\n' { (line + 1, 1) } else { (line, column + 1) };
        }
        naive.insert(text.len(), LineCol { line, column });
        let bounds: Vec<usize> = naive.keys().copied().collect();
        for &i in bounds.iter().chain(bounds.iter().rev()).chain(bounds.iter().step_by(7).rev()) {
            assert_eq!(Some(&f.line_col(i)), naive.get(&i), "offset {i}");
        }
    }
}
