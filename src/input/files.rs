//! Reading inputs: files, directories (recursive, sorted) and standard input,
//! into [`Sources`]. Large regular files are memory-mapped.

use super::source::{FileId, Format, SourceFile, Sources, Text};
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
    /// A directory named as an input that holds no file to read (as ruff
    /// warns that it found no files): a warning, not an error.
    NoFiles {
        name: String,
    },
}

impl ReadProblem {
    pub fn name(&self) -> &str {
        match self {
            ReadProblem::Io { name, .. }
            | ReadProblem::NotUtf8 { name, .. }
            | ReadProblem::NotFound { name }
            | ReadProblem::Skipped { name, .. }
            | ReadProblem::NoFiles { name } => name,
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
            ReadProblem::NoFiles { name } => write!(f, "{name}: no *.yaml, *.yml or *.json file in this directory"),
        }
    }
}

/// Extensions read when walking a directory.
const EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// Read every input. `-` is standard input (read once); a FIFO or device
/// named on the command line is read the same way. Directories are walked
/// recursively; their `*.yaml`, `*.yml` and `*.json` files are read in
/// sorted path order, hidden entries (names starting with `.`) skipped, and
/// so are FIFOs, sockets and devices (reading one could wait forever).
pub fn read_inputs(inputs: &[PathBuf], stdin: &mut dyn Read) -> (Sources, Vec<ReadProblem>) {
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
                let known = problems.len();
                walk(input, &mut files, &mut problems);
                if files.is_empty() && problems.len() == known {
                    problems.push(ReadProblem::NoFiles { name: display(input) });
                }
                files.sort();
                for file in files {
                    read_file(&mut sources, &mut problems, &mut seen, &file);
                }
            }
            Ok(_) => read_file(&mut sources, &mut problems, &mut seen, input),
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
        let Ok(file_type) = entry.file_type() else { continue };
        if file_type.is_dir() {
            walk(&path, out, problems);
        } else if has_known_extension(&path) {
            let target = if file_type.is_symlink() {
                std::fs::metadata(&path).map(|m| m.file_type()).ok()
            } else {
                Some(file_type)
            };
            match target.and_then(special) {
                Some(what) => problems.push(ReadProblem::Skipped { name: display(&path), what }),
                None => out.push(path),
            }
        }
    }
}

fn has_known_extension(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| EXTENSIONS.iter().any(|k| k.eq_ignore_ascii_case(e)))
}

/// Files at least this large are memory-mapped rather than read.
const MAP_AT: u64 = 4 << 20;

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

/// Read a file: opened once (a FIFO gives its bytes to one reader), mapped
/// when it is large and regular, else read to its end.
fn read_file(sources: &mut Sources, problems: &mut Vec<ReadProblem>, seen: &mut Seen, path: &Path) {
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(error) => return problems.push(ReadProblem::Io { name: display(path), error }),
    };
    if !seen.first_time(&file, path) {
        return;
    }
    if let Some(text) = map_file(&file) {
        let format = format_of(Some(path));
        let mut file = SourceFile::new(display(path), Some(path.to_path_buf()), format, text.0);
        file.bom = text.1;
        sources.files.push(Arc::new(file));
        return;
    }
    let mut bytes = Vec::new();
    match file.read_to_end(&mut bytes) {
        Ok(_) => push_file(sources, problems, display(path), Some(path.to_path_buf()), bytes),
        Err(error) => problems.push(ReadProblem::Io { name: display(path), error }),
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

/// Map a large regular file whose bytes are UTF-8; `None` to read it
/// instead (small, not a regular file, not UTF-8: the read path reports it).
fn map_file(file: &std::fs::File) -> Option<(Text, bool)> {
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() < MAP_AT {
        return None;
    }
    // SAFETY: read-only mapping; see `Text`.
    let map = unsafe { memmap2::MmapOptions::new().populate().map(file) }.ok()?;
    let bom = map.starts_with(b"\xEF\xBB\xBF");
    let start = if bom { 3 } else { 0 };
    Some((Text::mapped(map, start)?, bom))
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
