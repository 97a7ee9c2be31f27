//! Other tools' metadata on Kubernetes objects, read by the Kubernetes
//! dialect into typed [`Tools`]: the annotations and labels through which
//! Argo CD, kapp, Helm, Flux and cli-utils order, group and keep what they
//! delete. Only this file knows those keys and value grammars.
//!
//! A value a tool would misread is a TD001 finding at its line; the object
//! is kept without that piece of metadata.

use crate::findings::{Finding, Rule};
use crate::input::locate;
use crate::model::intern::intern;
use crate::model::kube::{group_of, HelmHook, KappAction, KappRule, KappWhen, KeepMark, Tools, Usage, UsageRef};
use crate::model::{DepTarget, Str, ToolOrder};
use crate::span::Span;
use serde::Deserialize;

/// The key prefixes of the annotations read here (all others are skipped
/// when an object is read).
pub const PREFIXES: [&str; 8] = [
    "argocd.argoproj.io/",
    "kapp.k14s.io/",
    "helm.sh/",
    "meta.helm.sh/",
    "kustomize.toolkit.fluxcd.io/",
    "config.kubernetes.io/",
    "client.lifecycle.config.k8s.io/",
    "objectset.rio.cattle.io/",
];

/// Argo CD: the sync wave, and the application an object belongs to.
pub const ARGOCD_SYNC_WAVE: &str = "argocd.argoproj.io/sync-wave";
pub const ARGOCD_SYNC_OPTIONS: &str = "argocd.argoproj.io/sync-options";
pub const ARGOCD_TRACKING_ID: &str = "argocd.argoproj.io/tracking-id";
pub const ARGOCD_HOOK: &str = "argocd.argoproj.io/hook";
/// Argo CD's default tracking label (and Helm's chart convention).
pub const INSTANCE_LABEL: &str = "app.kubernetes.io/instance";
pub const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";
pub const KAPP_CHANGE_GROUP: &str = "kapp.k14s.io/change-group";
pub const KAPP_CHANGE_RULE: &str = "kapp.k14s.io/change-rule";
pub const KAPP_DELETE_STRATEGY: &str = "kapp.k14s.io/delete-strategy";
pub const KAPP_APP_LABEL: &str = "kapp.k14s.io/app";
pub const HELM_HOOK: &str = "helm.sh/hook";
pub const HELM_HOOK_WEIGHT: &str = "helm.sh/hook-weight";
pub const HELM_RESOURCE_POLICY: &str = "helm.sh/resource-policy";
pub const HELM_RELEASE_NAME: &str = "meta.helm.sh/release-name";
pub const HELM_RELEASE_NAMESPACE: &str = "meta.helm.sh/release-namespace";
pub const FLUX_PRUNE: &str = "kustomize.toolkit.fluxcd.io/prune";
pub const FLUX_NAME_LABEL: &str = "kustomize.toolkit.fluxcd.io/name";
pub const FLUX_NAMESPACE_LABEL: &str = "kustomize.toolkit.fluxcd.io/namespace";
pub const CLI_UTILS_DELETION: &str = "client.lifecycle.config.k8s.io/deletion";
pub const CLI_UTILS_MUTATION: &str = "config.kubernetes.io/apply-time-mutation";
/// kapp's built-in change groups its built-in delete rules name
/// (carvel-dev/kapp `pkg/kapp/config/default.go`).
pub const KAPP_CRDS: &str = "change-groups.kapp.k14s.io/crds";
pub const KAPP_APPCR: &str = "change-groups.kapp.k14s.io/appcr";
pub const KAPP_PACKAGEINSTALL: &str = "change-groups.kapp.k14s.io/packageinstall";

/// The built-in change group kapp binds an object of this API group and
/// kind to, besides the CRDs' (kapp-controller's App CRs, Carvel's
/// PackageInstalls).
pub fn kapp_bound_group(group: &str, kind: &str) -> Option<&'static str> {
    match (group, kind) {
        ("kappctrl.k14s.io", "App") => Some(KAPP_APPCR),
        ("packaging.carvel.dev", "PackageInstall") => Some(KAPP_PACKAGEINSTALL),
        _ => None,
    }
}

/// KubeVela: the Applications (`namespace/name`, comma-separated, the
/// first the owner) that share a resource (its `shared-resource` policy).
pub const KUBEVELA_SHARED_BY: &str = "app.oam.dev/shared-by";

/// What an object is, for kapp's change-group placeholders.
pub struct Subject<'a> {
    pub group: &'a str,
    pub kind: &'a str,
    pub namespace: Option<&'a str>,
    pub name: &'a str,
    /// A CRD's `spec.group` and `spec.names.kind`.
    pub crd: Option<(&'a str, &'a str)>,
    pub labels: &'a [(Str, Str)],
}

/// Read the tools' metadata of one object. `span` is its document in
/// `text` (to point findings at a value). `None`: the object has none (no
/// kept annotation, none of the labels read here), which the one look at
/// its labels tells (issue 40: nothing more is read or built).
pub fn read(
    subject: &Subject,
    annotations: &[(Str, Str)],
    span: Span,
    text: &str,
    out: &mut Vec<Finding>,
) -> Option<Tools> {
    if annotations.is_empty() && !subject.labels.iter().any(|(k, _)| read_label(k)) {
        return None;
    }
    let mut r = Reader { annotations: Annotations(annotations), subject, span, text, out };
    let mut t = Tools::default();
    r.argocd(&mut t);
    r.kapp(&mut t);
    r.helm(&mut t);
    r.flux(&mut t);
    r.cli_utils(&mut t);
    // KubeVela: kept as written (its resource keeper splits it on commas).
    t.kubevela_shared_by = r.annotations.get(KUBEVELA_SHARED_BY).filter(|v| !v.is_empty()).map(Str::from);
    t.managed = super::controllers::marks::read(annotations, subject.labels, subject.namespace);
    Some(t)
}

/// One object's annotations and labels being read, and where to say what
/// a tool would misread.
struct Reader<'a, 'o> {
    annotations: Annotations<'a>,
    subject: &'a Subject<'a>,
    span: Span,
    text: &'a str,
    out: &'o mut Vec<Finding>,
}

impl<'a> Reader<'a, '_> {
    fn label(&self, k: &str) -> Option<&'a str> {
        self.subject.labels.iter().find(|(key, _)| &**key == k).map(|(_, v)| &**v)
    }

    /// A value a tool would misread: a TD001 at its line.
    fn bad(&mut self, key: &str, value: &str, what: &str, help: &str) {
        let (span, text) = (self.span, self.text);
        let reference = format!("{}/{}", self.subject.kind, self.subject.name);
        let range = locate::value_after(text, span.range(), &["annotations", key], value)
            .or_else(|| locate::key_after(text, span.range(), key))
            .unwrap_or(span.range());
        self.out.push(
            Finding::new(
                Rule::Td001,
                format!("{reference}: annotation `{key}: {}` {what}", crate::findings::quoted(value)),
            )
            .at(Span::new(span.file, range), "this value")
            .refs([reference])
            .help(help.to_string()),
        );
    }

    /// Argo CD. The wave is an integer (Argo CD parses it with Atoi and
    /// falls back to the Helm hook weight, then 0, on anything else: a
    /// misspelt wave silently moves the object, so it is refused here).
    fn argocd(&mut self, t: &mut Tools) {
        let annotations = self.annotations;
        if let Some(v) = annotations.get(ARGOCD_SYNC_WAVE) {
            match v.trim().parse::<i32>() {
                Ok(w) => t.sync_wave = Some(w),
                Err(_) => self.bad(
                    ARGOCD_SYNC_WAVE,
                    v,
                    "is not an integer",
                    "Argo CD would put this object in the Helm hook weight's wave, or 0",
                ),
            }
        }
        t.argocd_hook = annotations.get(ARGOCD_HOOK).is_some();
        if let Some(v) = annotations.get(ARGOCD_SYNC_OPTIONS) {
            for option in v.split(',').map(str::trim) {
                match option {
                    "Delete=false" => t.argocd_no_delete = true,
                    "Prune=false" => t.argocd_no_prune = true,
                    _ => {}
                }
            }
        }
        // The tracking id is `<app>:<group>/<kind>:<namespace>/<name>`; the
        // instance label is Argo CD's default tracking method.
        t.argocd_app = annotations
            .get(ARGOCD_TRACKING_ID)
            .and_then(|id| id.split_once(':'))
            .map(|(app, _)| app)
            .or_else(|| self.label(INSTANCE_LABEL))
            .filter(|a| !a.is_empty())
            .map(intern);
    }

    /// kapp: `change-group` and `change-group.<anything>` (as many as one
    /// likes), the same for `change-rule`.
    fn kapp(&mut self, t: &mut Tools) {
        let annotations = self.annotations;
        for (key, value) in annotations.0 {
            let suffixed =
                |base: &str| key.strip_prefix(base).is_some_and(|rest| rest.is_empty() || rest.starts_with('.'));
            if suffixed(KAPP_CHANGE_GROUP) {
                t.kapp_groups.push(intern(&expand_placeholders(value, self.subject)));
            } else if suffixed(KAPP_CHANGE_RULE) {
                match parse_kapp_rule(value) {
                    Some(rule) => t.kapp_rules.push(rule),
                    None => self.bad(
                        key,
                        value,
                        "is not a kapp change rule",
                        "write `(upsert|delete) (before|after) (upserting|deleting) <change group>`",
                    ),
                }
            }
        }
        t.kapp_orphan = annotations.get(KAPP_DELETE_STRATEGY) == Some("orphan");
        t.kapp_app = self.label(KAPP_APP_LABEL).filter(|a| !a.is_empty()).map(intern);
    }

    /// Helm. A hook's weight is an integer (Helm sorts by it, 0 when absent).
    fn helm(&mut self, t: &mut Tools) {
        let annotations = self.annotations;
        if let Some(v) = annotations.get(HELM_HOOK) {
            for hook in v.split(',').map(str::trim) {
                match hook {
                    "pre-delete" => t.helm_hooks.push(HelmHook::PreDelete),
                    "post-delete" => t.helm_hooks.push(HelmHook::PostDelete),
                    _ => t.helm_hooks.push(HelmHook::Other),
                }
            }
        }
        if let Some(v) = annotations.get(HELM_HOOK_WEIGHT) {
            match v.trim().parse::<i32>() {
                Ok(w) => t.hook_weight = w,
                Err(_) => self.bad(HELM_HOOK_WEIGHT, v, "is not an integer", "Helm orders hooks by this weight"),
            }
        }
        t.helm_keep = annotations.get(HELM_RESOURCE_POLICY) == Some("keep");
        // The release: Helm's ownership annotations (Helm 3.2+), else the
        // chart convention's labels (`managed-by: Helm` and `instance`), in the
        // object's namespace.
        let namespace = self.subject.namespace;
        t.helm_release = match (annotations.get(HELM_RELEASE_NAME), annotations.get(HELM_RELEASE_NAMESPACE)) {
            (Some(name), ns) if !name.is_empty() => {
                Some((intern(ns.filter(|n| !n.is_empty()).or(namespace).unwrap_or("default")), intern(name)))
            }
            _ if self.label(MANAGED_BY_LABEL) == Some("Helm") => self
                .label(INSTANCE_LABEL)
                .filter(|n| !n.is_empty())
                .map(|name| (intern(namespace.unwrap_or("default")), intern(name))),
            _ => None,
        };
    }

    /// Flux: pruning disabled, and the Kustomization that applied it.
    fn flux(&mut self, t: &mut Tools) {
        t.flux_prune_disabled = self.annotations.get(FLUX_PRUNE) == Some("disabled");
        t.flux_owner = match (self.label(FLUX_NAMESPACE_LABEL), self.label(FLUX_NAME_LABEL)) {
            (Some(ns), Some(name)) if !ns.is_empty() && !name.is_empty() => Some((intern(ns), intern(name))),
            _ => None,
        };
    }

    /// cli-utils: detached objects, apply-time-mutation sources.
    fn cli_utils(&mut self, t: &mut Tools) {
        let annotations = self.annotations;
        t.detach = annotations.get(CLI_UTILS_DELETION) == Some("detach");
        if let Some(v) = annotations.get(CLI_UTILS_MUTATION) {
            match mutation_sources(v) {
                Some(sources) => t.mutation_sources = sources,
                None => self.bad(
                    CLI_UTILS_MUTATION,
                    v.lines().next().unwrap_or(""),
                    "is not a list of substitutions with a `sourceRef` (kind and name)",
                    "see cli-utils' apply-time-mutation: `- sourceRef: {group: …, kind: …, name: …, namespace: …}`",
                ),
            }
        }
    }
}

/// Whether `read` (or `controllers::marks::read`) looks at a label with
/// this key: Argo CD's and Helm's instance and managed-by labels, kapp's
/// and Flux's own.
fn read_label(key: &str) -> bool {
    key == INSTANCE_LABEL
        || key == MANAGED_BY_LABEL
        || key.starts_with("kapp.k14s.io/")
        || key.starts_with("kustomize.toolkit.fluxcd.io/")
}

/// A Crossplane Usage's spec. A namespaced `Usage` (Crossplane v2's
/// `protection.crossplane.io`) names `by` in its own namespace and `of` in
/// its own unless `of.resourceRef.namespace` says otherwise; a
/// `ClusterUsage`, and Crossplane v1's cluster-scoped `Usage`, name
/// cluster-scoped objects. `None` when neither `of` nor `by` nor a reason
/// is written.
pub fn usage(
    kind: &str,
    namespace: Option<&Str>,
    of: UsageSide,
    by: UsageSide,
    reason: Option<Str>,
) -> Option<Box<Usage>> {
    let own = match kind {
        "ClusterUsage" => None,
        _ => namespace.cloned(),
    };
    let reference = |r: UsageSide, may_cross: bool| -> Option<UsageRef> {
        let kind = r.kind.filter(|k| !k.is_empty())?;
        let api_version = r.api_version.unwrap_or_default();
        let written = r.namespace.filter(|n| !n.is_empty()).map(|n| intern(&n));
        let namespace = match (&own, written) {
            (Some(_), Some(ns)) if may_cross => Some(ns),
            (own, _) => own.clone(),
        };
        Some(UsageRef {
            group: group_of(&api_version, &kind),
            kind: intern(&kind),
            namespace,
            name: r.name.filter(|n| !n.is_empty()),
        })
    };
    let usage = Usage { of: reference(of, true), by: reference(by, false), reason: reason.filter(|r| !r.is_empty()) };
    (usage.of.is_some() || usage.by.is_some() || usage.reason.is_some()).then(|| Box::new(usage))
}

/// One side of a Crossplane Usage (`spec.of`, `spec.by`), as written.
pub struct UsageSide {
    pub api_version: Option<Str>,
    pub kind: Option<Str>,
    /// `resourceRef.namespace`.
    pub namespace: Option<Str>,
    /// `resourceRef.name`.
    pub name: Option<Str>,
}

/// An object's kept annotations, looked up by key.
#[derive(Clone, Copy)]
struct Annotations<'a>(&'a [(Str, Str)]);

impl<'a> Annotations<'a> {
    fn get(&self, key: &str) -> Option<&'a str> {
        self.0.iter().find(|(k, _)| &**k == key).map(|(_, v)| &**v)
    }
}

/// A cli-utils object reference: `group/kind/name` (cluster-scoped) or
/// `group/namespaces/namespace/kind/name` (namespaced). The core group is empty.
pub fn parse_depends_on(s: &str) -> Option<DepTarget> {
    let parts: Vec<&str> = s.split('/').collect();
    let ok = |p: &str| !p.is_empty();
    match parts.as_slice() {
        [group, "namespaces", ns, kind, name] if ok(ns) && ok(kind) && ok(name) => Some(DepTarget::Object {
            group: (*group).into(),
            kind: (*kind).into(),
            namespace: Some((*ns).into()),
            name: (*name).into(),
        }),
        [group, kind, name] if ok(kind) && ok(name) => Some(DepTarget::Object {
            group: (*group).into(),
            kind: (*kind).into(),
            namespace: None,
            name: (*name).into(),
        }),
        _ => None,
    }
}

/// kapp's change-group placeholders: `{api-group}`, `{kind}`, `{name}`,
/// `{namespace}`, and a CRD's `{crd-group}`, `{crd-kind}`. Others stay as
/// written.
fn expand_placeholders(value: &str, s: &Subject) -> String {
    if !value.contains('{') {
        return value.to_string();
    }
    let mut v = value
        .replace("{api-group}", s.group)
        .replace("{kind}", s.kind)
        .replace("{name}", s.name)
        .replace("{namespace}", s.namespace.unwrap_or(""));
    if let Some((group, kind)) = s.crd {
        v = v.replace("{crd-group}", group).replace("{crd-kind}", kind);
    }
    v
}

/// `upsert after upserting apps.big.co/db` and the like.
fn parse_kapp_rule(s: &str) -> Option<KappRule> {
    let mut words = s.split_whitespace();
    let action = match words.next()? {
        "upsert" => KappAction::Upsert,
        "delete" => KappAction::Delete,
        _ => return None,
    };
    let when = match words.next()? {
        "before" => KappWhen::Before,
        "after" => KappWhen::After,
        _ => return None,
    };
    let other = match words.next()? {
        "upserting" => KappAction::Upsert,
        "deleting" => KappAction::Delete,
        _ => return None,
    };
    let group = words.next()?;
    words.next().is_none().then(|| KappRule { action, when, other, group: intern(group) })
}

/// The `sourceRef`s of an apply-time-mutation value (a YAML list of
/// substitutions). `None` when it is not such a list.
fn mutation_sources(value: &str) -> Option<Box<[DepTarget]>> {
    #[derive(Deserialize)]
    struct Substitution {
        #[serde(rename = "sourceRef")]
        source_ref: SourceRef,
    }
    #[derive(Deserialize)]
    struct SourceRef {
        #[serde(default)]
        group: String,
        #[serde(rename = "apiVersion")]
        api_version: Option<String>,
        kind: String,
        name: String,
        #[serde(default)]
        namespace: String,
    }
    let list: Vec<Substitution> = serde_yaml::from_str(value).ok()?;
    list.into_iter()
        .map(|s| {
            let r = s.source_ref;
            let group = match r.api_version.as_deref() {
                Some(v) if r.group.is_empty() => v.rsplit_once('/').map(|(g, _)| g).unwrap_or(""),
                _ => &r.group,
            };
            // The same grammar as depends-on, so both resolve alike.
            let text = match r.namespace.as_str() {
                "" => format!("{group}/{}/{}", r.kind, r.name),
                ns => format!("{group}/namespaces/{ns}/{}/{}", r.kind, r.name),
            };
            parse_depends_on(&text)
        })
        .collect()
}

/// A keep mark as written: `key: value`.
pub fn keep_mark(m: KeepMark) -> &'static str {
    match m {
        KeepMark::HelmKeep => "helm.sh/resource-policy: keep",
        KeepMark::KappOrphan => "kapp.k14s.io/delete-strategy: orphan",
        KeepMark::ArgoNoDelete => "argocd.argoproj.io/sync-options: Delete=false",
        KeepMark::ArgoNoPrune => "argocd.argoproj.io/sync-options: Prune=false",
        KeepMark::FluxPruneDisabled => "kustomize.toolkit.fluxcd.io/prune: disabled",
        KeepMark::Detach => "client.lifecycle.config.k8s.io/deletion: detach",
    }
}

/// The annotation or field that says a tool's order.
pub fn order_key(m: ToolOrder) -> &'static str {
    match m {
        ToolOrder::SyncWave => "argocd.argoproj.io/sync-wave",
        ToolOrder::KappRule => "kapp.k14s.io/change-rule",
        ToolOrder::FluxDependsOn => "spec.dependsOn",
        ToolOrder::UsageBy => "Usage spec.by",
        ToolOrder::UsageOf => "Usage spec.of",
        ToolOrder::HelmRecord => "the release's storage records",
        ToolOrder::KappRecord => "the app record (<name>.app)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kapp_rules() {
        let r = parse_kapp_rule("upsert after upserting apps.big.co/db").unwrap();
        assert_eq!(
            (r.action, r.when, r.other, &*r.group),
            (KappAction::Upsert, KappWhen::After, KappAction::Upsert, "apps.big.co/db")
        );
        let r = parse_kapp_rule(" delete  before deleting x ").unwrap();
        assert_eq!((r.action, r.when, r.other), (KappAction::Delete, KappWhen::Before, KappAction::Delete));
        assert!(parse_kapp_rule("upsert after x").is_none());
        assert!(parse_kapp_rule("upsert after upserting a b").is_none());
        assert!(parse_kapp_rule("remove after upserting a").is_none());
    }

    /// Without annotations, the labels alone still say what they say (the
    /// early return of `read` looks at every label a reading looks at).
    #[test]
    fn labels_alone_are_read() {
        let read_labels = |labels: &[(&str, &str)]| {
            let labels: Vec<(Str, Str)> = labels.iter().map(|&(k, v)| (intern(k), intern(v))).collect();
            let s =
                Subject { group: "", kind: "ConfigMap", namespace: Some("ns"), name: "c", crd: None, labels: &labels };
            read(&s, &[], Span::new(crate::span::FileId(0), 0..0), "", &mut Vec::new())
        };
        // No label a tool reads and no annotation: nothing read, nothing built.
        assert_eq!(read_labels(&[("app", "web")]), None);
        let read_labels = |labels: &[(&str, &str)]| read_labels(labels).unwrap_or_default();
        assert_eq!(read_labels(&[(INSTANCE_LABEL, "shop")]).argocd_app.as_deref(), Some("shop"));
        let helm = read_labels(&[(MANAGED_BY_LABEL, "Helm"), (INSTANCE_LABEL, "rel")]).helm_release;
        assert_eq!(helm.map(|(ns, name)| (ns.to_string(), name.to_string())), Some(("ns".into(), "rel".into())));
        assert_eq!(read_labels(&[(KAPP_APP_LABEL, "123")]).kapp_app.as_deref(), Some("123"));
        let flux = read_labels(&[(FLUX_NAMESPACE_LABEL, "flux-system"), (FLUX_NAME_LABEL, "apps")]).flux_owner;
        assert_eq!(
            flux.map(|(ns, name)| (ns.to_string(), name.to_string())),
            Some(("flux-system".into(), "apps".into()))
        );
        assert!(read_labels(&[("kustomize.toolkit.fluxcd.io/prune", "Disabled")]).managed.is_some());
    }

    #[test]
    fn placeholders() {
        let s =
            Subject { group: "apps", kind: "Deployment", namespace: Some("ns"), name: "web", crd: None, labels: &[] };
        assert_eq!(
            expand_placeholders("g/{api-group}-{kind}-{namespace}-{name}-{crd-kind}", &s),
            "g/apps-Deployment-ns-web-{crd-kind}"
        );
    }

    #[test]
    fn mutations() {
        let v = "- sourceRef:\n    kind: ConfigMap\n    name: cm\n    namespace: ns\n  sourcePath: $.data.x\n  targetPath: $.spec.x\n- sourceRef:\n    apiVersion: example.com/v1\n    kind: Thing\n    name: t\n";
        let s = mutation_sources(v).unwrap();
        assert_eq!(s.len(), 2);
        match &s[1] {
            DepTarget::Object { group, kind, namespace, name } => {
                assert_eq!((&**group, &**kind, namespace.is_none(), &**name), ("example.com", "Thing", true, "t"))
            }
            DepTarget::Id(_) => panic!("an object reference"),
        }
        assert!(mutation_sources("just text").is_none());
        assert!(mutation_sources("- sourceRef: {kind: X}").is_none());
    }
}
