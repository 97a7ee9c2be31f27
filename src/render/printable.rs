//! Whether objects can be printed as `-o names` lines: lines that `xargs
//! -L1 kubectl delete` reads as one command naming exactly that object
//! (see `render::names` for the form). Anything xargs would split or
//! unquote, anything kubectl would read otherwise or refuse, is refused
//! before a line is printed (exit 2), naming the object and where it is
//! written.

use crate::escape::{escape as shown, needs};
use crate::internal::Internal;
use crate::model::kube::{builtin_group, builtin_namespaced};
use crate::model::naming::{is_label, is_subdomain};
use crate::model::snapshot::Snapshot;
use crate::model::{anchor, Identity, ObjId, Object};
use crate::plan::Refused;
use rayon::prelude::*;

/// Refuse (exit 2) unless every object of `lists` (each object once) can
/// be printed by `-o names` (`flag`, for the message). Checked in
/// parallel: a plan may hold a million objects.
pub fn printable<L: AsRef<[ObjId]>>(snapshot: &Snapshot, lists: &[L], flag: &str) -> Result<(), Refused> {
    let tail = format!(
        "{flag} prints no line that `xargs -L1 kubectl delete` could misread (-o refs prints the references as they are)"
    );
    refuse(snapshot, lists, flag, &tail, problem)?;
    one_namespace(snapshot, lists, flag)
}

/// Refuse (exit 2) lines of more than one namespace. A plain `xargs kubectl
/// delete` (without `-L1`) joins the lines into as few commands as fit, and
/// kubectl takes the last `-n` of a command for every object it names:
/// `pod/a -n x` and `deployment.apps/b -n y` joined delete `pod/a` in `y`,
/// an object outside the plan. Lines of one namespace (and cluster-scoped
/// ones, which kubectl reads in no namespace) say the same however they
/// are joined.
fn one_namespace<L: AsRef<[ObjId]>>(snapshot: &Snapshot, lists: &[L], flag: &str) -> Result<(), Refused> {
    let objects = &snapshot.objects;
    let mut namespaces: Vec<&str> = Vec::new();
    'lists: for ids in lists {
        for &id in ids.as_ref() {
            let o = id.of(objects)?;
            if let (Identity::Coordinates | Identity::Ref, Some(ns)) = (o.identity(), o.namespace.as_deref()) {
                if !namespaces.contains(&ns) {
                    namespaces.push(ns);
                    if namespaces.len() > 2 {
                        break 'lists;
                    }
                }
            }
        }
    }
    let [first, second, ..] = namespaces.as_slice() else { return Ok(()) };
    let more = if namespaces.len() > 2 { " and more" } else { "" };
    Err(Refused::Usage(format!(
        "{flag}: the objects are in more than one namespace (`{}`, `{}`{more}): a plain `xargs kubectl delete` \
         joins lines into one command, and kubectl deletes every object it names in the command's last \
         `-n`, which could be an object outside the plan; {flag} prints the objects of one namespace only \
         (narrow with -n NAMESPACE; -o refs prints them all). To run a plan, use -o kubectl: a script that \
         deletes each step's cascade roots",
        shown(first),
        shown(second)
    )))
}

/// Refuse (exit 2) unless kubectl would read every object of `lists` as
/// that object when a command (`-o kubectl`, which quotes every word for
/// the shell) names it by kind, group, name and namespace.
pub fn nameable<L: AsRef<[ObjId]>>(snapshot: &Snapshot, lists: &[L], flag: &str) -> Result<(), Refused> {
    let tail = format!(
        "{flag} prints no command that kubectl could read as another object (-o refs prints the references as they are)"
    );
    refuse(snapshot, lists, flag, &tail, for_kubectl)
}

/// The first object of `lists` that `check` finds a problem with, as an
/// error naming it and where it is written, how many more there are, and
/// `tail`.
fn refuse<L: AsRef<[ObjId]>>(
    snapshot: &Snapshot,
    lists: &[L],
    flag: &str,
    tail: &str,
    check: fn(&Object) -> Option<String>,
) -> Result<(), Refused> {
    let objects = &snapshot.objects;
    let mut found: Vec<Result<(ObjId, String), Internal>> = Vec::new();
    for ids in lists {
        let each = ids.as_ref().par_iter().map(|&id| Ok(check(id.of(objects)?).map(|why| (id, why))));
        found.par_extend(each.filter_map(Result::transpose));
    }
    let bad = found.into_iter().collect::<Result<Vec<_>, _>>()?;
    let more = bad.len().saturating_sub(1);
    let first = bad.into_iter().next();
    let Some((id, why)) = first else { return Ok(()) };
    let o = id.of(objects)?;
    let file = snapshot.sources.get(o.span.file);
    let line = file.line_index(anchor::object(&snapshot.sources, o).start) + 1;
    let more = match more {
        0 => String::new(),
        n => format!(" ({n} more {} cannot be printed either)", if n == 1 { "object" } else { "objects" }),
    };
    Err(Refused::Usage(format!("{flag}: {} ({}:{line}) {why}{more}; {tail}", shown(&o.reference()), file.name)))
}

/// Why `o` cannot be printed as a `-o names` line, if it cannot: what
/// xargs would not pass as it is, then what kubectl would misread.
fn problem(o: &Object) -> Option<String> {
    let words = match o.identity() {
        Identity::Id | Identity::Token => for_xargs("id", &o.name),
        Identity::Coordinates | Identity::Ref => {
            for_xargs("name", &o.name).or_else(|| o.namespace.as_deref().and_then(|ns| for_xargs("namespace", ns)))
        }
    };
    words.or_else(|| for_kubectl(o))
}

/// Why kubectl, given `o`'s words as they are (its id; or its kind, group,
/// name and namespace), could read another object than `o`, or none, if
/// it could. Whether xargs or a shell passes those words as they are is
/// not asked here.
pub fn for_kubectl(o: &Object) -> Option<String> {
    match o.identity() {
        Identity::Id | Identity::Token => {
            if o.name.contains('/') {
                return Some(format!(
                    "has the id `{}`, which holds `/`: kubectl would read it as TYPE/NAME, and could delete that object",
                    shown(&o.name)
                ));
            }
            if o.name.starts_with('-') {
                return Some(format!(
                    "has the id `{}`, which starts with `-`: kubectl would read it as a flag",
                    shown(&o.name)
                ));
            }
            None
        }
        Identity::Coordinates | Identity::Ref => {
            if !is_kind(&o.kind) {
                return Some(format!(
                    "has the kind `{}`, which is not a kind kubectl can be given (ASCII letters and digits, from a letter)",
                    shown(&o.kind)
                ));
            }
            if o.group.is_empty() && o.identity() == Identity::Coordinates && builtin_namespaced("", &o.kind).is_none()
            {
                // A kind without a group is looked for in every group.
                return Some(format!(
                    "is of the core group, which has no kind `{}`: kubectl would look for `{}` in every API group",
                    shown(&o.kind),
                    shown(&o.kind.to_ascii_lowercase())
                ));
            }
            if !o.group.is_empty() {
                if !is_subdomain(&o.group) {
                    return Some(format!(
                        "has the group `{}`, which is not a DNS subdomain as kubectl reads a group",
                        shown(&o.group)
                    ));
                }
                if let Some((version, rest)) = o.group.split_once('.').filter(|(v, _)| is_version(v)) {
                    return Some(format!(
                        "has the group `{}`, which kubectl would read as version {version} of the group {rest}",
                        shown(&o.group)
                    ));
                }
            }
            if matches!(&*o.name, "." | "..") || o.name.contains(['/', '%']) {
                return Some(format!(
                    "has the name `{}`, which is not a Kubernetes name (none holds `/` or `%`, or is `.` or `..`)",
                    shown(&o.name)
                ));
            }
            if let Some(ns) = &o.namespace {
                if !is_label(ns) {
                    return Some(format!(
                        "is in the namespace `{}`, which is not a DNS label (lower-case letters, digits, `-`) as every Kubernetes namespace is",
                        shown(ns)
                    ));
                }
            }
            if o.is_kubernetes() && !o.scope_known {
                // Taken as cluster-scoped: without `-n`, kubectl would look
                // for a namespaced one in its current namespace.
                return Some(String::from(
                    "has no namespace written and its kind is neither built in nor defined by a CRD in the input, so its scope is only guessed (cluster-scoped): if it is namespaced, kubectl's current namespace would decide what is deleted; add its CRD to the input or give its namespace",
                ));
            }
            if o.identity() == Identity::Ref {
                // Krake: the api stands where the group does. A Kubernetes
                // group kubectl could find in a cluster would make the line
                // name a Kubernetes object.
                // (`core` taken as the core group, in case kubectl does.)
                let could = match &*o.group {
                    "core" => builtin_namespaced("", &o.kind).is_some(),
                    g => g.contains('.') || builtin_group(g),
                };
                if could {
                    return Some(format!(
                        "is a Krake resource of the api `{}`, which kubectl could read as a Kubernetes API group: the line could name a Kubernetes object",
                        shown(&o.group)
                    ));
                }
            }
            None
        }
    }
}

/// Why `value` (an id, name or namespace) cannot be an argument that xargs
/// passes as it is: empty, or holding a blank, a line break, a control
/// character, a quote or a backslash.
fn for_xargs(what: &str, value: &str) -> Option<String> {
    if value.is_empty() {
        return Some(format!("has an empty {what}"));
    }
    let plain = |b: u8| b.is_ascii_graphic() && !matches!(b, b'\'' | b'"' | b'\\');
    // Printable ASCII, the usual case: one pass over the bytes, none over
    // the characters (no such byte is a blank or needs an escape).
    if value.bytes().all(plain) {
        return None;
    }
    if value.bytes().all(|b| plain(b) || b >= 0x80) && !value.chars().any(|c| c.is_whitespace() || needs(c)) {
        return None;
    }
    let c = value.chars().find(|&c| c.is_whitespace() || needs(c) || matches!(c, '\'' | '"' | '\\'))?;
    let (this, does) = match c {
        ' ' => ("a space", "split the line at it"),
        '\t' => ("a tab", "split the line at it"),
        '\n' | '\r' => ("a line break", "split the line at it"),
        '\'' => ("a single quote", "read it as quoting"),
        '"' => ("a double quote", "read it as quoting"),
        '\\' => ("a backslash", "read it as an escape"),
        c if c.is_control() => ("a control character", "not pass it as it is"),
        c if needs(c) => {
            ("a bidirectional control or a line separator", "pass it, and a terminal would show it as no character")
        }
        _ => ("a blank", "not pass it as it is"),
    };
    Some(format!("has the {what} `{}`, which holds {this}: xargs would {does}", shown(value)))
}

/// A kind as kubectl takes one: ASCII letters and digits, from a letter.
fn is_kind(kind: &str) -> bool {
    kind.bytes().next().is_some_and(|b| b.is_ascii_alphabetic()) && kind.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// An API version as Kubernetes writes one: `v1`, `v2beta3`.
fn is_version(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('v') else { return false };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    // `digits` ASCII digits: a character boundary.
    let Some(rest) = rest.get(digits..) else { return false };
    rest.is_empty()
        || ["alpha", "beta"]
            .iter()
            .any(|p| rest.strip_prefix(p).is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_xargs_passes_as_they_are() {
        assert_eq!(for_xargs("name", "web-1.a_b:c"), None);
        assert_eq!(for_xargs("name", "é"), None);
        assert!(for_xargs("name", "").unwrap().contains("empty name"));
        assert!(for_xargs("name", "a b").unwrap().contains("a space"));
        assert!(for_xargs("id", "a'b").unwrap().contains("a single quote"));
        assert!(for_xargs("id", "a\"b").unwrap().contains("a double quote"));
        assert!(for_xargs("id", "a\\b").unwrap().contains("a backslash"));
        assert!(for_xargs("id", "a\u{a0}b").unwrap().contains("a blank"));
        assert!(for_xargs("id", "a\u{7}b").unwrap().contains("a control character"));
    }

    #[test]
    fn kubectl_grammar_parts() {
        assert!(is_kind("Deployment") && !is_kind("9x") && !is_kind("Foo.bar") && !is_kind(""));
        assert!(is_label("shop") && is_label("a-1") && !is_label("-a") && !is_label("Shop") && !is_label(""));
        assert!(is_subdomain("apps") && is_subdomain("rbac.authorization.k8s.io") && !is_subdomain("a..b"));
        assert!(
            is_version("v1")
                && is_version("v2beta3")
                && !is_version("v")
                && !is_version("vb")
                && !is_version("v1gamma1")
        );
    }
}
