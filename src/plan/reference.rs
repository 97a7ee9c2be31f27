//! An object as every output names it: the key `ref` and the object's
//! reference (`Kind[.group]/[namespace/]name`, or its id). Each record of
//! an output that is about one object (a plan's resource, reason, hook and
//! data loss; an explanation and its links; a graph's node; a simulation's
//! stalled object; a reconciled object; a tool's position; a tracking
//! revision) carries one, flattened (`#[serde(flatten)]`) where the key
//! stands; the writers that do without serde (`render::json`) write
//! [`KEY`]; `apply` reads a plan file's back through it.

use serde::{Deserialize, Serialize};

/// The key of an object's reference in JSON and YAML.
pub const KEY: &str = "ref";

/// An object's reference, under [`KEY`]: `&str` or `String` as the record
/// holds it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ref<S> {
    #[serde(rename = "ref")]
    pub reference: S,
}

impl<S> Ref<S> {
    pub fn new(reference: S) -> Self {
        Ref { reference }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_the_one_serde_writes_and_reads() {
        let text = serde_json::to_string(&Ref::new("Pod/shop/web")).unwrap_or_default();
        assert_eq!(text, format!("{{\"{KEY}\":\"Pod/shop/web\"}}"));
        let back: Result<Ref<String>, _> = serde_json::from_str(&text);
        assert_eq!(back.ok(), Some(Ref::new("Pod/shop/web".to_owned())));
    }

    #[test]
    fn flattened_it_stands_where_its_field_does() {
        #[derive(Serialize)]
        struct Record<'a> {
            kind: &'a str,
            #[serde(flatten)]
            object: Option<Ref<&'a str>>,
            name: &'a str,
        }
        let with = Record { kind: "Pod", object: Some(Ref::new("Pod/shop/web")), name: "web" };
        let without = Record { kind: "Pod", object: None, name: "web" };
        assert_eq!(
            serde_json::to_string_pretty(&with).unwrap_or_default(),
            "{\n  \"kind\": \"Pod\",\n  \"ref\": \"Pod/shop/web\",\n  \"name\": \"web\"\n}"
        );
        assert_eq!(serde_json::to_string(&without).unwrap_or_default(), "{\"kind\":\"Pod\",\"name\":\"web\"}");
        assert_eq!(serde_yaml::to_string(&with).unwrap_or_default(), "kind: Pod\nref: Pod/shop/web\nname: web\n");
    }
}
