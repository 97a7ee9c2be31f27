//! Analyses over a loaded snapshot. They compute data; they never print.

pub mod candidates;
pub mod cascade;
pub mod check;
pub mod data_loss;
pub mod duplicates;
pub mod gc;
pub mod managed;
pub mod order;
pub mod packages;
pub mod reconcile;
pub mod refs;
pub mod rules;
pub mod simulate;
pub mod skipped;
pub mod tool_order;
pub mod tools;
pub mod tracking;
pub mod view;
