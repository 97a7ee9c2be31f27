//! Analyses over a loaded snapshot. They compute data; they never print.

pub mod check;
pub mod cycles;
pub mod view;
