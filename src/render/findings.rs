//! Findings as JSON / YAML, SARIF 2.1.0 and GitHub workflow annotations.
//! Each format has its own output types; they are filled from findings and
//! serialised, nothing else.

use crate::analysis::check::{Counts, RuleCount};
use crate::findings::{Finding, Label, Omitted, Rule, Severity};
use crate::input::Sources;
use serde::Serialize;

#[derive(Serialize)]
struct Position<'a> {
    file: &'a str,
    line: usize,
    column: usize,
    #[serde(rename = "endLine")]
    end_line: usize,
    #[serde(rename = "endColumn")]
    end_column: usize,
}

fn position<'a>(sources: &'a Sources, label: &Label) -> Position<'a> {
    let file = sources.get(label.span.file);
    let start = file.line_col(label.span.start);
    let end = file.line_col(label.span.end);
    Position { file: &file.name, line: start.line, column: start.column, end_line: end.line, end_column: end.column }
}

#[derive(Serialize)]
struct LabelOut<'a> {
    #[serde(flatten)]
    position: Position<'a>,
    text: &'a str,
}

#[derive(Serialize)]
struct FindingOut<'a> {
    rule: &'static str,
    name: &'static str,
    severity: &'static str,
    message: &'a str,
    file: Option<&'a str>,
    line: Option<usize>,
    column: Option<usize>,
    #[serde(rename = "endLine")]
    end_line: Option<usize>,
    #[serde(rename = "endColumn")]
    end_column: Option<usize>,
    refs: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<&'a str>,
    labels: Vec<LabelOut<'a>>,
}

#[derive(Serialize)]
struct CheckOut<'a> {
    #[serde(rename = "schemaVersion")]
    schema_version: u32,
    findings: Vec<FindingOut<'a>>,
    /// Findings past `findings::LISTED_PER_RULE` of a rule, counted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    omitted: Vec<OmittedOut>,
    summary: &'a Counts,
}

/// Findings of a rule and severity not listed.
#[derive(Serialize)]
struct OmittedOut {
    rule: &'static str,
    name: &'static str,
    severity: &'static str,
    count: usize,
}

fn omitted_out(omitted: &Omitted) -> Vec<OmittedOut> {
    omitted
        .groups()
        .into_iter()
        .map(|(rule, severity, count)| OmittedOut {
            rule: rule.id(),
            name: rule.name(),
            severity: severity.as_str(),
            count,
        })
        .collect()
}

fn finding_out<'a>(sources: &'a Sources, f: &'a Finding) -> FindingOut<'a> {
    let pos = f.primary.as_ref().map(|p| position(sources, p));
    let mut labels = Vec::new();
    for l in f.primary.iter().chain(&f.secondary) {
        labels.push(LabelOut { position: position(sources, l), text: &l.text });
    }
    FindingOut {
        rule: f.rule.id(),
        name: f.rule.name(),
        severity: f.severity.as_str(),
        message: &f.message,
        file: pos.as_ref().map(|p| p.file).or(f.file.as_deref()),
        line: pos.as_ref().map(|p| p.line),
        column: pos.as_ref().map(|p| p.column),
        end_line: pos.as_ref().map(|p| p.end_line),
        end_column: pos.as_ref().map(|p| p.end_column),
        refs: &f.refs,
        help: f.help.as_deref(),
        labels,
    }
}

fn check_out<'a>(sources: &'a Sources, findings: &'a [Finding], omitted: &Omitted, counts: &'a Counts) -> CheckOut<'a> {
    CheckOut {
        schema_version: 1,
        findings: findings.iter().map(|f| finding_out(sources, f)).collect(),
        omitted: omitted_out(omitted),
        summary: counts,
    }
}

pub fn json(sources: &Sources, findings: &[Finding], omitted: &Omitted, counts: &Counts) -> String {
    let mut s = serde_json::to_string_pretty(&check_out(sources, findings, omitted, counts)).unwrap_or_default();
    s.push('\n');
    s
}

pub fn yaml(sources: &Sources, findings: &[Finding], omitted: &Omitted, counts: &Counts) -> String {
    serde_yaml::to_string(&check_out(sources, findings, omitted, counts)).unwrap_or_default()
}

// ---------------------------------------------------------------- SARIF 2.1.0

#[derive(Serialize)]
struct Sarif<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<SarifRun<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRun<'a> {
    tool: SarifTool,
    results: Vec<SarifResult<'a>>,
    column_kind: &'static str,
    /// The findings not listed, counted (a property bag, SARIF §3.8).
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<SarifProperties>,
}

#[derive(Serialize)]
struct SarifProperties {
    omitted: Vec<OmittedOut>,
}

#[derive(Serialize)]
struct SarifTool {
    driver: SarifDriver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifDriver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    /// The repository (Cargo.toml's `repository`), when it names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    information_uri: Option<&'static str>,
    rules: Vec<SarifRule>,
}

/// A rule as code scanning explains it: its page's parts (`rule_docs`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRule {
    id: &'static str,
    name: &'static str,
    short_description: SarifText<'static>,
    full_description: SarifOwnedText,
    help: SarifHelp,
    /// The rule's page in the repository, when Cargo.toml names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    help_uri: Option<String>,
    default_configuration: SarifConfig,
}

#[derive(Serialize)]
struct SarifOwnedText {
    text: String,
}

#[derive(Serialize)]
struct SarifHelp {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
struct SarifConfig {
    level: &'static str,
}

#[derive(Serialize)]
struct SarifText<'a> {
    text: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: SarifText<'a>,
    locations: Vec<SarifLocation<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<SarifLocation<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: SarifPhysical,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<SarifText<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifPhysical {
    artifact_location: SarifArtifact,
    region: SarifRegion,
}

#[derive(Serialize)]
struct SarifArtifact {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRegion {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// A path as a relative URI reference: forward slashes, no `./`, spaces and
/// other reserved characters percent-encoded.
fn uri(name: &str) -> String {
    let name = name.replace('\\', "/");
    let name = name.strip_prefix("./").unwrap_or(&name);
    let name = if name == "<stdin>" { "stdin" } else { name };
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn physical(sources: &Sources, l: &Label) -> SarifPhysical {
    let p = position(sources, l);
    // SARIF regions end after the last character; an empty span covers one.
    let (end_line, end_column) = if (p.end_line, p.end_column) == (p.line, p.column) {
        (p.line, p.column + 1)
    } else {
        (p.end_line, p.end_column)
    };
    SarifPhysical {
        artifact_location: SarifArtifact { uri: uri(p.file) },
        region: SarifRegion { start_line: p.line, start_column: p.column, end_line, end_column },
    }
}

pub fn sarif(sources: &Sources, findings: &[Finding], omitted: &Omitted) -> String {
    sarif_of(sources, findings, omitted, super::rule_docs::repository())
}

/// SARIF with the rules' pages in `repository` (`None`: no URLs).
pub fn sarif_of(
    sources: &Sources,
    findings: &[Finding],
    omitted: &Omitted,
    repository: Option<&'static str>,
) -> String {
    let rules = Rule::ALL
        .iter()
        .map(|&r| {
            let help = super::rule_docs::help(r, repository);
            SarifRule {
                id: r.id(),
                name: r.name(),
                short_description: SarifText { text: r.description() },
                full_description: SarifOwnedText { text: help.full },
                help: SarifHelp { text: help.text, markdown: help.markdown },
                help_uri: super::rule_docs::page_url(r, repository),
                default_configuration: SarifConfig { level: level(r.default_severity()) },
            }
        })
        .collect();
    let results = findings
        .iter()
        .map(|f| {
            let locations = match (&f.primary, &f.file) {
                (Some(p), _) => {
                    vec![SarifLocation { id: None, physical_location: physical(sources, p), message: None }]
                }
                (None, Some(file)) => vec![SarifLocation {
                    id: None,
                    physical_location: SarifPhysical {
                        artifact_location: SarifArtifact { uri: uri(file) },
                        region: SarifRegion { start_line: 1, start_column: 1, end_line: 1, end_column: 2 },
                    },
                    message: None,
                }],
                (None, None) => Vec::new(),
            };
            let related_locations = f
                .secondary
                .iter()
                .enumerate()
                .map(|(i, l)| SarifLocation {
                    id: Some(i + 1),
                    physical_location: physical(sources, l),
                    message: Some(SarifText { text: &l.text }),
                })
                .collect();
            SarifResult {
                rule_id: f.rule.id(),
                rule_index: Rule::ALL.iter().position(|r| *r == f.rule).unwrap_or(0),
                level: level(f.severity),
                message: SarifText { text: &f.message },
                locations,
                related_locations,
            }
        })
        .collect();
    let doc = Sarif {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: vec![SarifRun {
            tool: SarifTool {
                driver: SarifDriver {
                    name: "teardown",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: repository,
                    rules,
                },
            },
            results,
            column_kind: "unicodeCodePoints",
            properties: (!omitted.is_empty()).then(|| SarifProperties { omitted: omitted_out(omitted) }),
        }],
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

// ------------------------------------------------- GitHub workflow commands

/// A workflow command's data: escaped as text from the input is
/// (`crate::escape`), then as GitHub reads it.
fn escape_data(s: &str) -> String {
    crate::escape::escape(s).replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// `::error file=…,line=…,col=…,title=…::message` per finding, then a
/// notice for each rule with findings not listed.
pub fn github(sources: &Sources, findings: &[Finding], omitted: &Omitted) -> String {
    let mut out = String::new();
    for f in findings {
        let command = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "notice",
        };
        let mut props = Vec::new();
        if let Some(p) = &f.primary {
            let p = position(sources, p);
            props.push(format!("file={}", escape_property(p.file)));
            props.push(format!("line={}", p.line));
            props.push(format!("col={}", p.column));
            props.push(format!("endLine={}", p.end_line));
            props.push(format!("endColumn={}", p.end_column));
        } else if let Some(file) = &f.file {
            props.push(format!("file={}", escape_property(file)));
        }
        props.push(format!("title={}", escape_property(&format!("{} {}", f.rule.id(), f.rule.name()))));
        let mut message = escape_data(&f.message);
        if let Some(help) = &f.help {
            message.push_str("%0Ahelp: ");
            message.push_str(&escape_data(help));
        }
        out.push_str(&format!("::{command} {}::{message}\n", props.join(",")));
    }
    for line in omitted.lines() {
        out.push_str(&format!("::notice title={}::{}\n", escape_property("teardown"), escape_data(&line)));
    }
    out
}

#[derive(Serialize)]
struct RuleCountOut {
    rule: &'static str,
    name: &'static str,
    severity: &'static str,
    count: usize,
}

#[derive(Serialize)]
struct StatisticsOut<'a> {
    #[serde(rename = "schemaVersion")]
    schema_version: u32,
    statistics: Vec<RuleCountOut>,
    summary: &'a Counts,
}

/// `check --statistics` as a Markdown table (pastes into a pull request
/// or a CI job summary as it is), then the summary line.
pub fn statistics_table(stats: &[RuleCount], counts: Option<&Counts>) -> String {
    use comfy_table::{presets, CellAlignment, Table};
    let mut out = String::new();
    if !stats.is_empty() {
        let mut table = Table::new();
        table.load_style(presets::ASCII_MARKDOWN).set_header(["COUNT", "RULE", "SEVERITY", "NAME"]);
        for s in stats {
            table.add_row([
                s.count.to_string(),
                s.rule.id().to_string(),
                s.severity.as_str().to_string(),
                s.rule.name().to_string(),
            ]);
        }
        if let Some(column) = table.column_mut(0) {
            column.set_cell_alignment(CellAlignment::Right);
        }
        out.push_str(&table.trim_fmt());
        out.push_str("\n\n");
    }
    if let Some(counts) = counts {
        out.push_str(&super::diagnostics::summary(counts));
        out.push('\n');
    }
    out
}

/// `check --statistics -o json`.
pub fn statistics_json(stats: &[RuleCount], counts: &Counts) -> String {
    let out = StatisticsOut {
        schema_version: 1,
        statistics: stats
            .iter()
            .map(|s| RuleCountOut {
                rule: s.rule.id(),
                name: s.rule.name(),
                severity: s.severity.as_str(),
                count: s.count,
            })
            .collect(),
        summary: counts,
    };
    let mut text = serde_json::to_string_pretty(&out).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With a repository (Cargo.toml names none yet), every rule's page
    /// URL and the driver's are absolute URIs the SARIF 2.1.0 schema takes.
    #[test]
    fn sarif_with_a_repository_names_each_rules_page() {
        let repository = "https://example.com/platform/teardown";
        let text = sarif_of(&Sources::default(), &[], &Omitted::default(), Some(repository));
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/sarif/sarif-schema-2.1.0.json")).unwrap_or_default();
        let Ok(validator) = jsonschema::options().should_validate_formats(true).build(&schema) else {
            panic!("the SARIF schema does not build")
        };
        let errors: Vec<String> =
            validator.iter_errors(&doc).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{errors:#?}");
        let driver = &doc["runs"][0]["tool"]["driver"];
        assert_eq!(driver["informationUri"], repository);
        for (rule, r) in Rule::ALL.iter().zip(driver["rules"].as_array().into_iter().flatten()) {
            assert_eq!(r["helpUri"], format!("{repository}/blob/HEAD/docs/rules/{}.md", rule.id()));
            let markdown = r["help"]["markdown"].as_str().unwrap_or_default();
            assert!(!markdown.contains("](.") && !markdown.contains("](TD"), "{rule}: {markdown}");
        }
        assert!(text.contains(&format!("({repository}/blob/HEAD/docs/configuration.md)")), "links made absolute");
    }
}
