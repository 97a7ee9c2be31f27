//! A plan file as `apply` reads it: what `plan -o json` (or `-o yaml`)
//! wrote. Only the fields `apply` needs are read; the rest is for people.

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
