//! The `kubernetes` dialect: `apiVersion` + `kind` + `metadata`, as printed by
//! `kubectl get -o yaml|json`, and manifests as written by hand; `List`s
//! (typed lists like `PodList` may leave out their items' `kind`) and
//! arrays of objects.
//!
//! Its wire structs name the fields teardown reads — and nothing else:
//! everything else (spec, status, managedFields…) is skipped by the parser
//! without being built. Scalars are lenient (a number where a string is
//! expected becomes its text) and `spec` is read leniently (a field of an
//! unexpected type is ignored), because custom resources put anything in
//! their spec.

use super::api::{List, Out};
use super::fields::{
    Interned, IsText, Key, LenientBool, LenientStr, OwnerName, OwnerUid, StrMap, Text, TextKey, NOT_A_STRING,
};
use super::tools::parse_depends_on;
use crate::findings::{quoted, Finding, Rule};
use crate::input::outline::Value;
use crate::input::{locate, Node, Shape, Unit};
use crate::model::intern::intern;
use crate::model::kube::{group_of, ServiceCall};
use crate::model::lifecycle::{Lifecycle, Said};
use crate::model::skipped::Skipped;
use crate::model::{anchor, naming};
use crate::model::{
    kube::{Binding, Facts, Storage},
    Collector, CrdDef, DepDecl, DepKind, DepTarget, Fields, Identity, ModelKeys, Object, Origin, OwnerRef, StateKeys,
    Str, TrackingKeys,
};
use crate::span::Span;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::cell::OnceCell;
use std::fmt;

pub struct Kubernetes;

pub static ORIGIN: Origin = Origin {
    dialect: "kubernetes",
    noun: "a Kubernetes resource",
    identity: Identity::Coordinates,
    fields: Fields {
        name: &["metadata", "name"],
        owners: "ownerReferences",
        dependency: DEPENDS_ON,
        finalizers: "finalizers",
        namespace: "namespace",
        kind: "kind",
        deleted: "deletionTimestamp",
        tracking: &TrackingKeys::NONE,
        states: &STATE_KEYS,
        models: &ModelKeys::NONE,
    },
    collector: Collector::KUBERNETES,
};

/// Where crd-reconciler's custom resources write their states.
pub static STATE_KEYS: StateKeys = StateKeys { desired: &["spec", "state"], current: &["status", "state"] };

impl super::api::Dialect for Kubernetes {
    fn edits(&self) -> Option<&'static super::api::Edits> {
        Some(&super::api::Edits {
            owners: Some(&["metadata", "ownerReferences"]),
            after: None,
            destroyed: None,
            span_at_key: false,
        })
    }

    fn origin(&self) -> &'static Origin {
        &ORIGIN
    }

    fn about(&self) -> &'static str {
        "objects with `apiVersion`, `kind` and `metadata`, `List`s of them, arrays of them"
    }

    /// Any mapping no narrower dialect took (a mapping without a `kind` is
    /// still read, to say what it lacks), and arrays of objects.
    fn recognise(&self, unit: &Unit) -> Option<bool> {
        Some(match unit.shape() {
            Shape::Map => true,
            Shape::Seq => unit.list.is_none(),
            Shape::Scalar | Shape::Null => false,
        })
    }

    /// A `List` (`items:`; a `…List` kind with `items: null` or none is
    /// empty, unless it is a named object), or an array of objects.
    fn list(&self, doc: &Unit) -> Option<List> {
        let o = doc.outline();
        let is_list = match o.shape {
            Shape::Seq => return Some(List { member: None, own_items: false }),
            Shape::Map => match o.get("kind") {
                Some(Value::Str(kind)) if kind.ends_with("List") => o.listy("items") || !named(doc),
                Some(Value::Str(_)) => false,
                _ => o.listy("items"),
            },
            _ => false,
        };
        is_list.then_some(List { member: Some("items"), own_items: false })
    }

    fn read(&self, unit: &Unit, out: &mut Out) {
        let raw: RawObject = match super::api::parse_object(unit) {
            Ok(raw) => raw,
            Err(finding) => return unreadable(unit, finding, out),
        };
        if !unit.is_json() {
            if let Some(finding) = yaml11::check(&raw, unit) {
                return naming_its_object(unit, finding, out);
            }
        }
        let list = match unit.list {
            Some(l) => ListContext::new(l.outline.str("apiVersion"), l.outline.str("kind")),
            None => ListContext::default(),
        };
        out.objects.extend(convert(raw, unit.span(), unit.source_text(), list, &mut out.findings));
    }

    /// Everything but `apiVersion`, `kind`, `metadata` and `status`: `spec`,
    /// and the top-level fields of kinds without one (a ConfigMap's `data`).
    fn desired_part(&self, document: &Node, object: &Object) -> Option<Node> {
        let fields = own_document(document, object)?.as_map()?;
        let kept = fields
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), Some("apiVersion" | "kind" | "metadata" | "status")))
            .cloned()
            .collect();
        Some(Node::Map(kept))
    }

    fn lifecycle(&self, document: &Node, object: &Object) -> Option<Lifecycle> {
        Some(super::status::lifecycle(&object.group, &object.kind, own_document(document, object)?))
    }
}

/// The object's own document in `document`: itself, or for an item of a
/// list read whole, the item with its kind, name and namespace.
pub(super) fn own_document<'a>(document: &'a Node, object: &Object) -> Option<&'a Node> {
    let own = |n: &Node| {
        let meta = n.get("metadata");
        let is = |key: &str, want: &str| meta.and_then(|m| m.get(key)).and_then(Node::as_str) == Some(want);
        n.get("kind").and_then(Node::as_str).is_none_or(|k| k == &*object.kind)
            && is("name", &object.name)
            && object.namespace.as_deref().is_none_or(|ns| !object.namespace_written || is("namespace", ns))
    };
    if own(document) {
        return Some(document);
    }
    let items = document.as_seq().or_else(|| document.get("items").and_then(Node::as_seq))?;
    items.iter().find(|n| own(n))
}

/// A document that cannot be read: the finding says which field and names
/// its object. Rare, and out of line (issue 40: the code that reads each
/// object is kept small for the instruction cache).
#[cold]
#[inline(never)]
fn unreadable(unit: &Unit, finding: Finding, out: &mut Out) {
    naming_its_object(unit, not_a_string(unit, finding), out)
}

/// A document that cannot be read names its object (`Pod/ns/name`) when
/// its kind and name can be read, even when another field cannot (issue
/// 38): the finding is found by the object it is about, not only its line.
/// The identity read is kept as a skipped document's (with its uid and
/// owner references): `--skip-invalid` goes on without the document, but
/// a plan must not take it for absent.
#[cold]
#[inline(never)]
fn naming_its_object(unit: &Unit, finding: Finding, out: &mut Out) {
    let (finding, skipped) = identified(unit, finding);
    out.findings.push(finding);
    out.skipped.extend(skipped);
}

/// The finding naming its object, and the object's identity, when they can be read.
fn identified(unit: &Unit, mut finding: Finding) -> (Finding, Option<Skipped>) {
    let Ok(tree) = unit.tree() else { return (finding, None) };
    let list = unit.list.map(|l| (l.outline.str("apiVersion"), l.outline.str("kind")));
    let field = |node: &Node, key: &str| node.get(key).and_then(Node::as_str).map(str::to_owned);
    let meta = tree.get("metadata");
    let kind = field(tree, "kind").or_else(|| {
        // A typed list's items may leave their kind out (`PodList`).
        let (_, list_kind) = list?;
        list_kind?.strip_suffix("List").filter(|k| !k.is_empty()).map(str::to_owned)
    });
    let api_version = field(tree, "apiVersion").or_else(|| list.and_then(|(a, _)| a).map(str::to_owned));
    let (Some(kind), Some(name)) = (kind, meta.and_then(|m| field(m, "name"))) else { return (finding, None) };
    // (A name longer than any the API server takes, 253, is not quoted.)
    let too_long = |s: &str| s.is_empty() || s.len() > 253;
    if too_long(&kind) || too_long(&name) || meta.and_then(|m| field(m, "namespace")).is_some_and(|n| n.len() > 253) {
        return (finding, None);
    }
    let group = group_of(api_version.as_deref().unwrap_or(""), &kind);
    let dot_group = if group.is_empty() { String::new() } else { format!(".{group}") };
    let namespace = meta.and_then(|m| field(m, "namespace")).filter(|ns| !ns.is_empty());
    let reference = match &namespace {
        Some(ns) => format!("{kind}{dot_group}/{ns}/{name}"),
        None => format!("{kind}{dot_group}/{name}"),
    };
    finding.message = format!("{reference}: {}", finding.message);
    finding.refs.push(reference.clone());
    let skipped = Skipped {
        group,
        kind: intern(&kind),
        namespace: namespace.map(|n| intern(&n)),
        name: intern(&name),
        uid: meta.and_then(|m| field(m, "uid")).filter(|u| !u.is_empty()).map(|u| intern(&u)),
        owners: meta.map(skipped_owners).unwrap_or_default(),
        span: unit.span(),
        reference,
    };
    (finding, Some(skipped))
}

/// The owner references of a document that cannot be read, those that
/// name a kind and a name.
fn skipped_owners(meta: &Node) -> Vec<OwnerRef> {
    let field = |node: &Node, key: &str| node.get(key).and_then(Node::as_str).filter(|s| !s.is_empty()).map(intern);
    let written = meta.get("ownerReferences").and_then(Node::as_seq).unwrap_or_default();
    written
        .iter()
        .filter_map(|r| {
            let (kind, name) = (field(r, "kind")?, field(r, "name")?);
            let api_version = field(r, "apiVersion").unwrap_or_else(|| intern(""));
            Some(OwnerRef {
                group: group_of(&api_version, &kind),
                api_version,
                kind,
                name,
                uid: field(r, "uid"),
                controller: false,
                block_owner_deletion: false,
                namespace: None,
            })
        })
        .collect()
}

/// A string field written as a number or boolean: say which field, what
/// was written, and how to write it.
fn not_a_string(unit: &Unit, mut finding: Finding) -> Finding {
    let Some(at) = finding.primary.as_ref().map(|l| l.span) else { return finding };
    let Some(marker) = finding.message.find(NOT_A_STRING) else { return finding };
    let text = unit.source_text();
    let b = text.as_bytes();
    let what =
        if finding.message.get(..marker).is_some_and(|m| m.ends_with("a boolean ")) { "a boolean" } else { "a number" };
    let (language, field, token) = if unit.is_json() {
        // serde_json points at the value's last character or just after it,
        // and names no field.
        let delimiter = |c: u8| matches!(c, b':' | b',' | b'[' | b']' | b'{' | b'}' | b' ' | b'\n' | b'\r' | b'\t');
        let end = b
            .get(at.start..)
            .and_then(|rest| rest.iter().position(|&c| delimiter(c)))
            .map_or(b.len(), |i| at.start + i);
        let start = b.get(..end).and_then(|head| head.iter().rposition(|&c| delimiter(c))).map_or(0, |i| i + 1);
        let key_end = text.get(..start).and_then(|t| t.trim_end().strip_suffix(':')).map(|k| k.trim_end().len());
        let field = key_end.and_then(|e| {
            let k = text.get(..e)?.strip_suffix('"')?;
            let open = k.rfind('"')?;
            Some(k.get(open + 1..)?.to_string())
        });
        ("JSON", field, start..end)
    } else {
        // serde_yaml points at the value, and names the field's path.
        let path = finding.message.strip_prefix("YAML: ").and_then(|m| m.split_once(": ")).map(|(p, _)| p.to_string());
        let line_end = b.get(at.start..).and_then(|rest| memchr::memchr(b'\n', rest)).map_or(b.len(), |n| at.start + n);
        let mut end = at.start;
        while end < line_end
            && !matches!(b.get(end), Some(b',' | b']' | b'}' | b'\r'))
            && !b.get(end..).is_some_and(|rest| rest.starts_with(b" #"))
        {
            end += 1;
        }
        // A place off the text (not serde_yaml's) leaves the finding as it is.
        let end = at.start + text.get(at.start..end).map_or(0, |t| t.trim_end().len());
        ("YAML", path, at.start..end)
    };
    if token.is_empty() {
        return finding;
    }
    let Some(written) = text.get(token.clone()) else { return finding };
    let written = crate::findings::quoted(written);
    let field = field.unwrap_or_else(|| "a field".into());
    let key = field.rsplit('.').next().unwrap_or(&field).to_string();
    finding.message = format!("{language}: {field}: `{written}` is {what} where a string belongs; kubectl refuses it");
    finding.primary = Some(crate::findings::Label::new(Span::new(at.file, token), what));
    finding.help = Some(match language {
        "JSON" => format!("write it as a string: \"{key}\": \"{written}\""),
        _ => format!("write it in quotes: {key}: \"{written}\""),
    });
    finding
}

/// How kubectl reads an unquoted scalar: YAML 1.1 (go-yaml), where `yes`,
/// `on`, `017`, `1_000` and dates are not strings, as they are in YAML 1.2
/// (serde_yaml). A string field written so is refused, as kubectl refuses
/// (or rewrites) it.
mod yaml11 {
    use super::{RawObject, Unit};
    use crate::findings::{Finding, Rule};
    use crate::input::locate;
    use crate::span::Span;

    /// What kubectl reads this unquoted text as, when not a string.
    pub fn reads(v: &str) -> Option<&'static str> {
        // Called on every string field of every object: decide on the
        // first bytes when it can (most values are words, uids and hashes).
        let first = *v.as_bytes().first()?;
        if matches!(first, b'y' | b'Y' | b'n' | b'N' | b'o' | b'O') {
            let boolean = matches!(
                v,
                "y" | "Y"
                    | "yes"
                    | "Yes"
                    | "YES"
                    | "n"
                    | "N"
                    | "no"
                    | "No"
                    | "NO"
                    | "on"
                    | "On"
                    | "ON"
                    | "off"
                    | "Off"
                    | "OFF"
            );
            return boolean.then_some("a boolean");
        }
        if !(first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'.')) {
            return None;
        }
        let unsigned = v.strip_prefix(['+', '-']).unwrap_or(v);
        if matches!(unsigned.strip_prefix('.'), Some("inf" | "Inf" | "INF" | "nan" | "NaN" | "NAN")) {
            return (v.len() == unsigned.len() || !unsigned.ends_with(['n', 'N'])).then_some("a number");
        }
        let hex = unsigned.starts_with("0x") || unsigned.starts_with("0X");
        // Outside hexadecimal, numbers and timestamps are digits and these.
        let number_byte = |c: u8| {
            c.is_ascii_digit()
                || matches!(
                    c,
                    b'+' | b'-'
                        | b'.'
                        | b'_'
                        | b':'
                        | b' '
                        | b'e'
                        | b'E'
                        | b'o'
                        | b'O'
                        | b'b'
                        | b'B'
                        | b't'
                        | b'T'
                        | b'z'
                        | b'Z'
                )
        };
        if !hex && !v.bytes().all(number_byte) {
            return None;
        }
        if timestamp(v) {
            return Some("a timestamp");
        }
        let plain: std::borrow::Cow<str> = if v.contains('_') { v.replace('_', "").into() } else { v.into() };
        (int(&plain) || float(&plain)).then_some("a number")
    }

    fn digits(s: &str, radix: u32) -> bool {
        !s.is_empty() && s.chars().all(|c| c.is_digit(radix))
    }

    /// Go's `ParseInt(s, 0, 64)` syntax: a sign, then 0x, 0o, 0b, a leading 0 (octal) or decimal.
    fn int(s: &str) -> bool {
        let s = s.strip_prefix(['+', '-']).unwrap_or(s);
        for (prefixes, radix) in [(["0x", "0X"], 16), (["0o", "0O"], 8), (["0b", "0B"], 2)] {
            if let Some(rest) = prefixes.iter().find_map(|p| s.strip_prefix(p)) {
                return digits(rest, radix);
            }
        }
        match s.strip_prefix('0') {
            Some(rest) if !rest.is_empty() => digits(rest, 8),
            _ => digits(s, 10),
        }
    }

    /// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
    fn float(s: &str) -> bool {
        let s = s.strip_prefix(['+', '-']).unwrap_or(s);
        let (mantissa, exponent) = match s.split_once(['e', 'E']) {
            Some((mantissa, exponent)) => (mantissa, Some(exponent)),
            None => (s, None),
        };
        let mantissa_ok = match mantissa.split_once('.') {
            Some(("", frac)) => digits(frac, 10),
            Some((int, frac)) => digits(int, 10) && (frac.is_empty() || digits(frac, 10)),
            None => digits(mantissa, 10),
        };
        mantissa_ok && exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e), 10))
    }

    /// `2006-1-2`, optionally with a time (`T`, `t` or a space between).
    fn timestamp(s: &str) -> bool {
        let (date, time) = match s.split_once(['T', 't', ' ']) {
            Some((date, time)) => (date, Some(time)),
            None => (s, None),
        };
        let mut parts = date.split('-');
        let ok = |p: Option<&str>, n: std::ops::RangeInclusive<usize>| {
            p.is_some_and(|p| n.contains(&p.len()) && digits(p, 10))
        };
        let date_ok =
            ok(parts.next(), 4..=4) && ok(parts.next(), 1..=2) && ok(parts.next(), 1..=2) && parts.next().is_none();
        date_ok
            && time.is_none_or(|t| {
                let hms = t.split(['Z', '+', '-']).next().unwrap_or("");
                let mut f = hms.split(':');
                ok(f.next(), 1..=2)
                    && ok(f.next(), 1..=2)
                    && f.next().is_some_and(|sec| {
                        let whole = sec.split('.').next().unwrap_or("");
                        (1..=2).contains(&whole.len()) && digits(whole, 10)
                    })
            })
    }

    /// The first string field of `raw` that kubectl would not read as the
    /// string serde_yaml read, where it is written unquoted.
    pub fn check(raw: &RawObject, unit: &Unit) -> Option<Finding> {
        let span = unit.span();
        let text = unit.source_text();
        let mut fields: Vec<(Vec<&str>, &str)> = Vec::new();
        fn add<'r>(fields: &mut Vec<(Vec<&'r str>, &'r str)>, path: Vec<&'r str>, v: Option<&'r str>) {
            if let Some(v) = v.filter(|v| reads(v).is_some()) {
                fields.push((path, v));
            }
        }
        add(&mut fields, vec!["apiVersion"], raw.api_version.as_ref().map(|t| &*t.0));
        add(&mut fields, vec!["kind"], raw.kind.as_ref().map(|t| &*t.0));
        if let Some(m) = &raw.metadata {
            add(&mut fields, vec!["metadata", "name"], m.name.as_ref().map(|t| &*t.0));
            add(&mut fields, vec!["metadata", "generateName"], m.generate_name.as_ref().map(|t| &*t.0));
            add(&mut fields, vec!["metadata", "namespace"], m.namespace.as_ref().map(|t| &*t.0));
            add(&mut fields, vec!["metadata", "uid"], m.uid.as_ref().map(|t| &*t.0));
            for f in m.finalizers.iter().flatten() {
                add(&mut fields, vec!["finalizers"], Some(&f.0));
            }
            for r in m.owner_references.iter().flatten() {
                let (api_version, kind) = (r.api_version.as_ref().map(|v| &v.0), r.kind.as_ref().map(|v| &v.0));
                let (name, uid) = (r.name.as_ref().map(|v| &v.0), r.uid.as_ref().map(|v| &v.0));
                for (k, v) in [("apiVersion", api_version), ("kind", kind), ("name", name), ("uid", uid)] {
                    if let Some(v) = v.filter(|v| reads(v).is_some()) {
                        fields.push((vec!["ownerReferences", k], v));
                    }
                }
            }
            for (k, v) in m.labels.iter().flat_map(|l| &l.0) {
                if reads(k).is_some() {
                    fields.push((vec!["labels"], k));
                }
                if reads(v).is_some() {
                    fields.push((vec!["labels", k], v));
                }
            }
            for (k, v) in m.annotations.iter().flat_map(|a| &a.0) {
                if reads(v).is_some() {
                    fields.push((vec!["annotations", k], v));
                }
            }
        }
        for (path, value) in fields {
            let Some(at) = locate::value_after(text, span.range(), &path, value)
                .or_else(|| locate::key_after(text, span.range(), value))
            else {
                continue;
            };
            let b = text.as_bytes();
            let quoted = |i: Option<&u8>| matches!(i, Some(b'"' | b'\''));
            if quoted(at.start.checked_sub(1).and_then(|i| b.get(i))) || quoted(b.get(at.end)) {
                continue;
            }
            let what = reads(value).unwrap_or("not a string");
            let value = crate::findings::quoted(value);
            let field = path.join(".");
            let key = path.last().copied().unwrap_or(&value);
            return Some(
                Finding::new(
                    Rule::Td001,
                    format!("YAML: {field}: `{value}` is {what} to kubectl (YAML 1.1) where a string belongs; kubectl refuses it"),
                )
                .at(Span::new(span.file, at), what)
                .help(format!("write it in quotes: {key}: \"{value}\"")),
            );
        }
        None
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn reads_as_kubectl_does() {
            for (v, what) in [
                ("yes", Some("a boolean")),
                ("Off", Some("a boolean")),
                ("017", Some("a number")),
                ("1_000", Some("a number")),
                ("0x1F", Some("a number")),
                ("1e3", Some("a number")),
                ("08", Some("a number")),
                ("2021-01-02", Some("a timestamp")),
                ("2021-1-2T3:04:05Z", Some("a timestamp")),
                ("web", None),
                ("yesterday", None),
                ("1.2.3", None),
                ("v1", None),
                ("0a", None),
                ("-", None),
                ("2021-01", None),
                (".inf", Some("a number")),
                ("-.Inf", Some("a number")),
                (".NaN", Some("a number")),
                ("Yes", Some("a boolean")),
                ("oN", None),
                ("5db7a0f9-f664-48a4-bc41-95c35b22a216", None),
                ("1_0", Some("a number")),
                ("-.nan", None),
                ("+.NaN", None),
                ("0x1f_ff", Some("a number")),
                ("0xfg", None),
                ("12ab", None),
            ] {
                assert_eq!(super::reads(v), what, "{v}");
            }
        }
    }
}

/// Does an object that names no kind have a CustomResourceDefinition's
/// shape? Its spec has a group, `names.kind` and `names.plural`, and its
/// name is `<plural>.<group>` (the API server requires that of CRDs).
fn crd_by_shape(spec: &LenientSpec, meta: &RawMeta) -> Option<()> {
    let (group, plural) = (spec.group.as_deref()?, spec.names_plural.as_deref()?);
    spec.names_kind.as_ref()?;
    let name = meta.name.as_ref()?;
    (name.0.strip_suffix(group)?.strip_suffix('.')? == plural).then_some(())
}

/// Whether a document has a non-empty `metadata.name` (a named object
/// whose kind ends in `List` is an object, not a list).
fn named(doc: &Unit) -> bool {
    doc.child("metadata").is_some_and(|m| m.str("name").is_some_and(|n| !n.is_empty()))
}

/// The annotations teardown reads; all others are skipped: cli-utils'
/// depends-on, KubeVela's shared-by (which Applications share a resource),
/// and those of the tools whose ordering and keep metadata `plan` reads
/// (`dialect::tools`).
pub const KEPT_ANNOTATIONS: [&str; 3] = [DEPENDS_ON, super::tools::KUBEVELA_SHARED_BY, LOCAL_CONFIG];
pub const DEPENDS_ON: &str = "config.kubernetes.io/depends-on";
/// kpt's and kustomize's mark of a document that configures the tool (a
/// function's config, setters) and is never applied to a cluster.
pub const LOCAL_CONFIG: &str = "config.kubernetes.io/local-config";

/// Whether teardown keeps an annotation with this key.
pub fn kept_annotation(key: &str) -> bool {
    KEPT_ANNOTATIONS.contains(&key) || super::tools::PREFIXES.iter().any(|p| key.starts_with(p))
}

#[derive(Clone, Debug, Default)]
pub struct KeptAnnotations(pub Vec<(Str, Str)>);

impl KeptAnnotations {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| &**k == key).map(|(_, v)| &**v)
    }
}

impl<'de> Deserialize<'de> for KeptAnnotations {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<KeptAnnotations, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeptAnnotations;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of strings")
            }
            fn visit_unit<E: de::Error>(self) -> Result<KeptAnnotations, E> {
                Ok(KeptAnnotations::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeptAnnotations, A::Error> {
                let mut out = Vec::new();
                let mut keys = Vec::new();
                while let Some(TextKey(k)) = map.next_key::<TextKey>()? {
                    // Every value must be a string; those teardown reads are kept.
                    if kept_annotation(&k) {
                        let v = map.next_value::<Option<Text>>()?;
                        out.push((k.clone().into_owned().into(), v.map(|v| v.0).unwrap_or_default()));
                    } else {
                        map.next_value::<Option<IsText>>()?;
                    }
                    keys.push(k);
                }
                match super::fields::duplicate(keys.iter().map(|k| &**k)) {
                    Some(key) => Err(de::Error::custom(format_args!("duplicate key `{key}`"))),
                    None => Ok(KeptAnnotations(out)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// The parts of `spec` teardown reads. A CustomResourceDefinition's
/// `group`, `scope` and `names.kind`; a custom resource's desired `state`
/// (crd-reconciler's: `reconcile` finds custom resources by it).
///
/// What the default ordering rules read (`model::kube::Facts`): a Pod's
/// `serviceAccountName` (and the deprecated `serviceAccount`), a Pod
/// template's (`template.spec`, a CronJob's `jobTemplate.spec.template.spec`),
/// a claim's `volumeName`, a volume's `claimRef`, and `storageClassName`;
/// a Service's `selector`, an APIService's `service`, a Pod template's
/// labels.
#[derive(Clone, Debug, Default)]
pub struct LenientSpec {
    pub group: Option<Str>,
    pub scope: Option<Str>,
    pub names_kind: Option<Str>,
    pub names_plural: Option<Str>,
    pub state: Said,
    pub pod: LenientPodSpec,
    pub template: LenientTemplate,
    pub job_template: LenientJobTemplate,
    pub volume_name: Option<Str>,
    pub claim_ref: LenientClaimRef,
    pub storage_class_name: Option<Str>,
    /// A Flux Kustomization's or HelmRelease's `dependsOn`.
    pub depends_on: LenientList<LenientDependency>,
    /// A Service's `selector`.
    pub selector: LenientLabels,
    /// An APIService's `service`.
    pub service: LenientServiceRef,
    /// A Crossplane Usage's `of`, `by` and `reason`.
    pub of: LenientUsageRef,
    pub by: LenientUsageRef,
    pub reason: Option<Str>,
    /// A Pod's `nodeName`.
    pub node_name: Option<Str>,
    /// A PersistentVolume's `persistentVolumeReclaimPolicy`.
    pub reclaim_policy: Option<Str>,
    /// A CRD's `versions` (name and `served` of each).
    pub versions: LenientList<LenientCrdVersion>,
    /// A CRD's legacy `version` (`apiextensions.k8s.io/v1beta1`).
    pub version: Option<Str>,
    /// A PersistentVolume's `capacity` (its `storage`).
    pub capacity: LenientStorage,
    /// A PersistentVolumeClaim's `resources` (`requests.storage`).
    pub resources: LenientResources,
    /// A StatefulSet's `persistentVolumeClaimRetentionPolicy`.
    pub claim_retention: LenientRetention,
}

/// A lenient map with these keys, each read as its own lenient type; any
/// other key, or a value that is not a map, is skipped.
macro_rules! lenient_map {
    ($(#[$doc:meta])* $name:ident { $($key:literal => $field:ident: $ty:ty),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default)]
        pub struct $name {
            $(pub $field: $ty),*
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("anything")
                    }
                    fn visit_str<E: de::Error>(self, _: &str) -> Result<$name, E> {
                        Ok($name::default())
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        let mut out = $name::default();
                        while let Some(Key(k)) = map.next_key::<Key>()? {
                            match &*k {
                                $($key => out.$field = map.next_value::<$ty>()?,)*
                                _ => {
                                    map.next_value::<IgnoredAny>()?;
                                }
                            }
                        }
                        Ok(out)
                    }
                    lenient_other_arms!($name);
                }
                d.deserialize_any(V)
            }
        }
    };
}

lenient_map!(
    /// A Pod spec: the ServiceAccount it runs as.
    LenientPodSpec {
        "serviceAccountName" => service_account_name: LenientStr,
        "serviceAccount" => service_account: LenientStr,
    }
);

impl LenientPodSpec {
    /// `serviceAccountName`, else the deprecated `serviceAccount` (the API
    /// server fills one from the other).
    fn account(self) -> Option<Str> {
        self.service_account_name.0.or(self.service_account.0).filter(|s| !s.is_empty())
    }
}

lenient_map!(
    /// A Pod template: its labels and its Pod spec.
    LenientTemplate {
        "metadata" => metadata: LenientTemplateMeta,
        "spec" => spec: LenientPodSpec,
    }
);

lenient_map!(
    /// A Pod template's `metadata`.
    LenientTemplateMeta { "labels" => labels: LenientLabels }
);

lenient_map!(
    /// A Service reference (`namespace`, `name`): a webhook's
    /// `clientConfig.service`, an APIService's `spec.service`.
    LenientServiceRef {
        "namespace" => namespace: LenientStr,
        "name" => name: LenientStr,
    }
);

lenient_map!(
    /// One of a CRD's `versions`: its name, and whether it is served.
    LenientCrdVersion {
        "name" => name: LenientStr,
        "served" => served: LenientBool,
    }
);

lenient_map!(
    /// A webhook's `clientConfig`.
    LenientClientConfig { "service" => service: LenientServiceRef }
);

lenient_map!(
    /// One webhook of a webhook configuration: the Service it calls, and
    /// what a failed call does.
    LenientWebhook {
        "clientConfig" => client_config: LenientClientConfig,
        "failurePolicy" => failure_policy: LenientStr,
    }
);

/// A map of strings (labels, a Service's selector). `None` when it is not
/// one: a value that is a number, a boolean, a map or a list makes the whole
/// map unreadable (the API server refuses it), never a map with that pair
/// left out, which would select more. A `null` value is the empty string.
#[derive(Clone, Debug, Default)]
pub struct LenientLabels(pub Option<Vec<(Str, Str)>>);

impl<'de> Deserialize<'de> for LenientLabels {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LenientLabels, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LenientLabels;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LenientLabels, E> {
                Ok(LenientLabels::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LenientLabels, A::Error> {
                let mut out = Some(Vec::new());
                while let Some(Key(k)) = map.next_key::<Key>()? {
                    let v = map.next_value::<Option<LenientStr>>()?;
                    match (v, &mut out) {
                        (None, Some(o)) => o.push((intern(&k), intern(""))),
                        (Some(LenientStr(Some(v))), Some(o)) => o.push((intern(&k), intern(&v))),
                        _ => out = None,
                    }
                }
                Ok(LenientLabels(out))
            }
            lenient_other_arms!(LenientLabels);
        }
        d.deserialize_any(V)
    }
}

lenient_map!(
    /// A Job spec: its Pod template.
    LenientJobSpec { "template" => template: LenientTemplate }
);

lenient_map!(
    /// A CronJob's `jobTemplate`.
    LenientJobTemplate { "spec" => spec: LenientJobSpec }
);

lenient_map!(
    /// A PersistentVolume's `claimRef`.
    LenientClaimRef {
        "namespace" => namespace: LenientStr,
        "name" => name: LenientStr,
        "uid" => uid: LenientStr,
    }
);

lenient_map!(
    /// A volume's `capacity` or a claim's `requests`: the `storage` quantity.
    LenientStorage { "storage" => storage: LenientStr }
);

lenient_map!(
    /// A PersistentVolumeClaim's `resources`.
    LenientResources { "requests" => requests: LenientStorage }
);

lenient_map!(
    /// A StatefulSet's `persistentVolumeClaimRetentionPolicy`.
    LenientRetention { "whenDeleted" => when_deleted: LenientStr }
);

lenient_map!(
    /// A subject of a RoleBinding or ClusterRoleBinding.
    LenientSubject {
        "kind" => kind: LenientStr,
        "namespace" => namespace: LenientStr,
        "name" => name: LenientStr,
    }
);

lenient_map!(
    /// A RoleBinding's or ClusterRoleBinding's `roleRef`.
    LenientRoleRef {
        "kind" => kind: LenientStr,
        "name" => name: LenientStr,
    }
);

lenient_map!(
    /// An item of a Flux Kustomization's or HelmRelease's `spec.dependsOn`.
    LenientDependency {
        "namespace" => namespace: LenientStr,
        "name" => name: LenientStr,
    }
);

lenient_map!(
    /// `resourceRef` of a Crossplane Usage's `of` or `by`.
    LenientResourceRef {
        "namespace" => namespace: LenientStr,
        "name" => name: LenientStr,
    }
);

lenient_map!(
    /// A Crossplane Usage's `of` or `by`.
    LenientUsageRef {
        "apiVersion" => api_version: LenientStr,
        "kind" => kind: LenientStr,
        "resourceRef" => resource_ref: LenientResourceRef,
    }
);

lenient_map!(
    /// A rule of a Role or ClusterRole: what it allows on which groups.
    LenientPolicyRule {
        "apiGroups" => api_groups: LenientList<LenientStr>,
        "resources" => resources: LenientList<LenientStr>,
        "verbs" => verbs: LenientList<LenientStr>,
    }
);

impl LenientUsageRef {
    fn side(self) -> super::tools::UsageSide {
        super::tools::UsageSide {
            api_version: self.api_version.0,
            kind: self.kind.0,
            namespace: self.resource_ref.namespace.0,
            name: self.resource_ref.name.0,
        }
    }
}

impl LenientPolicyRule {
    /// Does it allow changing an object's metadata (its finalizers):
    /// `update`, `patch` or `*` on some resource that is not a subresource
    /// (a status update leaves the finalizers as they are)?
    fn updates(&self) -> bool {
        let said =
            |l: &LenientList<LenientStr>, f: &dyn Fn(&str) -> bool| l.0.iter().any(|s| s.0.as_deref().is_some_and(f));
        said(&self.verbs, &|v| matches!(v, "update" | "patch" | "*")) && said(&self.resources, &|r| !r.contains('/'))
    }
}

/// A list of lenient items (anything but a list reads as none).
#[derive(Clone, Debug)]
pub struct LenientList<T>(pub Vec<T>);

impl<T> Default for LenientList<T> {
    fn default() -> Self {
        LenientList(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for LenientList<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LenientList<T>, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = LenientList<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LenientList<T>, E> {
                Ok(LenientList::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LenientList<T>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LenientList::default())
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<LenientList<T>, A::Error> {
                let mut out = Vec::new();
                while let Some(s) = seq.next_element::<T>()? {
                    out.push(s);
                }
                Ok(LenientList(out))
            }
            lenient_scalar_arms!(LenientList<T>);
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A binding's `subjects`: a list of subjects (anything else reads as none).
pub type LenientSubjects = LenientList<LenientSubject>;

impl<'de> Deserialize<'de> for LenientSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LenientSpec, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LenientSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LenientSpec, E> {
                Ok(LenientSpec::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LenientSpec, A::Error> {
                let mut spec = LenientSpec::default();
                while let Some(Key(k)) = map.next_key::<Key>()? {
                    match &*k {
                        "group" => spec.group = map.next_value::<LenientStr>()?.0,
                        "scope" => spec.scope = map.next_value::<LenientStr>()?.0,
                        "names" => {
                            let names = map.next_value::<LenientNames>()?;
                            (spec.names_kind, spec.names_plural) = (names.kind, names.plural);
                        }
                        "state" => spec.state = Said::from_text(map.next_value::<LenientStr>()?.0.as_deref()),
                        "serviceAccountName" => spec.pod.service_account_name = map.next_value()?,
                        "serviceAccount" => spec.pod.service_account = map.next_value()?,
                        "template" => spec.template = map.next_value()?,
                        "jobTemplate" => spec.job_template = map.next_value()?,
                        "volumeName" => spec.volume_name = map.next_value::<LenientStr>()?.0,
                        "claimRef" => spec.claim_ref = map.next_value()?,
                        "storageClassName" => spec.storage_class_name = map.next_value::<LenientStr>()?.0,
                        "dependsOn" => spec.depends_on = map.next_value()?,
                        "selector" => spec.selector = map.next_value()?,
                        "service" => spec.service = map.next_value()?,
                        "of" => spec.of = map.next_value()?,
                        "by" => spec.by = map.next_value()?,
                        "reason" => spec.reason = map.next_value::<LenientStr>()?.0,
                        "nodeName" => spec.node_name = map.next_value::<LenientStr>()?.0,
                        "persistentVolumeReclaimPolicy" => spec.reclaim_policy = map.next_value::<LenientStr>()?.0,
                        "versions" => spec.versions = map.next_value()?,
                        "version" => spec.version = map.next_value::<LenientStr>()?.0,
                        "capacity" => spec.capacity = map.next_value()?,
                        "resources" => spec.resources = map.next_value()?,
                        "persistentVolumeClaimRetentionPolicy" => spec.claim_retention = map.next_value()?,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(spec)
            }
            lenient_other_arms!(LenientSpec);
        }
        d.deserialize_any(V)
    }
}

/// `spec.names.kind` and `.plural` of a CRD.
#[derive(Default)]
struct LenientNames {
    kind: Option<Str>,
    plural: Option<Str>,
}

impl<'de> Deserialize<'de> for LenientNames {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LenientNames, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LenientNames;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LenientNames, E> {
                Ok(LenientNames::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LenientNames, A::Error> {
                let mut names = LenientNames::default();
                while let Some(Key(k)) = map.next_key::<Key>()? {
                    match &*k {
                        "kind" => names.kind = map.next_value::<LenientStr>()?.0,
                        "plural" => names.plural = map.next_value::<LenientStr>()?.0,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(names)
            }
            lenient_other_arms!(LenientNames);
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "an owner reference map")]
pub struct RawOwnerRef {
    /// Interned as read (as the reference keeps them).
    #[serde(default, rename = "apiVersion")]
    pub api_version: Option<Interned>,
    #[serde(default)]
    pub kind: Option<Interned>,
    /// The owner's name and uid, shared with the owner when this thread
    /// read it lately.
    #[serde(default)]
    pub name: Option<OwnerName>,
    #[serde(default)]
    pub uid: Option<OwnerUid>,
    #[serde(default)]
    pub controller: Option<bool>,
    #[serde(default, rename = "blockOwnerDeletion")]
    pub block_owner_deletion: Option<bool>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "a metadata map")]
pub struct RawMeta {
    #[serde(default)]
    pub name: Option<Text>,
    #[serde(default, rename = "generateName")]
    pub generate_name: Option<Text>,
    /// Interned as read (as the object keeps it).
    #[serde(default)]
    pub namespace: Option<Interned>,
    #[serde(default)]
    pub uid: Option<Text>,
    #[serde(default)]
    pub labels: Option<StrMap>,
    #[serde(default)]
    pub annotations: Option<KeptAnnotations>,
    #[serde(default, rename = "ownerReferences")]
    pub owner_references: Option<Vec<RawOwnerRef>>,
    #[serde(default)]
    pub finalizers: Option<Vec<Interned>>,
    #[serde(default, rename = "deletionTimestamp")]
    pub deletion_timestamp: Option<Text>,
    #[serde(default, rename = "resourceVersion")]
    pub resource_version: super::fields::Written,
}

/// One object: the fields every object-shaped dialect reads.
#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "an object")]
pub struct RawObject {
    #[serde(default, rename = "apiVersion")]
    pub api_version: Option<Text>,
    /// Interned as read (as the object keeps it).
    #[serde(default)]
    pub kind: Option<Interned>,
    #[serde(default)]
    pub metadata: Option<RawMeta>,
    /// Boxed: an object is moved several times while it is read, and a
    /// spec is most of its size (`None`: none written, or `null`).
    #[serde(default)]
    pub spec: Option<Box<LenientSpec>>,
    /// A binding's subjects (the default rules read its ServiceAccounts).
    #[serde(default)]
    pub subjects: LenientSubjects,
    /// A binding's `roleRef` (the Role or ClusterRole it grants).
    #[serde(default, rename = "roleRef")]
    pub role_ref: LenientRoleRef,
    /// A webhook configuration's webhooks (the Services they call).
    #[serde(default)]
    pub webhooks: LenientList<LenientWebhook>,
    /// A Role's or ClusterRole's `rules` (what it allows: TD011's candidates).
    #[serde(default)]
    pub rules: LenientList<LenientPolicyRule>,
    /// A Secret's `type` (what made it: a ServiceAccount token is the
    /// token controller's).
    #[serde(default, rename = "type")]
    pub secret_type: LenientStr,
}

/// What a `List` tells its items: typed lists (`PodList`) may leave out the
/// items' own `kind` and `apiVersion`.
#[derive(Clone, Copy, Default)]
pub struct ListContext<'a> {
    /// The object is an item of a list.
    pub in_list: bool,
    pub api_version: Option<&'a str>,
    /// The item kind implied by the list kind (`PodList` → `Pod`).
    pub item_kind: Option<&'a str>,
}

impl<'a> ListContext<'a> {
    pub fn new(api_version: Option<&'a str>, list_kind: Option<&'a str>) -> ListContext<'a> {
        let item_kind = list_kind.and_then(|k| k.strip_suffix("List")).filter(|k| !k.is_empty());
        ListContext { in_list: true, api_version, item_kind }
    }
}

/// TD001 for an object whose kind, name or namespace the API server would
/// refuse (`model::naming`): it is no object of a cluster, and a plan
/// could not name it.
fn refused_name(
    group: &str,
    kind: &str,
    name: &str,
    namespace: Option<&str>,
    span: Span,
    text: &str,
    head: Span,
) -> Option<Finding> {
    let refused = if let Some(why) = naming::kind_problem(kind) {
        Refused { what: "kind", value: kind, why, path: &["kind"] }
    } else if let Some(why) = naming::name_problem(group, kind, name) {
        Refused { what: "name", value: name, why, path: &["metadata", "name"] }
    } else {
        let ns = namespace?;
        let why = naming::namespace_problem(ns)?;
        Refused { what: "namespace", value: ns, why, path: &["metadata", "namespace"] }
    };
    Some(refused_finding(kind, refused, span, text, head))
}

/// What [`refused_name`] found: which field, its value, why the API server
/// refuses it, and where it is written.
struct Refused<'a> {
    what: &'static str,
    value: &'a str,
    why: String,
    path: &'static [&'static str],
}

/// [`refused_name`]'s finding, out of line (rare).
#[cold]
#[inline(never)]
fn refused_finding(kind: &str, refused: Refused, span: Span, text: &str, head: Span) -> Finding {
    let Refused { what, value, why, path } = refused;
    let (place, this) = match locate::value_after(text, span.range(), path, value) {
        Some(range) => (Span::new(span.file, range), "this"),
        None => (head, "the object of this"),
    };
    let help = match why.starts_with("holds") {
        true => "teardown reads no object whose name, namespace or kind holds such a character: no command or table could name it as it is",
        false => "the API server refuses such an object, so no cluster holds it: fix the input (teardown plans only objects a cluster can have)",
    };
    let kind = if what == "kind" { "object".into() } else { crate::escape::escape(kind) };
    Finding::new(Rule::Td001, format!("{kind} {what} `{}` {why}", quoted(value)))
        .at(place, format!("{this} {what}"))
        .help(help)
}

/// Turn one parsed object into a model object, in phases: who it is
/// ([`identify`]), whether it is an object of the cluster at all (kpt's
/// local configuration), its owners ([`owner_refs`]), what it depends on
/// ([`dependencies`]), other tools' metadata (`dialect::tools`), what the
/// default rules read ([`facts`]) and, for a CRD, what it defines
/// ([`crd_def`]). Problems are reported as TD001 findings; an object
/// without a kind or a name is dropped (it cannot be identified), any
/// other problem keeps the object.
pub fn convert(
    mut raw: RawObject,
    span: Span,
    text: &str,
    list: ListContext,
    out: &mut Vec<Finding>,
) -> Option<Object> {
    let head = Span::new(span.file, locate::head(text, span.range()));
    let at = Where { span, text, head };
    let meta = raw.metadata.take().unwrap_or_default();
    let mut spec = raw.spec.take().map(|s| *s).unwrap_or_default();
    let written = (raw.kind.take(), raw.api_version.take());
    let Named { kind, api_version, group, name, namespace } = identify(written, &spec, &meta, list, at, out)?;
    let annotations = meta.annotations.unwrap_or_default();
    // As kpt's `IsLocalConfig`: `Annotations[LocalConfigAnnotation] == "true"`.
    if annotations.get(LOCAL_CONFIG) == Some("true") {
        out.push(local_configuration(&kind, &group, namespace.as_deref(), &name, head));
        return None;
    }
    // For messages only: made when one is needed.
    let reference = || format!("{kind}/{name}");
    let owners = owner_refs(meta.owner_references.unwrap_or_default(), &reference, at, out);
    let mut deps = match annotations.get(DEPENDS_ON) {
        Some(value) => depends_on(value, &reference, at, out),
        None => Vec::new(),
    };
    let labels: Box<[(Str, Str)]> = meta.labels.map(|l| l.0).unwrap_or_default().into();
    let subject = super::tools::Subject {
        group: &group,
        kind: &kind,
        namespace: namespace.as_deref(),
        name: &name,
        crd: spec.group.as_deref().zip(spec.names_kind.as_deref()),
        labels: &labels,
    };
    let tools = super::tools::read(&subject, &annotations.0, span, text, out);
    if let Some(t) = tools.as_ref().filter(|t| !t.mutation_sources.is_empty()) {
        mutation_dependencies(t, &mut deps);
    }
    let mut facts = facts(
        &group,
        &kind,
        namespace.as_ref(),
        &mut spec,
        Wire {
            subjects: &mut raw.subjects,
            role_ref: &mut raw.role_ref,
            webhooks: &mut raw.webhooks,
            rules: &mut raw.rules,
            secret_type: &mut raw.secret_type,
        },
        tools,
    );
    // Written at a version Kubernetes no longer serves: kept, as evidence
    // that the cluster it was read from served it. (Every removed version
    // is an alpha or a beta: the table is asked only for those.)
    let pre_release = |v: &str| {
        let stem = v.trim_end_matches(|c: char| c.is_ascii_digit());
        stem.ends_with("beta") || stem.ends_with("alpha")
    };
    if pre_release(&api_version) {
        unserved_api_version(&api_version, &kind, &mut facts);
    }
    let crd = match &*kind == "CustomResourceDefinition" && &*group == "apiextensions.k8s.io" {
        true => crd_def(&mut spec),
        false => None,
    };
    let uid = meta.uid.map(|u| u.0).filter(|u| !u.is_empty());
    crate::model::refs::remember_object(uid.as_ref(), &name);
    Some(Object {
        facts,
        origin: &ORIGIN,
        group,
        kind,
        namespace_written: namespace.is_some(),
        scope_known: false,
        versioned: meta.resource_version.0,
        namespace,
        name,
        uid,
        labels,
        owners: owners.into(),
        deps: deps.into(),
        finalizers: meta.finalizers.unwrap_or_default().into_iter().map(|f| f.0).collect(),
        deletion_timestamp: meta.deletion_timestamp.map(|d| d.0).filter(|d| !d.is_empty()),
        crd,
        member: None,
        tracking: None,
        desired_state: spec.state,
        span,
    })
}

/// TD018 for kpt's local configuration (rare: out of line).
#[cold]
#[inline(never)]
fn local_configuration(kind: &str, group: &str, namespace: Option<&str>, name: &str, head: Span) -> Finding {
    let group = if group.is_empty() { String::new() } else { format!(".{group}") };
    let ns = namespace.map(|n| format!("{n}/")).unwrap_or_default();
    Finding::new(Rule::Td018, format!("{kind}{group}/{ns}{name} is local configuration ({LOCAL_CONFIG}: \"true\"): not read"))
        .at(head, "not an object of the cluster")
        .help("kpt and kustomize never apply a document so annotated (a function's config, setters); teardown leaves it out of the snapshot")
}

/// cli-utils' apply-time-mutation: a dependency on each source, resolved
/// and reported (TD010) as depends-on is. (Out of line: few objects have one.)
#[inline(never)]
fn mutation_dependencies(tools: &crate::model::kube::Tools, deps: &mut Vec<DepDecl>) {
    for target in tools.mutation_sources.iter() {
        let text = match target {
            DepTarget::Object { group, kind, namespace: Some(ns), name } => {
                format!("{group}/namespaces/{ns}/{kind}/{name}")
            }
            DepTarget::Object { group, kind, namespace: None, name } => format!("{group}/{kind}/{name}"),
            DepTarget::Id(id) => id.to_string(),
        };
        deps.push(DepDecl { target: target.clone(), kind: DepKind::ApplyTimeMutation, text: text.into() });
    }
}

/// An object written at a pre-release version: kept as evidence, in its
/// facts, when Kubernetes no longer serves it (out of line).
#[inline(never)]
fn unserved_api_version(api_version: &str, kind: &str, facts: &mut Option<Box<Facts>>) {
    if matches!(crate::model::served::builtin(api_version, kind), crate::model::served::Builtin::Removed(_)) {
        facts.get_or_insert_with(Default::default).set_unserved_api_version(intern(api_version));
    }
}

/// Who an object is: its kind, apiVersion, group, name and namespace.
struct Named {
    kind: Str,
    api_version: Str,
    group: Str,
    name: Str,
    namespace: Option<Str>,
}

/// Where an object is written, for findings about it: its span, the file's
/// text, and the object's first line.
#[derive(Clone, Copy)]
struct Where<'t> {
    span: Span,
    text: &'t str,
    head: Span,
}

/// Who the object is, or `None` (with a finding) when it cannot be named:
/// no kind (none implied by a typed list, no CRD's shape), no name, or a
/// kind, name or namespace the API server would refuse.
fn identify(
    (kind, api_version): (Option<Interned>, Option<Text>),
    spec: &LenientSpec,
    meta: &RawMeta,
    list: ListContext,
    w: Where,
    out: &mut Vec<Finding>,
) -> Option<Named> {
    let Where { span, text, head } = w;
    let crd_shape = crd_by_shape(spec, meta);
    let kind: Str = match (kind, list.item_kind) {
        (Some(k), _) if !k.0.is_empty() => k.0,
        (_, Some(k)) => intern(k),
        _ if crd_shape.is_some() => {
            out.push(kind_by_crd_shape(head));
            intern("CustomResourceDefinition")
        }
        _ => {
            out.push(no_kind(list.in_list, head));
            return None;
        }
    };
    let api_version: Str = match (api_version, list.api_version) {
        (Some(v), _) if !v.0.is_empty() => v.0,
        (_, Some(v)) => v.into(),
        _ if crd_shape.is_some() && &*kind == "CustomResourceDefinition" => "apiextensions.k8s.io/v1".into(),
        _ => {
            out.push(no_api_version(&kind, head));
            "".into()
        }
    };
    let name: Str = match &meta.name {
        Some(n) if !n.0.is_empty() => n.0.clone(),
        _ => {
            out.push(no_name(&kind, meta.generate_name.is_some(), head));
            return None;
        }
    };
    let group = group_of(&api_version, &kind);
    let namespace: Option<Str> = meta.namespace.as_ref().map(|n| &n.0).filter(|n| !n.is_empty()).cloned();
    if let Some(finding) = refused_name(&group, &kind, &name, namespace.as_deref(), span, text, head) {
        out.push(finding);
        return None;
    }
    Some(Named { kind, api_version, group, name, namespace })
}

/// TD014: an object without a kind read as a CRD by its shape.
#[cold]
#[inline(never)]
fn kind_by_crd_shape(head: Span) -> Finding {
    Finding::new(Rule::Td014, "read as a CustomResourceDefinition: it names no kind, but has a CRD's shape")
        .at(head, "this object")
        .help("its spec has a group, names.kind and names.plural, and its name is <plural>.<group>, as a CRD's must be; a dump that leaves out the kind (a support bundle's `custom-resource-definitions.json`) reads this way")
}

/// TD001: no kind, none implied.
#[cold]
#[inline(never)]
fn no_kind(in_list: bool, head: Span) -> Finding {
    let help = if in_list {
        "the list has no kind either, so the items' kind cannot be implied; \
         a typed list needs `kind: <Kind>List`"
    } else {
        "every object needs `apiVersion`, `kind` and `metadata.name`"
    };
    Finding::new(Rule::Td001, "object has no `kind`").at(head, "this object").help(help)
}

/// TD001: no apiVersion, none implied.
#[cold]
#[inline(never)]
fn no_api_version(kind: &str, head: Span) -> Finding {
    Finding::new(Rule::Td001, format!("{kind} has no `apiVersion`"))
        .at(head, "this object")
        .help("every object needs `apiVersion`, `kind` and `metadata.name`")
}

/// TD001: no name.
#[cold]
#[inline(never)]
fn no_name(kind: &str, generated: bool, head: Span) -> Finding {
    let help = if generated {
        "`generateName` objects get their name from the API server; a snapshot needs the name"
    } else {
        "every object needs `apiVersion`, `kind` and `metadata.name`"
    };
    Finding::new(Rule::Td001, format!("{kind} has no `metadata.name`")).at(head, "this object").help(help)
}

/// The owner references, as written; one without a kind or a name is a
/// TD001 (and left out), one without a uid a TD001 (and kept: resolved by
/// kind and name).
fn owner_refs(
    written: Vec<RawOwnerRef>,
    reference: &dyn Fn() -> String,
    w: Where,
    out: &mut Vec<Finding>,
) -> Vec<OwnerRef> {
    let mut owners = Vec::with_capacity(written.len());
    let mut anchors = Anchors { w, list: OnceCell::new(), from: None, misses: 0 };
    for (i, r) in written.into_iter().enumerate() {
        let (Some(okind), Some(oname)) = (r.kind.filter(|s| !s.0.is_empty()), r.name.filter(|s| !s.0.is_empty()))
        else {
            out.push(anchors.no_kind_or_name(i, reference, r.uid.as_ref().map(|u| &*u.0)));
            continue;
        };
        let uid = r.uid.map(|u| u.0).filter(|u| !u.is_empty());
        if uid.is_none() {
            out.push(anchors.no_uid(i, reference, &okind.0, &oname.0));
        }
        let owner_api = r.api_version.as_ref().map(|v| &*v.0).unwrap_or("");
        owners.push(OwnerRef {
            group: group_of(owner_api, &okind.0),
            api_version: r.api_version.map_or_else(|| intern(""), |v| v.0),
            kind: okind.0,
            name: oname.0,
            uid,
            controller: r.controller.unwrap_or(false),
            block_owner_deletion: r.block_owner_deletion.unwrap_or(false),
            namespace: None,
        });
    }
    owners
}

/// Where an object's owner references are written, for findings about
/// them; each is looked for after the one found before it (one pass over
/// an object with 200,000 of them). (After `anchor::MISSES` searches that
/// found nothing, no more.) Used only on the error paths, out of line.
struct Anchors<'t> {
    w: Where<'t>,
    list: OnceCell<Option<std::ops::Range<usize>>>,
    from: Option<usize>,
    misses: usize,
}

impl Anchors<'_> {
    fn at(&mut self, needle: Option<&str>) -> Span {
        let Where { span, text, head } = self.w;
        let list = self.list.get_or_init(|| locate::key_after(text, span.range(), "ownerReferences"));
        let start = self.from.or(list.as_ref().map(|l| l.end)).filter(|_| self.misses < anchor::MISSES);
        let found = needle.zip(start).and_then(|(n, start)| locate::scalar_after(text, start..span.end, n));
        match &found {
            Some(f) => self.from = Some(f.end),
            None => self.misses += 1,
        }
        Span::new(span.file, found.or_else(|| list.clone()).unwrap_or(head.range()))
    }

    /// TD001: owner reference `i` names no kind or no name.
    #[cold]
    #[inline(never)]
    fn no_kind_or_name(&mut self, i: usize, reference: &dyn Fn() -> String, uid: Option<&str>) -> Finding {
        Finding::new(Rule::Td001, format!("owner reference #{} of {} has no `kind` or no `name`", i + 1, reference()))
            .at(self.at(uid), "this owner reference")
            .refs([reference()])
    }

    /// TD001: owner reference `i` has no uid (kept: resolved by kind and name).
    #[cold]
    #[inline(never)]
    fn no_uid(&mut self, i: usize, reference: &dyn Fn() -> String, kind: &str, name: &str) -> Finding {
        Finding::new(Rule::Td001, format!("owner reference #{} of {} ({kind}/{name}) has no `uid`", i + 1, reference()))
            .at(self.at(Some(name)), "no uid here")
            .refs([reference()])
            .help("the API server rejects owner references without a uid; teardown resolves this one by kind and name")
    }
}

/// What the object declares it depends on in cli-utils' `depends-on`
/// annotation; each reference that cannot be read is a TD001.
#[inline(never)]
fn depends_on(value: &str, reference: &dyn Fn() -> String, w: Where, out: &mut Vec<Finding>) -> Vec<DepDecl> {
    let Where { span, text, head } = w;
    let mut deps = Vec::new();
    for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match parse_depends_on(item) {
            Some(target) => deps.push(DepDecl { target, kind: DepKind::DependsOn, text: item.into() }),
            None => {
                let range = locate::scalar_after(text, span.range(), item)
                    .or_else(|| locate::key_after(text, span.range(), DEPENDS_ON))
                    .unwrap_or(head.range());
                out.push(
                    Finding::new(
                        Rule::Td001,
                        format!("{}: `{item}` is not a depends-on reference", reference()),
                    )
                    .at(Span::new(span.file, range), "not GROUP/KIND/NAME or GROUP/namespaces/NAMESPACE/KIND/NAME")
                    .refs([reference()])
                    .help("write `group/kind/name` for cluster-scoped objects and `group/namespaces/namespace/kind/name` for namespaced ones (the core group is empty: `/namespaces/default/Secret/db`)"),
                );
            }
        }
    }
    deps
}

/// What a CustomResourceDefinition defines: group, kind, scope and the
/// versions it serves (`versions`, else v1beta1's single `version`).
#[inline(never)]
fn crd_def(spec: &mut LenientSpec) -> Option<Box<CrdDef>> {
    let (Some(g), Some(k)) = (spec.group.take(), spec.names_kind.take()) else { return None };
    let versions: Box<[(Str, bool)]> = match (spec.versions.0.is_empty(), spec.version.take()) {
        (true, Some(v)) => Box::new([(intern(&v), true)]),
        _ => std::mem::take(&mut spec.versions)
            .0
            .into_iter()
            .filter_map(|v| Some((intern(&v.name.0?), v.served.0.unwrap_or(true))))
            .collect(),
    };
    let namespaced = spec.scope.as_deref() != Some("Cluster");
    Some(Box::new(CrdDef { group: g, kind: k, namespaced, versions }))
}

/// The top-level fields (beside `spec`) the default rules read.
struct Wire<'a> {
    subjects: &'a mut LenientSubjects,
    role_ref: &'a mut LenientRoleRef,
    webhooks: &'a mut LenientList<LenientWebhook>,
    rules: &'a mut LenientList<LenientPolicyRule>,
    secret_type: &'a mut LenientStr,
}

/// What the default ordering rules read of an object of a kind they look
/// at, and other tools' metadata; `None` for other kinds without tools'
/// metadata (nothing is built for them), or when nothing is written.
fn facts(
    group: &str,
    kind: &str,
    namespace: Option<&Str>,
    spec: &mut LenientSpec,
    wire: Wire,
    mut tools: Option<crate::model::kube::Tools>,
) -> Option<Box<Facts>> {
    use crate::model::kube::{calls_services, is_binding, is_role, is_usage, pod_spec_at, FLUX_DEPENDENT_KINDS};
    let Wire { subjects, role_ref, webhooks, rules, secret_type } = wire;
    let mut f = if let Some(at) = pod_spec_at(group, kind) {
        pod_facts(group, kind, at, spec)
    } else if group.is_empty() && kind == "Service" {
        Facts::service(std::mem::take(&mut spec.selector).0.unwrap_or_default().into())
    } else if calls_services(group, kind) {
        Facts::calling(service_calls(kind, spec, webhooks))
    } else if group.is_empty() && kind == "PersistentVolumeClaim" {
        claim_facts(spec)
    } else if group.is_empty() && kind == "PersistentVolume" {
        volume_facts(spec)
    } else if group.is_empty() && kind == "Secret" {
        Facts::secret(std::mem::take(secret_type).0.filter(|s| !s.is_empty()).map(|s| intern(&s)))
    } else if is_binding(group, kind) {
        binding_facts(kind, namespace, role_ref, subjects)
    } else if is_role(group, kind) {
        role_facts(rules)
    } else {
        if FLUX_DEPENDENT_KINDS.contains(&(group, kind)) {
            tools.get_or_insert_with(Default::default).flux_depends_on = flux_depends_on(namespace, spec);
        }
        if tools.is_none() && !is_usage(group, kind) {
            return None;
        }
        Facts::default()
    };
    if is_usage(group, kind) {
        let (of, by) = (std::mem::take(&mut spec.of), std::mem::take(&mut spec.by));
        tools.get_or_insert_with(Default::default).usage =
            super::tools::usage(kind, namespace, of.side(), by.side(), spec.reason.take());
    }
    f.set_tools(tools);
    (!f.is_empty()).then(|| Box::new(f))
}

/// A PersistentVolumeClaim's volume, class and requested capacity.
#[inline(never)]
fn claim_facts(spec: &mut LenientSpec) -> Facts {
    Facts::storage(Storage {
        volume_name: spec.volume_name.take().filter(|s| !s.is_empty()),
        storage_class: spec.storage_class_name.take().filter(|s| !s.is_empty()).map(|s| intern(&s)),
        capacity: std::mem::take(&mut spec.resources).requests.storage.0.filter(|s| !s.is_empty()),
        ..Storage::default()
    })
}

/// A Role's or ClusterRole's API groups it may update, each once, sorted.
#[inline(never)]
fn role_facts(rules: &mut LenientList<LenientPolicyRule>) -> Facts {
    let mut groups: Vec<Str> = std::mem::take(rules)
        .0
        .into_iter()
        .filter(LenientPolicyRule::updates)
        .flat_map(|r| r.api_groups.0.into_iter().filter_map(|g| g.0))
        .map(|g| intern(&g))
        .collect();
    groups.sort_unstable();
    groups.dedup();
    Facts::role(groups.into())
}

/// A Pod's, or a Pod template's: the ServiceAccount it runs as, the
/// template's labels; a Pod's node; whether a StatefulSet's claims go
/// with it.
#[inline(never)]
fn pod_facts(group: &str, kind: &str, at: crate::model::kube::PodSpecAt, spec: &mut LenientSpec) -> Facts {
    use crate::model::kube::{PodSpecAt, Template};
    let template = match at {
        PodSpecAt::Pod => {
            let account = std::mem::take(&mut spec.pod).account().map(|s| intern(&s));
            return Facts::pod(account, spec.node_name.take().filter(|s| !s.is_empty()).map(|s| intern(&s)));
        }
        PodSpecAt::Template => std::mem::take(&mut spec.template),
        PodSpecAt::JobTemplate => std::mem::take(&mut spec.job_template.spec.template),
    };
    let claims_deleted_with_set = group == "apps"
        && kind == "StatefulSet"
        && std::mem::take(&mut spec.claim_retention).when_deleted.0.as_deref() == Some("Delete");
    Facts::template(Template {
        template_labels: template.metadata.labels.0.unwrap_or_default().into(),
        service_account: template.spec.account().map(|s| intern(&s)),
        claims_deleted_with_set,
    })
}

/// The Services a webhook configuration's webhooks or an APIService call,
/// each once, in written order; a Service fails closed when one call of
/// it does.
#[inline(never)]
fn service_calls(kind: &str, spec: &mut LenientSpec, webhooks: &mut LenientList<LenientWebhook>) -> Box<[ServiceCall]> {
    let mut calls: Vec<ServiceCall> = Vec::new();
    let mut call = |service: LenientServiceRef, fails_closed: bool| {
        let (Some(ns), Some(name)) = (service.namespace.0, service.name.0) else { return };
        if ns.is_empty() || name.is_empty() {
            return;
        }
        match calls.iter_mut().find(|c| *c.namespace == *ns && *c.name == *name) {
            Some(c) => c.fails_closed |= fails_closed,
            None => calls.push(ServiceCall { namespace: intern(&ns), name, fails_closed }),
        }
    };
    if kind == "APIService" {
        call(std::mem::take(&mut spec.service), true);
    } else {
        for w in std::mem::take(webhooks).0 {
            // Not written: `Fail`, admissionregistration.k8s.io/v1's default.
            let fails_closed = w.failure_policy.0.as_deref() != Some("Ignore");
            call(w.client_config.service, fails_closed);
        }
    }
    calls.into()
}

/// A PersistentVolume's claim, reclaim policy, class and capacity.
#[inline(never)]
fn volume_facts(spec: &mut LenientSpec) -> Facts {
    let claim = std::mem::take(&mut spec.claim_ref);
    let claim_ref = match (claim.namespace.0, claim.name.0) {
        (Some(ns), Some(name)) if !ns.is_empty() && !name.is_empty() => Some((intern(&ns), name)),
        _ => None,
    };
    Facts::storage(Storage {
        claim_uid: claim.uid.0.filter(|u| !u.is_empty() && claim_ref.is_some()),
        claim_ref,
        reclaim_policy: spec.reclaim_policy.take().map(|s| intern(&s)),
        storage_class: spec.storage_class_name.take().filter(|s| !s.is_empty()).map(|s| intern(&s)),
        capacity: std::mem::take(&mut spec.capacity).storage.0.filter(|s| !s.is_empty()),
        ..Storage::default()
    })
}

/// A RoleBinding's or ClusterRoleBinding's role and ServiceAccount subjects.
#[inline(never)]
fn binding_facts(
    kind: &str,
    namespace: Option<&Str>,
    role_ref: &mut LenientRoleRef,
    subjects: &mut LenientSubjects,
) -> Facts {
    let role = std::mem::take(role_ref);
    let role_ref = match (role.kind.0, role.name.0) {
        (Some(k), Some(n)) if !k.is_empty() && !n.is_empty() => Some((intern(&k), n)),
        _ => None,
    };
    let subjects = std::mem::take(subjects)
        .0
        .into_iter()
        .filter(|s| s.kind.0.as_deref() == Some("ServiceAccount"))
        .filter_map(|s| {
            let name = s.name.0.filter(|n| !n.is_empty())?;
            // A RoleBinding's ServiceAccount is in its own namespace unless
            // it says otherwise (`default` when none is written).
            let own = || match kind {
                "RoleBinding" => Some(namespace.cloned().unwrap_or_else(|| intern("default"))),
                _ => None,
            };
            let ns = s.namespace.0.filter(|n| !n.is_empty()).or_else(own)?;
            Some((intern(&ns), name))
        })
        .collect();
    Facts::binding(Binding { role_ref, subjects })
}

/// A Flux Kustomization's or HelmRelease's `dependsOn`: an item without a
/// namespace names one in the object's own.
#[inline(never)]
fn flux_depends_on(namespace: Option<&Str>, spec: &mut LenientSpec) -> Box<[(Str, Str)]> {
    let own = namespace.cloned().unwrap_or_else(|| intern("default"));
    std::mem::take(&mut spec.depends_on)
        .0
        .into_iter()
        .filter_map(|d| {
            let name = d.name.0.filter(|n| !n.is_empty())?;
            let ns = d.namespace.0.filter(|n| !n.is_empty()).map(|n| intern(&n));
            Some((ns.unwrap_or_else(|| own.clone()), name))
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::string_slice, reason = "tests slice their own fixtures at the spans the code under test found")]
mod tests {
    use super::*;

    #[test]
    fn spec_is_lenient() {
        let o: RawObject = serde_yaml::from_str("kind: X\nspec:\n  group: [1]\n  names: 3\n  scope: Cluster").unwrap();
        let spec = o.spec.unwrap();
        assert_eq!(spec.group, None);
        assert_eq!(spec.scope.as_deref(), Some("Cluster"));
        let o: RawObject = serde_json::from_str(r#"{"spec": "text"}"#).unwrap();
        assert!(o.spec.unwrap().group.is_none());
    }

    #[test]
    fn only_kept_annotations_are_kept() {
        let m: RawMeta =
            serde_yaml::from_str("annotations:\n  a: b\n  config.kubernetes.io/depends-on: /namespaces/x/Secret/y\n")
                .unwrap();
        let a = m.annotations.unwrap();
        assert_eq!(a.0.len(), 1);
        assert_eq!(a.get(DEPENDS_ON), Some("/namespaces/x/Secret/y"));
    }

    /// One object read from `text`, which reads without a finding.
    fn read(text: &str) -> Object {
        let raw: RawObject = serde_yaml::from_str(text).unwrap();
        let span = Span::new(crate::span::FileId(0), 0..text.len());
        let mut findings = Vec::new();
        let o = convert(raw, span, text, ListContext::default(), &mut findings).unwrap();
        assert!(findings.is_empty(), "{findings:?}");
        o
    }

    #[test]
    fn what_the_collector_resolves_owner_references_by_is_read() {
        // A CRD's versions, each with whether it is served (lenient: a
        // `served` that is no boolean counts as served).
        let o = read("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: ws.ex.com}\nspec:\n  group: ex.com\n  names: {kind: W, plural: ws}\n  versions:\n  - {name: v1, served: true}\n  - {name: v1beta1, served: false}\n  - {name: v1alpha1, served: 'no'}\n  - {served: true}\n");
        let versions: Vec<(&str, bool)> = o.crd.as_deref().unwrap().versions.iter().map(|(v, s)| (&**v, *s)).collect();
        assert_eq!(versions, [("v1", true), ("v1beta1", false), ("v1alpha1", true)]);
        // apiextensions.k8s.io/v1beta1's single `version`.
        let o = read("apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata: {name: ws.ex.com}\nspec:\n  group: ex.com\n  version: v2\n  names: {kind: W, plural: ws}\n");
        assert_eq!(o.crd.as_deref().unwrap().versions.to_vec(), [(Str::from("v2"), true)]);
        // An owner reference keeps its apiVersion as written; an object
        // written at a version Kubernetes no longer serves keeps it too.
        let o = read("apiVersion: extensions/v1beta1\nkind: ReplicaSet\nmetadata:\n  name: r\n  namespace: a\n  ownerReferences: [{apiVersion: extensions/v1beta1, kind: Deployment, name: d, uid: u}]\n");
        assert_eq!((&*o.owners[0].api_version, &*o.owners[0].group), ("extensions/v1beta1", "apps"));
        assert_eq!(o.facts.as_deref().and_then(|f| f.unserved_api_version().as_deref()), Some("extensions/v1beta1"));
        let o = read("apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r, namespace: a}\n");
        assert!(o.facts.is_none());
    }

    #[test]
    fn crossplane_usages_and_mutations_are_read() {
        // A namespaced Usage: `by` in its namespace, `of` where it says.
        let o = read("apiVersion: protection.crossplane.io/v1beta1\nkind: Usage\nmetadata: {name: u, namespace: team}\nspec:\n  of: {apiVersion: s3.aws.m.upbound.io/v1beta1, kind: Bucket, resourceRef: {name: logs, namespace: infra}}\n  by: {apiVersion: v1, kind: Pod, resourceRef: {name: p, namespace: elsewhere}}\n  reason: audit logs\n");
        let u = o.tools().and_then(|t| t.usage.as_deref()).unwrap();
        let of = u.of.as_ref().unwrap();
        assert_eq!(
            (&*of.group, &*of.kind, of.namespace.as_deref(), of.name.as_deref()),
            ("s3.aws.m.upbound.io", "Bucket", Some("infra"), Some("logs"))
        );
        let by = u.by.as_ref().unwrap();
        assert_eq!(
            (&*by.group, &*by.kind, by.namespace.as_deref(), by.name.as_deref()),
            ("", "Pod", Some("team"), Some("p"))
        );
        assert_eq!(u.reason.as_deref(), Some("audit logs"));
        // A ClusterUsage names cluster-scoped objects; a selector names none.
        let o = read("apiVersion: protection.crossplane.io/v1beta1\nkind: ClusterUsage\nmetadata: {name: u}\nspec:\n  of: {apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, resourceSelector: {matchLabels: {a: b}}}\n  reason: keep\n");
        let of = o.tools().and_then(|t| t.usage.as_deref()).and_then(|u| u.of.as_ref()).unwrap();
        assert_eq!((of.namespace.as_deref(), of.name.as_deref()), (None, None));
        // `of` and `by` of other kinds are not read.
        let o = read("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  of: {kind: X, resourceRef: {name: y}}\n  by: [1, 2]\n");
        assert!(o.facts.is_none());
        // apply-time-mutation sources are dependencies of their own kind.
        let o = read("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: a\n  annotations:\n    config.kubernetes.io/apply-time-mutation: |\n      - sourceRef: {kind: Secret, name: s, namespace: a}\n        sourcePath: $.data.x\n        targetPath: $.data.y\n");
        assert_eq!(o.deps.len(), 1);
        assert_eq!((o.deps[0].kind, &*o.deps[0].text), (DepKind::ApplyTimeMutation, "/namespaces/a/Secret/s"));
    }

    #[test]
    fn tool_metadata_is_kept_in_facts() {
        let text = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\n  labels:\n    app.kubernetes.io/instance: shop\n  annotations:\n    a: b\n    argocd.argoproj.io/sync-wave: '-2'\n    kapp.k14s.io/change-group.db: x/{name}\n    kapp.k14s.io/change-rule: delete before deleting y\n    helm.sh/resource-policy: keep\n    config.kubernetes.io/depends-on: /namespaces/x/Secret/y\nspec:\n  dependsOn:\n  - name: infra\n  - name: crds\n    namespace: other\n  - namespace: nameless\n";
        let raw: RawObject = serde_yaml::from_str(text).unwrap();
        let span = Span::new(crate::span::FileId(0), 0..text.len());
        let mut findings = Vec::new();
        let o = convert(raw, span, text, ListContext::default(), &mut findings).unwrap();
        assert!(findings.is_empty(), "{findings:?}");
        let t = o.tools().unwrap();
        assert_eq!(t.sync_wave, Some(-2));
        assert_eq!(t.argocd_app.as_deref(), Some("shop"));
        assert_eq!(t.kapp_groups.iter().map(|g| &**g).collect::<Vec<_>>(), ["x/apps"]);
        assert_eq!(t.kapp_rules.len(), 1);
        assert!(t.helm_keep);
        assert_eq!(o.deps.len(), 1, "depends-on is still a dependency");
        let deps: Vec<(&str, &str)> = t.flux_depends_on.iter().map(|(n, m)| (&**n, &**m)).collect();
        assert_eq!(deps, [("flux-system", "infra"), ("other", "crds")]);

        // A value a tool would misread is a TD001 at its line; the object stays.
        let text = "kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: c\n  annotations:\n    argocd.argoproj.io/sync-wave: soon\n";
        let raw: RawObject = serde_yaml::from_str(text).unwrap();
        let span = Span::new(crate::span::FileId(0), 0..text.len());
        let mut findings = Vec::new();
        let o = convert(raw, span, text, ListContext::default(), &mut findings).unwrap();
        assert!(o.facts.is_none());
        assert_eq!(findings.len(), 1);
        let at = findings[0].primary.as_ref().unwrap().span;
        assert_eq!(&text[at.start..at.end], "soon");

        let text = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gk-role}\nsubjects: []\n";
        let raw: RawObject = serde_yaml::from_str(text).unwrap();
        let span = Span::new(crate::span::FileId(0), 0..text.len());
        let o = convert(raw, span, text, ListContext::default(), &mut Vec::new()).unwrap();
        let role = o.facts.unwrap().role_ref().clone().unwrap();
        assert_eq!((&*role.0, &*role.1), ("ClusterRole", "gk-role"));
        // A roleRef of the wrong shape reads as none.
        let raw: RawObject = serde_yaml::from_str("kind: RoleBinding\nroleRef: [1]\ndependsOn: 3\n").unwrap();
        assert!(raw.role_ref.name.0.is_none());
    }

    /// An object read by the YAML fast path (which must answer) and by
    /// serde_yaml: the same facts.
    fn facts_of(text: &str) -> Option<Box<Facts>> {
        let read = |raw: RawObject| {
            let span = Span::new(crate::span::FileId(0), 0..text.len());
            convert(raw, span, text, ListContext::default(), &mut Vec::new()).and_then(|o| o.facts)
        };
        let fast = crate::input::fast::Doc::document(text).expect("fast path").parse::<RawObject>().expect("fast path");
        let slow = read(serde_yaml::from_str(text).unwrap());
        assert_eq!(read(fast), slow, "{text}");
        slow
    }

    #[test]
    fn services_called_selectors_and_template_labels_are_kept_in_facts() {
        let f = facts_of(
            "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: gk\nwebhooks:\n- name: a\n  failurePolicy: Ignore\n  clientConfig:\n    service: {namespace: gk, name: svc}\n- name: b\n  clientConfig:\n    service: {namespace: gk, name: svc}\n- name: c\n  failurePolicy: Ignore\n  clientConfig: {url: 'https://example.com'}\n- name: d\n  failurePolicy: Ignore\n  clientConfig:\n    service: {namespace: other, name: svc2}\n- 3\n",
        )
        .unwrap();
        let calls: Vec<(&str, &str, bool)> =
            f.calls().iter().map(|c| (&*c.namespace, &*c.name, c.fails_closed)).collect();
        // One call a Service; it fails closed when one webhook calling it does.
        assert_eq!(calls, [("gk", "svc", true), ("other", "svc2", false)]);
        let f = facts_of(
            "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {name: v1beta1.metrics.k8s.io}\nspec:\n  service: {namespace: kube-system, name: metrics-server}\n",
        )
        .unwrap();
        assert_eq!((&*f.calls()[0].name, f.calls()[0].fails_closed), ("metrics-server", true));
        // A local APIService (served by the API server itself) calls nothing.
        assert!(facts_of("apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {name: v1.apps}\nspec:\n  service: null\n").is_none());

        let pairs = |p: &[(Str, Str)]| p.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>();
        let f = facts_of("apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: gk}\nspec:\n  selector:\n    app: gk\n    tier: ''\n").unwrap();
        assert_eq!(pairs(f.selector()), ["app=gk", "tier="]);
        // A selector that is not a map of strings is not read (never half of it).
        assert!(facts_of("apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: gk}\nspec:\n  selector:\n    app: gk\n    n: 1\n").is_none());
        assert!(facts_of(
            "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: gk}\nspec:\n  selector: [app]\n"
        )
        .is_none());
        // Only a Service's selector is kept.
        assert!(facts_of("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: s, namespace: gk}\nspec:\n  selector:\n    matchLabels: {app: gk}\n").is_none());

        let f = facts_of("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: gk}\nspec:\n  selector:\n    matchLabels: {app: gk}\n  template:\n    metadata:\n      labels: {app: gk, 'control-plane': controller-manager}\n    spec:\n      serviceAccountName: gk-admin\n").unwrap();
        assert_eq!(pairs(f.template_labels()), ["app=gk", "control-plane=controller-manager"]);
        assert_eq!(f.service_account().as_deref(), Some("gk-admin"));
        let f = facts_of("apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c, namespace: gk}\nspec:\n  jobTemplate:\n    spec:\n      template:\n        metadata:\n          labels: {job: audit}\n").unwrap();
        assert_eq!(pairs(f.template_labels()), ["job=audit"]);
        // Wrong types where the rules look read as nothing; the object loads.
        assert!(facts_of("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: gk}\nspec:\n  template:\n    metadata: 3\n").is_none());
        assert!(facts_of("apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: m}\nwebhooks: {a: 1}\n").is_none());
    }

    fn facts_or_default(text: &str) -> Facts {
        let raw: RawObject = serde_yaml::from_str(text).unwrap();
        let span = Span::new(crate::span::FileId(0), 0..text.len());
        *convert(raw, span, text, ListContext::default(), &mut Vec::new()).unwrap().facts.unwrap_or_default()
    }

    #[test]
    fn what_the_controller_cascades_and_td011_read() {
        let f = facts_or_default("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeName: n1}\n");
        assert_eq!(f.node_name().as_deref(), Some("n1"));
        let f = facts_or_default("apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {selector: {app: web}}\n");
        assert!(f.selects());
        // An empty selector, or one of the wrong shape, selects nothing.
        assert_eq!(
            facts_or_default("apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {selector: {}}\n"),
            Facts::default()
        );
        assert!(
            !facts_or_default("apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {selector: [1]}\n").selects()
        );
        let f = facts_or_default("apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: v}\nspec:\n  persistentVolumeReclaimPolicy: Delete\n  claimRef: {namespace: a, name: c, uid: u1}\n");
        assert_eq!((f.reclaim_policy().as_deref(), f.claim_uid().as_deref()), (Some("Delete"), Some("u1")));
        let f = facts_or_default("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\nrules:\n- {apiGroups: [b.io, a.io], resources: [things], verbs: [get, patch]}\n- {apiGroups: [c.io], resources: [things/status], verbs: [update]}\n- {apiGroups: [d.io], resources: [things], verbs: [get]}\n- {apiGroups: ['*'], resources: ['*'], verbs: ['*']}\n- {apiGroups: 3, verbs: [update]}\n- 7\n");
        let groups: Vec<&str> = f.updates_groups().iter().map(|g| &**g).collect();
        assert_eq!(groups, ["*", "a.io", "b.io"], "a subresource or a read does not count");
        // Rules of the wrong shape read as none; the object still loads.
        assert_eq!(
            facts_or_default(
                "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r}\nrules: {a: 1}\n"
            ),
            Facts::default()
        );
    }

    #[test]
    fn depends_on_references() {
        assert_eq!(
            parse_depends_on("apps/namespaces/default/StatefulSet/db"),
            Some(DepTarget::Object {
                group: "apps".into(),
                kind: "StatefulSet".into(),
                namespace: Some("default".into()),
                name: "db".into()
            })
        );
        assert_eq!(
            parse_depends_on("/namespaces/default/Secret/s"),
            Some(DepTarget::Object {
                group: "".into(),
                kind: "Secret".into(),
                namespace: Some("default".into()),
                name: "s".into()
            })
        );
        assert_eq!(
            parse_depends_on("rbac.authorization.k8s.io/ClusterRole/r"),
            Some(DepTarget::Object {
                group: "rbac.authorization.k8s.io".into(),
                kind: "ClusterRole".into(),
                namespace: None,
                name: "r".into()
            })
        );
        assert_eq!(parse_depends_on("Secret/s"), None);
        assert_eq!(parse_depends_on("a/namespaces//Secret/s"), None);
    }
}
