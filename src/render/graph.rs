//! `teardown graph` output: tree, JSON, YAML, DOT and Mermaid, from a
//! [`GraphView`]. (`-o names` and `-o refs`: `super::names`.)

use super::diagnostics::Style;
use super::paint::{kind_len, Paint};
use crate::analysis::view::{Direction, GraphView, TreeLine};
use crate::input::Sources;
use crate::model::{ControllerEdge, Link, Object, RelKind, Relation};
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

fn line_text(objects: &[Object], rels: &[Relation], view: &GraphView, line: &TreeLine, style: Style) -> String {
    let o = &objects[line.object.index()];
    let mut text = style.reference(&o.reference(), kind_len(o));
    let mut notes: Vec<String> = Vec::new();
    if let Some(m) = o.murano.as_deref() {
        text.push_str(&format!(" ({}", m.type_name));
        if let Some(name) = &m.name {
            text.push_str(&format!(" \"{name}\""));
        }
        text.push(')');
        if m.destroyed {
            notes.push("destroyed".into());
        }
        if m.section == crate::model::Section::Old {
            notes.push("only in ObjectsCopy".into());
        }
    }
    if let Some(note) = line.via.and_then(|r| via_note(view, &rels[r as usize])) {
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
    text
}

/// Deeper lines are not indented further (a chain of a million objects
/// would otherwise print gigabytes of indentation); they say their depth.
const MAX_INDENT: usize = 32;

/// The tree; with colour, kinds and notes are painted.
pub fn tree(objects: &[Object], rels: &[Relation], view: &GraphView, style: Style) -> String {
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
        out.push_str(&line_text(objects, rels, view, line, style));
        if line.depth > MAX_INDENT {
            out.push(' ');
            style.push(Paint::Quiet, &format!("[depth {}]", line.depth), &mut out);
        }
        out.push('\n');
        continues.truncate(line.depth);
        continues.resize(line.depth + 1, false);
        continues[line.depth] = !line.last;
    }
    out
}

#[derive(Serialize)]
struct NodeOut<'a> {
    #[serde(rename = "ref")]
    reference: String,
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
fn document<'a>(sources: &'a Sources, objects: &'a [Object], rels: &[Relation], view: &GraphView) -> GraphOut<'a> {
    let nodes = view
        .nodes
        .iter()
        .map(|id| {
            let o = &objects[id.index()];
            let file = sources.get(o.span.file);
            NodeOut {
                reference: o.reference(),
                kind: &o.kind,
                group: &o.group,
                namespace: o.namespace.as_deref(),
                name: &o.name,
                uid: o.uid.as_deref(),
                type_name: o.murano.as_deref().map(|m| &*m.type_name),
                destroyed: o.murano.as_deref().map(|m| m.destroyed),
                attributes: o.murano.as_deref().filter(|m| !m.attributes.is_empty()).map(|m| {
                    m.attributes
                        .iter()
                        .map(|(k, v)| (&**k, serde_json::from_str(v).unwrap_or(serde_json::Value::Null)))
                        .collect()
                }),
                file: &file.name,
                line: file.line_index(o.span.start) + 1,
            }
        })
        .collect();
    let edges = view
        .edges
        .iter()
        .map(|&r| {
            let r = &rels[r as usize];
            EdgeOut {
                from: objects[r.from.index()].reference(),
                to: objects[r.to.index()].reference(),
                kind: r.kind,
                link: r.link,
                controller: r.controller,
            }
        })
        .collect();
    let direction = match view.direction {
        Direction::Dependents => "dependents",
        Direction::Dependencies => "dependencies",
    };
    GraphOut { schema_version: 1, direction, nodes, edges }
}

pub fn json(sources: &Sources, objects: &[Object], rels: &[Relation], view: &GraphView) -> String {
    let mut s = serde_json::to_string_pretty(&document(sources, objects, rels, view)).unwrap_or_default();
    s.push('\n');
    s
}

/// The same document as [`json`], in YAML.
pub fn yaml(
    sources: &Sources,
    objects: &[Object],
    rels: &[Relation],
    view: &GraphView,
    out: &mut dyn Write,
) -> io::Result<()> {
    super::yaml::write(&document(sources, objects, rels, view), out)
}

fn dot_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// Graphviz: edges point from the object destroyed later to the one
/// destroyed first (owner → owned).
pub fn dot(objects: &[Object], rels: &[Relation], view: &GraphView) -> String {
    let mut out = String::from(
        "digraph teardown {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n",
    );
    for id in &view.nodes {
        out.push_str(&format!("  n{} [label=\"{}\"];\n", id.0, dot_escape(&objects[id.index()].reference())));
    }
    for &r in &view.edges {
        let r = &rels[r as usize];
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
        out.push_str(&format!("  n{} -> n{} [label=\"{}\"{style}{broken}];\n", r.from.0, r.to.0, dot_escape(&label)));
    }
    out.push_str("}\n");
    out
}

/// An edge's label: its kind, and which controller's cascade it is.
fn label(kind: RelKind) -> String {
    match kind {
        RelKind::Controller(e) => format!("controller: {}", e.id()),
        k => k.as_str().to_string(),
    }
}

fn mermaid_escape(s: &str) -> String {
    s.replace('"', "#quot;")
}

pub fn mermaid(objects: &[Object], rels: &[Relation], view: &GraphView) -> String {
    let mut out = String::from("flowchart LR\n");
    for id in &view.nodes {
        out.push_str(&format!("  n{}[\"{}\"]\n", id.0, mermaid_escape(&objects[id.index()].reference())));
    }
    for &r in &view.edges {
        let r = &rels[r as usize];
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
        out.push_str(&format!("  n{} {arrow}|{}| n{}\n", r.from.0, label(r.kind), r.to.0));
    }
    out
}
