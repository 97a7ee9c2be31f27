//! What the controllers' readings share: the snapshot beside the
//! application objects ([`World`]) and the small readers of a document.

use crate::input::{Node, Sources};
use crate::model::intern::intern;
use crate::model::managed::Key;
use crate::model::{ObjId, Object};

/// What the snapshot says beside the application objects themselves:
/// Argo CD's settings, kapp's app records, Crossplane composites, Helm's
/// release records.
pub struct World<'a> {
    pub sources: &'a Sources,
    pub objects: &'a [Object],
}

impl World<'_> {
    /// An object's own document, read again.
    pub fn document(&self, o: &Object) -> Option<Node> {
        let document = Node::at(&self.sources.get(o.span.file).text, o.span.range())?;
        let own = crate::dialect::kubernetes::own_document(&document, o)?.clone();
        Some(own)
    }

    /// The first object of this group, kind, namespace and name.
    pub fn find(&self, group: &str, kind: &str, namespace: Option<&str>, name: &str) -> Option<(ObjId, &Object)> {
        self.objects.iter().enumerate().find_map(|(i, o)| {
            (o.is_kubernetes()
                && &*o.group == group
                && &*o.kind == kind
                && o.namespace.as_deref() == namespace
                && &*o.name == name)
                .then_some((ObjId(i as u32), o))
        })
    }
}

/// The value at `path` of a document, as a string.
pub fn text<'a>(doc: &'a Node, path: &[&str]) -> Option<&'a str> {
    at(doc, path)?.as_str()
}

pub fn at<'a>(doc: &'a Node, path: &[&str]) -> Option<&'a Node> {
    path.iter().try_fold(doc, |n, k| n.get(k))
}

/// A boolean at `path` (`true` written as a boolean or a string).
pub fn flag(doc: &Node, path: &[&str]) -> bool {
    match at(doc, path) {
        Some(n) => n.as_bool().unwrap_or(false) || n.as_str() == Some("true"),
        None => false,
    }
}

pub fn has_finalizer(o: &Object, names: &[&str]) -> bool {
    o.finalizers.iter().any(|f| names.contains(&&**f))
}

pub fn annotation<'a>(doc: &'a Node, key: &str) -> Option<&'a str> {
    doc.get("metadata")?.get("annotations")?.get(key)?.as_str()
}

pub fn key(group: &str, kind: &str, namespace: Option<&str>, name: &str) -> Key {
    Key { group: intern(group), kind: intern(kind), namespace: namespace.map(intern), name: intern(name) }
}
