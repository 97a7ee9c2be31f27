//! Renderers: pure functions from analysis results to bytes.

pub mod apply;
pub mod columns;
pub mod diagnostics;
pub mod explain;
pub mod findings;
pub mod glance;
pub mod graph;
pub mod json;
pub mod kubectl;
pub mod man;
pub mod names;
pub mod paint;
pub mod parts;
pub mod plan;
pub mod printable;
pub mod prose;
pub mod reconcile;
pub mod rule_docs;
pub mod simulate;
pub mod tool_order;
pub mod tracking;
pub mod yaml;

/// `1 object`, `2 objects`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
