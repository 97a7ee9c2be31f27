//! The references an object's document writes: its owner references and
//! its destruction dependencies, as written (`resolve` turns them into
//! relations).

use super::intern::Str;

/// How many uids, and how many names, each thread remembers of the
/// objects it read last.
const LAST_OBJECTS: usize = 32;

/// Uids, then names, each in the slot of its text ([`slot`]).
type Last = ([Option<Str>; LAST_OBJECTS], [Option<Str>; LAST_OBJECTS]);

thread_local! {
    /// The uids and names of objects this thread read last, each in the
    /// slot of its text ([`slot`]).
    static LAST: std::cell::RefCell<Last> =
        const { std::cell::RefCell::new(([const { None }; LAST_OBJECTS], [const { None }; LAST_OBJECTS])) };
}

/// The slot of a uid or a name: from its length and last bytes (a uid ends
/// in random hex digits, a generated name in a random suffix), with no hash
/// to compute.
fn slot(s: &str) -> usize {
    let b = s.as_bytes();
    let tail = b.len().checked_sub(8).and_then(|at| b.get(at..)).and_then(|t| <[u8; 8]>::try_from(t).ok());
    let key = match tail {
        Some(t) => u64::from_le_bytes(t),
        None => b.iter().fold(0, |k, &c| k << 8 | u64::from(c)),
    } ^ b.len() as u64;
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 59) as usize % LAST_OBJECTS
}

/// An object read on this thread: owner references read after it may name
/// it by its uid and name ([`owner_uid`], [`owner_name`]).
pub fn remember_object(uid: Option<&Str>, name: &Str) {
    LAST.with_borrow_mut(|(uids, names)| {
        if let Some((at, uid)) = uid.and_then(|u| Some((uids.get_mut(slot(u))?, u))) {
            *at = Some(uid.clone());
        }
        if let Some(at) = names.get_mut(slot(name)) {
            *at = Some(name.clone());
        }
    });
}

/// An owner reference's uid, as it is read: the uid of an object this
/// thread read lately when it is one (no copy of its own), else a new
/// string. Objects come after their owners (a ReplicaSet's Pods, a
/// Service's EndpointSlice): at a million objects the copies took about
/// 90 MB with the names'.
pub fn owner_uid(uid: &str) -> Str {
    recent(uid, |(uids, _)| uids)
}

/// An owner reference's name, as it is read (as [`owner_uid`]).
pub fn owner_name(name: &str) -> Str {
    recent(name, |(_, names)| names)
}

fn recent(s: &str, table: impl FnOnce(&Last) -> &[Option<Str>; LAST_OBJECTS]) -> Str {
    let found =
        LAST.with_borrow(|last| table(last).get(slot(s)).and_then(|e| e.as_ref().filter(|e| ***e == *s).cloned()));
    found.unwrap_or_else(|| Str::from(s))
}

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

#[cfg(test)]
mod tests {
    use super::{owner_name, owner_uid, remember_object, slot, Str};
    use std::sync::Arc;

    #[test]
    fn owner_references_share_the_strings_of_the_objects_read_before() {
        let (uid, name) = (Str::from("u-1"), Str::from("rs-1"));
        remember_object(Some(&uid), &name);
        // Others read since, in other slots: still remembered.
        let others = (0..).map(|i| format!("other-{i}"));
        for other in others.filter(|o| slot(o) != slot("u-1") && slot(o) != slot("rs-1")).take(100) {
            remember_object(Some(&Str::from(other.as_str())), &Str::from(other));
        }
        assert!(Arc::ptr_eq(&owner_uid("u-1"), &uid) && Arc::ptr_eq(&owner_name("rs-1"), &name));
        // Another uid or name: a string of its own, as written.
        assert_eq!((&*owner_uid("u-2"), &*owner_name("rs-2")), ("u-2", "rs-2"));
        assert!(!Arc::ptr_eq(&owner_uid("rs-1"), &name));
        // Forgotten once another in its slot was read since.
        let next = (0..).map(|i| format!("next-{i}")).find(|o| slot(o) == slot("u-1")).unwrap();
        remember_object(Some(&Str::from(next)), &name);
        assert!(!Arc::ptr_eq(&owner_uid("u-1"), &uid));
        assert_eq!(&*owner_uid("u-1"), "u-1");
    }
}
