//! Writing changed files all or nothing, where they were checked.
//!
//! 1. Stage: each new text is written beside its file (in the directory
//!    found for it, [`Found::dir`]) under a temporary name,
//!    `.NAME.teardown-PID.new`, created empty and unreadable by others,
//!    given the original's owner, group, mode and extended attributes
//!    before a byte is written, and synced. A failure removes them all:
//!    nothing changed.
//! 2. Check: every input the plan read is still where it was found (the
//!    path leads to the same file, and its name holds it).
//! 3. Commit, file by file: the new text takes the name (exchanged with the
//!    original where the system can, so that the name is never missing),
//!    and the original goes to `.NAME.teardown-PID.old`, which must then
//!    be the file checked (else it is put back and the run refused). A
//!    failure puts back every original renamed so far.
//! 4. Backups: each original (the file itself: owner, mode, attributes,
//!    links kept) is renamed to `NAME.bak`, or `NAME.bak.1`, `.2`… when
//!    that name is taken (never over another file); without backups it is
//!    removed. The directories are synced.
//!
//! Killed in between, a run leaves `.NAME.teardown-PID.new` (a new text
//! never put in place) or `.old` (an original, the new text in place):
//! the next run names them and refuses until they are dealt with
//! ([`super::place::leftovers`]).

use super::hook;
use super::place::{Found, Root};
use super::Change;
use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{AtFlags, Mode, OFlags};
use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;

/// Why writing stopped.
#[derive(Debug)]
pub enum Why {
    Io(io::Error),
    /// A file (or a link on the way to it) was replaced while `apply` ran.
    Replaced,
}

/// Why writing stopped, and what could not be put back.
#[derive(Debug)]
pub struct WriteError {
    pub path: String,
    pub why: Why,
    /// Files whose original could not be put back, with where it is: empty
    /// when every original is in place.
    pub unrestored: Vec<(String, String)>,
}

impl WriteError {
    pub fn exit(&self) -> crate::exit::Exit {
        match self.why {
            Why::Replaced if self.unrestored.is_empty() => crate::exit::Exit::Refused,
            _ => crate::exit::Exit::Unusable,
        }
    }
}

/// What was written for one file.
#[derive(Debug)]
pub struct Written {
    pub path: String,
    pub backup: Option<String>,
    /// The file was removed (nothing was left in it).
    pub removed: bool,
}

/// A changed file and where it was found.
pub struct Target<'a> {
    pub change: &'a Change,
    pub found: &'a Found,
}

/// Backups tried: `NAME.bak`, then `NAME.bak.1` to `NAME.bak.999`.
const BACKUPS: usize = 1000;

/// Where a file is in its run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Its new text is written beside it (or it is to be removed).
    Staged,
    /// The new text has its name (or the name is gone); the original is at `.old`.
    Swapped,
    /// The original is at its backup name.
    Backed,
}

struct Work<'a> {
    target: &'a Target<'a>,
    new: Option<OsString>,
    old: OsString,
    backup: Option<OsString>,
    state: State,
}

impl Work<'_> {
    fn dir(&self) -> &OwnedFd {
        &self.target.found.dir
    }

    fn leaf(&self) -> &OsStr {
        &self.target.found.leaf
    }

    /// How messages name `name`, beside the file.
    fn beside(&self, name: &OsStr) -> String {
        std::path::Path::new(&self.target.found.real).with_file_name(name).to_string_lossy().into_owned()
    }
}

fn temp_name(leaf: &OsStr, what: &str) -> OsString {
    let mut name = OsString::from(".");
    name.push(leaf);
    name.push(format!(".teardown-{}.{what}", std::process::id()));
    name
}

/// Write every change of `targets`, after checking that every input of
/// `all` is still where it was found: all or nothing.
pub fn write(targets: &[Target], all: &[Found], root: &Root, backup: bool) -> Result<Vec<Written>, WriteError> {
    let mut work: Vec<Work> = Vec::with_capacity(targets.len());
    let fail = |work: &mut [Work], path: String, why: Why| WriteError { path, why, unrestored: undo(work) };
    for (i, t) in targets.iter().enumerate() {
        let leaf = &t.found.leaf;
        let mut w = Work { target: t, new: None, old: temp_name(leaf, "old"), backup: None, state: State::Staged };
        if let Some(after) = &t.change.after {
            let name = temp_name(leaf, "new");
            let staged = stage(t, &name, after, i + 1);
            if staged.is_ok() {
                w.new = Some(name);
            }
            work.push(w);
            if let Err(e) = staged {
                return Err(fail(&mut work, t.change.path.clone(), Why::Io(e)));
            }
        } else {
            work.push(w);
        }
    }
    if let Err(e) = hook::at("staged") {
        return Err(fail(&mut work, String::new(), Why::Io(e)));
    }
    if let Some(moved) = all.iter().find(|f| !f.still(root)) {
        return Err(fail(&mut work, moved.recorded.clone(), Why::Replaced));
    }
    for i in 0..work.len() {
        let Some(w) = work.get(i) else { continue };
        let path = w.target.change.path.clone();
        if let Err(e) = hook::at(&format!("commit:{}", i + 1)) {
            return Err(fail(&mut work, path, Why::Io(e)));
        }
        match commit(w) {
            Ok(true) => {}
            Ok(false) => return Err(fail(&mut work, path, Why::Replaced)),
            Err(e) => return Err(fail(&mut work, path, Why::Io(e))),
        }
        if let Some(w) = work.get_mut(i) {
            w.state = State::Swapped;
        }
        if let Err(e) = hook::at(&format!("swapped:{}", i + 1)) {
            return Err(fail(&mut work, path, Why::Io(e)));
        }
    }
    if backup {
        for i in 0..work.len() {
            let Some(w) = work.get(i) else { continue };
            let path = w.target.change.path.clone();
            let named = hook::at(&format!("backup:{}", i + 1)).and_then(|()| back_up(w));
            match named {
                Ok(name) => {
                    if let Some(w) = work.get_mut(i) {
                        w.backup = Some(name);
                        w.state = State::Backed;
                    }
                }
                Err(e) => return Err(fail(&mut work, path, Why::Io(e))),
            }
        }
    } else {
        for w in &work {
            // The change is made; an original that cannot be removed is
            // only left over (the next run names it).
            let _ = rustix::fs::unlinkat(w.dir(), w.old.as_os_str(), AtFlags::empty());
        }
    }
    sync_dirs(&work);
    Ok(work
        .iter()
        .map(|w| Written {
            path: w.target.change.path.clone(),
            backup: w.backup.as_deref().map(|b| w.beside(b)),
            removed: w.new.is_none(),
        })
        .collect())
}

/// Write `after` to a new file `name` beside the target: owner, group,
/// mode and extended attributes first (it is created readable by its
/// owner alone), then the text (after the original's byte-order mark),
/// then synced. Removed again when that fails.
fn stage(t: &Target, name: &OsStr, after: &str, n: usize) -> io::Result<()> {
    let f = t.found;
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(&*f.dir, name, flags, Mode::RUSR | Mode::WUSR)?;
    // Made here: removed here if it cannot be made whole.
    let written = fill(t, fd, after, n);
    if written.is_err() {
        let _ = rustix::fs::unlinkat(&*f.dir, name, AtFlags::empty());
    }
    written
}

/// Give the new file `fd` the original's owner, group, mode and
/// attributes, then write its text, and sync it.
fn fill(t: &Target, fd: OwnedFd, after: &str, n: usize) -> io::Result<()> {
    let f = t.found;
    let made = rustix::fs::fstat(&fd)?;
    let (uid, gid) = (f.stat.st_uid, f.stat.st_gid);
    if (made.st_uid, made.st_gid) != (uid, gid) {
        let owner = (made.st_uid != uid).then(|| rustix::fs::Uid::from_raw(uid));
        let group = (made.st_gid != gid).then(|| rustix::fs::Gid::from_raw(gid));
        rustix::fs::fchown(&fd, owner, group).map_err(|e| {
            io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("cannot give the new file the owner and group of the old one (uid {uid}, gid {gid}): {e}"),
            )
        })?;
    }
    rustix::fs::fchmod(&fd, Mode::from_raw_mode(f.stat.st_mode & 0o7777))?;
    copy_attributes(&f.file, &fd)?;
    hook::at(&format!("created:{n}"))?;
    let mut file = std::fs::File::from(fd);
    if t.change.bom {
        file.write_all(b"\xEF\xBB\xBF")?;
    }
    file.write_all(after.as_bytes())?;
    file.sync_all()
}

/// Give `to` every extended attribute `from` has (one it already has
/// the same, as a security label may be, is left).
fn copy_attributes(from: &std::fs::File, to: &OwnedFd) -> io::Result<()> {
    let size = match rustix::fs::flistxattr_query(from) {
        Ok(n) => n,
        Err(e) if e == rustix::io::Errno::NOTSUP => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    let mut names = vec![0u8; size];
    let n = rustix::fs::flistxattr(from, &mut names)?;
    names.truncate(n);
    for name in names.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = OsStr::from_bytes(name);
        let value = attribute(from, name)?;
        if attribute(&to.as_fd(), name).ok().as_ref() == Some(&value) {
            continue;
        }
        rustix::fs::fsetxattr(to, name, &value, rustix::fs::XattrFlags::empty()).map_err(|e| {
            io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "cannot give the new file the extended attribute {} of the old one: {e}",
                    name.to_string_lossy()
                ),
            )
        })?;
    }
    Ok(())
}

fn attribute(fd: &impl AsFd, name: &OsStr) -> io::Result<Vec<u8>> {
    let size = rustix::fs::fgetxattr_query(fd, name)?;
    let mut value = vec![0u8; size];
    let n = rustix::fs::fgetxattr(fd, name, &mut value)?;
    value.truncate(n);
    Ok(value)
}

/// Put the new text in place (or take the name away), the original at
/// `.old`; `false` (and everything put back) when what was at the name
/// is not the file checked.
fn commit(w: &Work) -> io::Result<bool> {
    let dir = w.dir();
    match &w.new {
        Some(new) => {
            if exchange(dir, new, w.leaf())? {
                // The temporary name now holds what was at the name.
                if let Err(e) = rustix::fs::renameat(dir, new.as_os_str(), dir, w.old.as_os_str()) {
                    let _ = exchange(dir, new, w.leaf());
                    return Err(e.into());
                }
            } else {
                rustix::fs::renameat(dir, w.leaf(), dir, w.old.as_os_str())?;
                if let Err(e) = rustix::fs::renameat(dir, new.as_os_str(), dir, w.leaf()) {
                    let _ = rustix::fs::renameat(dir, w.old.as_os_str(), dir, w.leaf());
                    return Err(e.into());
                }
            }
        }
        None => rustix::fs::renameat(dir, w.leaf(), dir, w.old.as_os_str())?,
    }
    let was = rustix::fs::statat(dir, w.old.as_os_str(), AtFlags::SYMLINK_NOFOLLOW)?;
    #[allow(clippy::unnecessary_cast, reason = "the types of st_dev and st_ino differ between systems")]
    let same = (was.st_dev as u64, was.st_ino as u64) == w.target.found.key;
    if !same {
        put_back(w);
    }
    Ok(same)
}

/// Exchange the names `a` and `b` atomically where the system can
/// (`false`: it cannot, nothing was done).
fn exchange(dir: &OwnedFd, a: &OsStr, b: &OsStr) -> io::Result<bool> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::io::Errno;
        match rustix::fs::renameat_with(dir, a, dir, b, rustix::fs::RenameFlags::EXCHANGE) {
            Ok(()) => Ok(true),
            Err(Errno::INVAL | Errno::NOSYS | Errno::NOTSUP | Errno::PERM) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = (dir, a, b);
        Ok(false)
    }
}

/// Rename `from` to `to` unless `to` exists (`false`: it does).
fn rename_new(dir: &OwnedFd, from: &OsStr, to: &OsStr) -> io::Result<bool> {
    use rustix::io::Errno;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    match rustix::fs::renameat_with(dir, from, dir, to, rustix::fs::RenameFlags::NOREPLACE) {
        Ok(()) => return Ok(true),
        Err(Errno::EXIST) => return Ok(false),
        Err(Errno::INVAL | Errno::NOSYS | Errno::NOTSUP) => {}
        Err(e) => return Err(e.into()),
    }
    // A hard link is made only where nothing is: then the old name goes.
    match rustix::fs::linkat(dir, from, dir, to, AtFlags::empty()) {
        Ok(()) => {
            rustix::fs::unlinkat(dir, from, AtFlags::empty())?;
            Ok(true)
        }
        Err(Errno::EXIST) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Rename the original (at `.old`) to the first free backup name.
fn back_up(w: &Work) -> io::Result<OsString> {
    for i in 0..BACKUPS {
        let mut name = w.leaf().to_os_string();
        name.push(".bak");
        if i > 0 {
            name.push(format!(".{i}"));
        }
        if rename_new(w.dir(), &w.old, &name)? {
            return Ok(name);
        }
    }
    Err(io::Error::other(format!("{} backups of it already exist; remove some", BACKUPS)))
}

/// Put one file's original back at its name (the new text goes).
fn put_back(w: &Work) -> bool {
    let from = match (&w.state, &w.backup) {
        (State::Backed, Some(b)) => b.as_os_str(),
        _ => w.old.as_os_str(),
    };
    rustix::fs::renameat(w.dir(), from, w.dir(), w.leaf()).is_ok()
}

/// Undo a run that stopped: every original back at its name, every
/// temporary file gone. The files that could not be put back, with where
/// their original is.
fn undo(work: &mut [Work]) -> Vec<(String, String)> {
    let mut unrestored = Vec::new();
    for w in work.iter().rev() {
        if w.state != State::Staged && !put_back(w) {
            let at = match &w.backup {
                Some(b) if w.state == State::Backed => b.as_os_str(),
                _ => w.old.as_os_str(),
            };
            unrestored.push((w.target.change.path.clone(), w.beside(at)));
        }
        if let Some(new) = &w.new {
            // Staged: the new text; put back: already gone.
            let _ = rustix::fs::unlinkat(w.dir(), new.as_os_str(), AtFlags::empty());
        }
    }
    sync_dirs(work);
    unrestored
}

fn sync_dirs(work: &[Work]) {
    let mut synced: Vec<(u64, u64)> = Vec::new();
    for w in work {
        #[allow(clippy::unnecessary_cast, reason = "the types of st_dev and st_ino differ between systems")]
        let Ok(key) = rustix::fs::fstat(w.dir()).map(|st| (st.st_dev as u64, st.st_ino as u64)) else {
            continue;
        };
        if !synced.contains(&key) {
            synced.push(key);
            let _ = rustix::fs::fsync(w.dir());
        }
    }
}
