//! What `apply` did or would do: a unified diff (`--dry-run`) and a line a
//! file. Pure: changes in, bytes out.

use super::count;
use crate::apply::write::Written;
use crate::apply::Change;
use crate::escape::escape;

/// The changes as a unified diff (`a/` and `b/` before each path, as git
/// writes it, so that `patch -p1` and `git apply` take it).
pub fn diff(changes: &[Change]) -> String {
    let mut out = String::new();
    for c in changes {
        let after = c.after.as_deref().unwrap_or("");
        let path = escape(&c.path);
        let old = format!("a/{path}");
        let new = if c.after.is_some() { format!("b/{path}") } else { "/dev/null".to_string() };
        let text = similar::TextDiff::from_lines(c.before.as_str(), after);
        out.push_str(&text.unified_diff().context_radius(3).header(&old, &new).to_string());
    }
    out
}

/// One line a file, then the totals. `written`: what was written (else a
/// dry run).
pub fn summary(changes: &[Change], written: Option<&[Written]>) -> String {
    let mut out = String::new();
    for (i, c) in changes.iter().enumerate() {
        let mut what = Vec::new();
        if c.removed > 0 {
            what.push(format!("{} removed", count(c.removed, "object", "objects")));
        }
        if c.orphaned > 0 {
            what.push(format!("{} taken out", count(c.orphaned, "owner reference", "owner references")));
        }
        if c.unordered > 0 {
            what.push(format!(
                "{} taken out",
                count(c.unordered, "dependency on a removed object", "dependencies on removed objects")
            ));
        }
        if c.marked > 0 {
            what.push(format!("{} marked destroyed", count(c.marked, "object", "objects")));
        }
        let mut line = format!("{}: {}", escape(&c.path), what.join(", "));
        if c.after.is_none() {
            line.push_str("; nothing else was in it, so the file is removed");
        }
        if let Some(b) = written.and_then(|w| w.get(i)).and_then(|w| w.backup.as_deref()) {
            line.push_str(&format!(" (backup: {})", escape(b)));
        }
        out.push_str(&line);
        out.push('\n');
    }
    let files = count(changes.len(), "file", "files");
    out.push_str(&match written {
        Some(_) => format!("applied: {files} changed\n"),
        None if changes.is_empty() => "dry run: the plan changes no file\n".to_string(),
        None => format!("dry run: {files} would change; nothing was written\n"),
    });
    out
}
