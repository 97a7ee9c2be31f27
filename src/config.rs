//! `teardown.toml`: settings a repository keeps beside its manifests, so
//! that every run in it (and CI's) reports the same rules and knows the same
//! finalizer controllers. Found as ruff finds its settings: in the inputs'
//! directory (the deepest one holding every input; the working directory
//! for standard input) or the nearest directory above it, up to the
//! repository root (a directory holding `.git`) or the filesystem root
//! (none found there: the one found from the working directory);
//! `--config FILE` names one, `--isolated` reads none. Read before any input, whole: a key it does not know, or a
//! value of the wrong type, is an error naming the file and line (exit 2),
//! never skipped.
//!
//! ```toml
//! select = ["ALL"]                 # rule ids or names
//! ignore = ["TD012"]
//! closed-world = true
//! deny = ["warnings"]
//! extend-exclude = ["charts", "test/**"]   # globs, relative to this file
//!
//! [finalizer-controllers]
//! "example.com/cleanup" = "deployment/ops/cleaner"
//! "networking.gke.io/ingress-finalizer-V2" = "external"
//! ```

use crate::cli::ConfigArgs;
use crate::controls::{self, Remover, RuleList};
use crate::error::Error;
use std::path::{Path, PathBuf};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// The file name looked for.
pub const FILE_NAME: &str = "teardown.toml";

/// The keys a settings file may hold.
const KEYS: [&str; 7] =
    ["select", "ignore", "closed-world", "deny", "finalizer-controllers", "exclude", "extend-exclude"];

/// A settings file, read and checked.
#[derive(Debug, Default)]
pub struct Config {
    /// The file, as messages name it.
    pub path: String,
    pub select: Option<RuleList>,
    pub ignore: Option<RuleList>,
    pub closed_world: bool,
    pub deny_warnings: bool,
    /// `[finalizer-controllers]`, in file order.
    pub finalizers: Vec<(String, Remover)>,
    /// `exclude` (`--exclude` replaces it) and `extend-exclude`: globs
    /// relative to the file's directory.
    pub exclude: Vec<String>,
    pub extend_exclude: Vec<String>,
    /// The file's directory (what its globs are relative to).
    pub dir: PathBuf,
}

/// The settings file a run reads: `--config FILE`, none with `--isolated`,
/// else the one found from the working directory up.
pub fn load(args: &ConfigArgs) -> Result<Option<Config>, Error> {
    if args.isolated {
        return Ok(None);
    }
    let (path, shown) = match &args.config {
        Some(path) => (path.clone(), path.display().to_string()),
        None => {
            let cwd = std::env::current_dir().map_err(|e| Error::Config {
                path: FILE_NAME.into(),
                at: None,
                message: format!(
                    "cannot look for it: the working directory is unknown ({e}); give --config FILE or --isolated"
                ),
            })?;
            // The nearest to the inputs wins; none beside them, the
            // working directory's (ruff's default settings are found so).
            match find(&inputs_dir(&args.beside, &cwd)).or_else(|| find(&cwd)) {
                Some(found) => {
                    // Named from the working directory when it lies below it.
                    let real_cwd = std::fs::canonicalize(&cwd).unwrap_or_else(|_| cwd.clone());
                    let below = found.strip_prefix(&real_cwd).or_else(|_| found.strip_prefix(&cwd));
                    let shown = match below {
                        Ok(relative) => relative.display().to_string(),
                        Err(_) => found.display().to_string(),
                    };
                    (found, shown)
                }
                None => return Ok(None),
            }
        }
    };
    let unreadable = |message: String| Error::Config { path: shown.clone(), at: None, message };
    let file = std::fs::File::open(&path).map_err(|e| unreadable(format!("cannot read it: {e}")))?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::Read::take(file, MAX_SIZE + 1), &mut text)
        .map_err(|e| unreadable(format!("cannot read it: {e}")))?;
    if text.len() as u64 > MAX_SIZE {
        return Err(unreadable(format!("not read: larger than {} KiB, which no settings file needs", MAX_SIZE >> 10)));
    }
    let mut config = parse(&text, &shown)?;
    config.dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok(Some(config))
}

/// Where the settings file is looked for from: the deepest directory that
/// holds every input (a directory named is its own; a file, its
/// directory's); the working directory for standard input or none.
pub fn inputs_dir(inputs: &[PathBuf], cwd: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = inputs
        .iter()
        .filter(|p| p.as_os_str() != "-")
        .map(|p| {
            let p = if p.is_absolute() { p.clone() } else { cwd.join(p) };
            let dir = if p.is_dir() { p } else { p.parent().map(Path::to_path_buf).unwrap_or(p) };
            std::fs::canonicalize(&dir).unwrap_or(dir)
        })
        .collect();
    let Some(first) = dirs.first() else { return cwd.to_path_buf() };
    let mut common = first.clone();
    while !dirs.iter().all(|d| d.starts_with(&common)) {
        if !common.pop() {
            break;
        }
    }
    common
}

/// The largest settings file read (a hostile or mistaken one, say a dump
/// saved under this name, is refused rather than read whole).
pub const MAX_SIZE: u64 = 1 << 20;

/// The nearest `teardown.toml` at or above `dir`: the search stops at the
/// first directory that holds `.git` (a repository's root, or a worktree's)
/// and at the filesystem root, so that a file above a repository never
/// changes what a run inside it reports.
pub fn find(dir: &Path) -> Option<PathBuf> {
    for d in dir.ancestors() {
        let candidate = d.join(FILE_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        if d.join(".git").exists() {
            return None;
        }
    }
    None
}

/// Where in the text a byte offset is: 1-based line and column (columns
/// count characters).
fn place(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

struct File<'a> {
    text: &'a str,
    path: &'a str,
}

impl File<'_> {
    fn error(&self, offset: usize, message: impl Into<String>) -> Error {
        Error::Config { path: self.path.to_string(), at: Some(place(self.text, offset)), message: message.into() }
    }
}

/// Read a settings file's text (`path` is how messages name it).
pub fn parse(text: &str, path: &str) -> Result<Config, Error> {
    let file = File { text, path };
    let table = DeTable::parse(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        file.error(offset, e.message().trim_end().to_string())
    })?;
    let mut entries: Vec<(&Spanned<std::borrow::Cow<str>>, &Spanned<DeValue>)> = table.get_ref().iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    let mut config = Config { path: path.to_string(), ..Config::default() };
    for (key, value) in entries {
        let at = key.span().start;
        match key.get_ref().as_ref() {
            "select" => config.select = Some(rules(&file, "select", value)?),
            "ignore" => config.ignore = Some(rules(&file, "ignore", value)?),
            "closed-world" => match value.get_ref() {
                DeValue::Boolean(b) => config.closed_world = *b,
                _ => return Err(file.error(value.span().start, "`closed-world` must be true or false")),
            },
            "deny" => {
                for word in strings(&file, "deny", value, "a list of what to make errors, [\"warnings\"]")? {
                    match word.get_ref().as_str() {
                        "warnings" => config.deny_warnings = true,
                        other => {
                            return Err(file.error(
                                word.span().start,
                                format!("`deny` takes \"warnings\" (every warning is an error), not `{other}`"),
                            ))
                        }
                    }
                }
            }
            "finalizer-controllers" => config.finalizers = finalizers(&file, value)?,
            "exclude" | "extend-exclude" => {
                let globs =
                    strings(&file, key.get_ref(), value, "a list of globs, like [\"charts\", \"*.tmpl.yaml\"]")?;
                let globs = globs.into_iter().map(|g| g.into_inner());
                match key.get_ref().as_ref() {
                    "exclude" => config.exclude = globs.collect(),
                    _ => config.extend_exclude = globs.collect(),
                }
            }
            "exit-zero" | "exit_zero" | "quiet" => {
                return Err(file.error(
                    at,
                    format!(
                        "`{}` is not a setting of the repository but of one run: give --{} on the command line",
                        key.get_ref(),
                        key.get_ref().replace('_', "-")
                    ),
                ))
            }
            other => {
                let closest = crate::select::closest_words(other, KEYS.iter().map(|k| k.to_string()).collect());
                let hint = match closest.first() {
                    Some(k) => format!("; did you mean `{k}`?"),
                    None => String::new(),
                };
                return Err(
                    file.error(at, format!("unknown key `{other}`{hint} ({FILE_NAME} holds {})", KEYS.join(", ")))
                );
            }
        }
    }
    if let (Some(select), Some(ignore)) = (&config.select, &config.ignore) {
        controls::contradiction(select, ignore).map_err(|(rule, offset)| {
            file.error(offset, format!("{rule} is both in `select` and in `ignore`; keep it in one"))
        })?;
    }
    Ok(config)
}

/// A list of strings, each with its place.
fn strings(file: &File, key: &str, value: &Spanned<DeValue>, what: &str) -> Result<Vec<Spanned<String>>, Error> {
    let wrong = |offset: usize| file.error(offset, format!("`{key}` must be {what}"));
    let DeValue::Array(items) = value.get_ref() else { return Err(wrong(value.span().start)) };
    items
        .iter()
        .map(|item| match item.get_ref() {
            DeValue::String(s) => Ok(Spanned::new(item.span(), s.to_string())),
            _ => Err(wrong(item.span().start)),
        })
        .collect()
}

/// `select` / `ignore`: rule ids or names, or ALL.
fn rules(file: &File, key: &str, value: &Spanned<DeValue>) -> Result<RuleList, Error> {
    let words = strings(file, key, value, "a list of rule ids or names, like [\"TD003\", \"unknown-finalizer\"]")?;
    let mut list = RuleList::default();
    for word in &words {
        list.add(word.get_ref(), word.span().start).map_err(|m| file.error(word.span().start, m))?;
    }
    Ok(list)
}

/// `[finalizer-controllers]`: FINALIZER = "SELECTOR", a list of
/// selectors, or "external".
fn finalizers(file: &File, value: &Spanned<DeValue>) -> Result<Vec<(String, Remover)>, Error> {
    let DeValue::Table(table) = value.get_ref() else {
        return Err(file.error(
            value.span().start,
            "`finalizer-controllers` must be a table: [finalizer-controllers] with FINALIZER = \"SELECTOR\" or \"external\"",
        ));
    };
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    let mut out = Vec::new();
    for (key, value) in entries {
        let finalizer = key.get_ref().to_string();
        let what = format!(
            "the controller of finalizer `{finalizer}` must be \"SELECTOR\", a list of selectors, or \"external\""
        );
        let words: Vec<Spanned<String>> = match value.get_ref() {
            DeValue::String(s) => vec![Spanned::new(value.span(), s.to_string())],
            DeValue::Array(_) => {
                strings(file, &format!("finalizer-controllers.\"{finalizer}\""), value, "a list of selectors")?
            }
            _ => return Err(file.error(value.span().start, what)),
        };
        if words.is_empty() {
            return Err(file.error(value.span().start, what));
        }
        if finalizer.is_empty() {
            return Err(file.error(key.span().start, "an empty finalizer name"));
        }
        let mut removers = Vec::new();
        for word in &words {
            let remover = controls::remover(word.get_ref()).map_err(|m| file.error(word.span().start, m))?;
            removers.push(remover);
        }
        if words.len() > 1 && removers.iter().any(|r| matches!(r, Remover::External)) {
            return Err(file.error(
                value.span().start,
                format!("finalizer `{finalizer}`: \"external\" says its controller is outside the snapshot, and the selectors beside it say it is in it; keep one"),
            ));
        }
        out.extend(removers.into_iter().map(|r| (finalizer.clone(), r)));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> String {
        match parse(text, "t.toml") {
            Ok(_) => panic!("accepted: {text}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn reads_every_key() {
        let c = parse(
            "select = [\"TD003\", \"unknown-finalizer\"]\nignore = [\"td012\"]\nclosed-world = true\ndeny = [\"warnings\"]\n\n[finalizer-controllers]\n\"a/b\" = \"external\"\n\"c/d\" = [\"deploy/x/y\", \"sts/x/z\"]\n",
            "t.toml",
        )
        .unwrap();
        assert!(c.closed_world && c.deny_warnings);
        assert_eq!(c.finalizers.len(), 3);
        assert!(matches!(c.finalizers[0], (ref f, Remover::External) if f == "a/b"));
    }

    #[test]
    fn errors_point_at_the_line() {
        assert_eq!(
            error("select = [\"TD003\"]\nselct = 1\n"),
            "t.toml:2:1: unknown key `selct`; did you mean `select`? (teardown.toml holds select, ignore, closed-world, deny, finalizer-controllers, exclude, extend-exclude)"
        );
        assert_eq!(error("closed-world = \"yes\"\n"), "t.toml:1:16: `closed-world` must be true or false");
        assert!(
            error("\n\nselect = [\"TD03\"]").starts_with("t.toml:3:11: unknown rule `TD03`"),
            "{}",
            error("\n\nselect = [\"TD03\"]")
        );
        assert!(error("select = [\n").starts_with("t.toml:"));
        assert!(error("exit-zero = true").contains("give --exit-zero on the command line"));
        assert!(error("[finalizer-controllers]\n\"a/b\" = [\"external\", \"deploy/x\"]\n").starts_with("t.toml:2:9:"));
        assert!(
            error("select = [\"TD011\"]\nignore = [\"unknown-finalizer\"]\n").starts_with("t.toml:2:11: TD011 is both")
        );
    }

    #[test]
    fn places_count_characters() {
        assert_eq!(place("ab\ncdé f", 9), (2, 6));
        assert_eq!(place("", 0), (1, 1));
    }
}
