//! Helm's release records, read offline (`pkg/storage/driver/util.go`
//! `encodeRelease`/`decodeRelease`, `secrets.go`, `cfgmaps.go`): a Secret's
//! `data.release` is base64 (Kubernetes) of base64 (Helm) of gzip of the
//! release's JSON; a ConfigMap's holds Helm's base64 directly. Records
//! written before compression are JSON without the gzip magic. Untrusted
//! input: the inflated size is bounded, and a record that does not decode
//! is `None` (the caller refuses: the cascade would be unknown).

use crate::input::Node;
use serde::Deserialize;

/// The largest release JSON inflated (a chart's manifest is rarely past
/// a few MiB; a zip bomb stops here).
const MAX_INFLATED: usize = 64 << 20;

/// Standard base64, padding optional, whitespace skipped.
fn base64(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes().filter(|c| !c.is_ascii_whitespace()) {
        if c == b'=' {
            break;
        }
        acc = (acc << 6) | value(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// gzip (RFC 1952): the header skipped, the deflate stream inflated.
fn gunzip(data: &[u8]) -> Option<Vec<u8>> {
    let flags = *data.get(3)?;
    let mut at = 10usize;
    if flags & 4 != 0 {
        let len = usize::from(*data.get(at)?) | usize::from(*data.get(at + 1)?) << 8;
        at = at.checked_add(2 + len)?;
    }
    for bit in [8u8, 16] {
        if flags & bit != 0 {
            let end = data.get(at..)?.iter().position(|&b| b == 0)?;
            at = at.checked_add(end + 1)?;
        }
    }
    if flags & 2 != 0 {
        at = at.checked_add(2)?;
    }
    miniz_oxide::inflate::decompress_to_vec_with_limit(data.get(at..)?, MAX_INFLATED).ok()
}

/// Helm's encoding of a release (its base64 text) to the JSON.
fn decode_release(helm_base64: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(helm_base64).ok()?;
    let bytes = base64(text)?;
    match bytes.get(..3) {
        Some([0x1f, 0x8b, 0x08]) => gunzip(&bytes),
        _ => Some(bytes),
    }
}

/// What the uninstall reads of a release record.
#[derive(Deserialize)]
pub struct Release {
    #[serde(default)]
    pub namespace: String,
    #[serde(default)]
    pub manifest: String,
    #[serde(default)]
    pub info: Info,
}

#[derive(Deserialize, Default)]
pub struct Info {
    #[serde(default)]
    pub status: String,
}

/// A record's release, from its object's document (`secret`: a Secret,
/// whose data Kubernetes encodes once more).
pub fn release(doc: &Node, secret: bool) -> Option<Release> {
    let data = doc.get("data")?.get("release")?.as_str()?;
    let helm = match secret {
        true => base64(data)?,
        false => data.as_bytes().to_vec(),
    };
    serde_json::from_slice(&decode_release(&helm)?).ok()
}

/// One object of a manifest: apiVersion, kind, namespace (as written),
/// name, and its `helm.sh/resource-policy`.
pub struct ManifestObject {
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub policy: Option<String>,
}

/// The objects of a manifest (`releaseutil.SplitManifests`: documents
/// separated by `---` lines); a document that does not read is skipped,
/// as Helm skips what it cannot build. `None`: the YAML does not parse.
pub fn manifest(text: &str) -> Option<Vec<ManifestObject>> {
    let mut out = Vec::new();
    for doc in serde_yaml::Deserializer::from_str(text) {
        let Ok(v) = serde_yaml::Value::deserialize(doc) else { return None };
        let s = |v: Option<&serde_yaml::Value>| v.and_then(serde_yaml::Value::as_str).map(String::from);
        let meta = v.get("metadata");
        let (Some(api_version), Some(kind), Some(name)) =
            (s(v.get("apiVersion")), s(v.get("kind")), s(meta.and_then(|m| m.get("name"))))
        else {
            continue;
        };
        let namespace = s(meta.and_then(|m| m.get("namespace"))).filter(|n| !n.is_empty());
        let policy = s(meta.and_then(|m| m.get("annotations")).and_then(|a| a.get("helm.sh/resource-policy")));
        out.push(ManifestObject { api_version, kind, namespace, name, policy });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_reads_what_helm_writes() {
        assert_eq!(base64("aGVsbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64("aGVsbG8").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64("aGVs\nbG8="), Some(b"hello".to_vec()));
        assert!(base64("a*b").is_none());
    }

    #[test]
    fn json_without_gzip_is_read_as_is() {
        // `decodeRelease`: no magic bytes, the JSON directly.
        let helm =
            base64_encode(br#"{"name":"r","namespace":"n","version":3,"manifest":"","info":{"status":"deployed"}}"#);
        let r: Release = serde_json::from_slice(&decode_release(helm.as_bytes()).unwrap()).unwrap();
        assert_eq!((r.namespace.as_str(), r.info.status.as_str()), ("n", "deployed"));
    }

    #[test]
    fn manifests_split_into_objects() {
        let m = manifest("---\n# Source: a\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    helm.sh/resource-policy: keep\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: x}\n").unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].policy.as_deref(), Some("keep"));
        assert_eq!(m[1].namespace.as_deref(), Some("x"));
    }

    fn base64_encode(data: &[u8]) -> String {
        const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in data.chunks(3) {
            let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }
}
