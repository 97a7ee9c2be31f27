//! Dialects: how each kind of input is recognised and read into model
//! objects. The syntax layer (`input`) hands over units — documents, and
//! items of lists — that it has split and can parse; a dialect says
//! whether a unit is its own, where the items of a document it took are,
//! and reads a unit into objects and findings.
//!
//! A dialect is one file here and one line in [`REGISTRY`]. No other file
//! knows a dialect's wire format.

// Errors are findings, made only on the error path.
#![allow(clippy::result_large_err)]

pub mod api;
#[macro_use]
pub mod fields;
pub mod controllers;
pub mod krake;
pub mod kubernetes;
pub mod kubevela;
pub mod murano;
pub mod native;
pub mod pairs;
pub mod status;
pub mod tools;

pub use api::{not_an_object, parse_object, Dialect, Edits, Files, List, Out};

use crate::findings::Finding;
use crate::input::{Node, Shape, Sources, Unit};
use crate::model::lifecycle::Lifecycle;
use crate::model::Object;

/// An object's document read again from its file, and its dialect. `None`
/// when the document no longer reads on its own.
fn reread(sources: &Sources, object: &Object) -> Option<(&'static dyn Dialect, Node)> {
    let dialect = *REGISTRY.iter().find(|d| d.name() == object.origin.dialect)?;
    Some((dialect, Node::at(&sources.get(object.span.file).text, object.span.range())?))
}

/// [`Dialect::desired_part`] of an object.
pub fn desired_part(sources: &Sources, object: &Object) -> Option<Node> {
    let (dialect, document) = reread(sources, object)?;
    dialect.desired_part(&document, object)
}

/// [`Dialect::lifecycle`] of an object.
pub fn lifecycle(sources: &Sources, object: &Object) -> Option<Lifecycle> {
    let (dialect, document) = reread(sources, object)?;
    dialect.lifecycle(&document, object)
}

/// Every dialect, in the order they are asked whether a unit is theirs: the
/// first that says yes reads it. `kubernetes` reads any mapping that no
/// dialect before it takes (and says what it lacks), so it comes after
/// those that recognise something narrower.
pub static REGISTRY: &[&dyn Dialect] =
    &[&murano::Murano, &native::Native, &krake::Krake, &kubevela::KubeVela, &kubernetes::Kubernetes, &pairs::Pairs];

/// Is `f` a collector's own finalizer (CONTRACT §5): Kubernetes' or
/// Krake's, on an object of any dialect? Never listed as "waits for",
/// never TD011.
pub fn collector_finalizer(f: &str) -> bool {
    crate::model::kube::COLLECTOR_FINALIZERS.contains(&f) || f == krake::CASCADE_DELETION
}

/// Does `o` wait for finalizer `f`: is it neither a collector's own nor
/// one through which `o`'s own collector cascades?
pub fn waits_for_finalizer(o: &Object, f: &str) -> bool {
    !collector_finalizer(f) && !o.origin.collector.cascade_finalizers.contains(&f)
}

/// `--root ID`: the object a model's collector starts from (Murano's
/// models have one); `None`: no such object; an error (for `--root`):
/// the object cannot be one.
pub fn collection_root(objects: &[Object], id: &str) -> Result<Option<crate::model::ObjId>, String> {
    murano::root(objects, id)
}

/// Does `text` hold nothing on purpose: a model deleted whole (Murano's
/// deleted environment)? For `--prune NEW`: such a NEW may be empty.
pub fn empty_on_purpose(text: &str) -> bool {
    murano::deletes_environment(text)
}

/// A dialect's index in [`REGISTRY`], by name.
pub fn by_name(name: &str) -> Option<usize> {
    REGISTRY.iter().position(|d| d.name() == name)
}

/// Which dialect reads `unit`: `forced`; else the first that recognises it;
/// else, for an item of a list, the list's dialect. `None`: no dialect.
pub fn recognise(unit: &Unit, forced: Option<usize>) -> Option<usize> {
    if forced.is_some() {
        return forced;
    }
    if let Some(list) = unit.list {
        if list.own_items {
            return Some(list.taken_by);
        }
    }
    let ask = || -> Result<Option<usize>, ()> {
        for (i, d) in REGISTRY.iter().enumerate() {
            if d.forced_only() {
                continue;
            }
            match d.recognise(unit) {
                Some(true) => return Ok(Some(i)),
                Some(false) => {}
                None => return Err(()),
            }
        }
        Ok(None)
    };
    let found = match ask() {
        Ok(found) => found,
        Err(()) => {
            unit.complete_outline();
            ask().unwrap_or(None)
        }
    };
    found.or(unit.list.map(|l| l.taken_by))
}

/// The finding for a document no dialect reads.
pub fn unrecognised(unit: &Unit) -> Option<Finding> {
    if let Some(finding) = unit.unreadable() {
        return Some(finding.clone());
    }
    let shape = unit.outline().shape;
    if shape == Shape::Null {
        return None; // an empty document
    }
    if shape == Shape::Map && !unit.outline().complete {
        // An outline that could not be made: the document does not parse,
        // and the parser says why (a control character, say).
        if let Err(finding) = unit.tree() {
            return Some(finding.clone());
        }
    }
    let mut finding = not_an_object(unit, shape.describe());
    if let Some(hint) = REGISTRY.iter().find_map(|d| d.hint(unit)) {
        finding = finding.help(hint);
    }
    Some(finding)
}

/// A dialect's wire format is known only in its file: no file outside
/// `src/dialect/` writes one of these names in its code (comments and
/// `#[cfg(test)]` code aside). A name ending in `/` is a prefix (an
/// annotation's or a label's domain); `"?"` is matched as a whole literal.
#[cfg(test)]
pub(crate) mod wire {
    use std::path::{Path, PathBuf};

    /// The names each dialect reads from its input (the list this check keeps).
    const WIRE: &[(&str, &[&str])] = &[
        ("krake", &["cascade_deletion"]),
        ("murano", &["Objects", "ObjectsCopy", "onDestruction", "classVersion", "?"]),
        ("native", &["destroyAfter"]),
        ("kubevela", &["app.oam.dev/", "managedResources", "applicationGeneration"]),
        (
            "tools",
            &[
                "helm.sh/",
                "meta.helm.sh/",
                "argocd.argoproj.io/",
                "kapp.k14s.io/",
                "change-groups.kapp.k14s.io/",
                "kustomize.toolkit.fluxcd.io/",
                "client.lifecycle.config.k8s.io/",
                "config.kubernetes.io/apply-time-mutation",
            ],
        ),
    ];

    /// Files outside `src/dialect/` that still name a wire field, and
    /// which: what issue 34 has not yet moved behind dialect-neutral data.
    /// The list only shrinks: an entry no longer needed fails the check.
    const NOT_YET_MOVED: &[(&str, &str)] = &[];

    /// Literals where a listed name is an English word, not the field.
    const ENGLISH: &[(&str, &str)] = &[("src/findings.rs", "Objects own each other in a cycle.")];

    /// The string literals of Rust code, without comments and without the
    /// items under `#[cfg(test)]`.
    pub(crate) fn literals(text: &str) -> Vec<String> {
        scan(text).0
    }

    /// The code of Rust text, without comments, string literals (each a
    /// space) and the items under `#[cfg(test)]`.
    fn code(text: &str) -> String {
        scan(text).1
    }

    /// The string literals and the code of Rust text (see [`literals`],
    /// [`code`]).
    fn scan(text: &str) -> (Vec<String>, String) {
        let b: Vec<char> = text.chars().collect();
        let (mut out, mut i) = (Vec::new(), 0);
        let mut code = String::new();
        // Brace depth; an item under `#[cfg(test)]` that is coming
        // (`pending`) or being skipped (from the depth it opened at).
        let (mut depth, mut pending, mut skipping) = (0usize, false, None::<usize>);
        let mut keep = |s: String, pending: bool, skipping: Option<usize>, code: &mut String| {
            if !pending && skipping.is_none() {
                out.push(s);
                code.push(' ');
            }
        };
        while i < b.len() {
            let at = |k: usize| b.get(k).copied().unwrap_or('\0');
            match b[i] {
                '#' if skipping.is_none() && b[i..].iter().take(12).collect::<String>() == "#[cfg(test)]" => {
                    pending = true;
                    i += 12;
                }
                '{' => {
                    if pending {
                        (pending, skipping) = (false, Some(depth));
                    }
                    depth += 1;
                    i += 1;
                    code.push(' ');
                }
                '}' => {
                    depth = depth.saturating_sub(1);
                    if skipping == Some(depth) {
                        skipping = None;
                    }
                    i += 1;
                }
                ';' if pending => {
                    pending = false;
                    i += 1;
                }
                '/' if at(i + 1) == '/' => {
                    while i < b.len() && b[i] != '\n' {
                        i += 1;
                    }
                }
                '/' if at(i + 1) == '*' => {
                    let mut nested = 0;
                    loop {
                        if at(i) == '/' && at(i + 1) == '*' {
                            nested += 1;
                            i += 2;
                        } else if at(i) == '*' && at(i + 1) == '/' {
                            nested -= 1;
                            i += 2;
                            if nested == 0 {
                                break;
                            }
                        } else if i >= b.len() {
                            break;
                        } else {
                            i += 1;
                        }
                    }
                }
                'r' if (at(i + 1) == '"' || at(i + 1) == '#') && !at(i.wrapping_sub(1)).is_alphanumeric() => {
                    let mut j = i + 1;
                    let mut hashes = 0;
                    while at(j) == '#' {
                        hashes += 1;
                        j += 1;
                    }
                    if at(j) != '"' {
                        i = j;
                        continue;
                    }
                    let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
                    let rest: String = b[j + 1..].iter().collect();
                    let end = rest.find(&close).unwrap_or(rest.len());
                    let inside = rest.get(..end).unwrap_or_default();
                    keep(inside.to_string(), pending, skipping, &mut code);
                    i = j + 1 + inside.chars().count() + close.chars().count();
                }
                '"' => {
                    let mut s = String::new();
                    i += 1;
                    while i < b.len() && b[i] != '"' {
                        if b[i] == '\\' {
                            i += 1;
                        }
                        s.push(at(i));
                        i += 1;
                    }
                    keep(s, pending, skipping, &mut code);
                    i += 1;
                }
                '\'' if at(i + 1) == '\\' => {
                    i += 3;
                    while i < b.len() && b[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                }
                '\'' if at(i + 2) == '\'' => i += 3,
                c => {
                    if !pending && skipping.is_none() {
                        code.push(c);
                    }
                    i += 1;
                }
            }
        }
        (out, code)
    }

    /// Does `literal` name `wire`: as a word (not inside a longer name),
    /// or, for a prefix, anywhere; `"?"` only as the whole literal?
    fn names(literal: &str, wire: &str) -> bool {
        if wire == "?" {
            return literal == "?";
        }
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '-');
        literal.match_indices(wire).any(|(at, _)| {
            !word(literal.get(..at).and_then(|s| s.chars().next_back()))
                && (wire.ends_with('/') || !word(literal.get(at + wire.len()..).and_then(|s| s.chars().next())))
        })
    }

    fn files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// The Rust files of `src/` outside `src/dialect/`: their paths from the
    /// crate's root, and their text.
    fn outside_dialects() -> Vec<(String, String)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut paths = Vec::new();
        files(&root.join("src"), &mut paths);
        let rel = |path: &Path| path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        paths
            .iter()
            .map(|p| (rel(p), p))
            .filter(|(rel, _)| !rel.starts_with("src/dialect/"))
            .map(|(rel, p)| (rel, std::fs::read_to_string(p).unwrap()))
            .collect()
    }

    #[test]
    fn wire_fields_are_named_only_in_the_dialect_layer() {
        let mut found = Vec::new();
        for (rel, text) in outside_dialects() {
            let mut literals = literals(&text);
            literals.retain(|l| !ENGLISH.contains(&(rel.as_str(), l.as_str())));
            for (dialect, wires) in WIRE {
                for wire in *wires {
                    if literals.iter().any(|l| names(l, wire)) {
                        found.push((rel.clone(), *wire, *dialect));
                    }
                }
            }
        }
        found.sort();
        found.dedup();
        let new: Vec<_> = found.iter().filter(|(f, w, _)| !NOT_YET_MOVED.contains(&(f.as_str(), *w))).collect();
        assert!(
            new.is_empty(),
            "outside src/dialect/, these files name a dialect's wire field (file, field, dialect): {new:#?}"
        );
        let stale: Vec<_> =
            NOT_YET_MOVED.iter().filter(|(f, w)| !found.iter().any(|(g, v, _)| g == f && v == w)).collect();
        assert!(stale.is_empty(), "no longer named there: take these out of NOT_YET_MOVED: {stale:#?}");
    }

    /// Names in code (identifiers, paths) of a dialect's model outside
    /// `src/dialect/`: its module, its types and constants. Other layers
    /// get dialect-neutral data (`ModelMember`, `ModelKeys`, events,
    /// collection roots), never a dialect's own.
    const IDENTIFIERS: &[(&str, &[&str])] =
        &[("murano", &["murano", "MODEL_COPY", "REMOVED_FROM_MODEL", "deletes_environment"])];

    #[test]
    fn dialect_models_are_named_only_in_the_dialect_layer() {
        let mut found = Vec::new();
        for (rel, text) in outside_dialects() {
            let code = code(&text);
            let words: Vec<&str> = code.split(|c: char| !c.is_alphanumeric() && c != '_').collect();
            for (dialect, names) in IDENTIFIERS {
                for name in *names {
                    let lower = name.to_lowercase();
                    if words.iter().any(|w| w.to_lowercase().contains(&lower)) {
                        found.push((rel.clone(), *name, *dialect));
                    }
                }
            }
        }
        found.sort();
        found.dedup();
        assert!(
            found.is_empty(),
            "outside src/dialect/, these files name a dialect's model in code (file, name, dialect): {found:#?}"
        );
    }

    #[test]
    fn literals_and_names() {
        let text = "let a = \"helm.sh/hook\"; // \"Objects\"\n/* \"ObjectsCopy\" */ let c = '\"'; let r = r#\"x \"?\" y\"#; let q = \"?\"; let l: &'a str = \"in ObjectsCopy, not\";\n#[cfg(test)]\nmod t { fn f() { let x = \"Objects\"; } }\n#[cfg(test)] use a::b; let z = \"z\";";
        assert_eq!(literals(text), ["helm.sh/hook", "x \"?\" y", "?", "in ObjectsCopy, not", "z"]);
        assert!(names("helm.sh/hook", "helm.sh/"));
        assert!(!names("meta.helm.sh/release-name", "helm.sh/"));
        assert!(names("in ObjectsCopy, not in Objects", "Objects"));
        assert!(!names("ObjectsCopy", "Objects"));
        assert!(!names("x ? y", "?"));
        let code = code(text);
        assert!(
            code.contains("let a =") && code.contains("let z =") && !code.contains("Objects") && !code.contains("helm")
        );
        assert!(!code.contains("mod t") && !code.contains("a::b"));
    }
}

/// Adding a dialect adds it to the fuzz kit: a target of its name
/// (`fuzz/fuzz_targets/NAME.rs`, a `[[bin]]` of `fuzz/Cargo.toml`, an entry
/// of `harness::TARGETS`); the harness reads it with `--dialect NAME`.
#[cfg(test)]
mod fuzz_kit {
    #[test]
    fn every_dialect_is_a_fuzz_target() {
        let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
        let harness = std::fs::read_to_string(fuzz.join("harness.rs")).unwrap();
        let targets = harness.split("pub const TARGETS").nth(1).and_then(|t| t.split(';').next()).unwrap();
        let manifest = std::fs::read_to_string(fuzz.join("Cargo.toml")).unwrap();
        for d in super::REGISTRY {
            let name = d.name();
            assert!(fuzz.join("fuzz_targets").join(format!("{name}.rs")).is_file(), "no fuzz/fuzz_targets/{name}.rs");
            assert!(targets.contains(&format!("\"{name}\"")), "{name} is not in harness::TARGETS");
            assert!(manifest.contains(&format!("name = \"{name}\"")), "no [[bin]] {name} in fuzz/Cargo.toml");
        }
    }
}
