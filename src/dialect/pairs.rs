//! The `pairs` dialect (`--dialect pairs`): whitespace-separated tokens read
//! two at a time, as by `tsort(1)`. `X Y` means X is destroyed before Y; `X X`
//! only says that X exists. Every distinct token is an object whose id is
//! the token. Tokens are interned once; relations are made directly, with no
//! per-object resolution, so a million pairs load in a fraction of a second.

use super::api::{Files, Out};
use crate::findings::{Finding, Rule};
use crate::input::{Shape, Sources, Unit};
use crate::model::{
    Collector, Fields, Identity, Link, ModelKeys, ObjId, Object, Origin, RelKind, Relation, StateKeys, Str,
    TrackingKeys,
};
use crate::span::{FileId, Span};
use hashbrown::hash_table::{Entry, HashTable};
use std::ops::Range;

pub struct Pairs;

pub static ORIGIN: Origin = Origin {
    dialect: "pairs",
    noun: "a token of tsort pairs",
    identity: Identity::Token,
    fields: Fields {
        name: &[""],
        owners: "",
        dependency: "",
        finalizers: "",
        namespace: "",
        kind: "",
        deleted: "",
        tracking: &TrackingKeys::NONE,
        states: &StateKeys::NONE,
        models: &ModelKeys::NONE,
    },
    collector: Collector::KUBERNETES,
};

impl super::api::Dialect for Pairs {
    fn origin(&self) -> &'static Origin {
        &ORIGIN
    }

    fn about(&self) -> &'static str {
        "whitespace-separated token pairs, as for tsort(1) (only with --dialect pairs)"
    }

    fn recognise(&self, _: &Unit) -> Option<bool> {
        Some(false)
    }

    fn read(&self, _: &Unit, _: &mut Out) {}

    fn read_files(&self, sources: &Sources, files: &[FileId]) -> Option<Files> {
        Some(load(sources, files))
    }

    fn forced_only(&self) -> bool {
        true
    }

    /// Plain text of two or more whitespace-separated tokens, none of them
    /// YAML or JSON punctuation: what a tsort input looks like.
    fn hint(&self, unit: &Unit) -> Option<&'static str> {
        if unit.shape() != Shape::Scalar {
            return None;
        }
        let text = unit.text();
        let tokens = text.split_ascii_whitespace().count();
        let plain = !text.contains([':', '{', '[', '"', '\'', '#']);
        (tokens >= 2 && plain)
            .then_some("this looks like tsort input (`X Y`: X is destroyed before Y); read it with `--dialect pairs`")
    }
}

/// The strings every token object shares (an empty group and kind): cloned,
/// not allocated, for each of a million objects.
#[derive(Clone)]
struct Empty(Str);

fn object(empty: &Empty, name: &str, span: Span) -> Object {
    Object {
        origin: &ORIGIN,
        group: empty.0.clone(),
        kind: empty.0.clone(),
        namespace: None,
        namespace_written: false,
        scope_known: false,
        versioned: false,
        name: name.into(),
        uid: None,
        labels: Box::default(),
        owners: Box::default(),
        deps: Box::default(),
        finalizers: Box::default(),
        deletion_timestamp: None,
        crd: None,
        member: None,
        tracking: None,
        facts: None,
        desired_state: Default::default(),
        span,
    }
}

/// The whitespace-separated tokens of `text[range]`, as byte ranges of `text`
/// (a range past the end of the text is cut there). Tokens end at ASCII
/// whitespace or the end: each is a `str` range of `text`.
fn tokens(text: &str, range: Range<usize>) -> impl Iterator<Item = Range<usize>> + '_ {
    let b = text.as_bytes();
    let b = b.get(..range.end).unwrap_or(b);
    let mut i = range.start;
    std::iter::from_fn(move || {
        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        if i >= b.len() {
            return None;
        }
        let start = i;
        while b.get(i).is_some_and(|c| !c.is_ascii_whitespace()) {
            i += 1;
        }
        Some(start..i)
    })
}

/// Read every file as pairs; tokens are the same objects across files.
///
/// The phases: the tokens of every file ([`all_tokens`]); each token
/// hashed, then interned in shards ([`intern`]); the objects numbered by
/// first occurrence ([`number`]); a relation for each pair
/// ([`pair_relations`]); an object where each is first written.
pub fn load(sources: &Sources, files: &[FileId]) -> Files {
    use rayon::prelude::*;
    use std::hash::{BuildHasher, BuildHasherDefault};
    let mut timer = crate::timing::Timer::start();
    let (toks, findings) = all_tokens(sources, files);
    timer.lap("  tokens");
    let text = |i: usize| -> &str {
        // A token is a `str` range of its file (see `tokens`).
        toks.get(i).and_then(|(f, r)| sources.get(*f).text.get(r.clone())).unwrap_or_default()
    };
    // Intern in shards, by hash, one per thread: each table is smaller (it
    // stays in cache) and the shards run in parallel. Each token is hashed
    // once; the shard is taken from the hash's top bits, the table uses it whole.
    let shards = rayon::current_num_threads().clamp(1, 16);
    let hasher = BuildHasherDefault::<rustc_hash::FxHasher>::default();
    let hashes: Vec<u64> = (0..toks.len()).into_par_iter().map(|i| hasher.hash_one(text(i))).collect();
    timer.lap("  hash");
    let interned = intern(&hashes, shards, text);
    timer.lap("  intern");
    let (firsts, global) = number(&interned);
    timer.lap("  number");
    // (What only numbering needed goes once the relations are made: the
    // objects are made next, and they are most of the memory.)
    let relations = pair_relations(&hashes, shards, &interned, &global, toks.len() / 2);
    drop((hashes, interned, global));
    timer.lap("  relations");
    // Where each object is first written; then the tokens go too.
    let spans: Vec<Span> =
        firsts.iter().filter_map(|&(t, _, _)| toks.get(t as usize)).map(|(f, r)| Span::new(*f, r.clone())).collect();
    drop((toks, firsts));
    let objects = spans
        .par_iter()
        .map_init(
            || Empty(Str::from("")),
            |empty, &span| object(empty, sources.get(span.file).text.get(span.range()).unwrap_or_default(), span),
        )
        .collect();
    timer.lap("  objects");
    Files { objects, relations, findings }
}

/// The tokens of all files, in order; a fatal TD001 for a file whose last
/// token has no partner (which is left out).
fn all_tokens(sources: &Sources, files: &[FileId]) -> (Vec<(FileId, Range<usize>)>, Vec<Finding>) {
    let mut toks: Vec<(FileId, Range<usize>)> = Vec::new();
    let mut findings = Vec::new();
    for &file in files {
        let text = &*sources.get(file).text;
        let before = toks.len();
        toks.extend(tokens(text, 0..text.len()).map(|r| (file, r)));
        if (toks.len() - before) % 2 == 1 {
            let (_, last) = toks.pop().unwrap_or((file, 0..0));
            findings.push(
                Finding::new(Rule::Td001, "odd number of tokens: the last one has no partner")
                    .at(Span::new(file, last), "no partner")
                    .help("pairs are read two tokens at a time, as by tsort: `X Y` means X goes before Y")
                    .fatal(),
            );
        }
    }
    (toks, findings)
}

/// The shard of `shards` a token of hash `h` is interned in.
fn shard(h: u64, shards: usize) -> usize {
    ((h >> 32) % shards as u64) as usize
}

/// One shard's tokens: the local id of each (in token order), and the
/// token that first named each local id.
type Interned = (Vec<u32>, Vec<u32>);

/// For each shard: the local id of each of its tokens (in token order),
/// and the token that first named each local id.
// No-panic lints (issue 19): `hashes` has one hash per token, and a local
// id is below its shard's `first.len()` (it is pushed as it is made).
#[allow(clippy::indexing_slicing, reason = "token numbers are below `hashes.len()`, local ids below `first.len()`")]
fn intern<'t>(hashes: &[u64], shards: usize, text: impl Fn(usize) -> &'t str + Sync) -> Vec<Interned> {
    use rayon::prelude::*;
    (0..shards)
        .into_par_iter()
        .map(|k| {
            let mut table: HashTable<(&str, u32)> = HashTable::new();
            let mut local = Vec::new();
            let mut first: Vec<u32> = Vec::new();
            for (i, &h) in hashes.iter().enumerate() {
                if shard(h, shards) != k {
                    continue;
                }
                let t = text(i);
                let next = first.len() as u32;
                let id = match table.entry(h, |&(s, _)| s == t, |&(_, l)| hashes[first[l as usize] as usize]) {
                    Entry::Occupied(e) => e.get().1,
                    Entry::Vacant(e) => {
                        e.insert((t, next));
                        first.push(i as u32);
                        next
                    }
                };
                local.push(id);
            }
            (local, first)
        })
        .collect()
}

/// Where an object is first named: (token, shard, local id).
type First = (u32, u32, u32);

/// The objects, numbered by first occurrence as the other dialects do:
/// (token, shard, local id) of each, in that order, and each shard's
/// local ids' numbers.
// No-panic lints (issue 19): `global[k]` is sized to shard k's `first`.
#[allow(clippy::indexing_slicing, reason = "shard numbers and local ids are below the sizes `global` was made with")]
fn number(interned: &[Interned]) -> (Vec<First>, Vec<Vec<u32>>) {
    use rayon::prelude::*;
    let mut firsts: Vec<First> = Vec::new();
    for (k, (_, first)) in interned.iter().enumerate() {
        firsts.extend(first.iter().enumerate().map(|(l, &t)| (t, k as u32, l as u32)));
    }
    firsts.par_sort_unstable();
    let mut global: Vec<Vec<u32>> = interned.iter().map(|(_, first)| vec![0; first.len()]).collect();
    for (g, &(_, k, l)) in firsts.iter().enumerate() {
        global[k as usize][l as usize] = g as u32;
    }
    (firsts, global)
}

/// Each token's object, in token order: X before Y in each of the `pairs`
/// pairs, Y destroyed after X.
// No-panic lints (issue 19): `cursor[k]` counts shard k's tokens in the
// order `local` was pushed, so it stays below `local.len()`.
#[allow(
    clippy::indexing_slicing,
    reason = "token, shard and local ids are below the sizes of the tables made for them"
)]
fn pair_relations(
    hashes: &[u64],
    shards: usize,
    interned: &[Interned],
    global: &[Vec<u32>],
    pairs: usize,
) -> Vec<Relation> {
    let mut cursor = vec![0usize; shards];
    let mut relations = Vec::with_capacity(pairs);
    let mut id_of = |i: usize| -> ObjId {
        let k = shard(hashes[i], shards);
        let l = interned[k].0[cursor[k]];
        cursor[k] += 1;
        ObjId(global[k][l as usize])
    };
    for pair in 0..pairs {
        let x = id_of(2 * pair);
        let y = id_of(2 * pair + 1);
        if x != y {
            let n = relations.len() as u32;
            relations.push(Relation {
                kind: RelKind::DestroyAfter,
                from: y,
                to: x,
                link: Link::Solid,
                declared_by: y,
                decl: n,
                controller: false,
            });
        }
    }
    relations
}

#[cfg(test)]
#[allow(clippy::string_slice, reason = "tests slice their own fixtures at the ranges the code under test found")]
mod tests {
    use super::*;

    #[test]
    fn splits_on_any_whitespace() {
        let t = "a b\n\tc  d\r\ne";
        let v: Vec<&str> = tokens(t, 0..t.len()).map(|r| &t[r]).collect();
        assert_eq!(v, ["a", "b", "c", "d", "e"]);
    }
}
