//! Reading inputs: files, directories (recursive, sorted) and standard input.
//!
//! Every byte the tool reads lives in a [`SourceFile`], which also knows how to
//! turn a byte offset into a line and column. Later stages refer to places in
//! the input with a [`Span`] (file id + byte range) and never copy text.

use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Index of a file in [`Sources`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

/// A byte range in one input file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub file: FileId,
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(file: FileId, range: Range<usize>) -> Span {
        Span { file, start: range.start, end: range.end }
    }
    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }
    pub fn len(&self) -> usize {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

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

/// A file's text, known to be UTF-8: owned, or (large files) memory-mapped,
/// which spares copying a gigabyte from the page cache.
pub struct Text(TextRepr);

enum TextRepr {
    Owned(Box<str>),
    /// Validated as UTF-8 from `start` (after a byte order mark) when mapped.
    Mapped {
        map: memmap2::Mmap,
        start: usize,
    },
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        match &self.0 {
            TextRepr::Owned(s) => s,
            // SAFETY: `map_file` checked these bytes with `str::from_utf8`, and
            // the mapping is read-only. (Like every reader of a mapped file,
            // teardown assumes the file is not rewritten in place while it
            // runs; `apply` replaces files by renaming, never in place.)
            TextRepr::Mapped { map, start } => unsafe { std::str::from_utf8_unchecked(&map[*start..]) },
        }
    }
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

/// Newlines in `s`, eight bytes at a time.
fn count_newlines(s: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut n = 0;
    let mut words = s.chunks_exact(8);
    for w in &mut words {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        let x = u64::from_le_bytes(a) ^ (ONES * u64::from(b'\n'));
        // A high bit for each zero byte of x, exactly.
        let t = !(((x & LOW7) + LOW7) | x | LOW7);
        n += t.count_ones() as usize;
    }
    n + words.remainder().iter().filter(|&&c| c == b'\n').count()
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
            Some(&n) => n as usize + count_newlines(&bytes[b * BLOCK..offset]),
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
        let skip = line - self.before[b] as usize - 1;
        let start = b * BLOCK;
        memchr::memchr_iter(b'\n', &bytes[start..]).nth(skip).map(|i| start + i + 1).unwrap_or(self.len)
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
        if end > start && self.text.as_bytes()[end - 1] == b'\r' {
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
        let start = self.line_start(line);
        let mut cache = self.column_cache.lock().unwrap_or_else(|e| e.into_inner());
        let (ascii, column) = match *cache {
            Some(c) if c.line == line && c.ascii => (true, offset - start),
            Some(c) if c.line == line && c.offset <= offset => {
                (false, c.column + self.text[c.offset..offset].chars().count())
            }
            Some(c) if c.line == line => (false, self.text[start..offset].chars().count()),
            _ => {
                let ascii = self.text[self.line_range(line)].is_ascii();
                let column = if ascii { offset - start } else { self.text[start..offset].chars().count() };
                (ascii, column)
            }
        };
        *cache = Some(ColumnCache { line, ascii, offset, column });
        LineCol { line: line + 1, column: column + 1 }
    }

    /// Byte offset of a 1-based line and column (clamped to the text).
    pub fn offset_of(&self, line: usize, column: usize) -> usize {
        let range = self.line_range(line.saturating_sub(1));
        let text = &self.text[range.clone()];
        let skip = column.saturating_sub(1);
        text.char_indices().nth(skip).map(|(i, _)| range.start + i).unwrap_or(range.end)
    }

    /// SHA-256 of the file's bytes as read (hex), for plans to pin their inputs.
    pub fn sha256(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        if self.bom {
            h.update(b"\xEF\xBB\xBF");
        }
        h.update(self.text.as_bytes());
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    pub fn floor_char_boundary(&self, mut offset: usize) -> usize {
        while offset > 0 && !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }
}

/// All files of one run. `FileId(i)` is `files[i]`.
#[derive(Default)]
pub struct Sources {
    pub files: Vec<SourceFile>,
}

impl Sources {
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }
    pub fn ids(&self) -> impl Iterator<Item = FileId> {
        (0..self.files.len() as u32).map(FileId)
    }
    pub fn text(&self, span: Span) -> &str {
        &self.get(span.file).text[span.range()]
    }
}

/// Why an input could not be read. The file is reported and skipped; the run
/// goes on with the other inputs and ends with exit code 2.
#[derive(Debug)]
pub enum ReadProblem {
    Io {
        name: String,
        error: std::io::Error,
    },
    /// The file is kept in [`Sources`] (decoded lossily, for the snippet) but
    /// not parsed.
    NotUtf8 {
        name: String,
        file: FileId,
        offset: usize,
    },
    NotFound {
        name: String,
    },
}

impl ReadProblem {
    pub fn name(&self) -> &str {
        match self {
            ReadProblem::Io { name, .. } | ReadProblem::NotUtf8 { name, .. } | ReadProblem::NotFound { name } => name,
        }
    }
}

impl std::fmt::Display for ReadProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadProblem::Io { name, error } => write!(f, "{name}: cannot read: {error}"),
            ReadProblem::NotFound { name } => write!(f, "{name}: no such file or directory"),
            ReadProblem::NotUtf8 { name, offset, .. } => {
                write!(f, "{name}: not valid UTF-8 (first invalid byte at offset {offset})")
            }
        }
    }
}

/// Extensions read when walking a directory.
const EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// Read every input. `-` is standard input (read once). Directories are
/// walked recursively; their `*.yaml`, `*.yml` and `*.json` files are read in
/// sorted path order, hidden entries (names starting with `.`) skipped.
pub fn read_inputs(inputs: &[PathBuf], stdin: &mut dyn Read) -> (Sources, Vec<ReadProblem>) {
    let mut sources = Sources::default();
    let mut problems = Vec::new();
    let mut stdin_used = false;
    for input in inputs {
        if input.as_os_str() == "-" {
            if stdin_used {
                continue;
            }
            stdin_used = true;
            let mut bytes = Vec::new();
            match stdin.read_to_end(&mut bytes) {
                Ok(_) => push_file(&mut sources, &mut problems, "<stdin>".into(), None, bytes),
                Err(error) => problems.push(ReadProblem::Io { name: "<stdin>".into(), error }),
            }
            continue;
        }
        match std::fs::metadata(input) {
            Ok(meta) if meta.is_dir() => {
                let mut files = Vec::new();
                walk(input, &mut files, &mut problems);
                files.sort();
                for file in files {
                    read_file(&mut sources, &mut problems, &file);
                }
            }
            Ok(_) => read_file(&mut sources, &mut problems, input),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                problems.push(ReadProblem::NotFound { name: display(input) })
            }
            Err(error) => problems.push(ReadProblem::Io { name: display(input), error }),
        }
    }
    (sources, problems)
}

fn display(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, problems: &mut Vec<ReadProblem>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) => {
            problems.push(ReadProblem::Io { name: display(dir), error });
            return;
        }
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                problems.push(ReadProblem::Io { name: display(dir), error });
                continue;
            }
        };
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        // Follow symlinks to files, never into directories (no loops).
        let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
        if is_dir {
            walk(&path, out, problems);
        } else if has_known_extension(&path) {
            out.push(path);
        }
    }
}

fn has_known_extension(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| EXTENSIONS.iter().any(|k| k.eq_ignore_ascii_case(e)))
}

/// Files at least this large are memory-mapped rather than read.
const MAP_AT: u64 = 4 << 20;

fn read_file(sources: &mut Sources, problems: &mut Vec<ReadProblem>, path: &Path) {
    if let Some(text) = map_file(path) {
        let format = format_of(Some(path));
        let mut file = SourceFile::new(display(path), Some(path.to_path_buf()), format, Text(text.0));
        file.bom = text.1;
        sources.files.push(file);
        return;
    }
    match std::fs::read(path) {
        Ok(bytes) => push_file(sources, problems, display(path), Some(path.to_path_buf()), bytes),
        Err(error) => problems.push(ReadProblem::Io { name: display(path), error }),
    }
}

/// Map a large regular file whose bytes are UTF-8; `None` to read it
/// instead (small, not a regular file, not UTF-8: the read path reports it).
fn map_file(path: &Path) -> Option<(TextRepr, bool)> {
    let file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() < MAP_AT {
        return None;
    }
    // SAFETY: read-only mapping; see `Text`.
    let map = unsafe { memmap2::MmapOptions::new().populate().map(&file) }.ok()?;
    let bom = map.starts_with(b"\xEF\xBB\xBF");
    let start = if bom { 3 } else { 0 };
    std::str::from_utf8(&map[start..]).ok()?;
    Some((TextRepr::Mapped { map, start }, bom))
}

fn format_of(path: Option<&Path>) -> Format {
    match path {
        Some(p) if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) => Format::Json,
        _ => Format::Yaml,
    }
}

fn push_file(
    sources: &mut Sources,
    problems: &mut Vec<ReadProblem>,
    name: String,
    path: Option<PathBuf>,
    mut bytes: Vec<u8>,
) {
    let bom = bytes.starts_with(b"\xEF\xBB\xBF");
    if bom {
        bytes.drain(..3);
    }
    let format = format_of(path.as_deref());
    match String::from_utf8(bytes) {
        Ok(text) => {
            let mut file = SourceFile::new(name, path, format, text);
            file.bom = bom;
            sources.files.push(file)
        }
        Err(err) => {
            // Up to the first invalid byte the lossy text is the file's own,
            // so the offset points at the right place in it.
            let offset = err.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(err.as_bytes()).into_owned();
            let file = FileId(sources.files.len() as u32);
            sources.files.push(SourceFile::new(name.clone(), path, format, text));
            problems.push(ReadProblem::NotUtf8 { name, file, offset });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn invalid_utf8_is_located() {
        let mut sources = Sources::default();
        let mut problems = Vec::new();
        push_file(&mut sources, &mut problems, "x".into(), None, b"a: 1\nb: \xff\n".to_vec());
        match &problems[0] {
            ReadProblem::NotUtf8 { file, offset, .. } => {
                assert_eq!(*offset, 8);
                assert_eq!(sources.get(*file).line_col(*offset), LineCol { line: 2, column: 4 });
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
