//! `check --packages`: the reports of packages checked each as a snapshot
//! of its own, made into one (issue 38): their files side by side, each
//! finding pointing into its own package's files, the counts added up.

use super::check::CheckReport;
use crate::findings::{self, Label};
use crate::input::Sources;
use crate::span::FileId;

/// One report from the packages' reports, in package order, and the
/// sources its findings point into.
pub fn merge(parts: Vec<(Sources, CheckReport)>) -> (Sources, CheckReport) {
    let mut sources = Sources::default();
    let mut out = CheckReport {
        findings: Vec::new(),
        omitted: findings::Omitted::default(),
        counts: super::check::Counts::default(),
        fatal: false,
    };
    for (part, report) in parts {
        let shift = sources.files.len() as u32;
        sources.files.extend(part.files.iter().cloned());
        let moved = |l: &mut Label| l.span.file = FileId(l.span.file.0 + shift);
        for mut f in report.findings {
            f.primary.iter_mut().for_each(moved);
            f.secondary.iter_mut().for_each(moved);
            out.findings.push(f);
        }
        out.omitted.merge(&report.omitted);
        out.fatal |= report.fatal;
        let (c, r) = (&mut out.counts, report.counts);
        c.packages += 1;
        c.files += r.files;
        c.objects += r.objects;
        c.edges += r.edges;
        c.errors += r.errors;
        c.warnings += r.warnings;
        c.notes += r.notes;
        for (kind, n) in r.edges_by_kind {
            *c.edges_by_kind.entry(kind).or_default() += n;
        }
    }
    // As many listed of a rule as one snapshot lists; the rest counted.
    findings::cap(&mut out.findings, &mut out.omitted, &mut []);
    (sources, out)
}
