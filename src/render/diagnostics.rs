//! Findings as miette diagnostics: `file:line:col`, a snippet, labels.

use super::count;
use crate::analysis::check::Counts;
use crate::escape::escape;
use crate::findings::{Finding, Label, Omitted, Severity};
use crate::input::{SourceFile, Sources};
use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents, SourceCode,
    SourceSpan, SpanContents,
};
use std::fmt;

/// Lines longer than this are not shown in snippets (a minified 10 MB line
/// would drown the report); the location is still given.
const MAX_SNIPPET_LINE: usize = 400;

#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
}

/// A file as miette source code, with line lookups through the file's line
/// index (miette's own implementation rescans the text for every snippet);
/// or, when the lines a snippet shows hold a character to escape (a
/// carriage return, an escape sequence…), those lines escaped.
struct FileSource<'a> {
    /// The file.
    file: &'a SourceFile,
    /// Its lines around a snippet's labels, escaped, when they must be.
    escaped: Option<Escaped>,
}

/// Lines of a file, escaped. Offsets into a snippet of them are offsets
/// into the escaped text; lines are numbered as in the file.
struct Escaped {
    lines: SourceFile,
    /// Where the lines start in the file, and the first one's index.
    base: usize,
    first_line: usize,
    /// After each escape: the offset in the file's lines and in `lines`.
    at: Vec<(usize, usize)>,
}

impl Escaped {
    /// The offset in `lines` of the file's offset `raw` (inside the lines).
    fn escaped(&self, raw: usize) -> usize {
        let rel = raw.saturating_sub(self.base);
        let k = self.at.partition_point(|&(r, _)| r <= rel);
        match k.checked_sub(1).and_then(|k| self.at.get(k)) {
            Some(&(r, e)) => rel + e - r,
            None => rel,
        }
    }

    /// The file's offset of `lines`' offset `at` (at a character of the file).
    fn raw(&self, at: usize) -> usize {
        let k = self.at.partition_point(|&(_, e)| e <= at);
        self.base
            + match k.checked_sub(1).and_then(|k| self.at.get(k)) {
                Some(&(r, e)) => at - e + r,
                None => at,
            }
    }
}

impl FileSource<'_> {
    /// The text snippets are read from: the file, or its lines escaped.
    fn shown(&self) -> &SourceFile {
        self.escaped.as_ref().map_or(self.file, |e| &e.lines)
    }

    fn line_len(&self, line: usize) -> usize {
        self.shown().line_range(line).len()
    }
}

impl SourceCode for FileSource<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let file = self.shown();
        let text = &*file.text;
        let start = span.offset();
        let end = start + span.len();
        if end > text.len() {
            return Err(MietteError::OutOfBounds);
        }
        let first = file.line_index(start);
        let last = file.line_index(if end > start { end - 1 } else { start });
        let lines = file.line_count();
        let mut lo = first;
        for _ in 0..before {
            if lo == 0 || self.line_len(lo - 1) > MAX_SNIPPET_LINE {
                break;
            }
            lo -= 1;
        }
        let mut hi = last;
        for _ in 0..after {
            if hi + 1 >= lines || self.line_len(hi + 1) > MAX_SNIPPET_LINE {
                break;
            }
            hi += 1;
        }
        let (data_start, line, column) = match (before, &self.escaped) {
            // Where the snippet points, as the file has it.
            (0, Some(e)) => {
                let at = self.file.line_col(e.raw(start));
                (start, at.line - 1 - e.first_line, at.column - 1)
            }
            (0, None) => {
                let line_start = file.line_start(first);
                // Characters: bytes that do not continue one (0b10xxxxxx).
                let before = text.as_bytes().get(line_start..start).unwrap_or_default();
                (start, first, before.iter().filter(|&&b| (b as i8) >= -0x40).count())
            }
            _ => (file.line_start(lo), lo, 0),
        };
        let data_end = file.line_range(hi).end.max(data_start);
        let first_line = self.escaped.as_ref().map_or(0, |e| e.first_line);
        Ok(Box::new(MietteSpanContents::new_named(
            escape(&self.file.name).into_owned(),
            text.as_bytes().get(data_start..data_end).ok_or(MietteError::OutOfBounds)?,
            (data_start, data_end - data_start).into(),
            first_line + line,
            column,
            hi - line + 1,
        )))
    }
}

/// The snippet of `file` that shows `labels` (at offsets of the file): the
/// file itself, or, when the lines shown hold a character to escape, those
/// lines escaped and the labels moved to the same characters in them.
fn snippet<'a>(file: &'a SourceFile, labels: &mut [LabeledSpan]) -> FileSource<'a> {
    let source = FileSource { file, escaped: None };
    let (Some(start), Some(end)) =
        (labels.iter().map(|l| l.offset()).min(), labels.iter().map(|l| l.offset() + l.len()).max())
    else {
        return source;
    };
    // The lines miette shows: the labels' and one around them (its
    // context), unless that one is too long to show.
    let mut lo = file.line_index(start);
    if lo > 0 && source.line_len(lo - 1) <= MAX_SNIPPET_LINE {
        lo -= 1;
    }
    let mut hi = file.line_index(end.saturating_sub(1).max(start));
    if hi + 1 < file.line_count() && source.line_len(hi + 1) <= MAX_SNIPPET_LINE {
        hi += 1;
    }
    let base = file.line_start(lo);
    let lines = file.text.get(base..file.line_range(hi).end).unwrap_or_default();
    let (text, at) = crate::escape::escape_lines(lines);
    if at.is_empty() {
        return source;
    }
    let lines = SourceFile::new(String::new(), None, file.format, text.into_owned());
    let escaped = Escaped { lines, base, first_line: lo, at };
    for l in labels.iter_mut() {
        let (from, to) = (escaped.escaped(l.offset()), escaped.escaped(l.offset() + l.len()));
        let (text, span) = (l.label().map(String::from), (from, to - from));
        *l = match l.primary() {
            true => LabeledSpan::new_primary_with_span(text, span),
            false => LabeledSpan::new_with_span(text, span),
        };
    }
    FileSource { file, escaped: Some(escaped) }
}

/// One finding (or one of its labels in another file) as a miette diagnostic.
struct Diag<'a> {
    message: String,
    severity: miette::Severity,
    help: Option<String>,
    /// The file the labels are in (their offsets are the file's until
    /// [`Diag::sealed`]).
    file: Option<&'a SourceFile>,
    source: Option<FileSource<'a>>,
    labels: Vec<LabeledSpan>,
    related: Vec<Diag<'a>>,
}

impl<'a> Diag<'a> {
    /// With its snippets made: each labels' file, escaped where it must be.
    fn sealed(mut self) -> Diag<'a> {
        if let Some(file) = self.file {
            self.source = Some(snippet(file, &mut self.labels));
        }
        self.related = self.related.into_iter().map(Diag::sealed).collect();
        self
    }
}

impl fmt::Debug for Diag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for Diag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diag<'_> {}

impl Diagnostic for Diag<'_> {
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }
    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.labels.is_empty() {
            None
        } else {
            Some(Box::new(self.labels.iter().cloned()))
        }
    }
    fn related<'b>(&'b self) -> Option<Box<dyn Iterator<Item = &'b dyn Diagnostic> + 'b>> {
        if self.related.is_empty() {
            None
        } else {
            Some(Box::new(self.related.iter().map(|d| d as &dyn Diagnostic)))
        }
    }
}

fn location(sources: &Sources, label: &Label) -> String {
    let file = sources.get(label.span.file);
    let lc = file.line_col(label.span.start);
    format!("{}:{}:{}", escape(&file.name), lc.line, lc.column)
}

/// Can this label be shown as a snippet?
fn showable(sources: &Sources, label: &Label) -> bool {
    let file = sources.get(label.span.file);
    if file.text.is_empty() {
        return false;
    }
    let line = file.line_index(label.span.start);
    file.line_range(line).len() <= MAX_SNIPPET_LINE && label.span.len() <= MAX_SNIPPET_LINE * 4
}

fn span_of(label: &Label, primary: bool) -> LabeledSpan {
    let span: SourceSpan = (label.span.start, label.span.len()).into();
    let text = escape(&label.text).into_owned();
    if primary {
        LabeledSpan::new_primary_with_span(Some(text), span)
    } else {
        LabeledSpan::new_with_span(Some(text), span)
    }
}

fn diag<'a>(sources: &'a Sources, f: &Finding) -> Diag<'a> {
    let severity = match f.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Note => miette::Severity::Advice,
    };
    let mut message = format!("{} {}: {}", f.rule.id(), f.rule.name(), escape(&f.message));
    let mut d = Diag {
        message: String::new(),
        severity,
        help: f.help.as_deref().map(|h| escape(h).into_owned()),
        file: None,
        source: None,
        labels: Vec::new(),
        related: Vec::new(),
    };
    match &f.primary {
        Some(p) if showable(sources, p) => {
            d.file = Some(sources.get(p.span.file));
            d.labels.push(span_of(p, true));
        }
        Some(p) => message.push_str(&format!("\n  at {}", location(sources, p))),
        None => {}
    }
    for s in &f.secondary {
        // Labels after the primary share its snippet; labels before it, or in
        // another file, follow as snippets of their own, so that the first
        // location printed is always the primary one.
        let after_primary =
            f.primary.as_ref().is_some_and(|p| p.span.file == s.span.file && s.span.start >= p.span.start)
                && d.file.is_some();
        if after_primary && showable(sources, s) {
            d.labels.push(span_of(s, false));
        } else if showable(sources, s) {
            d.related.push(Diag {
                message: escape(&s.text).into_owned(),
                severity: miette::Severity::Advice,
                help: None,
                file: Some(sources.get(s.span.file)),
                source: None,
                labels: vec![span_of(s, true)],
                related: Vec::new(),
            });
        } else {
            message.push_str(&format!("\n  {}: {}", escape(&s.text), location(sources, s)));
        }
    }
    d.message = message;
    d.sealed()
}

/// The human report of `check`: one diagnostic per finding, each followed
/// by a blank line, a line for each rule with findings `omitted`, then the
/// summary line of `counts` when given.
pub fn render(
    sources: &Sources,
    findings: &[Finding],
    omitted: &Omitted,
    counts: Option<&Counts>,
    style: Style,
) -> String {
    let theme = if style.color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(10_000).with_links(false);
    let mut out = String::new();
    for f in findings {
        let d = diag(sources, f);
        if handler.render_report(&mut out, &d).is_err() {
            // A snippet miette cannot lay out: say it without one.
            out.push_str(&d.message);
            out.push('\n');
        }
        out.push('\n');
    }
    // The findings not listed: a line for each rule.
    for line in omitted.lines() {
        out.push_str("  … ");
        out.push_str(&line);
        out.push_str("\n\n");
    }
    if let Some(counts) = counts {
        out.push_str(&summary(counts));
        out.push('\n');
    }
    out
}

/// `checked 2 files: 358 objects, 571 edges; 1 error, 2 warnings`.
pub fn summary(c: &Counts) -> String {
    let findings = if c.errors == 0 && c.warnings == 0 {
        "no findings".to_string()
    } else {
        format!("{}, {}", count(c.errors, "error", "errors"), count(c.warnings, "warning", "warnings"))
    };
    let findings = match c.notes {
        0 => findings,
        n if c.errors == 0 && c.warnings == 0 => count(n, "note", "notes"),
        n => format!("{findings}, {}", count(n, "note", "notes")),
    };
    let packages = match c.packages {
        0 => String::new(),
        n => format!("{} (", count(n, "package", "packages")),
    };
    format!(
        "checked {packages}{}{}: {}, {}; {findings}",
        count(c.files, "file", "files"),
        if c.packages > 0 { ")" } else { "" },
        count(c.objects, "object", "objects"),
        count(c.edges, "edge", "edges"),
    )
}
