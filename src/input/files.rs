//! Reading inputs: files, directories (recursive, sorted) and standard input,
//! into [`Sources`], within [`Limits`].
//!
//! Files are read into memory, never mapped: a mapped file that another
//! program truncates while teardown reads it kills the process (SIGBUS), and
//! one rewritten in place breaks the UTF-8 check its text was given. A file
//! whose size changes while it is read is refused instead.

use super::source::{Format, SourceFile, Sources, Text};
use crate::span::FileId;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// Not a regular file, found in a directory (a FIFO, a socket, a
    /// device): not read, as ripgrep does not read them. Not an error.
    Skipped {
        name: String,
        what: &'static str,
    },
    /// A symbolic link in a directory, not followed: without `--follow`
    /// (as ripgrep does not follow them), or leading out of the directory
    /// named, or back to a directory read already. Not an error.
    Link {
        name: String,
        why: String,
    },
    /// A directory named as an input that holds no file to read (as ruff
    /// warns that it found no files): a warning, not an error.
    NoFiles {
        name: String,
    },
    /// Larger than `--max-file-size`: refused by its size, before it is read
    /// (standard input and FIFOs: once that much has been read).
    TooLarge {
        name: String,
        /// The file's size, when it is known before reading.
        size: Option<u64>,
        limit: u64,
    },
    /// A stream (standard input, a FIFO, a device) with a NUL byte: not
    /// text, read no further.
    Nul {
        name: String,
        offset: u64,
    },
    /// The file's size changed while it was read (it is being written).
    Changed {
        name: String,
        before: u64,
        read: u64,
    },
}

impl ReadProblem {
    pub fn name(&self) -> &str {
        match self {
            ReadProblem::Io { name, .. }
            | ReadProblem::NotUtf8 { name, .. }
            | ReadProblem::NotFound { name }
            | ReadProblem::Skipped { name, .. }
            | ReadProblem::Link { name, .. }
            | ReadProblem::NoFiles { name }
            | ReadProblem::TooLarge { name, .. }
            | ReadProblem::Nul { name, .. }
            | ReadProblem::Changed { name, .. } => name,
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
            ReadProblem::Skipped { name, what } => write!(f, "{name}: not read: {what}, not a regular file"),
            ReadProblem::Link { name, why } => write!(f, "{name}: not read: {why}"),
            ReadProblem::NoFiles { name } => write!(f, "{name}: no *.yaml, *.yml or *.json file in this directory"),
            ReadProblem::TooLarge { name, size: Some(size), limit } => write!(
                f,
                "{name}: not read: {} is more than the limit of {} (--max-file-size)",
                Size(*size),
                Size(*limit)
            ),
            ReadProblem::TooLarge { name, size: None, limit } => {
                write!(f, "{name}: not read: more than the limit of {} (--max-file-size)", Size(*limit))
            }
            ReadProblem::Nul { name, offset } => write!(
                f,
                "{name}: not read: a NUL byte at offset {offset}, which no YAML or JSON text holds (read no further)"
            ),
            ReadProblem::Changed { name, before, read } => write!(
                f,
                "{name}: changed while it was read ({before} bytes when opened, {read} read); \
                 read it again once nothing writes to it"
            ),
        }
    }
}

/// How much teardown reads before it refuses: hostile or broken input
/// ends in an error naming the file, in bounded time and memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// `--max-file-size`: the largest file (or standard input) read.
    pub file_size: u64,
    /// `--max-object-size`: the largest object — a document, or an item of
    /// a list — read.
    pub object_size: u64,
    /// `-L/--follow`: follow symbolic links inside the directories named
    /// (only to what lies inside them).
    pub follow: bool,
    /// What a directory walk leaves out (`--exclude`, teardown.toml's
    /// `exclude`, a package's nested packages).
    pub exclude: Option<Arc<super::walk::Exclude>>,
}

impl Limits {
    /// 4 GiB: a dump of a million objects is about 1 GB of JSON, and takes
    /// about twice its size in memory to read.
    pub const FILE_SIZE: u64 = 4 << 30;
    /// 64 MiB: the API server refuses a request over 3 MiB, and etcd keeps
    /// at most 1.5 MiB per object; a larger one is not from a cluster.
    pub const OBJECT_SIZE: u64 = 64 << 20;
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { file_size: Limits::FILE_SIZE, object_size: Limits::OBJECT_SIZE, follow: false, exclude: None }
    }
}

/// A size in bytes, written as `--max-file-size` takes it: `1G`, `64M`,
/// `512K` (powers of 1024) or a number of bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size(pub u64);

const UNITS: [(u32, char); 4] = [(40, 'T'), (30, 'G'), (20, 'M'), (10, 'K')];

impl Size {
    /// As the flag takes it: `4G`, `64M`, or a number of bytes.
    pub fn flag(self) -> String {
        let n = self.0;
        match UNITS.iter().find(|&&(shift, _)| n >= 1 << shift && n % (1 << shift) == 0) {
            Some(&(shift, unit)) => format!("{}{unit}", n >> shift),
            None => n.to_string(),
        }
    }
}

/// For people: `4G` when exact, else `95.4M (100000066 bytes)`.
impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0;
        if UNITS.iter().any(|&(shift, _)| n >= 1 << shift && n % (1 << shift) == 0) {
            return f.write_str(&self.flag());
        }
        match UNITS.iter().find(|&&(shift, _)| n >= 1 << shift) {
            Some(&(shift, unit)) => write!(f, "{:.1}{unit} ({n} bytes)", n as f64 / (1u64 << shift) as f64),
            None => write!(f, "{n} bytes"),
        }
    }
}

impl std::str::FromStr for Size {
    type Err = String;
    fn from_str(s: &str) -> Result<Size, String> {
        let t = s.trim();
        let (digits, shift) = match t.char_indices().last() {
            Some((i, c)) if c.is_ascii_alphabetic() => {
                let shift = match c.to_ascii_uppercase() {
                    'K' => 10,
                    'M' => 20,
                    'G' => 30,
                    'T' => 40,
                    'B' => 0,
                    _ => return Err(format!("`{s}`: the unit must be K, M, G or T (powers of 1024)")),
                };
                (t.get(..i).unwrap_or_default(), shift)
            }
            _ => (t, 0),
        };
        let n: u64 = digits.parse().map_err(|_| format!("`{s}` is not a size (a number, then K, M, G or T)"))?;
        n.checked_mul(1 << shift).map(Size).ok_or_else(|| format!("`{s}` is too large"))
    }
}

/// Read every input. `-` is standard input (read once); a FIFO or device
/// named on the command line is read the same way. Directories are walked
/// recursively; their `*.yaml`, `*.yml` and `*.json` files are read in
/// sorted path order, hidden entries (names starting with `.`) skipped, and
/// so are FIFOs, sockets and devices (reading one could wait forever).
/// Symbolic links inside a directory are not followed unless
/// `limits.follow` (`-L/--follow`, ripgrep's rule), and then only to what
/// lies inside the directory named: a link in a pull request must not
/// print another file of the machine (a secret) into a CI log. What is
/// named on the command line is read wherever it leads.
pub fn read_inputs(inputs: &[PathBuf], stdin: &mut dyn Read, limits: Limits) -> (Sources, Vec<ReadProblem>) {
    let mut sources = Sources::default();
    let mut seen = Seen::default();
    let mut problems = Vec::new();
    let mut stdin_used = false;
    for input in inputs {
        if input.as_os_str() == "-" {
            if stdin_used {
                continue;
            }
            stdin_used = true;
            let name = || String::from("<stdin>");
            match read_stream(stdin, limits.file_size) {
                Ok(Stream::Read(bytes)) => push_file(&mut sources, &mut problems, name(), None, bytes),
                Ok(Stream::TooLarge) => {
                    problems.push(ReadProblem::TooLarge { name: name(), size: None, limit: limits.file_size })
                }
                Ok(Stream::Nul(offset)) => problems.push(ReadProblem::Nul { name: name(), offset }),
                Err(error) => problems.push(ReadProblem::Io { name: name(), error }),
            }
            continue;
        }
        match std::fs::metadata(input) {
            Ok(meta) if meta.is_dir() => {
                let known = problems.len();
                let root = std::fs::canonicalize(input).unwrap_or_else(|_| input.clone());
                let mut walk = Walk {
                    follow: limits.follow,
                    exclude: limits.exclude.as_deref(),
                    walked: [root.clone()].into(),
                    root,
                    out: Vec::new(),
                    problems: &mut problems,
                };
                let root = walk.root.clone();
                walk.dir(input, &root);
                let mut files = walk.out;
                if files.is_empty() && problems.len() == known {
                    problems.push(ReadProblem::NoFiles { name: display(input) });
                }
                files.sort_by(|a, b| a.path.cmp(&b.path));
                for file in files {
                    let open = Open::InDirectory(file.target.as_deref().unwrap_or(&file.path));
                    read_file(&mut sources, &mut problems, &mut seen, &file.path, open, &limits);
                }
            }
            Ok(_) => read_file(&mut sources, &mut problems, &mut seen, input, Open::Named, &limits),
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

/// A file found in a directory: the path it is named by, and for a
/// symbolic link followed, the file it leads to (its canonical path, as
/// checked to lie inside the directory named).
struct Found {
    path: PathBuf,
    target: Option<PathBuf>,
}

/// A walk through a directory named on the command line.
struct Walk<'a> {
    /// `-L/--follow`.
    follow: bool,
    /// What is left out.
    exclude: Option<&'a super::walk::Exclude>,
    /// The directory named, canonical: links lead only inside it.
    root: PathBuf,
    /// The directories walked (canonical): a link back to one is not
    /// walked again.
    walked: std::collections::HashSet<PathBuf>,
    out: Vec<Found>,
    problems: &'a mut Vec<ReadProblem>,
}

impl Walk<'_> {
    /// Walk `real` (the directory on disk) as `shown` (how its entries are
    /// named).
    fn dir(&mut self, shown: &Path, real: &Path) {
        let entries = match std::fs::read_dir(real) {
            Ok(entries) => entries,
            Err(error) => {
                self.problems.push(ReadProblem::Io { name: display(shown), error });
                return;
            }
        };
        // In name order: which of two ways to one directory is walked (and
        // which is the link to a directory read already) does not depend on
        // the order the directory lists them in.
        let mut listed = Vec::new();
        for entry in entries {
            match entry {
                Ok(entry) => listed.push(entry),
                Err(error) => self.problems.push(ReadProblem::Io { name: display(shown), error }),
            }
        }
        listed.sort_by_key(std::fs::DirEntry::file_name);
        for entry in listed {
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let (path, real) = (shown.join(entry.file_name()), real.join(entry.file_name()));
            if self.exclude.is_some_and(|e| e.excludes(&path)) {
                continue;
            }
            // The entry itself, not what a link leads to.
            let Ok(file_type) = entry.file_type() else { continue };
            if file_type.is_symlink() {
                self.link(path, &real);
            } else if file_type.is_dir() {
                self.walked.insert(real.clone());
                self.dir(&path, &real);
            } else if has_known_extension(&path) {
                match special(file_type) {
                    Some(what) => self.problems.push(ReadProblem::Skipped { name: display(&path), what }),
                    None => self.out.push(Found { path, target: None }),
                }
            }
        }
    }

    /// A symbolic link found at `path` (`real` on disk).
    fn link(&mut self, path: PathBuf, real: &Path) {
        // What it leads to: a directory, or a file read by its extension.
        let leads_to_dir = std::fs::metadata(real).is_ok_and(|m| m.is_dir());
        let shown = |p: &Path| p.to_string_lossy().into_owned();
        if !has_known_extension(&path) && !leads_to_dir {
            return;
        }
        if !self.follow {
            let why = "a symbolic link (-L/--follow follows links inside the directories named)".to_string();
            return self.problems.push(ReadProblem::Link { name: display(&path), why });
        }
        let target = match std::fs::canonicalize(real) {
            Ok(target) => target,
            // A loop, or a link to nothing: an error naming it.
            Err(error) => return self.problems.push(ReadProblem::Io { name: display(&path), error }),
        };
        if !target.starts_with(&self.root) {
            let why = format!(
                "a symbolic link to {}, outside {}: links are followed only inside the directory named (name the file on the command line to read it)",
                shown(&target),
                shown(&self.root)
            );
            return self.problems.push(ReadProblem::Link { name: display(&path), why });
        }
        match std::fs::metadata(&target) {
            Ok(m) if m.is_dir() => {
                if self.walked.insert(target.clone()) {
                    self.dir(&path, &target);
                } else {
                    let why = format!("a symbolic link to {}, a directory read already", shown(&target));
                    self.problems.push(ReadProblem::Link { name: display(&path), why });
                }
            }
            Ok(m) => match special(m.file_type()) {
                Some(what) => self.problems.push(ReadProblem::Skipped { name: display(&path), what }),
                None => self.out.push(Found { path, target: Some(target) }),
            },
            Err(error) => self.problems.push(ReadProblem::Io { name: display(&path), error }),
        }
    }
}

pub(crate) use super::walk::has_known_extension;

/// What a file that is not regular and not a directory is, if it is one.
fn special(t: std::fs::FileType) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_block_device() || t.is_char_device() {
            return Some("a device");
        }
    }
    let _ = t;
    None
}

/// How a file is opened.
#[derive(Clone, Copy)]
enum Open<'a> {
    /// Named on the command line: wherever it leads, a FIFO or a device
    /// read as standard input is.
    Named,
    /// Found in a directory, and opened at this path (a link followed:
    /// the file it leads to, as checked), not through a symbolic link
    /// put there since, and never waited on: only a regular file is read.
    InDirectory(&'a Path),
}

/// Open a file found in a directory: not through a symbolic link (one
/// put in its place since it was found is refused), and without waiting
/// (a FIFO put there would otherwise block the open until a writer comes).
fn open_in_directory(path: &Path) -> std::io::Result<std::fs::File> {
    #[cfg(unix)]
    {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        rustix::fs::open(path, flags, Mode::empty()).map(std::fs::File::from).map_err(std::io::Error::from)
    }
    #[cfg(not(unix))]
    std::fs::File::open(path)
}

/// Read a file: opened once (a FIFO gives its bytes to one reader). A
/// regular file larger than the limit is refused by its size, before a byte
/// is read (a 10 GB sparse file costs nothing); one whose size changes
/// while it is read is refused too. Anything else (a FIFO or a device
/// named on the command line) is read as standard input is.
fn read_file(
    sources: &mut Sources,
    problems: &mut Vec<ReadProblem>,
    seen: &mut Seen,
    path: &Path,
    open: Open,
    limits: &Limits,
) {
    let name = || display(path);
    let file = match open {
        Open::Named => std::fs::File::open(path),
        Open::InDirectory(at) => open_in_directory(at),
    };
    let file = match file {
        Ok(file) => file,
        Err(error) => return problems.push(ReadProblem::Io { name: name(), error }),
    };
    if !seen.first_time(&file, path) {
        return;
    }
    let meta = file.metadata();
    if let (Open::InDirectory(_), Ok(meta)) = (open, &meta) {
        if !meta.is_file() {
            let what = special(meta.file_type()).unwrap_or("not a file");
            return problems.push(ReadProblem::Skipped { name: name(), what });
        }
    }
    let regular = meta.ok().filter(std::fs::Metadata::is_file).map(|m| m.len());
    if regular.is_none() {
        let mut reader = &file;
        return match read_stream(&mut reader, limits.file_size) {
            Ok(Stream::Read(bytes)) => push_file(sources, problems, name(), Some(path.to_path_buf()), bytes),
            Ok(Stream::TooLarge) => {
                problems.push(ReadProblem::TooLarge { name: name(), size: None, limit: limits.file_size })
            }
            Ok(Stream::Nul(offset)) => problems.push(ReadProblem::Nul { name: name(), offset }),
            Err(error) => problems.push(ReadProblem::Io { name: name(), error }),
        };
    }
    if let Some(size) = regular.filter(|&size| size > limits.file_size) {
        return problems.push(ReadProblem::TooLarge { name: name(), size: Some(size), limit: limits.file_size });
    }
    if let Some(size) = regular.filter(|&size| size >= BUFFER_AT) {
        return match read_large(&file, size) {
            Ok(Some((text, bom))) => {
                let mut file = SourceFile::new(name(), Some(path.to_path_buf()), format_of(Some(path)), text);
                file.bom = bom;
                sources.files.push(Arc::new(file));
            }
            Ok(None) => {
                // Not UTF-8, or changed while read: read again the plain
                // way, which says which.
                let mut reader = &file;
                if let Err(error) = std::io::Seek::rewind(&mut reader) {
                    return problems.push(ReadProblem::Io { name: name(), error });
                }
                read_small(sources, problems, &file, path, regular, limits);
            }
            Err(error) => problems.push(ReadProblem::Io { name: name(), error }),
        };
    }
    read_small(sources, problems, &file, path, regular, limits)
}

/// Files at least this large are read into memory of their own
/// ([`Text`]'s buffer, in huge pages where the system has them: a 1 GB
/// dump faults in 500 pages, not 250,000).
const BUFFER_AT: u64 = 4 << 20;

/// Read a large regular file of `size` bytes into a buffer of its own.
/// `None` when it is not UTF-8 or its size changed while it was read; with
/// the text, whether it started with a byte order mark (left out).
fn read_large(file: &std::fs::File, size: u64) -> std::io::Result<Option<(Text, bool)>> {
    let len = usize::try_from(size).map_err(std::io::Error::other)?;
    let mut map = memmap2::MmapMut::map_anon(len)?;
    #[cfg(target_os = "linux")]
    let _ = map.advise(memmap2::Advice::HugePage);
    if !fill(file, &mut map)? {
        return Ok(None); // shorter than it was
    }
    let mut more = [0u8; 1];
    let mut reader = file;
    if reader.read(&mut more)? != 0 || file.metadata()?.len() != size {
        return Ok(None); // longer than it was
    }
    let bom = map.starts_with(b"\xEF\xBB\xBF");
    Ok(Text::buffer(map, if bom { 3 } else { 0 }).ok().map(|text| (text, bom)))
}

/// A large file is read in pieces of at least this many bytes, one a
/// thread, each at its own offset: the kernel's work for a read (the
/// buffer's fresh pages zeroed, the bytes copied) is done by every core,
/// not one (issue 40: a third of the read time of a 108 MB snapshot).
/// A multiple of the 2 MiB huge page, so that no page is two threads'.
const PIECE: usize = 4 << 20;

/// Fill `buf` from the start of `file`, leaving the file's offset at its
/// end: false when the file ends first.
#[cfg(unix)]
fn fill(file: &std::fs::File, buf: &mut [u8]) -> std::io::Result<bool> {
    use rayon::prelude::*;
    use std::os::unix::fs::FileExt;
    let piece = buf.len().div_ceil(rayon::current_num_threads().max(1)).next_multiple_of(PIECE);
    let read_at = |(n, part): (usize, &mut [u8])| -> std::io::Result<bool> {
        let start = n * piece;
        let mut filled = 0;
        while let Some(rest) = part.get_mut(filled..).filter(|rest| !rest.is_empty()) {
            match file.read_at(rest, (start + filled) as u64) {
                Ok(0) => return Ok(false),
                Ok(k) => filled += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(true)
    };
    let whole = buf.par_chunks_mut(piece).enumerate().map(read_at).collect::<std::io::Result<Vec<bool>>>()?;
    let mut reader = file;
    std::io::Seek::seek(&mut reader, std::io::SeekFrom::Start(buf.len() as u64))?;
    Ok(whole.into_iter().all(|read| read))
}

#[cfg(not(unix))]
fn fill(file: &std::fs::File, buf: &mut [u8]) -> std::io::Result<bool> {
    let mut reader = file;
    let mut filled = 0;
    while let Some(rest) = buf.get_mut(filled..).filter(|rest| !rest.is_empty()) {
        match reader.read(rest) {
            Ok(0) => return Ok(false),
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Read a file to its end, within the limit, and check that its size held.
fn read_small(
    sources: &mut Sources,
    problems: &mut Vec<ReadProblem>,
    file: &std::fs::File,
    path: &Path,
    regular: Option<u64>,
    limits: &Limits,
) {
    let name = || display(path);
    let mut reader = file;
    match read_bounded(&mut reader, regular.unwrap_or(0), limits.file_size) {
        Ok(Some(bytes)) => {
            let now = file.metadata().ok().filter(std::fs::Metadata::is_file).map(|m| m.len());
            match (regular, now) {
                (Some(before), Some(after)) if before != bytes.len() as u64 || after != before => {
                    problems.push(ReadProblem::Changed { name: name(), before, read: bytes.len() as u64 })
                }
                _ => push_file(sources, problems, name(), Some(path.to_path_buf()), bytes),
            }
        }
        Ok(None) => problems.push(ReadProblem::TooLarge { name: name(), size: None, limit: limits.file_size }),
        Err(error) => problems.push(ReadProblem::Io { name: name(), error }),
    }
}

/// Read to the end, but no more than `limit` bytes: `None` when there is
/// more. `expected` sizes the buffer (a regular file's length).
fn read_bounded(reader: &mut dyn Read, expected: u64, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::with_capacity(usize::try_from(expected.min(limit)).unwrap_or(0).saturating_add(1));
    reader.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// What reading a stream (standard input, a FIFO, a device) gave.
enum Stream {
    /// All of it (or, when it is not UTF-8, up to the first invalid byte
    /// and a little more: the file is refused at that byte).
    Read(Vec<u8>),
    /// More than the limit.
    TooLarge,
    /// A NUL byte at this offset: no YAML or JSON holds one, and `/dev/zero`
    /// is all of them. Refused there, not read to the limit.
    Nul(u64),
}

/// Bytes read from a stream at a time.
const CHUNK: usize = 64 << 10;

/// Read a stream to its end, within `limit`: memory grows with what is
/// read (doubling, never past the limit), and reading stops at the first
/// byte that makes it unusable (a NUL, or a byte that is not UTF-8)
/// rather than at the limit: `/dev/zero` and `/dev/urandom` are refused
/// after one chunk.
fn read_stream(reader: &mut dyn Read, limit: u64) -> std::io::Result<Stream> {
    let most = usize::try_from(limit.saturating_add(1)).unwrap_or(usize::MAX);
    let mut bytes: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; CHUNK];
    // `bytes[..checked]` is UTF-8 (a character cut by a chunk's end waits
    // for the next one).
    let mut checked = 0;
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => return Ok(Stream::Read(bytes)),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let new = chunk.get(..n).unwrap_or_default();
        if let Some(at) = memchr::memchr(0, new) {
            return Ok(Stream::Nul((bytes.len() + at) as u64));
        }
        if bytes.len() + n > most || bytes.len() as u64 + n as u64 > limit {
            return Ok(Stream::TooLarge);
        }
        if bytes.capacity() < bytes.len() + n {
            let grown = (bytes.capacity() * 2).max(bytes.len() + n).max(CHUNK).min(most);
            bytes.reserve_exact(grown - bytes.len());
        }
        bytes.extend_from_slice(new);
        match std::str::from_utf8(bytes.get(checked..).unwrap_or_default()) {
            Ok(_) => checked = bytes.len(),
            // Not UTF-8: it is refused at that byte, read no further.
            Err(e) if e.error_len().is_some() => return Ok(Stream::Read(bytes)),
            Err(e) => checked += e.valid_up_to(),
        }
    }
}

/// The regular files read so far: a file named twice, or named and also
/// found in a directory given, is read once (its objects are not two).
#[derive(Default)]
struct Seen(std::collections::HashSet<FileKey>);

#[cfg(unix)]
type FileKey = (u64, u64);
#[cfg(not(unix))]
type FileKey = PathBuf;

impl Seen {
    fn first_time(&mut self, file: &std::fs::File, path: &Path) -> bool {
        let Ok(meta) = file.metadata() else { return true };
        if !meta.is_file() {
            return true; // a FIFO or device gives its bytes once anyway
        }
        #[cfg(unix)]
        let key = {
            use std::os::unix::fs::MetadataExt;
            let _ = path;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.0.insert(key)
    }
}

fn format_of(path: Option<&Path>) -> Format {
    match path {
        Some(p) if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")) => Format::Json,
        _ => Format::Yaml,
    }
}

pub(crate) fn push_file(
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
            sources.files.push(Arc::new(file))
        }
        Err(err) => {
            // Up to the first invalid byte the lossy text is the file's own,
            // so the offset points at the right place in it.
            let offset = err.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(err.as_bytes()).into_owned();
            let file = FileId(sources.files.len() as u32);
            sources.files.push(Arc::new(SourceFile::new(name.clone(), path, format, text)));
            problems.push(ReadProblem::NotUtf8 { name, file, offset });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::source::LineCol;

    #[test]
    fn sizes_read_and_show_as_the_flag_takes_them() {
        for (text, n) in [("4G", 4u64 << 30), ("64M", 64 << 20), ("1k", 1024), ("512", 512), ("7B", 7)] {
            assert_eq!(text.parse::<Size>(), Ok(Size(n)), "{text}");
        }
        for bad in ["", "G", "1Q", "-1", "1.5G", "99999999999T"] {
            assert!(bad.parse::<Size>().is_err(), "{bad}");
        }
        assert_eq!(Size(4 << 30).to_string(), "4G");
        assert_eq!(Size(100_000_066).to_string(), "95.4M (100000066 bytes)");
        assert_eq!(Size(441).to_string(), "441 bytes");
        assert_eq!((Size(441).flag(), Size(2048).flag()), ("441".to_string(), "2K".to_string()));
    }

    #[test]
    fn reading_stops_past_the_limit() {
        let mut five: &[u8] = b"12345";
        assert_eq!(read_bounded(&mut five, 0, 5).unwrap(), Some(b"12345".to_vec()));
        let mut six: &[u8] = b"123456";
        assert_eq!(read_bounded(&mut six, 0, 5).unwrap(), None);
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
