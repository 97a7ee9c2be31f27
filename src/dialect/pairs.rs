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

/// Whether `c` is ASCII whitespace (as `u8::is_ascii_whitespace`): one
/// look-up, not five comparisons, for each byte of a million pairs.
fn white(c: u8) -> bool {
    const WHITE: [bool; 256] = {
        let mut t = [false; 256];
        let mut c = 0;
        while c < 256 {
            #[allow(clippy::indexing_slicing, reason = "c < 256")]
            {
                t[c] = (c as u8).is_ascii_whitespace();
            }
            c += 1;
        }
        t
    };
    #[allow(clippy::indexing_slicing, reason = "a byte is below 256")]
    WHITE[c as usize]
}

/// The whitespace-separated tokens of `text[range]`, as byte ranges of `text`
/// (a range past the end of the text is cut there). Tokens end at ASCII
/// whitespace or the end: each is a `str` range of `text`.
fn tokens(text: &str, range: Range<usize>) -> impl Iterator<Item = Range<usize>> + '_ {
    let b = text.as_bytes();
    let b = b.get(..range.end).unwrap_or(b);
    let mut i = range.start;
    std::iter::from_fn(move || {
        while white(*b.get(i)?) {
            i += 1;
        }
        let start = i;
        i += 1;
        while b.get(i).is_some_and(|&c| !white(c)) {
            i += 1;
        }
        Some(start..i)
    })
}

/// Read every file as pairs; tokens are the same objects across files.
///
/// The phases: the tokens of every file ([`all_tokens`]); each token
/// hashed, then interned in shards ([`intern`]); the objects numbered by
/// first occurrence and a relation made for each pair, in one pass
/// ([`number`]); an object where each is first written.
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
    let (firsts, relations) = number(&hashes, shards, &interned, toks.len() / 2);
    // (What only numbering needed goes before the objects are made: they
    // are most of the memory.)
    drop((hashes, interned));
    timer.lap("  relations");
    // Where each object is first written; then the tokens go too.
    let spans: Vec<Span> =
        firsts.iter().filter_map(|&t| toks.get(t as usize)).map(|(f, r)| Span::new(*f, r.clone())).collect();
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
    let pieces: Vec<(FileId, Vec<Vec<Range<usize>>>)> =
        files.iter().map(|&file| (file, file_tokens(&sources.get(file).text))).collect();
    // One vector of the size it ends with: no copy as it grows.
    let total = pieces.iter().flat_map(|(_, parts)| parts).map(Vec::len).sum();
    let mut toks: Vec<(FileId, Range<usize>)> = Vec::with_capacity(total);
    let mut findings = Vec::new();
    for (file, parts) in pieces {
        let before = toks.len();
        toks.extend(parts.into_iter().flatten().map(|r| (file, r)));
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

/// The tokens of `text`, in order, read in parallel: the text is cut into
/// pieces of about a megabyte, each ending at whitespace (or the end), so
/// that no token is cut; each piece's tokens are a vector.
fn file_tokens(text: &str) -> Vec<Vec<Range<usize>>> {
    use rayon::prelude::*;
    const PIECE: usize = 1 << 20;
    let b = text.as_bytes();
    let mut ends = vec![0];
    let mut at = PIECE;
    while at < b.len() {
        let end = at + b.get(at..).map_or(0, |rest| rest.iter().take_while(|c| !c.is_ascii_whitespace()).count());
        ends.push(end);
        at = end + PIECE;
    }
    ends.push(b.len());
    ends.par_windows(2)
        .map(|w| match *w {
            [start, end] => tokens(text, start..end).collect(),
            _ => Vec::new(),
        })
        .collect()
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
// No-panic lints (issue 19): `hashes` has one hash per token, a shard
// number is below `shards` (`start` has one more), `at[k]` stays below
// `start[k + 1]` (it counts shard k's tokens), and a local id is below its
// shard's `first.len()` (it is pushed as it is made).
#[allow(
    clippy::indexing_slicing,
    reason = "token numbers are below `hashes.len()`, shards below `shards`, local ids below `first.len()`"
)]
fn intern<'t>(hashes: &[u64], shards: usize, text: impl Fn(usize) -> &'t str + Sync) -> Vec<Interned> {
    use rayon::prelude::*;
    // Each shard's tokens, in token order, in one vector: counted, then
    // placed (two passes over the hashes, not one a shard).
    let mut start = vec![0usize; shards + 1];
    for &h in hashes {
        start[shard(h, shards) + 1] += 1;
    }
    for k in 0..shards {
        start[k + 1] += start[k];
    }
    let mut at = start.clone();
    let mut order = vec![0u32; hashes.len()];
    for (i, &h) in hashes.iter().enumerate() {
        let k = shard(h, shards);
        order[at[k]] = i as u32;
        at[k] += 1;
    }
    drop(at);
    start
        .par_windows(2)
        .map(|w| {
            let mine = match *w {
                [from, to] => &order[from..to],
                _ => &[],
            };
            // Sized for a quarter of the shard's tokens distinct (a token is
            // named twice or more where it has an edge either side): fewer
            // rehashes, each a pass over the table.
            let mut table: HashTable<(&str, u32)> = HashTable::with_capacity(mine.len() / 4);
            let mut local = Vec::with_capacity(mine.len());
            let mut first: Vec<u32> = Vec::with_capacity(mine.len() / 4);
            for &i in mine {
                let h = hashes[i as usize];
                let t = text(i as usize);
                let next = first.len() as u32;
                let id = match table.entry(h, |&(s, _)| s == t, |&(_, l)| hashes[first[l as usize] as usize]) {
                    Entry::Occupied(e) => e.get().1,
                    Entry::Vacant(e) => {
                        e.insert((t, next));
                        first.push(i);
                        next
                    }
                };
                local.push(id);
            }
            (local, first)
        })
        .collect()
}

/// The objects, numbered by first occurrence as the other dialects do (the
/// token that first names each, in that order), and each token's object, in
/// token order: X before Y in each of the `pairs` pairs, Y destroyed after
/// X. One pass over the tokens: each shard's local ids are taken in the
/// order [`intern`] made them, and a local id's number is given the first
/// time it is met.
// No-panic lints (issue 19): `cursor[k]` counts shard k's tokens in the
// order `local` was pushed, so it stays below `local.len()`; `global[k]` is
// sized to shard k's `first`, which local ids are below.
#[allow(
    clippy::indexing_slicing,
    reason = "token, shard and local ids are below the sizes of the tables made for them"
)]
fn number(hashes: &[u64], shards: usize, interned: &[Interned], pairs: usize) -> (Vec<u32>, Vec<Relation>) {
    const NONE: u32 = u32::MAX;
    let mut global: Vec<Vec<u32>> = interned.iter().map(|(_, first)| vec![NONE; first.len()]).collect();
    let mut firsts: Vec<u32> = Vec::with_capacity(interned.iter().map(|(_, first)| first.len()).sum());
    let mut cursor = vec![0usize; shards];
    let mut relations = Vec::with_capacity(pairs);
    let mut id_of = |i: usize| -> ObjId {
        let k = shard(hashes[i], shards);
        let l = interned[k].0[cursor[k]];
        cursor[k] += 1;
        let g = &mut global[k][l as usize];
        if *g == NONE {
            *g = firsts.len() as u32;
            firsts.push(i as u32);
        }
        ObjId(*g)
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
    (firsts, relations)
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

    #[test]
    fn pieces_cut_no_token() {
        // Over two pieces of text, tokens of every length up to 40 bytes
        // (some multi-byte) and runs of every kind of whitespace: read in
        // pieces, the tokens are those of one pass, in order.
        let mut t = String::new();
        let mut n = 0usize;
        while t.len() < 5 << 19 {
            n += 1;
            t.push_str(&"x".repeat(n % 41));
            t.push_str(["é", "", "-", "ab"][n % 4]);
            t.push_str([" ", "\n", "\t\r\n", "\x0c", "  "][n % 5]);
        }
        let whole: Vec<Range<usize>> = tokens(&t, 0..t.len()).collect();
        let pieces = file_tokens(&t);
        assert!(pieces.len() >= 3);
        assert_eq!(pieces.into_iter().flatten().collect::<Vec<_>>(), whole);
        assert!(whole.len() > 100_000);
    }
}
