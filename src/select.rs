//! Selectors (CONTRACT §2): `KIND/NAME`, `KIND/NAMESPACE/NAME`, `uid:UID`,
//! `id:ID`, with `-n NAMESPACE` and `-l KEY=VALUE,…`.
//!
//! Kinds match case-insensitively, by singular, plural or kubectl short name,
//! optionally with a group (`deployment.apps/web`). `KIND/NAME` without `-n`
//! matches in every namespace. A bare word without `/` is an id.

use crate::error::Error;
use crate::model::kube::{builtin_group_of, current_group, kind_matches, selector_group};
use crate::model::{ObjId, Object};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    Uid(String),
    Id(String),
    Object { kind: String, group: Option<String>, namespace: Option<String>, name: String },
}

impl Selector {
    pub fn parse(text: &str) -> Result<Selector, Error> {
        let bad = |why: &str| Error::Usage(format!("invalid selector `{text}`: {why}"));
        if let Some(uid) = text.strip_prefix("uid:") {
            return if uid.is_empty() { Err(bad("empty uid")) } else { Ok(Selector::Uid(uid.into())) };
        }
        if let Some(id) = text.strip_prefix("id:") {
            return if id.is_empty() { Err(bad("empty id")) } else { Ok(Selector::Id(id.into())) };
        }
        let parts: Vec<&str> = text.split('/').collect();
        let (kind, namespace, name) = match parts.as_slice() {
            [id] if !id.is_empty() => return Ok(Selector::Id((*id).into())),
            [kind, name] => (*kind, None, *name),
            [kind, ns, name] => (*kind, Some(*ns), *name),
            _ => return Err(bad("expected KIND/NAME, KIND/NAMESPACE/NAME, uid:UID or id:ID")),
        };
        if kind.is_empty() || name.is_empty() || namespace.is_some_and(str::is_empty) {
            return Err(bad("expected KIND/NAME, KIND/NAMESPACE/NAME, uid:UID or id:ID"));
        }
        let (kind, group) = match kind.split_once('.') {
            Some((k, g)) => (k, Some(selector_group(g))),
            None => (kind, None),
        };
        Ok(Selector::Object {
            kind: kind.to_ascii_lowercase(),
            group,
            namespace: namespace.map(Into::into),
            name: name.into(),
        })
    }
}

/// One requirement of a label selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LabelReq {
    Eq(String, String),
    Ne(String, String),
    Exists(String),
    NotExists(String),
}

pub fn parse_labels(text: &str) -> Result<Vec<LabelReq>, Error> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad =
            || Error::Usage(format!("invalid label selector `{part}`: expected KEY=VALUE, KEY!=VALUE, KEY or !KEY"));
        if part.contains(['(', ')', ' ']) {
            return Err(bad());
        }
        let req = if let Some((k, v)) = part.split_once("!=") {
            LabelReq::Ne(k.into(), v.into())
        } else if let Some((k, v)) = part.split_once("==").or_else(|| part.split_once('=')) {
            LabelReq::Eq(k.into(), v.into())
        } else if let Some(k) = part.strip_prefix('!') {
            LabelReq::NotExists(k.into())
        } else {
            LabelReq::Exists(part.into())
        };
        match &req {
            LabelReq::Eq(k, _) | LabelReq::Ne(k, _) | LabelReq::Exists(k) | LabelReq::NotExists(k) if k.is_empty() => {
                return Err(bad())
            }
            _ => {}
        }
        out.push(req);
    }
    Ok(out)
}

/// A selection: selectors, narrowed by namespace and labels.
#[derive(Clone, Debug, Default)]
pub struct Query {
    pub selectors: Vec<(String, Selector)>,
    pub namespace: Option<String>,
    pub labels: Vec<LabelReq>,
}

impl Query {
    pub fn new(selectors: &[String], namespace: Option<String>, labels: Option<&str>) -> Result<Query, Error> {
        let selectors =
            selectors.iter().map(|s| Selector::parse(s).map(|p| (s.clone(), p))).collect::<Result<_, _>>()?;
        let labels = match labels {
            Some(l) => parse_labels(l)?,
            None => Vec::new(),
        };
        Ok(Query { selectors, namespace, labels })
    }

    /// Nothing to select by: the caller decides (everything, or an error).
    pub fn is_empty(&self) -> bool {
        self.selectors.is_empty() && self.namespace.is_none() && self.labels.is_empty()
    }

    /// The matching objects in input order. Each selector must match
    /// something; one that does not is an error naming the closest objects.
    pub fn select(&self, objects: &[Object]) -> Result<Vec<ObjId>, Error> {
        let narrow = |o: &Object| {
            let ns_ok = match (&self.namespace, &o.namespace) {
                (Some(want), Some(have)) => **have == **want,
                (Some(_), None) => o.has_coordinates(), // cluster-scoped: -n does not apply
                (None, _) => true,
            };
            ns_ok && self.labels.iter().all(|req| label_matches(o, req))
        };
        let mut picked = vec![false; objects.len()];
        if self.selectors.is_empty() {
            for (i, o) in objects.iter().enumerate() {
                if narrow(o) {
                    picked[i] = true;
                }
            }
            if !picked.contains(&true) {
                return Err(Error::NoMatch { selector: self.describe_narrowing(), suggestions: Vec::new() });
            }
        }
        for (text, sel) in &self.selectors {
            let mut any = false;
            for (i, o) in objects.iter().enumerate() {
                if matches(sel, o) && narrow(o) {
                    picked[i] = true;
                    any = true;
                }
            }
            if !any {
                return Err(Error::NoMatch { selector: text.clone(), suggestions: closest(text, objects) });
            }
        }
        Ok(picked.iter().enumerate().filter(|(_, p)| **p).map(|(i, _)| ObjId(i as u32)).collect())
    }

    fn describe_narrowing(&self) -> String {
        let mut parts = Vec::new();
        if let Some(ns) = &self.namespace {
            parts.push(format!("-n {ns}"));
        }
        if !self.labels.is_empty() {
            parts.push("-l …".into());
        }
        parts.join(" ")
    }
}

fn label_matches(o: &Object, req: &LabelReq) -> bool {
    match req {
        LabelReq::Eq(k, v) => o.label(k) == Some(v.as_str()),
        LabelReq::Ne(k, v) => o.label(k) != Some(v.as_str()),
        LabelReq::Exists(k) => o.label(k).is_some(),
        LabelReq::NotExists(k) => o.label(k).is_none(),
    }
}

pub fn matches(sel: &Selector, o: &Object) -> bool {
    match sel {
        Selector::Uid(uid) => o.uid.as_deref() == Some(uid.as_str()),
        Selector::Id(id) => !o.has_coordinates() && (*o.name == **id),
        Selector::Object { kind, group, namespace, name } => {
            o.has_coordinates()
                && *o.name == **name
                && names_kind(kind, group.as_deref(), &o.group, &o.kind, o.is_kubernetes())
                && match namespace {
                    Some(ns) => o.namespace.as_deref() == Some(ns.as_str()),
                    None => true,
                }
        }
    }
}

/// Does a selector's (lower-case) kind and group name objects of this group
/// and kind? `kubernetes`: Kubernetes' rules apply (built-in kinds, legacy
/// groups); else the group as written.
fn names_kind(kind: &str, group: Option<&str>, o_group: &str, o_kind: &str, kubernetes: bool) -> bool {
    kind_matches(kind, o_kind)
        && match group {
            // Another system's objects (Krake): their group as written.
            _ if !kubernetes => group.is_none_or(|g| o_group.eq_ignore_ascii_case(g)),
            // As kubectl's discovery: a built-in kind's name means the built-in.
            None => builtin_group_of(kind).is_none_or(|g| o_group == g),
            Some(g) => {
                let g = if g == "core" { "" } else { g };
                o_group.eq_ignore_ascii_case(g) || current_group(g, o_kind) == o_group
            }
        }
}

/// A kind alone, as kubectl takes one: `pod`, `Pods`, `deploy`,
/// `deployment.apps`, `Stream.example.com` (`--kind`, `--ephemeral`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindSel {
    /// As given, for messages.
    pub text: String,
    kind: String,
    group: Option<String>,
}

impl KindSel {
    pub fn parse(text: &str) -> Result<KindSel, Error> {
        let (kind, group) = match text.split_once('.') {
            Some((k, g)) => (k, Some(selector_group(g))),
            None => (text, None),
        };
        if kind.is_empty() || text.contains(['/', ' ', ',']) {
            return Err(Error::Usage(format!(
                "invalid kind `{text}`: expected KIND or KIND.GROUP (pod, deployment.apps)"
            )));
        }
        Ok(KindSel { text: text.to_string(), kind: kind.to_ascii_lowercase(), group })
    }

    /// Does it name objects of this group and kind (Kubernetes' rules)?
    pub fn names(&self, group: &str, kind: &str) -> bool {
        names_kind(&self.kind, self.group.as_deref(), group, kind, true)
    }

    /// Do two of them name the same kinds (`pod` and `pods`)? Decided on
    /// the kind each names among the built-ins, else as written.
    pub fn same(&self, other: &KindSel) -> bool {
        let canonical = |k: &KindSel| {
            let group = k.group.clone().or_else(|| builtin_group_of(&k.kind).map(str::to_string));
            let kind =
                crate::model::kube::builtin_kind_named(&k.kind).map_or(k.kind.clone(), |n| n.to_ascii_lowercase());
            (kind, group)
        };
        canonical(self) == canonical(other)
    }
}

/// The references closest to what was asked for (edit distance), at most 3.
fn closest(text: &str, objects: &[Object]) -> Vec<String> {
    let want = text.to_ascii_lowercase();
    let want_name = want.rsplit('/').next().unwrap_or(&want).to_string();
    let mut scored: Vec<(usize, String)> = objects
        .iter()
        .map(|o| {
            let r = o.reference();
            let name_d = levenshtein(&want_name, &o.name.to_ascii_lowercase());
            let full_d = levenshtein(&want, &r.to_ascii_lowercase());
            (name_d.min(full_d), r)
        })
        .filter(|(d, _)| *d <= (want_name.len() / 3).max(2))
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, r)| r).collect()
}

/// The candidates closest to `text` (edit distance, case-insensitive), at most 3.
pub fn closest_words(text: &str, candidates: Vec<String>) -> Vec<String> {
    let want = text.to_ascii_lowercase();
    let mut scored: Vec<(usize, String)> = candidates
        .into_iter()
        .map(|c| (levenshtein(&want, &c.to_ascii_lowercase()), c))
        .filter(|(d, _)| *d <= (want.len() / 3).max(2))
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, c)| c).collect()
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j + 1] + 1).min(cur[j] + 1).min(prev[j] + cost);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_selectors() {
        assert_eq!(
            Selector::parse("deployment.apps/web").unwrap(),
            Selector::Object {
                kind: "deployment".into(),
                group: Some("apps".into()),
                namespace: None,
                name: "web".into()
            }
        );
        assert_eq!(
            Selector::parse("Pod/ns/p").unwrap(),
            Selector::Object { kind: "pod".into(), group: None, namespace: Some("ns".into()), name: "p".into() }
        );
        assert_eq!(Selector::parse("uid:123").unwrap(), Selector::Uid("123".into()));
        assert_eq!(Selector::parse("id:a").unwrap(), Selector::Id("a".into()));
        assert_eq!(Selector::parse("a").unwrap(), Selector::Id("a".into()));
        assert!(Selector::parse("a/b/c/d").is_err());
        assert!(Selector::parse("/x").is_err());
    }

    #[test]
    fn parses_label_selectors() {
        assert_eq!(
            parse_labels("app=web,tier!=db,env,!canary").unwrap(),
            vec![
                LabelReq::Eq("app".into(), "web".into()),
                LabelReq::Ne("tier".into(), "db".into()),
                LabelReq::Exists("env".into()),
                LabelReq::NotExists("canary".into()),
            ]
        );
        assert!(parse_labels("app in (a,b)").is_err());
        assert!(parse_labels("=x").is_err());
    }

    #[test]
    fn distance() {
        assert_eq!(levenshtein("web", "wbe"), 2);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("kitten", "sitting"), 3);
    }
}
