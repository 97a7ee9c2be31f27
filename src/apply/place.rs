//! Where `apply` reads and writes (CONTRACT §7): only beneath the plan's
//! directory, each file found once and used where it was found.
//!
//! A plan file is input a pull request can carry, so the paths it names
//! are not trusted:
//! - the plan's directory is the one that holds the plan file (`-`: the
//!   working directory); a recorded path is relative to it (an absolute
//!   one must lie beneath it), and never holds `..`;
//! - a path is walked one name at a time from that directory's handle
//!   (`openat` with `O_NOFOLLOW`): a symbolic link is followed only to a
//!   place beneath the directory (its target is walked the same way), a
//!   directory is opened and checked to be the one looked at (device and
//!   inode), and the file at the end must be a regular file (a FIFO, socket
//!   or device is never opened, so never waited on);
//! - what is kept of a file found is the handle of the directory it is in
//!   (where its new text is written and renamed), its name there, and its
//!   device and inode: [`Found::still`] says whether the path still leads
//!   there, and the writer checks the name still holds it.
//!
//! Files are locked (`flock`) while `apply` runs, so that two runs on the
//! same files never both write: the second is refused.

use super::{clean, ApplyError};
use crate::input::{Limits, ReadProblem, Sources};
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// Links followed in one path before it is refused (as the kernel's 40).
const MAX_LINKS: usize = 40;

/// Why a path of a plan is not used. Nothing is written.
#[derive(Debug)]
pub enum Refusal {
    /// It leaves the plan's directory (absolute elsewhere, `..`, a link
    /// that points out).
    Outside {
        path: String,
        why: String,
    },
    NotFound {
        path: String,
    },
    /// Not a regular file (a directory, FIFO, socket, device).
    NotRegular {
        path: String,
        what: &'static str,
    },
    /// It changed between two looks (swapped while `apply` ran).
    Changed {
        path: String,
    },
    /// Another `apply` holds it.
    Locked {
        path: String,
    },
    Io {
        path: String,
        error: io::Error,
    },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Outside { path, why } => write!(f, "{path} is outside the plan's directory ({why})"),
            Refusal::NotFound { path } => write!(f, "{path}: no such file"),
            Refusal::NotRegular { path, what } => {
                write!(f, "{path} is {what}, not a regular file; apply reads and writes regular files only")
            }
            Refusal::Changed { path } => write!(f, "{path} was replaced while apply ran"),
            Refusal::Locked { path } => {
                write!(f, "{path} is being applied by another teardown apply (it holds the lock)")
            }
            Refusal::Io { path, error } => write!(f, "{path}: {error}"),
        }
    }
}

/// Device and inode: what a file is, whatever its name.
pub type FileKey = (u64, u64);

#[allow(clippy::unnecessary_cast, reason = "the types of st_dev and st_ino differ between systems")]
fn key(st: &rustix::fs::Stat) -> FileKey {
    (st.st_dev as u64, st.st_ino as u64)
}

fn kind_of(st: &rustix::fs::Stat) -> FileType {
    FileType::from_raw_mode(st.st_mode)
}

fn what(t: FileType) -> &'static str {
    match t {
        FileType::Directory => "a directory",
        FileType::Fifo => "a FIFO",
        FileType::Socket => "a socket",
        FileType::CharacterDevice | FileType::BlockDevice => "a device",
        FileType::Symlink => "a symbolic link",
        _ => "not a regular file",
    }
}

/// The plan's directory.
pub struct Root {
    dir: OwnedFd,
    /// How messages name it: empty for the working directory.
    shown: PathBuf,
    /// What an absolute path of the plan may start with: the directory as
    /// named (made absolute) and as it really is.
    absolute: Vec<PathBuf>,
    /// Where it really is (links resolved), when that can be known.
    real: Option<PathBuf>,
}

/// A regular file found beneath the root.
pub struct Found {
    /// The path as the plan records it.
    pub recorded: String,
    /// Where it is, as messages name it (through no link).
    pub real: String,
    /// The directory it is in, and its name there.
    pub dir: Arc<OwnedFd>,
    pub leaf: OsString,
    pub key: FileKey,
    pub stat: rustix::fs::Stat,
    /// Open read-only; locked once [`Found::lock`] is called.
    pub file: std::fs::File,
}

/// What a path leads to.
enum Led {
    File(Box<Found>),
    Dir { fd: OwnedFd, real: PathBuf },
}

impl Root {
    /// The directory that holds `plan` (the plan file as named; `-`: the
    /// working directory).
    pub fn of_plan(plan: &Path) -> io::Result<Root> {
        let shown = match plan.parent() {
            Some(p) if plan.as_os_str() != "-" => p.to_path_buf(),
            _ => PathBuf::new(),
        };
        let at = if shown.as_os_str().is_empty() { Path::new(".") } else { shown.as_path() };
        let dir = rustix::fs::open(at, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())?;
        let mut absolute = Vec::new();
        if let Ok(cwd) = std::env::current_dir() {
            absolute.push(lexical(&cwd.join(at)));
        }
        let real = std::fs::canonicalize(at).ok();
        absolute.extend(real.clone());
        Ok(Root { dir, shown, absolute, real })
    }

    /// Where the directory really is (links resolved), when known.
    pub fn real(&self) -> Option<PathBuf> {
        self.real.clone()
    }

    /// How messages name `path` (relative to the root).
    pub fn show(&self, path: &Path) -> String {
        self.shown.join(path).to_string_lossy().into_owned()
    }

    /// The names of a path the plan records, checked to stay beneath the
    /// root.
    pub fn names(&self, recorded: &str) -> Result<Vec<OsString>, Refusal> {
        let outside = |why: &str| Refusal::Outside { path: recorded.to_string(), why: why.to_string() };
        let path = Path::new(recorded);
        let rest = if path.is_absolute() {
            match self.absolute.iter().find_map(|a| path.strip_prefix(a).ok()) {
                Some(rest) => rest,
                None => return Err(outside("an absolute path that does not start with the plan's directory")),
            }
        } else {
            path
        };
        let mut names = Vec::new();
        for c in rest.components() {
            match c {
                Component::Normal(n) => names.push(n.to_os_string()),
                Component::CurDir => {}
                Component::ParentDir => return Err(outside("a path with `..`")),
                Component::RootDir | Component::Prefix(_) => return Err(outside("an absolute path")),
            }
        }
        if names.is_empty() {
            return Err(Refusal::NotRegular { path: recorded.to_string(), what: "the plan's directory" });
        }
        Ok(names)
    }

    /// The regular file `recorded` names, opened read-only (not locked).
    pub fn find(&self, recorded: &str) -> Result<Found, Refusal> {
        let names = self.names(recorded)?;
        match self.walk(recorded, names)? {
            Led::File(found) => Ok(*found),
            Led::Dir { .. } => Err(Refusal::NotRegular { path: recorded.to_string(), what: "a directory" }),
        }
    }

    /// Walk `names` from the root, one at a time, never through a link
    /// that leaves it.
    fn walk(&self, recorded: &str, names: Vec<OsString>) -> Result<Led, Refusal> {
        let io = |error: io::Error| Refusal::Io { path: recorded.to_string(), error };
        let changed = || Refusal::Changed { path: recorded.to_string() };
        let mut pending: VecDeque<OsString> = names.into();
        // The directories walked into, with their names.
        let mut stack: Vec<(OwnedFd, OsString)> = Vec::new();
        let mut links = 0;
        while let Some(name) = pending.pop_front() {
            if name == "." {
                continue;
            }
            if name == ".." {
                if stack.pop().is_none() {
                    return Err(Refusal::Outside {
                        path: recorded.to_string(),
                        why: "a symbolic link on its way points above it".into(),
                    });
                }
                continue;
            }
            let here: BorrowedFd = stack.last().map_or(self.dir.as_fd(), |(fd, _)| fd.as_fd());
            let st = match rustix::fs::statat(here, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => st,
                Err(e) if e == rustix::io::Errno::NOENT => {
                    return Err(Refusal::NotFound { path: recorded.to_string() })
                }
                Err(e) => return Err(io(e.into())),
            };
            match kind_of(&st) {
                FileType::Symlink => {
                    links += 1;
                    if links > MAX_LINKS {
                        return Err(io(io::Error::other("too many levels of symbolic links")));
                    }
                    let target =
                        rustix::fs::readlinkat(here, name.as_os_str(), Vec::new()).map_err(|e| io(e.into()))?;
                    let target = PathBuf::from(OsStr::from_bytes(target.as_bytes()));
                    let rest = if target.is_absolute() {
                        match self.absolute.iter().find_map(|a| target.strip_prefix(a).ok()) {
                            Some(rest) => {
                                stack.clear();
                                rest.to_path_buf()
                            }
                            None => {
                                return Err(Refusal::Outside {
                                    path: recorded.to_string(),
                                    why: format!("a symbolic link on its way points to {}", target.display()),
                                })
                            }
                        }
                    } else {
                        target
                    };
                    for c in rest.components().rev() {
                        match c {
                            Component::Normal(n) => pending.push_front(n.to_os_string()),
                            Component::ParentDir => pending.push_front("..".into()),
                            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
                        }
                    }
                }
                FileType::Directory => {
                    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                    let fd =
                        rustix::fs::openat(here, name.as_os_str(), flags, Mode::empty()).map_err(|e| io(e.into()))?;
                    if key(&rustix::fs::fstat(&fd).map_err(|e| io(e.into()))?) != key(&st) {
                        return Err(changed());
                    }
                    stack.push((fd, name));
                }
                FileType::RegularFile if pending.is_empty() => {
                    // Non-blocking and no controlling terminal: should it
                    // have become a FIFO or a device since the look above,
                    // opening it neither waits nor takes the terminal.
                    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
                    let fd =
                        rustix::fs::openat(here, name.as_os_str(), flags, Mode::empty()).map_err(|e| io(e.into()))?;
                    let now = rustix::fs::fstat(&fd).map_err(|e| io(e.into()))?;
                    if key(&now) != key(&st) || kind_of(&now) != FileType::RegularFile {
                        return Err(changed());
                    }
                    let mut real: PathBuf = stack.iter().map(|(_, n)| n.as_os_str()).collect();
                    real.push(&name);
                    let dir = match stack.pop() {
                        Some((fd, _)) => fd,
                        None => rustix::io::dup(&self.dir).map_err(|e| io(e.into()))?,
                    };
                    return Ok(Led::File(Box::new(Found {
                        recorded: recorded.to_string(),
                        real: self.show(&real),
                        dir: Arc::new(dir),
                        leaf: name,
                        key: key(&now),
                        stat: now,
                        file: std::fs::File::from(fd),
                    })));
                }
                FileType::RegularFile => return Err(Refusal::NotFound { path: recorded.to_string() }),
                other => return Err(Refusal::NotRegular { path: recorded.to_string(), what: what(other) }),
            }
        }
        let real: PathBuf = stack.iter().map(|(_, n)| n.as_os_str()).collect();
        let fd = match stack.pop() {
            Some((fd, _)) => fd,
            None => rustix::io::dup(&self.dir).map_err(|e| io(e.into()))?,
        };
        Ok(Led::Dir { fd, real })
    }
}

/// Does the name hold a file `read_inputs` reads in a directory?
fn readable_name(name: &OsStr) -> bool {
    !name.as_bytes().starts_with(b".") && crate::input::files::has_known_extension(Path::new(name))
}

impl Root {
    /// Every file `read_inputs` would read for `recorded` (a file, or a
    /// directory walked in sorted path order), found as [`Root::find`]
    /// finds them; what is not read is said, as `read_inputs` says it.
    fn files(&self, recorded: &str, out: &mut Vec<Found>, problems: &mut Vec<ReadProblem>) {
        let names = match self.names(recorded) {
            Ok(names) => names,
            Err(r) => {
                return problems
                    .push(ReadProblem::Io { name: recorded.to_string(), error: io::Error::other(r.to_string()) })
            }
        };
        match self.walk(recorded, names) {
            Ok(Led::File(found)) => out.push(*found),
            Ok(Led::Dir { fd, real }) => {
                let mut found = Vec::new();
                let known = problems.len();
                self.tree(fd, Path::new(recorded), &real, &mut found, problems);
                if found.is_empty() && problems.len() == known {
                    problems.push(ReadProblem::NoFiles { name: recorded.to_string() });
                }
                found.sort_by(|a, b| Path::new(&a.recorded).cmp(Path::new(&b.recorded)));
                out.extend(found);
            }
            Err(Refusal::NotFound { path }) => problems.push(ReadProblem::NotFound { name: path }),
            Err(r) => {
                problems.push(ReadProblem::Io { name: recorded.to_string(), error: io::Error::other(r.to_string()) })
            }
        }
    }

    /// The files under the directory `fd` (named `named`, at `real` beneath
    /// the root).
    fn tree(&self, fd: OwnedFd, named: &Path, real: &Path, out: &mut Vec<Found>, problems: &mut Vec<ReadProblem>) {
        let shown = named.to_string_lossy().into_owned();
        let mut dir = match rustix::fs::Dir::read_from(&fd) {
            Ok(dir) => dir,
            Err(e) => return problems.push(ReadProblem::Io { name: shown, error: e.into() }),
        };
        let mut names = Vec::new();
        while let Some(entry) = dir.read() {
            match entry {
                Ok(entry) => {
                    let name = OsStr::from_bytes(entry.file_name().to_bytes()).to_os_string();
                    if !name.as_bytes().starts_with(b".") {
                        names.push(name);
                    }
                }
                Err(e) => problems.push(ReadProblem::Io { name: shown.clone(), error: e.into() }),
            }
        }
        for name in names {
            let path = named.join(&name);
            let recorded = path.to_string_lossy().into_owned();
            let st = match rustix::fs::statat(&fd, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => st,
                Err(e) => {
                    problems.push(ReadProblem::Io { name: recorded, error: e.into() });
                    continue;
                }
            };
            match kind_of(&st) {
                FileType::Directory => {
                    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                    match rustix::fs::openat(&fd, name.as_os_str(), flags, Mode::empty()) {
                        Ok(sub) => self.tree(sub, &path, &real.join(&name), out, problems),
                        Err(e) => problems.push(ReadProblem::Io { name: recorded, error: e.into() }),
                    }
                }
                _ if !readable_name(&name) => {}
                FileType::RegularFile | FileType::Symlink => {
                    // Walked again from the root: a link is followed only
                    // beneath it.
                    let names: Vec<OsString> =
                        real.join(&name).components().map(|c| c.as_os_str().to_os_string()).collect();
                    match self.walk(&recorded, names) {
                        Ok(Led::File(found)) => out.push(*found),
                        Ok(Led::Dir { .. }) => {}
                        Err(r) => {
                            problems.push(ReadProblem::Io { name: recorded, error: io::Error::other(r.to_string()) })
                        }
                    }
                }
                other => problems.push(ReadProblem::Skipped { name: recorded, what: what(other) }),
            }
        }
    }

    /// Read `paths` as `read_inputs` reads them, beneath the root only:
    /// for what a plan reads but `apply` does not change (`--prune NEW`).
    pub fn read(&self, paths: &[PathBuf], limit: u64) -> (Sources, Vec<ReadProblem>) {
        let mut found = Vec::new();
        let mut problems = Vec::new();
        for p in paths {
            self.files(&p.to_string_lossy(), &mut found, &mut problems);
        }
        let (sources, more) = sources(&found, limit);
        problems.extend(more);
        (sources, problems)
    }
}

impl Found {
    /// Lock it for this run: exclusively to write, shared to read
    /// (`--dry-run`); refused when another `apply` holds it. Locked, its
    /// name must still hold it: a run that got there first renamed its
    /// new text over it.
    pub fn lock(&self, exclusive: bool) -> Result<(), Refusal> {
        use rustix::fs::FlockOperation;
        let op =
            if exclusive { FlockOperation::NonBlockingLockExclusive } else { FlockOperation::NonBlockingLockShared };
        match rustix::fs::flock(&self.file, op) {
            Ok(()) => {}
            Err(e) if e == rustix::io::Errno::WOULDBLOCK => {
                return Err(Refusal::Locked { path: self.recorded.clone() })
            }
            Err(e) => return Err(Refusal::Io { path: self.recorded.clone(), error: e.into() }),
        }
        match self.in_place() {
            true => Ok(()),
            false => Err(Refusal::Changed { path: self.recorded.clone() }),
        }
    }

    /// Its name in its directory still holds it.
    pub fn in_place(&self) -> bool {
        rustix::fs::statat(&*self.dir, self.leaf.as_os_str(), AtFlags::SYMLINK_NOFOLLOW)
            .is_ok_and(|st| key(&st) == self.key)
    }

    /// The path the plan records still leads to it (no link on the way was
    /// pointed elsewhere), and its name still holds it.
    pub fn still(&self, root: &Root) -> bool {
        root.find(&self.recorded).is_ok_and(|f| f.key == self.key) && self.in_place()
    }

    /// Read it whole, within `limit` bytes; refused when its size changes
    /// while it is read.
    fn bytes(&self, limit: u64) -> Result<Vec<u8>, ReadProblem> {
        let name = || self.recorded.clone();
        #[allow(clippy::unnecessary_cast, reason = "st_size is i64 or u64, by system")]
        let size = self.stat.st_size as u64;
        if size > limit {
            return Err(ReadProblem::TooLarge { name: name(), size: Some(size), limit });
        }
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        let reader = &self.file;
        reader
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|error| ReadProblem::Io { name: name(), error })?;
        #[allow(clippy::unnecessary_cast, reason = "st_size is i64 or u64, by system")]
        let now = rustix::fs::fstat(&self.file).map(|st| st.st_size as u64).unwrap_or(u64::MAX);
        if bytes.len() as u64 != size || now != size {
            return Err(ReadProblem::Changed { name: name(), before: size, read: bytes.len() as u64 });
        }
        Ok(bytes)
    }
}

/// The directories of the files found, each held open once however
/// many files are in it (a plan of a thousand files in one directory
/// holds a thousand and one descriptors, not two thousand).
#[derive(Default)]
pub struct Dirs(std::collections::HashMap<FileKey, Arc<OwnedFd>>);

impl Dirs {
    /// Let `f` share the handle of its directory with the files found before it.
    pub fn share(&mut self, f: &mut Found) {
        let Ok(st) = rustix::fs::fstat(&*f.dir) else { return };
        match self.0.get(&key(&st)) {
            Some(dir) => f.dir = Arc::clone(dir),
            None => {
                self.0.insert(key(&st), Arc::clone(&f.dir));
            }
        }
    }
}

/// Let this process hold as many open files as it may: `apply` holds each
/// input open (and locked) for the whole run.
pub fn raise_open_files() {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let now = getrlimit(Resource::Nofile);
    if let (Some(current), Some(maximum)) = (now.current, now.maximum) {
        if current < maximum {
            let _ = setrlimit(Resource::Nofile, Rlimit { current: Some(maximum), maximum: Some(maximum) });
        }
    }
}

/// Read the files found into sources named as the plan names them, as
/// `read_inputs` reads them (a byte-order mark kept aside, UTF-8 checked).
pub fn sources(found: &[Found], limit: u64) -> (Sources, Vec<ReadProblem>) {
    let mut sources = Sources::default();
    let mut problems = Vec::new();
    for f in found {
        match f.bytes(limit) {
            Ok(bytes) => crate::input::files::push_file(
                &mut sources,
                &mut problems,
                f.recorded.clone(),
                Some(PathBuf::from(&f.recorded)),
                bytes,
            ),
            Err(problem) => problems.push(problem),
        }
    }
    (sources, problems)
}

/// Files a run of `apply` that did not finish left beside the files found
/// (its temporary files, `.NAME.teardown-PID.new` and `.old`), as messages
/// name them.
pub fn leftovers(found: &[Found]) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: Vec<FileKey> = Vec::new();
    for f in found {
        let Ok(st) = rustix::fs::fstat(&*f.dir) else { continue };
        if seen.contains(&key(&st)) {
            continue;
        }
        seen.push(key(&st));
        let Ok(mut dir) = rustix::fs::Dir::read_from(&*f.dir) else { continue };
        let leaves: Vec<Vec<u8>> = found
            .iter()
            .filter(|g| rustix::fs::fstat(&*g.dir).is_ok_and(|s| key(&s) == key(&st)))
            .map(|g| [b".", g.leaf.as_bytes(), b".teardown-"].concat())
            .collect();
        while let Some(Ok(entry)) = dir.read() {
            let name = entry.file_name().to_bytes();
            if leaves.iter().any(|l| name.starts_with(l)) {
                let shown = Path::new(&f.real).with_file_name(OsStr::from_bytes(name));
                out.push(shown.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

/// `path` without `.` and with each `..` taking the name before it (for
/// comparing absolute paths only: the walk itself never does this).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c.as_os_str()),
        }
    }
    out
}

/// Limits of a run: the smaller of each size (a plan file never raises
/// what the command line allows); links are followed as the plan's own
/// command read them (`-L`), which apply's walk keeps beneath the plan's
/// directory whatever it says.
pub fn smaller(line: Limits, plan: Limits) -> Limits {
    Limits {
        file_size: line.file_size.min(plan.file_size),
        object_size: line.object_size.min(plan.object_size),
        follow: plan.follow,
        exclude: plan.exclude,
    }
}
/// The plan file at `path` (`-`: standard input), read as inputs are,
/// within `limits`, and checked to be one this teardown applies: its text
/// and whether it starts with a byte order mark.
pub fn read_plan(
    path: &std::path::Path,
    stdin: &mut dyn std::io::Read,
    limits: crate::input::Limits,
) -> Result<(super::planfile::PlanFile, String, bool), ApplyError> {
    let name = path.display().to_string();
    let not_a_plan = |why: String| ApplyError::NotAPlan { path: name.clone(), why };
    let (plan_file, problems) = crate::input::read_inputs(&[path.to_path_buf()], stdin, limits);
    if let Some(problem) = problems.first() {
        let path = if path.as_os_str() == "-" { "<stdin>".to_string() } else { name.clone() };
        let why = problem.to_string();
        let why = why.strip_prefix(&format!("{}: ", problem.name())).unwrap_or(&why).to_string();
        return Err(ApplyError::NotAPlan { path, why });
    }
    let (text, bom) = match plan_file.files.as_slice() {
        [file] => (file.text.to_string(), file.bom),
        _ => return Err(not_a_plan("not one file".into())),
    };
    let plan = super::planfile::parse(&text).map_err(|e| not_a_plan(clean(&e)))?;
    if plan.schema_version != 1 {
        return Err(not_a_plan(format!("schemaVersion {} (this teardown reads 1)", plan.schema_version)));
    }
    if plan.inputs.is_empty() {
        return Err(not_a_plan("it records no inputs".into()));
    }
    if plan.inputs.iter().any(|i| i.path == "<stdin>") {
        return Err(ApplyError::FromStdin);
    }
    if let Some(d) = &plan.dialect {
        if crate::dialect::by_name(d).is_none() {
            return Err(not_a_plan(format!("unknown dialect `{}`", clean(d))));
        }
    }
    Ok((plan, text, bom))
}

/// Each input of the plan `name`, found beneath its directory and locked
/// (`exclusive`: for writing), in the order `plan` reads them; refused
/// when one is named twice or a run that did not finish left its files.
pub fn found_all(
    root: &Root,
    inputs: &[super::planfile::Input],
    exclusive: bool,
    name: &str,
) -> Result<Vec<Found>, ApplyError> {
    raise_open_files();
    let mut found: Vec<Found> = Vec::with_capacity(inputs.len());
    let mut dirs = Dirs::default();
    for input in inputs {
        let mut f = root.find(&input.path).map_err(|r| refusal(name, r))?;
        dirs.share(&mut f);
        if let Some(twice) = found.iter().find(|g| g.key == f.key) {
            let why = format!("it names one file twice ({} and {})", clean(&twice.recorded), clean(&f.recorded));
            return Err(ApplyError::NotAPlan { path: name.to_string(), why });
        }
        f.lock(exclusive).map_err(|r| refusal(name, r))?;
        found.push(f);
    }
    super::hook::at("locked").map_err(|e| refusal(name, Refusal::Io { path: String::new(), error: e }))?;
    let left = leftovers(&found);
    if !left.is_empty() {
        return Err(ApplyError::Leftovers { files: left.iter().map(|l| clean(l)).collect() });
    }
    found.sort_by(|a, b| PathBuf::from(&a.recorded).cmp(&PathBuf::from(&b.recorded)));
    Ok(found)
}

/// A refusal about a path of the plan `plan`, as an error of `apply`.
pub fn refusal(plan: &str, r: Refusal) -> ApplyError {
    match r {
        Refusal::Outside { path, why } => ApplyError::NotAPlan {
            path: plan.to_string(),
            why: format!("it names {}, outside its directory ({why})", clean(&path)),
        },
        Refusal::NotFound { path } => ApplyError::Stale {
            file: clean(&path),
            why: "is not there (apply reads the paths a plan records from the directory that holds the plan file)"
                .into(),
        },
        Refusal::NotRegular { path, what } => {
            ApplyError::Refused { file: clean(&path), why: format!("it is {what} now, not a regular file") }
        }
        Refusal::Changed { path } => {
            ApplyError::Refused { file: clean(&path), why: "it was replaced while apply ran".into() }
        }
        Refusal::Locked { path } => ApplyError::Refused {
            file: clean(&path),
            why: "another teardown apply is applying a plan to it (it holds the file's lock)".into(),
        },
        Refusal::Io { path, error } => ApplyError::Refused { file: clean(&path), why: clean(&error.to_string()) },
    }
}

/// Can the file be replaced by a new one without losing what it is?
/// Refused: a read-only file (it says not to change it), and one with
/// other hard links (they would keep the old text).
pub fn replaceable(f: &Found) -> Result<(), String> {
    let mode = f.stat.st_mode & 0o7777;
    if mode & 0o222 == 0 {
        return Err(format!("it is read-only (mode {mode:04o}); make it writable to apply the plan to it"));
    }
    let writable =
        rustix::fs::accessat(&*f.dir, f.leaf.as_os_str(), rustix::fs::Access::WRITE_OK, rustix::fs::AtFlags::EACCESS);
    if let Err(e) = writable {
        return Err(format!("you cannot write it ({e})"));
    }
    if f.stat.st_nlink > 1 {
        return Err(format!(
            "it has {} hard links; a new file in its place would leave the others holding the old text",
            f.stat.st_nlink
        ));
    }
    Ok(())
}
