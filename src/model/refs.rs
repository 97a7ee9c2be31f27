//! The references an object's document writes: its owner references and
//! its destruction dependencies, as written (`resolve` turns them into
//! relations).

use super::intern::Str;

/// An owner reference as written in the dependent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerRef {
    /// The API group of the reference's `apiVersion` (normalised as for objects).
    pub group: Str,
    /// Kubernetes: the `apiVersion` as written (`extensions/v1beta1`), which
    /// the garbage collector maps to a resource (or fails to: see
    /// [`super::served`]); empty when not written, and for other dialects.
    pub api_version: Str,
    pub kind: Str,
    /// Kubernetes: the owner's name. Native: the owner's id.
    pub name: Str,
    pub uid: Option<Str>,
    pub controller: bool,
    pub block_owner_deletion: bool,
    /// [`super::Identity::Ref`]: the owner's namespace as the reference gives it
    /// (`None`: a resource without one). Unused by other identities.
    pub namespace: Option<Str>,
}

/// What a destruction dependency points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DepTarget {
    /// A Kubernetes object by group, kind, namespace and name.
    Object { group: Str, kind: Str, namespace: Option<Str>, name: Str },
    /// An object by id (native, Murano, pairs).
    Id(Str),
}

/// Which side of a destruction dependency the declaring object is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepSide {
    /// The declaring object is destroyed before the target
    /// (`config.kubernetes.io/depends-on`: the target outlives its dependent).
    Before,
    /// The declaring object is destroyed after the target (native `destroyAfter`).
    After,
}

/// What a destruction dependency says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepKind {
    /// The declaring object depends on the target: it goes first
    /// (`config.kubernetes.io/depends-on`).
    DependsOn,
    /// The declaring object is destroyed after the target (`destroyAfter`).
    DestroyAfter,
    /// The target subscribed to the declaring object's destruction: it goes
    /// after it, and is told (Murano's `onDestruction`).
    Notifies,
    /// cli-utils `config.kubernetes.io/apply-time-mutation`: the declaring
    /// object takes a value from the target (a `sourceRef`) when it is
    /// applied, so it depends on it and goes first.
    ApplyTimeMutation,
}

impl DepKind {
    pub fn side(self) -> DepSide {
        match self {
            DepKind::DependsOn | DepKind::Notifies | DepKind::ApplyTimeMutation => DepSide::Before,
            DepKind::DestroyAfter => DepSide::After,
        }
    }
}

/// A destruction dependency as written in the declaring object.
#[derive(Clone, Debug)]
pub struct DepDecl {
    pub target: DepTarget,
    pub kind: DepKind,
    /// The reference as written, for messages.
    pub text: Str,
}
