//! The loading pipeline: read → split into documents → parse documents (in
//! parallel) → assign scopes → resolve references. Each step is its own
//! function so that new dialects plug into the parse step alone.

use crate::dialect::{self, DocOutput};
use crate::findings::{Finding, Rule};
use crate::model::resolve::{self, Resolved};
use crate::model::{Dialect, Object};
use crate::source::{self, FileId, Format, ReadProblem, Sources, Span};
use rayon::prelude::*;
use std::io::Read;
use std::ops::Range;
use std::path::PathBuf;

/// Everything known about the input once it is loaded.
pub struct Snapshot {
    pub sources: Sources,
    pub objects: Vec<Object>,
    pub resolved: Resolved,
    /// Findings about the input itself: unreadable files, syntax errors,
    /// unusable objects (TD001), empty files (TD013).
    pub findings: Vec<Finding>,
}

impl Snapshot {
    /// Did some input fail to read or parse? (exit code 2)
    pub fn has_fatal(&self) -> bool {
        self.findings.iter().any(|f| f.fatal)
    }
}

#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// `--dialect`: read every document with this dialect.
    pub dialect: Option<Dialect>,
}

pub fn load(inputs: &[PathBuf], options: &LoadOptions, stdin: &mut dyn Read) -> Snapshot {
    let (sources, problems) = source::read_inputs(inputs, stdin);
    let mut findings = Vec::new();
    let mut skip = vec![false; sources.files.len()];
    for problem in problems {
        findings.push(read_problem(&sources, &mut skip, problem));
    }

    let docs = split(&sources, &skip, &mut findings);
    let outputs: Vec<DocOutput> = docs
        .par_iter()
        .map(|(file, range)| dialect::parse_document(sources.get(*file), *file, range.clone(), options.dialect))
        .collect();

    let mut objects = Vec::with_capacity(outputs.iter().map(|o| o.objects.len()).sum());
    for out in outputs {
        objects.extend(out.objects);
        findings.extend(out.findings);
    }
    resolve::assign_scopes(&mut objects);
    let resolved = resolve::resolve(&objects);
    Snapshot { sources, objects, resolved, findings }
}

fn read_problem(sources: &Sources, skip: &mut [bool], problem: ReadProblem) -> Finding {
    match problem {
        ReadProblem::NotUtf8 { file, offset, .. } => {
            skip[file.0 as usize] = true;
            let text = &sources.get(file).text;
            let end = text[offset..].chars().next().map(|c| offset + c.len_utf8()).unwrap_or(offset);
            Finding::new(Rule::Td001, "file is not valid UTF-8")
                .at(Span::new(file, offset..end), "first invalid byte")
                .help("YAML and JSON inputs must be UTF-8")
                .fatal()
        }
        other => Finding::new(Rule::Td001, other.to_string()).in_file(other.name()).fatal(),
    }
}

/// The documents of every readable file, in file order.
fn split(sources: &Sources, skip: &[bool], findings: &mut Vec<Finding>) -> Vec<(FileId, Range<usize>)> {
    let mut docs = Vec::new();
    for id in sources.ids() {
        if skip[id.0 as usize] {
            continue;
        }
        let file = sources.get(id);
        let before = docs.len();
        match file.format {
            Format::Json => {
                if crate::split::first_content(&file.text, 0..file.text.len()).is_some() {
                    docs.push((id, 0..file.text.len()));
                }
            }
            Format::Yaml => docs.extend(crate::split::yaml_documents(&file.text).into_iter().map(|r| (id, r))),
        }
        if docs.len() == before {
            findings.push(
                Finding::new(Rule::Td013, format!("{} holds no objects", file.name))
                    .at(Span::new(id, 0..0), "empty")
                    .in_file(file.name.clone()),
            );
        }
    }
    docs
}
