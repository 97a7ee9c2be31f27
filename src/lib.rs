//! teardown: offline graph analysis and deletion planning for resource
//! snapshots.
//!
//! The pipeline, one module per stage:
//!
//! ```text
//! input → dialect/* → model (+ resolve) → graph → analysis/* → render/*
//! ```
//!
//! `load` runs the first four stages; `app` runs a command; `cli` is the
//! command line.

pub mod analysis;
pub mod app;
pub mod cli;
pub mod dialect;
pub mod error;
pub mod findings;
pub mod graph;
pub mod input;
pub mod load;
pub mod model;
pub mod plan;
pub mod render;
pub mod select;
pub mod timing;
