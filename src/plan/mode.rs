//! Which objects a plan starts from.

use crate::model::ObjId;

/// Which objects the plan starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `--delete SEL…`: these objects.
    Delete(Vec<ObjId>),
    /// `--prune NEW…`: these objects, absent from NEW.
    Prune(Vec<ObjId>),
    /// `--all`: everything in the input.
    All,
    /// `--gc`: what the garbage collector would delete now.
    Gc,
}

impl Mode {
    pub fn name(&self) -> &'static str {
        match self {
            Mode::Delete(_) => "delete",
            Mode::Prune(_) => "prune",
            Mode::All => "all",
            Mode::Gc => "gc",
        }
    }
}

/// `--cascade orphan` on a system that cannot orphan would plan what it
/// will never do: refused, naming the first target whose collector
/// deletes every dependent.
pub fn orphanable(objects: &[crate::model::Object], mode: &Mode) -> Result<(), super::refused::Refused> {
    let targets: &[ObjId] = match mode {
        Mode::Delete(t) | Mode::Prune(t) => t,
        _ => &[],
    };
    let targets = targets.iter().map(|t| t.of(objects)).collect::<Result<Vec<_>, _>>()?;
    match targets.into_iter().find(|o| !o.origin.collector.orphans) {
        Some(o) => Err(super::refused::Refused::Usage(format!(
            "--cascade orphan: {} is read by the {} dialect, whose collector cannot orphan dependents (it deletes every one)",
            o.reference(),
            o.origin.dialect
        ))),
        None => Ok(()),
    }
}
