//! What a directory walk leaves out, and where packages begin (issue 38).
//!
//! - [`Exclude`]: `--exclude`/`--extend-exclude` and teardown.toml's
//!   `exclude`/`extend-exclude`, as ruff has them: a pattern without `/`
//!   matches a file or directory of that name anywhere; one with `/` a path
//!   relative to its base (the working directory for a flag, the settings
//!   file's directory for the file). `*` and `?` stay within a name, `**`
//!   spans directories. Applied to what is found in directories; a file
//!   named on the command line is read.
//! - [`not_objects`]: files that hold no object of any dialect (Helm's
//!   `Chart.yaml` and `values.yaml`, kustomize's `kustomization.yaml`, kpt's
//!   `Kptfile`) and unrendered templates: skipped with a note (TD015).
//! - [`packages`]: the packages under the inputs (`check --packages`).

use std::path::{Component, Path, PathBuf};

/// Extensions read when walking a directory.
const EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// Is this a file a directory walk reads (`*.yaml`, `*.yml`, `*.json`)?
pub(crate) fn has_known_extension(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| EXTENSIONS.iter().any(|k| k.eq_ignore_ascii_case(e)))
}

/// Names of files that mark a package's root.
pub const MARKERS: [&str; 5] = ["Kptfile", "kustomization.yaml", "kustomization.yml", "Kustomization", "Chart.yaml"];

/// Paths a directory walk leaves out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Exclude {
    /// Each pattern with the directory it is relative to.
    patterns: Vec<(String, PathBuf)>,
    /// Directories left out whole (a package's nested packages).
    dirs: Vec<PathBuf>,
}

impl Exclude {
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty() && self.dirs.is_empty()
    }

    /// Add patterns relative to `base`.
    pub fn add(&mut self, patterns: &[String], base: &Path) {
        for p in patterns {
            let p = p.trim().trim_end_matches('/');
            if !p.is_empty() {
                self.patterns.push((p.strip_prefix("./").unwrap_or(p).to_string(), base.to_path_buf()));
            }
        }
    }

    /// Leave out these directories (compared as given and canonical).
    pub fn with_dirs(mut self, dirs: &[PathBuf]) -> Exclude {
        self.dirs.extend(dirs.iter().map(|d| canonical(d)));
        self
    }

    /// Is `path` (a file or directory found in a walk) left out?
    pub fn excludes(&self, path: &Path) -> bool {
        if !self.dirs.is_empty() {
            let real = canonical(path);
            if self.dirs.contains(&real) {
                return true;
            }
        }
        self.patterns.iter().any(|(pattern, base)| matches_path(pattern, base, path))
    }
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| absolute(p))
}

fn absolute(p: &Path) -> PathBuf {
    match std::env::current_dir() {
        Ok(cwd) if p.is_relative() => cwd.join(p),
        _ => p.to_path_buf(),
    }
}

/// The names of a path's normal components, `..` popping one.
fn names(p: &Path) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n.to_string_lossy().into_owned()),
            Component::ParentDir => {
                out.pop();
            }
            _ => {}
        }
    }
    out
}

fn matches_path(pattern: &str, base: &Path, path: &Path) -> bool {
    if !pattern.contains('/') {
        return path.file_name().is_some_and(|n| glob(pattern.as_bytes(), n.to_string_lossy().as_bytes()));
    }
    let (base, path) = (names(&absolute(base)), names(&absolute(path)));
    let Some(rest) = path.strip_prefix(base.as_slice()) else { return false };
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    glob_parts(&parts, rest)
}

/// Path components against pattern components; `**` spans any number.
fn glob_parts(pattern: &[&str], names: &[String]) -> bool {
    match pattern.split_first() {
        None => names.is_empty(),
        Some((&"**", rest)) => (0..=names.len()).any(|i| glob_parts(rest, names.get(i..).unwrap_or_default())),
        Some((p, rest)) => match names.split_first() {
            Some((n, more)) => glob(p.as_bytes(), n.as_bytes()) && glob_parts(rest, more),
            None => false,
        },
    }
}

/// A name against a pattern of `*` (any run) and `?` (one character).
fn glob(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == b'?' || Some(&c) == name.get(n) => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern.get(p..).unwrap_or_default().iter().all(|&c| c == b'*')
}

/// Why a file holds no object of any dialect, if it holds none: its
/// name is a chart's, a kustomization's or a kpt package's, or it is an
/// unrendered template. Such a file is skipped with a note.
pub fn not_objects(name: &str, text: &str) -> Option<String> {
    let path = Path::new(name);
    let file = path.file_name()?.to_string_lossy();
    let dir = path.parent().unwrap_or(Path::new(""));
    let why = match &*file {
        "Chart.yaml" | "Chart.lock" | "requirements.yaml" | "values.schema.json" => {
            "a Helm chart's metadata, not an object".to_string()
        }
        "values.yaml" | "values.yml" => "a Helm chart's values, not an object".to_string(),
        "kustomization.yaml" | "kustomization.yml" | "Kustomization" => {
            "a kustomization, not an object (`kustomize build DIR | teardown check` checks what it makes)".to_string()
        }
        "Kptfile" => "a kpt package's Kptfile, not an object".to_string(),
        _ if in_chart_templates(dir) || is_template(text) => {
            "an unrendered template (`{{ … }}`): check what `helm template` renders from it".to_string()
        }
        _ => return None,
    };
    Some(why)
}

/// The files of `sources` that hold no object of any dialect, marked in
/// `skip` (not parsed), each with its note (TD018).
pub fn skip_not_objects(sources: &super::Sources, skip: &mut [bool]) -> Vec<crate::findings::Finding> {
    let mut out = Vec::new();
    for (id, skipped) in sources.ids().zip(skip.iter_mut()) {
        let file = sources.get(id);
        if *skipped {
            continue;
        }
        let text = match file.format {
            super::Format::Json => "",
            _ => &file.text,
        };
        if let Some(why) = not_objects(&file.name, text) {
            *skipped = true;
            let help = match why.contains("helm template") {
                true => "render the chart and check what it makes: helm template CHART | teardown check",
                false => "teardown reads objects; this file configures a tool that makes them (--ignore TD018 says nothing of it)",
            };
            out.push(
                crate::findings::Finding::new(crate::findings::Rule::Td018, format!("{}: not read: {why}", file.name))
                    .in_file(file.name.clone())
                    .help(help),
            );
        }
    }
    out
}

/// A file under a chart's `templates/` (a directory beside `Chart.yaml`).
fn in_chart_templates(dir: &Path) -> bool {
    dir.ancestors()
        .take_while(|d| !d.as_os_str().is_empty())
        .any(|d| d.file_name().is_some_and(|n| n == "templates") && d.with_file_name("Chart.yaml").is_file())
}

/// Text with a template action where YAML has no value: a line that is an
/// action (`{{- if .Values.x }}`), or an unquoted one after a key
/// (`replicas: {{ .Values.n }}`). An object that quotes `{{…}}` in a
/// string (Argo's `"{{workflow.name}}"`) is an object, not a template.
pub fn is_template(text: &str) -> bool {
    if memchr::memmem::find(text.as_bytes(), b"{{").is_none() {
        return false;
    }
    text.lines().any(|line| {
        let t = line.trim_start();
        let t = t.strip_prefix("- ").map_or(t, str::trim_start);
        if t.starts_with('#') {
            return false;
        }
        t.starts_with("{{") || t.contains(": {{") || t.contains(":{{")
    })
}

/// A package: a directory checked as a snapshot of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Package {
    /// Its root, as named (a directory, a file named alone, or `-`).
    pub root: PathBuf,
    /// Directories below it that are packages of their own.
    pub nested: Vec<PathBuf>,
}

/// Does this directory hold a file that marks a package?
pub fn is_package_root(dir: &Path) -> bool {
    MARKERS.iter().any(|m| dir.join(m).is_file())
}

/// The packages of `inputs`. A directory holding a `Kptfile`,
/// `kustomization.yaml` or `Chart.yaml` is a package with everything below
/// it (kpt applies a package's subpackages with it, kustomize the
/// directories it names, Helm a chart's `charts/`). A directory named that
/// is no package holds the outermost packages below it, each a package,
/// and is one itself for its other files (when it has any). A file named
/// stands for the outermost package at or above it, up to the repository's
/// root (a directory holding `.git`), which stands for it when there is
/// none (outside a repository: the file alone). `-` is one package.
/// Sorted, each once; a package named inside another is left out of it.
pub fn packages(inputs: &[PathBuf], exclude: &Exclude) -> Vec<Package> {
    let mut roots: Vec<PathBuf> = Vec::new();
    for input in inputs {
        let start = match input.as_os_str() == "-" || input.is_dir() {
            true => input.clone(),
            false => package_of_file(input),
        };
        if start.is_dir() && !is_package_root(&start) {
            below(&start, exclude, &mut roots);
        }
        roots.push(start);
    }
    roots.sort();
    roots.dedup_by(|a, b| canonical(a) == canonical(b));
    let dirs: Vec<(PathBuf, PathBuf)> =
        roots.iter().filter(|r| r.is_dir()).map(|r| (r.clone(), canonical(r))).collect();
    let mut out = Vec::new();
    for root in roots {
        if !root.is_dir() {
            out.push(Package { root, nested: Vec::new() });
            continue;
        }
        let real = canonical(&root);
        // The packages inside it (those inside them are theirs).
        let inner: Vec<&(PathBuf, PathBuf)> = dirs.iter().filter(|(_, r)| r != &real && r.starts_with(&real)).collect();
        let nested: Vec<PathBuf> = inner
            .iter()
            .filter(|(_, r)| !inner.iter().any(|(_, o)| o != r && r.starts_with(o)))
            .map(|(p, _)| p.clone())
            .collect();
        if !nested.is_empty() && !holds_files(&root, &exclude.clone().with_dirs(&nested)) {
            continue;
        }
        out.push(Package { root, nested });
    }
    out
}

/// The outermost package directories below `dir` (not `dir` itself).
fn below(dir: &Path, exclude: &Exclude, out: &mut Vec<PathBuf>) {
    for sub in subdirectories(dir, exclude) {
        match is_package_root(&sub) {
            true => out.push(sub),
            false => below(&sub, exclude, out),
        }
    }
}

/// A directory's subdirectories a walk enters (not hidden, not excluded,
/// not symbolic links), in name order.
fn subdirectories(dir: &Path, exclude: &Exclude) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| dir.join(e.file_name()))
        .filter(|p| !exclude.excludes(p))
        .collect();
    out.sort();
    out
}

/// Does a walk of `dir` find a file to read?
fn holds_files(dir: &Path, exclude: &Exclude) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else { return false };
    let mut subdirs = Vec::new();
    for e in entries.flatten() {
        let path = dir.join(e.file_name());
        if e.file_name().to_string_lossy().starts_with('.') || exclude.excludes(&path) {
            continue;
        }
        match e.file_type() {
            Ok(t) if t.is_dir() => subdirs.push(path),
            Ok(_) if has_known_extension(&path) => return true,
            _ => {}
        }
    }
    subdirs.iter().any(|d| holds_files(d, exclude))
}

/// The package a file named alone stands for.
fn package_of_file(file: &Path) -> PathBuf {
    let parent = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let real = canonical(&parent);
    let mut outermost = None;
    for (shown, d) in shown_ancestors(&parent, &real) {
        if is_package_root(&d) {
            outermost = Some(shown.clone());
        }
        if d.join(".git").exists() {
            return outermost.unwrap_or(shown);
        }
    }
    outermost.unwrap_or_else(|| file.to_path_buf())
}

/// The directories at and above `dir`, each as it is best shown (relative
/// as `dir` is: `a/b`, `a`, `.`, `..`) and on disk.
fn shown_ancestors(dir: &Path, real: &Path) -> Vec<(PathBuf, PathBuf)> {
    let relative = dir.is_relative();
    let mut shown = dir.to_path_buf();
    let mut out = Vec::new();
    for d in real.ancestors() {
        out.push((shown.clone(), d.to_path_buf()));
        shown = match (relative, shown.file_name().is_some()) {
            (false, _) => d.parent().map(Path::to_path_buf).unwrap_or_default(),
            (true, true) => match shown.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            },
            // `.` or `..`: one more up.
            (true, false) if shown == Path::new(".") => PathBuf::from(".."),
            (true, false) => shown.join(".."),
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_names_and_paths() {
        assert!(glob(b"*.yaml", b"a.yaml"));
        assert!(!glob(b"*.yaml", b"a.yml"));
        assert!(glob(b"values-?.yaml", b"values-a.yaml"));
        assert!(glob(b"*", b""));
        let base = Path::new("/r");
        assert!(matches_path("charts", base, Path::new("/r/x/charts")));
        assert!(matches_path("x/charts", base, Path::new("/r/x/charts")));
        assert!(!matches_path("x/charts", base, Path::new("/r/y/x/charts")));
        assert!(matches_path("**/charts", base, Path::new("/r/y/x/charts")));
        assert!(matches_path("x/*.yaml", base, Path::new("/r/x/a.yaml")));
        assert!(!matches_path("x/*.yaml", base, Path::new("/r/x/b/a.yaml")));
    }

    #[test]
    fn templates_are_told_from_objects() {
        assert!(is_template("{{- if .Values.x }}\napiVersion: v1\n"));
        assert!(is_template("spec:\n  replicas: {{ .Values.n }}\n"));
        assert!(!is_template("args: [\"{{workflow.name}}\"]\n# {{ a comment }}\n"));
        assert!(!is_template("value: \"{{inputs.parameters.x}}\"\n"));
    }
}
