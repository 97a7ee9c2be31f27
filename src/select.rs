//! Selectors (CONTRACT §2): `KIND/NAME`, `KIND/NAMESPACE/NAME`, `KIND`,
//! `uid:UID`, `id:ID`, with `-n NAMESPACE` and `-l KEY=VALUE,…`.
//!
//! Kinds match case-insensitively, by singular, plural or kubectl short name,
//! optionally with a group (`deployment.apps/web`). `KIND/NAME` without `-n`
//! matches in every namespace. A word without `/` is a kind or an id, as
//! the snapshot says (both: refused). `-n` narrows a named object
//! (`KIND/NAME`, `uid:`) to its namespace, or lets a cluster-scoped one
//! through, as kubectl does; it narrows a kind, and alone selects, only
//! objects in that namespace: never cluster-scoped ones (a cluster-scoped
//! kind with `-n` is refused).
//!
//! Selection is linear in the snapshot and allocates nothing per object
//! while matching; only a selector that matches nothing pays for its
//! suggestions.

use crate::error::Error;
use crate::model::kube::{self, current_group, selector_group};
use crate::model::{ObjId, Object};
use rustc_hash::FxHashMap;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    Uid(String),
    Id(String),
    /// A word without `/`: a kind (`pods`, `deployment.apps`) or an id,
    /// decided against the snapshot. The kind is `None` when the word
    /// cannot be one.
    Word(String, Option<KindSel>),
    Object {
        kind: KindSel,
        namespace: Option<String>,
        name: String,
    },
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
        let expected = "expected KIND, KIND/NAME, KIND/NAMESPACE/NAME, uid:UID or id:ID";
        let parts: Vec<&str> = text.split('/').collect();
        let (kind, namespace, name) = match parts.as_slice() {
            [word] if !word.is_empty() => return Ok(Selector::Word((*word).into(), KindSel::parse(word).ok())),
            [kind, name] => (*kind, None, *name),
            [kind, ns, name] => (*kind, Some(*ns), *name),
            _ => return Err(bad(expected)),
        };
        if kind.is_empty() || name.is_empty() || namespace.is_some_and(str::is_empty) {
            return Err(bad(expected));
        }
        Ok(Selector::Object { kind: KindSel::new(kind), namespace: namespace.map(Into::into), name: name.into() })
    }

    /// The cluster-scoped built-in kind a word names (`clusterroles`:
    /// `ClusterRole.rbac.authorization.k8s.io`), whatever the snapshot.
    pub fn cluster_scoped_builtin(&self) -> Option<String> {
        match self {
            Selector::Word(_, Some(k)) => {
                k.builtin().filter(|(_, _, namespaced)| !namespaced).map(|(g, k, _)| kind_ref(g, k))
            }
            _ => None,
        }
    }

    /// The namespace written in a `KIND/NAMESPACE/NAME`.
    pub fn namespace(&self) -> Option<&str> {
        match self {
            Selector::Object { namespace, .. } => namespace.as_deref(),
            _ => None,
        }
    }

    fn looks_up_names(&self) -> bool {
        matches!(self, Selector::Id(_) | Selector::Word(..) | Selector::Object { .. })
    }
}

/// `Kind.group` (`Kind` for the core group), as references write it.
fn kind_ref(group: &str, kind: &str) -> String {
    if group.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}.{group}")
    }
}

pub use crate::labels::{parse as parse_labels, LabelReq};

/// A selection: selectors, narrowed by namespace and labels.
#[derive(Clone, Debug, Default)]
pub struct Query {
    pub selectors: Vec<(String, Selector)>,
    pub namespace: Option<String>,
    pub labels: Vec<LabelReq>,
    /// `-l` as given, for messages.
    labels_text: Option<String>,
}

impl Query {
    pub fn new(selectors: &[String], namespace: Option<String>, labels: Option<&str>) -> Result<Query, Error> {
        let selectors =
            selectors.iter().map(|s| Selector::parse(s).map(|p| (s.clone(), p))).collect::<Result<_, _>>()?;
        if namespace.as_deref() == Some("") {
            return Err(Error::Usage("-n: empty namespace".into()));
        }
        let parsed = match labels {
            // Commas and blanks alone: the empty selector, refused below.
            Some(l) if l.split(',').all(|p| p.trim().is_empty()) => Vec::new(),
            Some(l) => parse_labels(l)?,
            None => Vec::new(),
        };
        if let Some(l) = labels.filter(|_| parsed.is_empty()) {
            return Err(Error::Usage(format!(
                "-l `{l}`: empty label selector (it would match every object); give KEY=VALUE, KEY!=VALUE, KEY or !KEY"
            )));
        }
        Ok(Query { selectors, namespace, labels: parsed, labels_text: labels.map(str::to_string) })
    }

    /// Nothing to select by: the caller decides (everything, or an error).
    pub fn is_empty(&self) -> bool {
        self.selectors.is_empty() && self.namespace.is_none() && self.labels.is_empty()
    }

    /// `-n NS -l LABELS`, as given (empty without either).
    pub fn narrowing(&self) -> String {
        let mut parts = Vec::new();
        if let Some(ns) = &self.namespace {
            parts.push(format!("-n {ns}"));
        }
        if let Some(l) = &self.labels_text {
            parts.push(format!("-l {l}"));
        }
        parts.join(" ")
    }

    /// A selector as the user gave it, with `-n`/`-l`.
    fn said(&self, text: &str) -> String {
        match self.narrowing() {
            n if n.is_empty() => text.to_string(),
            n => format!("{text} {n}"),
        }
    }

    /// Is an object in `-n`'s namespace? Cluster-scoped objects never are.
    fn in_namespace(&self, o: &Object) -> bool {
        self.namespace.as_deref().is_none_or(|want| o.namespace.as_deref() == Some(want))
    }

    /// `-n` for an object named by the selector (`KIND/NAME`, `uid:`): its
    /// namespace, or any when it is cluster-scoped (kubectl ignores `-n` there).
    fn named_in_namespace(&self, o: &Object) -> bool {
        match (&self.namespace, &o.namespace) {
            (Some(want), Some(have)) => **have == **want,
            (Some(_), None) => o.has_coordinates(),
            (None, _) => true,
        }
    }

    fn labelled(&self, o: &Object) -> bool {
        self.labels.iter().all(|req| label_matches(o, req))
    }

    /// The matching objects in input order. Each selector must match
    /// something; one that does not is an error naming the closest objects.
    /// A word that is both a kind and an id, a kind of several groups, a
    /// cluster-scoped kind or an id with `-n`: usage errors.
    pub fn select(&self, objects: &[Object]) -> Result<Vec<ObjId>, Error> {
        if self.is_empty() {
            return Err(Error::Usage("nothing to select: give a selector, -n NAMESPACE or -l LABELS".into()));
        }
        let mut picked = vec![false; objects.len()];
        let lookups: usize = self.selectors.iter().filter(|(_, s)| s.looks_up_names()).count();
        let names = Names::new(objects, lookups > 2);
        let mut kinds: Option<Vec<SnapshotKind>> = None;
        if self.selectors.is_empty() {
            let mut any = false;
            for (o, p) in objects.iter().zip(picked.iter_mut()) {
                if self.in_namespace(o) && self.labelled(o) {
                    *p = true;
                    any = true;
                }
            }
            if !any {
                return Err(Error::NoMatch {
                    selector: self.narrowing(),
                    suggestions: self.closest_narrowing(objects),
                });
            }
        }
        for (text, sel) in &self.selectors {
            match sel {
                Selector::Uid(uid) => {
                    let mut any = false;
                    for (o, p) in objects.iter().zip(picked.iter_mut()) {
                        if o.uid.as_deref() == Some(uid.as_str()) && self.named_in_namespace(o) && self.labelled(o) {
                            *p = true;
                            any = true;
                        }
                    }
                    if !any {
                        return Err(Error::NoMatch {
                            selector: self.said(text),
                            suggestions: closest_uids(uid, objects),
                        });
                    }
                }
                Selector::Id(id) => self.pick_id(text, id, objects, &names, &mut picked)?,
                Selector::Object { kind, namespace, name } => {
                    self.pick_named(text, kind, namespace.as_deref(), name, objects, &names, &mut picked)?
                }
                Selector::Word(word, kind) => {
                    let kinds = kinds.get_or_insert_with(|| kinds_of(objects));
                    match resolve_word(text, word, kind.as_ref(), objects, kinds, &names)? {
                        Some(kind) => self.pick_kind(text, kind, objects, kinds, &mut picked)?,
                        None => self.pick_id(text, word, objects, &names, &mut picked)?,
                    }
                }
            }
        }
        Ok(picked.iter().enumerate().filter(|(_, p)| **p).map(|(i, _)| ObjId(i as u32)).collect())
    }

    /// Does a selector name this object one by one (`KIND/NAME`,
    /// `KIND/NAMESPACE/NAME`, `uid:UID`, `id:ID`, a word that is its id),
    /// rather than select it by kind, `-n` or `-l`? (Called for objects
    /// [`Query::select`] picked.)
    pub fn names(&self, o: &Object) -> bool {
        self.selectors.iter().any(|(_, sel)| match sel {
            Selector::Uid(uid) => o.uid.as_deref() == Some(uid.as_str()),
            Selector::Id(id) | Selector::Word(id, _) => !o.has_coordinates() && *o.name == **id,
            Selector::Object { kind, namespace, name } => {
                *o.name == **name
                    && kind.matches(o)
                    && namespace.as_deref().is_none_or(|ns| o.namespace.as_deref() == Some(ns))
            }
        })
    }

    fn pick_id(
        &self,
        text: &str,
        id: &str,
        objects: &[Object],
        names: &Names,
        picked: &mut [bool],
    ) -> Result<(), Error> {
        if let Some(ns) = &self.namespace {
            return Err(Error::Usage(format!(
                "selector `{text}` with -n {ns}: `{id}` is the id of an object (Murano, native or pairs), which is in no namespace; drop -n"
            )));
        }
        let mut any = false;
        names.each(id, |i, o| {
            if !o.has_coordinates() && self.labelled(o) {
                pick(picked, i);
                any = true;
            }
        });
        match any {
            true => Ok(()),
            false => Err(Error::NoMatch { selector: self.said(text), suggestions: closest_ids(id, objects) }),
        }
    }

    /// `KIND/NAME`, `KIND/NAMESPACE/NAME`: the objects of that name and
    /// kind, all of one kind.
    #[allow(clippy::too_many_arguments)]
    fn pick_named(
        &self,
        text: &str,
        kind: &KindSel,
        namespace: Option<&str>,
        name: &str,
        objects: &[Object],
        names: &Names,
        picked: &mut [bool],
    ) -> Result<(), Error> {
        let (mut first, mut other) = (None::<&Object>, None::<&Object>);
        names.each(name, |i, o| {
            if kind.matches(o)
                && namespace.is_none_or(|ns| o.namespace.as_deref() == Some(ns))
                && self.named_in_namespace(o)
                && self.labelled(o)
            {
                pick(picked, i);
                match first {
                    None => first = Some(o),
                    Some(f) if other.is_none() && !same_kind(f, o) => other = Some(o),
                    Some(_) => {}
                }
            }
        });
        if let (Some(a), Some(b)) = (first, other) {
            let group = if a.group.is_empty() { "core" } else { &a.group };
            let hint = match text.split_once('/') {
                Some((_, rest)) if kind.group.is_none() => format!(" ({}.{group}/{rest})", kind.word()),
                _ => String::new(),
            };
            return Err(Error::Usage(format!(
                "selector `{text}` matches objects of several kinds ({}, {}); write the kind with its group{hint}",
                a.reference(),
                b.reference()
            )));
        }
        match first {
            Some(_) => Ok(()),
            None => Err(Error::NoMatch {
                selector: self.said(text),
                suggestions: closest_objects(objects, kind, namespace.or(self.namespace.as_deref()), Some(name)),
            }),
        }
    }

    /// `KIND`: every object of that kind, narrowed by `-n` and `-l`.
    fn pick_kind(
        &self,
        text: &str,
        kind: &KindSel,
        objects: &[Object],
        kinds: &[SnapshotKind],
        picked: &mut [bool],
    ) -> Result<(), Error> {
        let named: Vec<&SnapshotKind> =
            kinds.iter().filter(|k| kind.names_kind(k.group, k.kind, k.kubernetes)).collect();
        let mut distinct: Vec<String> = named.iter().map(|k| kind_ref(k.group, k.kind)).collect();
        distinct.sort();
        distinct.dedup();
        if distinct.len() > 1 {
            let hint = named.first().map_or(String::new(), |k| {
                format!(" ({}.{})", kind.word(), if k.group.is_empty() { "core" } else { k.group })
            });
            return Err(Error::Usage(format!(
                "selector `{text}` names several kinds: {}; write the kind with its group{hint}",
                distinct.join(", ")
            )));
        }
        if let Some(ns) = &self.namespace {
            let builtin = kind.builtin().filter(|(_, _, namespaced)| !namespaced).map(|(g, k, _)| kind_ref(g, k));
            let cluster = builtin.or_else(|| named.iter().find(|k| k.cluster).map(|k| kind_ref(k.group, k.kind)));
            if let Some(cluster) = cluster {
                return Err(cluster_scoped(text, ns, &cluster));
            }
        }
        let mut any = false;
        for (o, p) in objects.iter().zip(picked.iter_mut()) {
            if kind.matches(o) && self.in_namespace(o) && self.labelled(o) {
                *p = true;
                any = true;
            }
        }
        if any {
            return Ok(());
        }
        let suggestions = if named.iter().any(|k| k.objects) {
            closest_objects(objects, kind, self.namespace.as_deref(), None)
        } else {
            closest_kinds(kind.word(), Some(kind), kinds, &[], false)
        };
        Err(Error::NoMatch { selector: self.said(text), suggestions })
    }

    /// `-n`/`-l` alone that match nothing: the closest namespaces, or labels.
    fn closest_narrowing(&self, objects: &[Object]) -> Vec<String> {
        if let Some(ns) = &self.namespace {
            if !objects.iter().any(|o| o.namespace.as_deref() == Some(ns.as_str())) {
                let mut found: Vec<&str> = objects.iter().filter_map(|o| o.namespace.as_deref()).collect();
                found.sort_unstable();
                found.dedup();
                let scored = found.iter().enumerate().map(|(i, n)| (levenshtein(ns, n), i)).collect();
                return best(scored, near(ns.len()), |i| found.get(i).map(|n| format!("-n {n}")));
            }
        }
        let Some((key, value)) = self.labels.iter().find_map(|r| match r {
            LabelReq::Eq(k, v) => Some((k.as_str(), v.as_str())),
            _ => None,
        }) else {
            return Vec::new();
        };
        let mut pairs: Vec<(&str, &str)> = objects
            .iter()
            .filter(|o| self.in_namespace(o))
            .flat_map(|o| o.labels.iter().map(|(k, v)| (&**k, &**v)))
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        let scored =
            pairs.iter().enumerate().map(|(i, (k, v))| (levenshtein(key, k) + levenshtein(value, v), i)).collect();
        best(scored, near(key.len() + value.len() + 1), |i| pairs.get(i).map(|(k, v)| format!("-l {k}={v}")))
    }
}

/// `-n` with a cluster-scoped kind: refused, never widened.
pub fn cluster_scoped(text: &str, namespace: &str, kind: &str) -> Error {
    let short = kind.split('.').next().unwrap_or(kind);
    Error::Usage(format!(
        "selector `{text}` with -n {namespace}: {kind} is cluster-scoped, so -n cannot narrow it (kubectl would ignore -n and select every {short}); name the objects ({text}/NAME), or drop -n to mean every {short}"
    ))
}

/// Are two objects of one kind (group and kind)?
fn same_kind(a: &Object, b: &Object) -> bool {
    a.group == b.group && a.kind == b.kind
}

/// A word without `/`: `Some(kind)` or `None` (an id); refused when it is
/// both, and no match when it is neither.
fn resolve_word<'k>(
    text: &str,
    word: &str,
    kind: Option<&'k KindSel>,
    objects: &[Object],
    kinds: &[SnapshotKind],
    names: &Names,
) -> Result<Option<&'k KindSel>, Error> {
    // A built-in kind is a kind only beside objects it could name: in a
    // snapshot of ids alone (Murano, native, pairs) `service` is an id.
    let coordinates = kinds.iter().any(|k| k.objects);
    let as_kind = kind.filter(|k| {
        (coordinates && k.builtin().is_some()) || kinds.iter().any(|s| k.names_kind(s.group, s.kind, s.kubernetes))
    });
    let mut as_id = false;
    names.each(word, |_, o| as_id |= !o.has_coordinates());
    match (as_kind, as_id) {
        (Some(k), true) => {
            let (group, name) = k
                .builtin()
                .map(|(g, n, _)| (g.to_string(), n.to_string()))
                .or_else(|| {
                    kinds
                        .iter()
                        .find(|s| k.names_kind(s.group, s.kind, s.kubernetes))
                        .map(|s| (s.group.to_string(), s.kind.to_string()))
                })
                .unwrap_or_default();
            let group = if group.is_empty() { "core".to_string() } else { group };
            let spelled = match k.group {
                None => format!("{word}.{group}"),
                Some(_) => format!("{}.v1.{group}", k.word()),
            };
            Err(Error::Usage(format!(
                "selector `{text}` is ambiguous: it is the kind {} and the id of an object (Murano, native or pairs); write id:{word} for that object, or {spelled} for every {name}",
                kind_ref(if group == "core" { "" } else { &group }, &name)
            )))
        }
        (Some(k), false) => Ok(Some(k)),
        (None, true) => Ok(None),
        (None, false) => Err(Error::NoMatch {
            selector: text.to_string(),
            suggestions: closest_kinds(word, kind, kinds, objects, coordinates),
        }),
    }
}

fn label_matches(o: &Object, req: &LabelReq) -> bool {
    req.matches(o.label(req.key()))
}

/// A kind alone, as kubectl takes one: `pod`, `Pods`, `deploy`,
/// `deployment.apps`, `Stream.example.com` (`--kind`, `--ephemeral`, and
/// the kind of a selector).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindSel {
    /// As given, for messages.
    pub text: String,
    /// Lower-case, without the group.
    kind: String,
    /// Lower-case, without a version.
    group: Option<String>,
    /// What `kind` stands for, when it is a kubectl short name.
    short: Option<&'static str>,
    /// The group of the built-in kind `kind` names, if one does (kubectl's
    /// discovery: `deploy` is `deployment.apps`).
    resolves: Option<&'static str>,
}

impl KindSel {
    pub fn parse(text: &str) -> Result<KindSel, Error> {
        let kind = text.split_once('.').map_or(text, |(k, _)| k);
        if kind.is_empty() || text.contains(['/', ' ', ',']) {
            return Err(Error::Usage(format!(
                "invalid kind `{text}`: expected KIND or KIND.GROUP (pod, deployment.apps)"
            )));
        }
        Ok(KindSel::new(text))
    }

    fn new(text: &str) -> KindSel {
        let (kind, group) = match text.split_once('.') {
            Some((k, g)) => (k, Some(selector_group(g))),
            None => (text, None),
        };
        let kind = kind.to_ascii_lowercase();
        KindSel {
            text: text.to_string(),
            short: kube::short_name(&kind),
            resolves: kube::builtin_group_of(&kind),
            kind,
            group,
        }
    }

    /// The kind as written, without its group.
    fn word(&self) -> &str {
        self.text.split_once('.').map_or(&self.text, |(k, _)| k)
    }

    /// Does it name objects of this group and kind (Kubernetes' rules)?
    pub fn names(&self, group: &str, kind: &str) -> bool {
        self.names_kind(group, kind, true)
    }

    /// Does it name this object's kind?
    pub fn matches(&self, o: &Object) -> bool {
        o.has_coordinates() && self.names_kind(&o.group, &o.kind, o.is_kubernetes())
    }

    /// Does it name objects of this group and kind? `kubernetes`:
    /// Kubernetes' rules apply (built-in kinds, legacy groups); else the
    /// group as written.
    fn names_kind(&self, o_group: &str, o_kind: &str, kubernetes: bool) -> bool {
        kube::kind_matches_with(&self.kind, self.short, o_kind)
            && match self.group.as_deref() {
                // Another system's objects (Krake): their group as written.
                group if !kubernetes => group.is_none_or(|g| o_group.eq_ignore_ascii_case(g)),
                // As kubectl's discovery: a built-in kind's name means the built-in.
                None => self.resolves.is_none_or(|g| o_group == g),
                Some(g) => {
                    let g = if g == "core" { "" } else { g };
                    o_group.eq_ignore_ascii_case(g) || current_group(g, o_kind) == o_group
                }
            }
    }

    /// The built-in kind it names: (group, kind, namespaced).
    fn builtin(&self) -> Option<(&'static str, &'static str, bool)> {
        kube::builtin_kinds().iter().find(|(g, k, _)| self.names_kind(g, k, true)).copied()
    }

    /// Do two of them name the same kinds (`pod` and `pods`)? Decided on
    /// the kind each names among the built-ins, else as written.
    pub fn same(&self, other: &KindSel) -> bool {
        let canonical = |k: &KindSel| {
            let group = k.group.clone().or_else(|| k.resolves.map(str::to_string));
            let kind = kube::builtin_kind_named(&k.kind).map_or(k.kind.clone(), |n| n.to_ascii_lowercase());
            (kind, group)
        };
        canonical(self) == canonical(other)
    }
}

/// A kind of the snapshot: of its objects with coordinates, or defined by
/// one of its CRDs.
struct SnapshotKind<'a> {
    group: &'a str,
    kind: &'a str,
    kubernetes: bool,
    /// Some object is of this kind.
    objects: bool,
    /// Some object of it is cluster-scoped, or its CRD says so.
    cluster: bool,
}

fn kinds_of(objects: &[Object]) -> Vec<SnapshotKind<'_>> {
    type At<'a> = FxHashMap<(&'a str, &'a str, bool), usize>;
    fn note<'a>(at: &mut At<'a>, out: &mut Vec<SnapshotKind<'a>>, k: SnapshotKind<'a>) {
        let i = *at.entry((k.group, k.kind, k.kubernetes)).or_insert(out.len());
        match out.get_mut(i) {
            Some(have) => {
                have.objects |= k.objects;
                have.cluster |= k.cluster;
            }
            None => out.push(k),
        }
    }
    let mut at = At::default();
    let mut out = Vec::new();
    for o in objects.iter().filter(|o| o.has_coordinates()) {
        let kubernetes = o.is_kubernetes();
        let cluster = o.namespace.is_none();
        note(&mut at, &mut out, SnapshotKind { group: &o.group, kind: &o.kind, kubernetes, objects: true, cluster });
        if let Some(crd) = &o.crd {
            let k = SnapshotKind {
                group: &crd.group,
                kind: &crd.kind,
                kubernetes: true,
                objects: false,
                cluster: !crd.namespaced,
            };
            note(&mut at, &mut out, k);
        }
    }
    out
}

/// Finding objects by name: a scan, or a sorted index when there are many
/// to find.
struct Names<'a> {
    objects: &'a [Object],
    /// (index, object) by name, then index (input order, as the scan).
    sorted: Option<Vec<(usize, &'a Object)>>,
}

impl<'a> Names<'a> {
    fn new(objects: &'a [Object], index: bool) -> Names<'a> {
        let sorted = index.then(|| {
            let mut v: Vec<(usize, &Object)> = objects.iter().enumerate().collect();
            v.sort_unstable_by(|a, b| a.1.name.cmp(&b.1.name).then(a.0.cmp(&b.0)));
            v
        });
        Names { objects, sorted }
    }

    /// Calls `f` with the index of every object of this name, and the
    /// object, in input order.
    fn each(&self, name: &str, mut f: impl FnMut(usize, &'a Object)) {
        match &self.sorted {
            Some(v) => {
                let start = v.partition_point(|(_, o)| &*o.name < name);
                for &(i, o) in v.iter().skip(start).take_while(|(_, o)| &*o.name == name) {
                    f(i, o);
                }
            }
            None => {
                for (i, o) in self.objects.iter().enumerate() {
                    if &*o.name == name {
                        f(i, o);
                    }
                }
            }
        }
    }
}

/// Marks object `i` picked (`i` is a position in the objects `picked` was
/// made for, so always in range).
fn pick(picked: &mut [bool], i: usize) {
    if let Some(p) = picked.get_mut(i) {
        *p = true;
    }
}

/// At most this many suggestions.
const SUGGESTIONS: usize = 3;

/// How far a word of this length may be from a suggestion: one edit in
/// three, at least one.
fn near(len: usize) -> usize {
    (len / 3).max(1)
}

/// The best of the scored candidates (lowest key first, ties by what is
/// shown), at most [`SUGGESTIONS`]; only those whose first distance is
/// within `within`, when the key's ordering says so. `show` gives the text
/// of candidate `i` (`None` for no candidate: nothing shown for it).
fn best<K: Ord + Copy + Within>(
    mut scored: Vec<(K, usize)>,
    within: usize,
    show: impl Fn(usize) -> Option<String>,
) -> Vec<String> {
    scored.retain(|(k, _)| k.within(within));
    scored.sort_unstable();
    let Some(cut) = scored.get(SUGGESTIONS - 1).or(scored.last()).map(|s| s.0) else { return Vec::new() };
    let mut shown: Vec<(K, String)> =
        scored.iter().take_while(|(k, _)| *k <= cut).filter_map(|(k, i)| Some((*k, show(*i)?))).collect();
    shown.sort();
    shown.dedup_by(|a, b| a.1 == b.1);
    shown.truncate(SUGGESTIONS);
    shown.into_iter().map(|(_, s)| s).collect()
}

/// A key that says whether a candidate is close enough to be shown.
trait Within {
    fn within(&self, limit: usize) -> bool;
}

impl Within for usize {
    fn within(&self, limit: usize) -> bool {
        *self <= limit
    }
}

/// (kind, namespace, name) distances: filtered before ranking.
impl Within for (usize, usize, usize) {
    fn within(&self, _: usize) -> bool {
        true
    }
}

/// (distance, class): ids and kinds.
impl Within for (usize, u8) {
    fn within(&self, limit: usize) -> bool {
        self.0 <= limit
    }
}

/// The objects closest to `KIND[/NAMESPACE]/NAME` (or `KIND` with `-n`):
/// by kind first, then namespace, then name. A candidate is of a kind
/// close to the one asked for, or has a close name.
fn closest_objects(objects: &[Object], kind: &KindSel, namespace: Option<&str>, name: Option<&str>) -> Vec<String> {
    let kind_limit = 1 + near(kind.kind.len());
    let name_limit = name.map_or(0, |n| near(n.chars().count()));
    let mut kind_d: FxHashMap<(usize, usize, bool), usize> = FxHashMap::default();
    let mut scored = Vec::new();
    for (i, o) in objects.iter().enumerate().filter(|(_, o)| o.has_coordinates()) {
        let key = (
            std::sync::Arc::as_ptr(&o.group) as *const u8 as usize,
            std::sync::Arc::as_ptr(&o.kind) as *const u8 as usize,
            o.is_kubernetes(),
        );
        let kd = *kind_d.entry(key).or_insert_with(|| match kind.matches(o) {
            true => 0,
            false => 1 + kind_distance(kind, &o.group, &o.kind),
        });
        let named = name.map(|n| levenshtein(n, &o.name));
        if kd > kind_limit && named.is_none_or(|d| d > name_limit) {
            continue;
        }
        let nd = namespace.map_or(0, |ns| levenshtein(ns, o.namespace.as_deref().unwrap_or("")));
        scored.push(((kd, nd, named.unwrap_or(0)), i));
    }
    best(scored, 0, |i| objects.get(i).map(Object::reference))
}

/// How far a kind (as written, lower-case) is from a kind of the snapshot:
/// the closest of its singular, plural and short names, plus the group's
/// distance when one was written.
fn kind_distance(want: &KindSel, group: &str, kind: &str) -> usize {
    let lower = kind.to_ascii_lowercase();
    let mut d = levenshtein(&want.kind, &lower).min(levenshtein(&want.kind, &kube::plural(&lower)));
    for short in kube::short_names_of(&lower) {
        d = d.min(levenshtein(&want.kind, short));
    }
    if let Some(g) = &want.group {
        d += levenshtein(if g == "core" { "" } else { g }, group);
    }
    d
}

/// The kinds of the snapshot closest to one that named nothing (reconcile's
/// `--kind`), as selectors rank them.
pub fn closest_kinds_of(kind: &KindSel, objects: &[Object]) -> Vec<String> {
    closest_kinds(kind.word(), Some(kind), &kinds_of(objects), &[], false)
}

/// The kinds (of the snapshot, then built-in) and ids closest to a word.
/// `builtins`: suggest built-in kinds the snapshot lacks too.
fn closest_kinds(
    word: &str,
    kind: Option<&KindSel>,
    kinds: &[SnapshotKind],
    objects: &[Object],
    builtins: bool,
) -> Vec<String> {
    let mut shown: Vec<String> = Vec::new();
    let mut scored: Vec<((usize, u8), usize)> = Vec::new();
    if let Some(k) = kind {
        let limit = near(k.kind.chars().count());
        let mut add = |d: usize, class: u8, group: &str, kind: &str| {
            if d <= limit {
                scored.push(((d, class), shown.len()));
                shown.push(kind_ref(group, kind));
            }
        };
        // Not the kind asked for itself (a CRD's kind without objects).
        for s in kinds.iter().filter(|s| !k.names_kind(s.group, s.kind, s.kubernetes)) {
            add(kind_distance(k, s.group, s.kind), 0, s.group, s.kind);
        }
        if builtins {
            for (g, n, _) in kube::builtin_kinds() {
                if !kinds.iter().any(|s| s.group == *g && s.kind == *n) {
                    add(kind_distance(k, g, n), 2, g, n);
                }
            }
        }
    }
    let limit = near(word.chars().count());
    for o in objects.iter().filter(|o| !o.has_coordinates()) {
        let d = levenshtein(word, &o.name);
        if d <= limit {
            scored.push(((d, 1), shown.len()));
            shown.push(format!("id:{}", o.name));
        }
    }
    best(scored, usize::MAX, |i| shown.get(i).cloned())
}

/// The ids closest to `id:ID` (then objects with coordinates of a close name).
fn closest_ids(id: &str, objects: &[Object]) -> Vec<String> {
    let scored = objects
        .iter()
        .enumerate()
        .map(|(i, o)| ((levenshtein(id, &o.name), u8::from(o.has_coordinates())), i))
        .collect();
    best(scored, near(id.chars().count()), |i| {
        objects.get(i).map(|o| match o.has_coordinates() {
            true => o.reference(),
            false => format!("id:{}", o.name),
        })
    })
}

/// The uids closest to `uid:UID`, each with its object.
fn closest_uids(uid: &str, objects: &[Object]) -> Vec<String> {
    let scored =
        objects.iter().enumerate().filter_map(|(i, o)| o.uid.as_deref().map(|u| (levenshtein(uid, u), i))).collect();
    best(scored, near(uid.chars().count()), |i| {
        objects.get(i).map(|o| format!("uid:{} ({})", o.uid.as_deref().unwrap_or(""), o.reference()))
    })
}

/// The kinds of the snapshot closest to `text` (`--kind` of `reconcile`).
pub fn closest_words(text: &str, candidates: Vec<String>) -> Vec<String> {
    let scored = candidates.iter().enumerate().map(|(i, c)| (levenshtein(text, c), i)).collect();
    best(scored, near(text.chars().count()), |i| candidates.get(i).cloned())
}

/// Edit distance (optimal string alignment: insertions, deletions,
/// substitutions and swaps of neighbours, `wbe` is one from `web`),
/// ignoring ASCII case.
fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let n = b.len();
    // Rows i-2, i-1 and i of the table.
    let mut before: Vec<usize> = vec![0; n + 1];
    let mut prev: Vec<usize> = (0..=n).collect();
    let mut cur = vec![0; n + 1];
    let mut last: Option<char> = None;
    // The table's last cell so far: row 0's is n.
    let mut distance = n;
    for (i, ca) in a.chars().enumerate() {
        let Some((first, rest)) = cur.split_first_mut() else { break };
        *first = i + 1;
        // cur[j] (left), b[j-1] and before[j-1] as j goes along the row.
        let mut left = i + 1;
        let mut b_prev: Option<(char, usize)> = None;
        let above = prev.iter().zip(prev.iter().skip(1));
        for ((out, &cb), ((&diag, &up), &two_up)) in rest.iter_mut().zip(&b).zip(above.zip(&before)) {
            let cost = usize::from(!ca.eq_ignore_ascii_case(&cb));
            let mut d = (up + 1).min(left + 1).min(diag + cost);
            if let Some((bp, two_diag)) = b_prev {
                if last.is_some_and(|l| l.eq_ignore_ascii_case(&cb) && ca.eq_ignore_ascii_case(&bp)) {
                    d = d.min(two_diag + 1);
                }
            }
            *out = d;
            left = d;
            b_prev = Some((cb, two_up));
        }
        distance = left;
        last = Some(ca);
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    distance
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_selectors() {
        let Selector::Object { kind, namespace, name } = Selector::parse("deployment.apps/web").unwrap() else {
            panic!("not an object selector")
        };
        assert_eq!(
            (kind.kind.as_str(), kind.group.as_deref(), namespace, name.as_str()),
            ("deployment", Some("apps"), None, "web")
        );
        let Selector::Object { kind, namespace, name } = Selector::parse("Pod/ns/p").unwrap() else {
            panic!("not an object selector")
        };
        assert_eq!(
            (kind.kind.as_str(), kind.group, namespace.as_deref(), name.as_str()),
            ("pod", None, Some("ns"), "p")
        );
        assert_eq!(Selector::parse("uid:123").unwrap(), Selector::Uid("123".into()));
        assert_eq!(Selector::parse("id:a").unwrap(), Selector::Id("a".into()));
        assert_eq!(Selector::parse("a").unwrap(), Selector::Word("a".into(), Some(KindSel::new("a"))));
        assert_eq!(Selector::parse("a b").unwrap(), Selector::Word("a b".into(), None));
        assert!(Selector::parse("a/b/c/d").is_err());
        assert!(Selector::parse("/x").is_err());
        assert!(Selector::parse("x//y").is_err());
        assert_eq!(
            Selector::parse("clusterroles").unwrap().cluster_scoped_builtin().as_deref(),
            Some("ClusterRole.rbac.authorization.k8s.io")
        );
        assert_eq!(Selector::parse("pods").unwrap().cluster_scoped_builtin(), None);
        assert_eq!(Selector::parse("ns").unwrap().cluster_scoped_builtin().as_deref(), Some("Namespace"));
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
        assert!(parse_labels("app in (a,b)").is_ok());
        assert!(parse_labels("app in (a,b").is_err());
        assert!(parse_labels("=x").is_err());
        assert!(Query::new(&[], None, Some(",")).is_err());
        assert!(Query::new(&[], Some(String::new()), None).is_err());
    }

    #[test]
    fn distance() {
        assert_eq!(levenshtein("web", "wbe"), 1);
        assert_eq!(levenshtein("deployments", "deploymnets"), 1);
        assert_eq!(levenshtein("ab", "ba"), 1);
        assert_eq!(levenshtein("abc", "ca"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("Web", "wEB"), 0);
    }

    /// The distance as the table is written (indexing each cell), before it
    /// was computed along iterators: the same on every pair of short words.
    fn table_distance(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let eq = |x: char, y: char| x.eq_ignore_ascii_case(&y);
        let mut d = vec![vec![0; b.len() + 1]; a.len() + 1];
        for i in 0..=a.len() {
            for j in 0..=b.len() {
                d[i][j] = match (i, j) {
                    (0, j) => j,
                    (i, 0) => i,
                    _ => {
                        let mut v = (d[i - 1][j] + 1)
                            .min(d[i][j - 1] + 1)
                            .min(d[i - 1][j - 1] + usize::from(!eq(a[i - 1], b[j - 1])));
                        if i > 1 && j > 1 && eq(a[i - 1], b[j - 2]) && eq(a[i - 2], b[j - 1]) {
                            v = v.min(d[i - 2][j - 2] + 1);
                        }
                        v
                    }
                };
            }
        }
        d[a.len()][b.len()]
    }

    #[test]
    fn distance_is_the_table() {
        let words = [
            "", "a", "ab", "ba", "abc", "acb", "cab", "web", "wbe", "Deploy", "dpeloy", "ééa", "aéé", "kitten",
            "sitting",
        ];
        for a in words {
            for b in words {
                assert_eq!(levenshtein(a, b), table_distance(a, b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn best_is_deterministic_and_bounded() {
        let words = ["bb", "ab", "ba", "aa", "zz"];
        let scored = words.iter().enumerate().map(|(i, w)| (levenshtein("aa", w), i)).collect();
        assert_eq!(best(scored, 1, |i| Some(words[i].to_string())), ["aa", "ab", "ba"]);
        assert!(best(Vec::<(usize, usize)>::new(), 2, |_| None).is_empty());
    }
}
