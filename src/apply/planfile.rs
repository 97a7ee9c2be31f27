//! A plan file as `apply` reads it: what `plan -o json` (or `-o yaml`)
//! wrote. Only the fields `apply` needs are read; the rest is for people.

use crate::escape::escape;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanFile {
    pub schema_version: u32,
    pub mode: String,
    /// `--dialect` of the plan, when one was forced.
    #[serde(default)]
    pub dialect: Option<String>,
    pub steps: Vec<Step>,
    #[serde(default)]
    pub orphaned: Vec<Resource>,
    /// The `plan` command that made it, without its inputs (`apply` makes
    /// the plan again from it); empty in plan files of older versions.
    #[serde(default)]
    pub command: Vec<String>,
    pub inputs: Vec<Input>,
}

#[derive(Debug, Deserialize)]
pub struct Step {
    pub resources: Vec<Resource>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The object's reference, under `plan::reference::KEY` (what
    /// `plan::reference::Ref` writes), read as a field of its own: serde
    /// reads a flattened one only once the whole record is read, and would
    /// place the error of a damaged `ref` at the record's end.
    #[serde(rename = "ref")]
    pub reference: String,
    /// Surviving Murano objects that refer to it: it stays, marked destroyed.
    #[serde(default)]
    pub referenced_by: Vec<String>,
    /// An orphaned object: the owner whose reference it loses.
    #[serde(default)]
    pub owner: Option<String>,
    #[serde(flatten)]
    pub place: Place,
    #[serde(default)]
    pub copies: Vec<Place>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Place {
    pub file: String,
    pub line: u32,
    pub offset: usize,
    pub length: usize,
}

#[derive(Debug, Deserialize)]
pub struct Input {
    pub path: String,
    pub sha256: String,
}

/// Read a plan file (JSON, or the YAML `plan -o yaml` writes).
pub fn parse(text: &str) -> Result<PlanFile, String> {
    if text.trim_start().starts_with('{') {
        serde_json::from_str(text).map_err(|e| e.to_string())
    } else {
        serde_yaml::from_str(text).map_err(|e| e.to_string())
    }
}

/// What differs between the plan file and the plan made again: the
/// objects one deletes or orphans and the other does not, else the first
/// line that differs.
pub fn differences(plan: &PlanFile, made: &[u8], text: &str) -> String {
    let made_text = String::from_utf8_lossy(made);
    if let Ok(again) = parse(&made_text) {
        let rows = |p: &PlanFile| -> Vec<(String, &'static str)> {
            let mut rows: Vec<(String, &'static str)> = p
                .steps
                .iter()
                .flat_map(|s| &s.resources)
                .map(|r| (r.reference.clone(), "deletes"))
                .chain(p.orphaned.iter().map(|r| (r.reference.clone(), "orphans")))
                .collect();
            rows.sort();
            rows
        };
        let (mine, theirs) = (rows(plan), rows(&again));
        if let Some((r, what)) = mine.iter().find(|x| !theirs.contains(x)) {
            return format!("it {what} {}, which that plan does not", escape(r));
        }
        if let Some((r, what)) = theirs.iter().find(|x| !mine.contains(x)) {
            return format!("that plan {what} {}, which it does not", escape(r));
        }
        let times = |rows: &[(String, &str)], row: &(String, &str)| rows.iter().filter(|x| *x == row).count();
        if let Some(row) = mine.iter().find(|row| times(&mine, row) > times(&theirs, row)) {
            return format!("it lists {} {} times", escape(&row.0), times(&mine, row));
        }
    }
    let line = text
        .lines()
        .zip(made_text.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| text.lines().count().min(made_text.lines().count()));
    format!("they differ from line {} of the plan file on", line + 1)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_resource_is_read_under_the_key_every_output_writes() {
        let text = format!(
            r#"{{"schemaVersion": 1, "mode": "all", "inputs": [], "steps": [{{"resources": [
                {{"{}": "Pod/shop/web", "file": "f.yaml", "line": 1, "offset": 0, "length": 3}}]}}]}}"#,
            crate::plan::reference::KEY
        );
        let plan = super::parse(&text);
        let read = plan.as_ref().ok().and_then(|p| p.steps.first()).and_then(|s| s.resources.first());
        assert_eq!(read.map(|r| r.reference.as_str()), Some("Pod/shop/web"), "{:?}", plan.as_ref().err());
    }
}
