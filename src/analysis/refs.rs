//! Every object's reference (`Kind[.group]/[namespace/]name`, or its id),
//! made once and held packed: each run of objects' references in one
//! string, with where each ends. A million objects' references take their
//! bytes and four more each, not a `String` (24 bytes and an allocation)
//! apiece (issue 40).

use crate::internal::Internal;
use crate::model::{ObjId, Object};
use rayon::prelude::*;

/// How many objects' references one run holds.
const RUN: usize = 4096;

/// The references of a run of objects.
#[derive(Clone, Debug)]
enum Run {
    /// One string, and the end of each reference in it.
    Packed { text: String, ends: Vec<u32> },
    /// A run whose references pass 4 GiB together (never in practice):
    /// one string each.
    Loose(Vec<String>),
}

impl Run {
    /// One run's references, packed; `bound`: at least their length
    /// together (the text is made that large at once, not grown).
    /// `len` references, each written by `write(k, text)` at the end of
    /// the text (no string of its own).
    fn pack(len: usize, bound: usize, write: impl Fn(usize, &mut String)) -> Run {
        let mut text = String::with_capacity(bound);
        let mut ends = Vec::with_capacity(len);
        for k in 0..len {
            write(k, &mut text);
            match u32::try_from(text.len()) {
                Ok(end) => ends.push(end),
                Err(_) => {
                    let one = |k| {
                        let mut r = String::new();
                        write(k, &mut r);
                        r
                    };
                    return Run::Loose((0..len).map(one).collect());
                }
            }
        }
        text.shrink_to_fit();
        Run::Packed { text, ends }
    }

    fn get(&self, k: usize) -> Option<&str> {
        match self {
            Run::Packed { text, ends } => {
                let start = match k.checked_sub(1) {
                    Some(before) => *ends.get(before)? as usize,
                    None => 0,
                };
                text.get(start..*ends.get(k)? as usize)
            }
            Run::Loose(refs) => refs.get(k).map(String::as_str),
        }
    }
}

/// Every object's reference, by object index.
#[derive(Clone, Debug, Default)]
pub struct Refs {
    runs: Vec<Run>,
    len: usize,
}

impl Refs {
    /// The references of `objects`, made in parallel.
    pub fn of(objects: &[Object]) -> Refs {
        let runs = objects
            .par_chunks(RUN)
            .map(|run| {
                // `Kind[.group]/[namespace/]name`, or the id (the name).
                let bound = run
                    .iter()
                    .map(|o| {
                        o.kind.len() + o.group.len() + o.namespace.as_deref().map_or(0, str::len) + o.name.len() + 3
                    })
                    .sum();
                Run::pack(run.len(), bound, |k, text| {
                    if let Some(o) = run.get(k) {
                        o.write_reference(text);
                    }
                })
            })
            .collect();
        Refs { runs, len: objects.len() }
    }

    /// References given one by one (tests, small tables).
    pub fn from_strings<S: AsRef<str>>(refs: &[S]) -> Refs {
        let bound = |run: &[S]| run.iter().map(|r| r.as_ref().len()).sum();
        let pack = |run: &[S]| {
            Run::pack(run.len(), bound(run), |k, text| text.push_str(run.get(k).map_or("", |r| r.as_ref())))
        };
        Refs { runs: refs.chunks(RUN).map(pack).collect(), len: refs.len() }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The reference of the object at `index`.
    pub fn get(&self, index: usize) -> Option<&str> {
        self.runs.get(index / RUN)?.get(index % RUN)
    }

    /// The reference of `id`: an [`Internal`] error when it names no object.
    pub fn at(&self, id: ObjId) -> Result<&str, Internal> {
        self.get(id.index()).ok_or(Internal { what: "object", index: id.index(), len: self.len })
    }

    /// The reference of `id`, or `""` when it names no object.
    pub fn name(&self, id: ObjId) -> &str {
        self.get(id.index()).unwrap_or_default()
    }

    /// Every reference, in object order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len).map(|i| self.get(i).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reference_comes_back_as_given() {
        let refs: Vec<String> = (0..3 * RUN + 5).map(|i| format!("Pod/ns-{}/p{}", i % 7, "x".repeat(i % 13))).collect();
        let packed = Refs::from_strings(&refs);
        assert_eq!(packed.len(), refs.len());
        for (i, r) in refs.iter().enumerate() {
            assert_eq!(packed.get(i), Some(r.as_str()));
        }
        assert_eq!(packed.get(refs.len()), None);
        assert!(packed.at(ObjId(refs.len() as u32)).is_err());
        assert_eq!(packed.name(ObjId(refs.len() as u32)), "");
        assert!(packed.iter().eq(refs.iter().map(String::as_str)));
        assert!(Refs::from_strings::<String>(&[]).is_empty());
    }

    #[test]
    fn empty_references_are_kept_apart() {
        let refs = ["", "a", "", "", "bc", ""];
        let packed = Refs::from_strings(&refs);
        assert!(packed.iter().eq(refs.iter().copied()));
    }
}
