//! `-o names` and `-o refs`: one object a line. Formatting only: which
//! objects, in which order, and whether each can be printed for kubectl at
//! all are decided before (`render::printable`).
//!
//! `names` is what `xargs -L1 kubectl delete` takes, one line one command:
//! `KIND[.GROUP]/NAME`, KIND the kind in lower case as `kubectl get -o name`
//! prints it (`deployment.apps/web`, `pod/web`), then ` -n NAMESPACE` for
//! every namespaced object, even in `default`, so that kubectl's current
//! namespace never decides. Objects known by an id alone (Murano, native,
//! tsort pairs) are their id. `refs` is the full reference,
//! `Kind[.group]/[namespace/]name`, or the id.

use crate::escape::escape;
use crate::model::{Identity, ObjId, Object};
use std::io::{self, Write};

/// Write one `names` line of `o` (without its line break) to `buf`.
fn kubectl_line(o: &Object, buf: &mut Vec<u8>) {
    match o.identity() {
        Identity::Id | Identity::Token => buf.extend_from_slice(o.name.as_bytes()),
        Identity::Coordinates | Identity::Ref => {
            buf.extend(o.kind.bytes().map(|b| b.to_ascii_lowercase()));
            if !o.group.is_empty() {
                buf.push(b'.');
                buf.extend_from_slice(o.group.as_bytes());
            }
            buf.push(b'/');
            buf.extend_from_slice(o.name.as_bytes());
            if let Some(ns) = &o.namespace {
                buf.extend_from_slice(b" -n ");
                buf.extend_from_slice(ns.as_bytes());
            }
        }
    }
}

/// `-o names`: the objects `ids`, one a line. Lines are made in parallel,
/// in parts of 4096 (a plan of a million pairs has a line each), and
/// written in order.
pub fn kubectl(objects: &[Object], ids: &[ObjId], out: &mut dyn Write) -> io::Result<()> {
    super::parts::Parts::new(4096, 16).write(ids, out, |_, &id, part| {
        kubectl_line(id.of(objects)?, part);
        part.push(b'\n');
        Ok(())
    })
}

/// `-o refs`: the references of the objects `ids` (in `refs`, one per
/// object), one a line.
pub fn refs(
    refs: &crate::analysis::refs::Refs,
    ids: impl Iterator<Item = ObjId>,
    out: &mut dyn Write,
) -> io::Result<()> {
    for id in ids {
        out.write_all(escape(refs.at(id)?).as_bytes())?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// `-o refs` of objects: their references, one a line.
pub fn object_refs(objects: &[Object], ids: impl Iterator<Item = ObjId>, out: &mut dyn Write) -> io::Result<()> {
    for id in ids {
        out.write_all(escape(&id.of(objects)?.reference()).as_bytes())?;
        out.write_all(b"\n")?;
    }
    Ok(())
}
