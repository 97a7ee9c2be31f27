//! Renderers: pure functions from analysis results to bytes.

pub mod diagnostics;
pub mod findings;
pub mod graph;
