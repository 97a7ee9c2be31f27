//! The floor `teardown check` is measured against (scripts/bench.sh): what
//! serde_json alone takes, on one core, to deserialize a `kind: List` into
//! structs that hold only kind and metadata (name, namespace, uid,
//! ownerReferences). Run: cargo run --release --example json_floor -- FILE

use serde::Deserialize;

/// The allocator teardown uses, so that the ratio measures code, not allocators.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Deserialize)]
#[allow(dead_code)]
struct OwnerRef {
    #[serde(rename = "apiVersion")]
    api_version: String,
    kind: String,
    name: String,
    uid: String,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Meta {
    name: String,
    namespace: Option<String>,
    uid: Option<String>,
    #[serde(rename = "ownerReferences", default)]
    owner_references: Vec<OwnerRef>,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Object {
    kind: String,
    metadata: Meta,
}

#[derive(Deserialize)]
struct List {
    items: Vec<Object>,
}

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: json_floor FILE.json");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    match serde_json::from_slice::<List>(&bytes) {
        Ok(list) => {
            let refs: usize = list.items.iter().map(|o| o.metadata.owner_references.len()).sum();
            println!("{} objects, {refs} owner references", list.items.len());
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    }
}
