//! Interning: the strings that repeat across objects (kinds, groups,
//! namespaces, label keys and values, finalizers) are stored once. At a
//! million objects this saves hundreds of megabytes. Shared by all parsing
//! threads, sharded to keep them out of each other's way.

use rustc_hash::FxHashSet;
use std::hash::BuildHasher;
use std::sync::{LazyLock, Mutex};

/// Strings of the model. Shared (`Arc`) so that repeated ones are stored
/// once (see `intern`).
pub type Str = std::sync::Arc<str>;

const SHARDS: usize = 32;

static TABLE: LazyLock<[Mutex<FxHashSet<Str>>; SHARDS]> =
    LazyLock::new(|| std::array::from_fn(|_| Mutex::new(FxHashSet::default())));

/// The one shared copy of `s`.
pub fn intern(s: &str) -> Str {
    if s.is_empty() {
        static EMPTY: LazyLock<Str> = LazyLock::new(|| Str::from(""));
        return EMPTY.clone();
    }
    let h = rustc_hash::FxBuildHasher.hash_one(s);
    // Most strings repeat from one object to the next (a kind, a
    // namespace, a label): this thread's recent ones answer without a lock.
    let slot = (h as usize) % RECENT_SLOTS;
    let recent = RECENT.with_borrow(|r| r.get(slot).and_then(|e| e.as_ref().filter(|e| &***e == s).cloned()));
    if let Some(found) = recent {
        return found;
    }
    let found = interned(s, h);
    RECENT.with_borrow_mut(|r| {
        if let Some(e) = r.get_mut(slot) {
            *e = Some(found.clone());
        }
    });
    found
}

/// How many strings each thread keeps of those it interned last (by hash).
const RECENT_SLOTS: usize = 64;

thread_local! {
    static RECENT: std::cell::RefCell<[Option<Str>; RECENT_SLOTS]> =
        const { std::cell::RefCell::new([const { None }; RECENT_SLOTS]) };
}

/// The one shared copy of `s`, whose hash is `h`, from the shared table.
fn interned(s: &str, h: u64) -> Str {
    // The hash's top five bits pick one of the 32 shards (`get` is always
    // `Some`; a string not interned would still be the right string).
    let Some(shard) = TABLE.get((h >> 59) as usize % SHARDS) else { return Str::from(s) };
    let mut set = shard.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(found) = set.get(s) {
        return found.clone();
    }
    let new = Str::from(s);
    set.insert(new.clone());
    new
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_copy() {
        let a = super::intern("apps");
        let b = super::intern(&String::from("apps"));
        assert!(std::sync::Arc::ptr_eq(&a, &b));
        assert_eq!(&*super::intern(""), "");
    }
}
