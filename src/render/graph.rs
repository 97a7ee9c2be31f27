//! `teardown graph` output: tree, JSON, YAML, DOT and Mermaid, from a
//! [`GraphView`]. (`-o names` and `-o refs`: `super::names`.)

use super::diagnostics::Style;
use super::paint::{kind_len, Paint};
use crate::analysis::view::{Direction, GraphView, TreeLine};
use crate::input::Sources;
use crate::internal::{entry, Internal};
use crate::model::{ControllerEdge, Link, Object, RelKind, Relation};
use crate::plan::reference::Ref;
use serde::Serialize;
use std::io::{self, Write};

/// What a tree line says about its relation to the line above.
fn via_note(view: &GraphView, rel: &Relation) -> Option<&'static str> {
    let link = match rel.link {
        Link::Solid => None,
        Link::UidMismatch => Some("uid mismatch"),
        Link::CrossNamespace => Some("other namespace"),
        Link::ClusterScopedDependent => Some("namespaced owner"),
        Link::OtherCoordinates => Some("uid of another object"),
    };
    if link.is_some() {
        return link;
    }
    match (rel.kind, view.direction) {
        (RelKind::DestroyAfter | RelKind::Finalizer | RelKind::ComponentOrder, Direction::Dependents) => {
            Some("goes first")
        }
        (RelKind::DestroyAfter | RelKind::Finalizer | RelKind::ComponentOrder, Direction::Dependencies) => {
            Some("goes after")
        }
        // A controller's cascade: who performs it, and which way the
        // order goes when it is not the way the deletion goes.
        (RelKind::Controller(e), dir) => Some(match (e, dir) {
            (ControllerEdge::NodePods, _) => "pod garbage collector",
            (ControllerEdge::ServiceEndpoints, Direction::Dependents) => "goes first, endpoints controller",
            (ControllerEdge::ServiceEndpoints, Direction::Dependencies) => "goes after, endpoints controller",
            (ControllerEdge::ReclaimDelete, Direction::Dependents) => "goes first, volume controller",
            (ControllerEdge::ReclaimDelete, Direction::Dependencies) => "goes after, volume controller",
            (ControllerEdge::Released, Direction::Dependents) => "bound claim, reclaim policy keeps the volume",
            (ControllerEdge::Released, Direction::Dependencies) => "bound volume, its reclaim policy keeps it",
        }),
        _ => None,
    }
}

/// A note that says something is wrong (painted as a warning).
fn alarming(note: &str) -> bool {
    matches!(note, "uid mismatch" | "other namespace" | "namespaced owner" | "uid of another object" | "cycle")
}

/// Relation `r` of the graph.
/// An object's node number (see [`node_numbers`]).
fn number(numbers: &[usize], id: crate::model::ObjId) -> Result<usize, Internal> {
    entry(numbers, id.index(), "node").copied()
}

fn relation(rels: &[Relation], r: u32) -> Result<&Relation, Internal> {
    entry(rels, r as usize, "relation")
}

fn line_text(
    objects: &[Object],
    rels: &[Relation],
    view: &GraphView,
    line: &TreeLine,
    style: Style,
) -> Result<String, Internal> {
    let o = line.object.of(objects)?;
    let mut text = style.reference(&o.reference(), kind_len(o));
    let mut notes: Vec<String> = Vec::new();
    if let Some(m) = o.member.as_deref() {
        text.push_str(&format!(" ({}", crate::escape::escape(&m.type_name)));
        if let Some(name) = &m.name {
            text.push_str(&format!(" \"{}\"", crate::escape::escape(name)));
        }
        text.push(')');
        if m.destroyed {
            notes.push("destroyed".into());
        }
        if m.section == crate::model::Section::Old {
            notes.push(format!("only in {}", o.origin.fields.models.copy));
        }
    }
    if let Some(note) = line.via.map(|r| relation(rels, r)).transpose()?.and_then(|r| via_note(view, r)) {
        notes.push(note.into());
    }
    if o.deletion_timestamp.is_some() {
        notes.push("deleting".into());
    }
    if line.shared {
        notes.push("shared".into());
    }
    if line.repeat {
        notes.push("shown above".into());
    }
    if line.cycle {
        notes.push("cycle".into());
    }
    if line.hidden > 0 {
        notes.push(format!("+{} not shown", line.hidden));
    }
    for n in notes {
        text.push(' ');
        let paint = if alarming(&n) { Paint::Warning } else { Paint::Quiet };
        style.push(paint, &format!("[{n}]"), &mut text);
    }
    Ok(text)
}

/// Deeper lines are not indented further (a chain of a million objects
/// would otherwise print gigabytes of indentation); they say their depth.
const MAX_INDENT: usize = 32;

/// The tree; with colour, kinds and notes are painted.
pub fn tree(objects: &[Object], rels: &[Relation], view: &GraphView, style: Style) -> Result<String, Internal> {
    let mut out = String::new();
    // continues[d]: the ancestor at depth d has siblings below it.
    let mut continues: Vec<bool> = Vec::new();
    for line in &view.lines {
        if line.depth > 0 {
            for &more in continues.iter().take(line.depth.min(MAX_INDENT)).skip(1) {
                out.push_str(if more { "│   " } else { "    " });
            }
            out.push_str(if line.last { "└── " } else { "├── " });
        }
        out.push_str(&line_text(objects, rels, view, line, style)?);
        if line.depth > MAX_INDENT {
            out.push(' ');
            style.push(Paint::Quiet, &format!("[depth {}]", line.depth), &mut out);
        }
        out.push('\n');
        continues.truncate(line.depth);
        continues.resize(line.depth, false);
        continues.push(!line.last);
    }
    Ok(out)
}

#[derive(Serialize)]
struct NodeOut<'a> {
    #[serde(flatten)]
    object: Ref<String>,
    kind: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    group: &'a str,
    namespace: Option<&'a str>,
    name: &'a str,
    uid: Option<&'a str>,
    /// Murano: the type as written, and the header's `_` attributes.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    type_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    destroyed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attributes: Option<std::collections::BTreeMap<&'a str, serde_json::Value>>,
    file: &'a str,
    line: usize,
}

#[derive(Serialize)]
struct EdgeOut {
    from: String,
    to: String,
    kind: RelKind,
    link: Link,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    controller: bool,
}

#[derive(Serialize)]
struct GraphOut<'a> {
    #[serde(rename = "schemaVersion")]
    schema_version: u32,
    direction: &'static str,
    nodes: Vec<NodeOut<'a>>,
    edges: Vec<EdgeOut>,
}

/// The graph as a document (`-o json`, `-o yaml`).
fn document<'a>(
    sources: &'a Sources,
    objects: &'a [Object],
    rels: &[Relation],
    view: &GraphView,
) -> Result<GraphOut<'a>, Internal> {
    let nodes = view
        .nodes
        .iter()
        .map(|id| {
            let o = id.of(objects)?;
            let file = sources.get(o.span.file);
            Ok(NodeOut {
                object: Ref::new(o.reference()),
                kind: &o.kind,
                group: &o.group,
                namespace: o.namespace.as_deref(),
                name: &o.name,
                uid: o.uid.as_deref(),
                type_name: o.member.as_deref().map(|m| &*m.type_name),
                destroyed: o.member.as_deref().map(|m| m.destroyed),
                attributes: o.member.as_deref().filter(|m| !m.attributes.is_empty()).map(|m| {
                    m.attributes
                        .iter()
                        .map(|(k, v)| (&**k, serde_json::from_str(v).unwrap_or(serde_json::Value::Null)))
                        .collect()
                }),
                file: &file.name,
                line: file.line_index(o.span.start) + 1,
            })
        })
        .collect::<Result<_, Internal>>()?;
    let edges = view
        .edges
        .iter()
        .map(|&r| {
            let r = relation(rels, r)?;
            Ok(EdgeOut {
                from: r.from.of(objects)?.reference(),
                to: r.to.of(objects)?.reference(),
                kind: r.kind,
                link: r.link,
                controller: r.controller,
            })
        })
        .collect::<Result<_, Internal>>()?;
    let direction = match view.direction {
        Direction::Dependents => "dependents",
        Direction::Dependencies => "dependencies",
    };
    Ok(GraphOut { schema_version: 1, direction, nodes, edges })
}

pub fn json(sources: &Sources, objects: &[Object], rels: &[Relation], view: &GraphView) -> Result<String, Internal> {
    let mut s = serde_json::to_string_pretty(&document(sources, objects, rels, view)?).unwrap_or_default();
    s.push('\n');
    Ok(s)
}

/// The same document as [`json`], in YAML.
pub fn yaml(
    sources: &Sources,
    objects: &[Object],
    rels: &[Relation],
    view: &GraphView,
    out: &mut dyn Write,
) -> io::Result<()> {
    super::yaml::write(&document(sources, objects, rels, view)?, out)
}

/// Each shown object's node number: its place in reference order, not
/// its index, which follows the order the inputs were read in
/// (tests/props_determinism.rs).
fn node_numbers(objects: &[Object], view: &GraphView) -> Vec<usize> {
    let mut n = vec![0; objects.len()];
    for (k, id) in view.nodes.iter().enumerate() {
        if let Some(slot) = n.get_mut(id.index()) {
            *slot = k;
        }
    }
    n
}

/// Graphviz: edges point from the object destroyed later to the one
/// destroyed first (owner → owned).
pub fn dot(objects: &[Object], rels: &[Relation], view: &GraphView) -> Result<String, Internal> {
    let mut out = String::from(
        "digraph teardown {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n",
    );
    let n = node_numbers(objects, view);
    for (k, id) in view.nodes.iter().enumerate() {
        out.push_str(&format!("  n{k} [label=\"{}\"];\n", crate::escape::dot(&id.of(objects)?.reference())));
    }
    for &r in &view.edges {
        let r = relation(rels, r)?;
        let style = match r.kind {
            RelKind::Owns | RelKind::Manages => "",
            RelKind::Contains | RelKind::Defines => ", style=dashed, color=gray50",
            RelKind::DestroyAfter
            | RelKind::Finalizer
            | RelKind::ComponentOrder
            | RelKind::Rule(_)
            | RelKind::Tool(_) => ", style=bold, color=\"#1f77b4\"",
            RelKind::Controller(_) => ", style=bold, color=\"#2ca02c\"",
        };
        let broken = if r.link == Link::Solid { "" } else { ", color=red, fontcolor=red" };
        let label = match r.link {
            Link::Solid => label(r.kind),
            other => format!("{} ({})", label(r.kind), other.as_str()),
        };
        let (from, to) = (number(&n, r.from)?, number(&n, r.to)?);
        out.push_str(&format!("  n{from} -> n{to} [label=\"{}\"{style}{broken}];\n", crate::escape::dot(&label)));
    }
    out.push_str("}\n");
    Ok(out)
}

/// An edge's label: its kind, and which controller's cascade it is.
fn label(kind: RelKind) -> String {
    match kind {
        RelKind::Controller(e) => format!("controller: {}", e.id()),
        k => k.as_str().to_string(),
    }
}

pub fn mermaid(objects: &[Object], rels: &[Relation], view: &GraphView) -> Result<String, Internal> {
    let mut out = String::from("flowchart LR\n");
    let n = node_numbers(objects, view);
    for (k, id) in view.nodes.iter().enumerate() {
        out.push_str(&format!("  n{k}[\"{}\"]\n", crate::escape::mermaid(&id.of(objects)?.reference())));
    }
    for &r in &view.edges {
        let r = relation(rels, r)?;
        let arrow = match r.kind {
            RelKind::Owns | RelKind::Manages => "-->",
            RelKind::Contains | RelKind::Defines => "-.->",
            RelKind::DestroyAfter
            | RelKind::Finalizer
            | RelKind::ComponentOrder
            | RelKind::Rule(_)
            | RelKind::Tool(_)
            | RelKind::Controller(_) => "==>",
        };
        let (from, to) = (number(&n, r.from)?, number(&n, r.to)?);
        out.push_str(&format!("  n{from} {arrow}|{}| n{to}\n", label(r.kind)));
    }
    Ok(out)
}
