//! teardown: offline graph analysis and deletion planning for resource
//! snapshots.
//!
//! The pipeline, one module per stage:
//!
//! ```text
//! input → dialect/* → model (+ resolve) → graph → analysis/* → plan/* → render/*
//! ```
//!
//! `load` runs the first four stages; `plan` makes a plan from them;
//! `commands` runs one command, from the `settings` its `cli` flags make.

pub mod analysis;
/// The map of the code: `ARCHITECTURE.md`, here so that its example of a
/// dialect compiles (a doctest).
#[doc = include_str!("../ARCHITECTURE.md")]
pub mod architecture {}
pub mod apply;
pub mod cli;
pub mod commands;
pub mod config;
pub mod controls;
pub mod dialect;
pub mod error;
pub mod escape;
pub mod exit;
pub mod findings;
pub mod graph;
pub mod input;
pub mod internal;
pub mod labels;
pub mod load;
pub mod model;
pub mod plan;
pub mod render;
pub mod select;
pub mod settings;
pub mod span;
pub mod timing;
pub mod usable;
