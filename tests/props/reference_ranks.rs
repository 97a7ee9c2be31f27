//! Each object's rank in reference order (`analysis::order::reference_ranks`,
//! which compares fixed-width prefixes before whole strings) against the
//! plain sort of the references, over references that share long prefixes,
//! hold NUL bytes, multi-byte characters, and repeat.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use proptest::prelude::*;
use teardown::analysis::order::reference_ranks;

/// A reference: one of a few long shared stems (16, 31, 32 and 33 bytes:
/// either side of each prefix width) and a short tail.
fn reference() -> impl Strategy<Value = String> {
    let stems = prop::sample::select(vec![
        "",
        "ReplicaSet.apps/",                  // 16 bytes
        "ReplicaSet.apps/team-1000/web-0",   // 31
        "ReplicaSet.apps/team-1000/web-01",  // 32
        "ReplicaSet.apps/team-1000/web-012", // 33
    ]);
    (stems, "[a\u{0}\u{1}zé/-]{0,4}").prop_map(|(stem, tail)| format!("{stem}{tail}"))
}

proptest! {
    #![proptest_config(crate::props_gen::config(256))]

    #[test]
    fn ranks_are_the_order_of_the_strings(refs in prop::collection::vec(reference(), 0..40)) {
        let rank = reference_ranks(&refs);
        // The oracle: a stable sort of the strings, ties by index.
        let mut order: Vec<usize> = (0..refs.len()).collect();
        order.sort_by(|&a, &b| refs[a].cmp(&refs[b]).then(a.cmp(&b)));
        let mut want = vec![0u32; refs.len()];
        for (r, &i) in order.iter().enumerate() {
            want[i] = r as u32;
        }
        prop_assert_eq!(rank, want);
    }
}
