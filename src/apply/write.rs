//! Writing changed files so that none is ever half-written: every new
//! file is first written beside its original under a temporary name and
//! synced; only when all of them are written are they renamed over the
//! originals (a rename within a directory is atomic), and the directories
//! synced. A `.bak` copy of each original is written the same way first.

use super::Change;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Why writing stopped, and what was already changed.
#[derive(Debug)]
pub struct WriteError {
    pub path: String,
    pub error: io::Error,
    /// Files already renamed into place before the failure (none when it
    /// failed while writing the temporary files).
    pub changed: Vec<String>,
}

/// What was written for one file.
#[derive(Debug)]
pub struct Written {
    pub path: String,
    pub backup: Option<String>,
    /// The file was removed (nothing was left in it).
    pub removed: bool,
}

fn temp_name(path: &Path, what: &str) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.teardown-{}.{what}", std::process::id()))
}

/// Write `bytes` to a new file at `tmp` with the permissions of `like`, synced.
fn write_synced(tmp: &Path, bytes: &[u8], like: &Path) -> io::Result<()> {
    let mut f = OpenOptions::new().write(true).create_new(true).open(tmp)?;
    let done = (|| {
        f.write_all(bytes)?;
        if let Ok(meta) = fs::metadata(like) {
            f.set_permissions(meta.permissions())?;
        }
        f.sync_all()
    })();
    if done.is_err() {
        let _ = fs::remove_file(tmp);
    }
    done
}

fn sync_dir(path: &Path) {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// The file a change is written to: the input itself, or, when the input
/// is a symbolic link, the file it points to (renaming over the link would
/// replace the link and leave that file as it was).
fn target(path: &str) -> PathBuf {
    let link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    match link.then(|| fs::canonicalize(path)) {
        Some(Ok(real)) => real,
        _ => PathBuf::from(path),
    }
}

/// Write every change: temporary files first (nothing is changed if one
/// fails), then renames.
pub fn write(changes: &[Change], backup: bool) -> Result<Vec<Written>, WriteError> {
    // (change, its temporary file, its backup's temporary file)
    let mut staged: Vec<(&Change, Option<PathBuf>, Option<PathBuf>)> = Vec::new();
    let undo = |staged: &[(&Change, Option<PathBuf>, Option<PathBuf>)]| {
        for (_, t, b) in staged {
            for p in [t, b].into_iter().flatten() {
                let _ = fs::remove_file(p);
            }
        }
    };
    let targets: Vec<PathBuf> = changes.iter().map(|c| target(&c.path)).collect();
    for (c, path) in changes.iter().zip(&targets) {
        let path = path.as_path();
        let fail = |error, staged: &[_]| {
            undo(staged);
            WriteError { path: c.path.clone(), error, changed: Vec::new() }
        };
        let bak = if backup {
            let tmp = temp_name(path, "bak");
            if let Err(e) = write_synced(&tmp, c.before.as_bytes(), path) {
                return Err(fail(e, &staged));
            }
            Some(tmp)
        } else {
            None
        };
        let new = match &c.after {
            Some(after) => {
                let tmp = temp_name(path, "new");
                if let Err(e) = write_synced(&tmp, after.as_bytes(), path) {
                    if let Some(b) = &bak {
                        let _ = fs::remove_file(b);
                    }
                    return Err(fail(e, &staged));
                }
                Some(tmp)
            }
            None => None,
        };
        staged.push((c, new, bak));
    }
    let mut written = Vec::new();
    for (i, ((c, new, bak), path)) in staged.iter().zip(&targets).enumerate() {
        let path = path.as_path();
        let backup_path = format!("{}.bak", path.display());
        let step = (|| {
            if let Some(b) = bak {
                fs::rename(b, &backup_path)?;
            }
            match new {
                Some(n) => fs::rename(n, path),
                None => fs::remove_file(path),
            }
        })();
        if let Err(error) = step {
            undo(staged.get(i..).unwrap_or_default());
            return Err(WriteError {
                path: c.path.clone(),
                error,
                changed: written.into_iter().map(|w: Written| w.path).collect(),
            });
        }
        sync_dir(path);
        written.push(Written {
            path: c.path.clone(),
            backup: bak.as_ref().map(|_| backup_path),
            removed: new.is_none(),
        });
    }
    Ok(written)
}
