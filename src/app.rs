//! Running a parsed command line: load, analyse, render. Returns the bytes
//! to write and the exit code; `main` does the writing.

use crate::analysis::check::{self, CheckOptions};
use crate::analysis::view::{self, Direction, ViewOptions};
use crate::cli::{
    CheckArgs, CheckFormat, Cli, ColorWhen, Command, Deny, ExplainArgs, ExplainFormat, GraphArgs, GraphFormat,
    PlanArgs, PlanFlags, PlanFormat,
};
use crate::error::Error;
use crate::findings::{Finding, Rule, Severity, SeverityPolicy};
use crate::graph::Graph;
use crate::load::{self, LoadOptions, Snapshot};
use crate::model::{ObjId, Section};
use crate::plan::{self, Mode, Plan};
use crate::render;
use crate::select::Query;
use clap::CommandFactory;
use std::io::{Read, Write};

/// What a run leaves to say after its output (which it has written to
/// `Env::stdout` as it went), and its exit code.
#[derive(Debug, Default)]
pub struct Output {
    pub stderr: Vec<u8>,
    pub code: u8,
}

/// The environment a run sees, so that tests can pin it.
pub struct Env<'a> {
    pub stdin: &'a mut dyn Read,
    /// Where results go, as they are made (a million-object plan is never
    /// held in memory whole).
    pub stdout: &'a mut dyn Write,
    pub stdout_is_terminal: bool,
    /// Progress bars for large inputs (stderr is a terminal).
    pub progress: bool,
    pub no_color: bool,
}

pub fn run(cli: Cli, env: Env) -> Result<Output, Error> {
    let color = match cli.color {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => env.stdout_is_terminal && !env.no_color,
    };
    let style = render::diagnostics::Style { color };
    match cli.command {
        Command::Check(args) => run_check(args, env, style),
        Command::Graph(args) => run_graph(args, env, style),
        Command::Plan(args) => run_plan(args, env, style),
        Command::Explain(args) => run_explain(args, env, style),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "teardown", env.stdout);
            Ok(Output::default())
        }
        Command::Man => {
            clap_mangen::Man::new(Cli::command()).render(env.stdout).map_err(Error::Output)?;
            Ok(Output::default())
        }
    }
}

/// `FINALIZER=SELECTOR` pairs of `--finalizer-controller`.
fn finalizer_controllers(values: &[String]) -> Result<Vec<(String, String)>, Error> {
    values
        .iter()
        .map(|v| match v.split_once('=') {
            Some((f, s)) if !f.is_empty() && !s.is_empty() => Ok((f.to_string(), s.to_string())),
            _ => Err(Error::Usage(format!("invalid --finalizer-controller `{v}`: expected FINALIZER=SELECTOR"))),
        })
        .collect()
}

fn run_check(args: CheckArgs, env: Env, style: render::diagnostics::Style) -> Result<Output, Error> {
    if args.statistics && !matches!(args.output, CheckFormat::Table | CheckFormat::Json) {
        return Err(Error::Usage("--statistics prints a table (the default) or JSON (-o json)".into()));
    }
    let controllers = finalizer_controllers(&args.finalizer_controller)?;
    let snapshot = load::load(
        &args.input.paths(),
        &LoadOptions { dialect: args.input.dialect.clone(), progress: env.progress },
        env.stdin,
    );
    let mut snapshot = snapshot;
    let mut resolved = Vec::new();
    for (finalizer, selector) in &controllers {
        let ids = Query::new(std::slice::from_ref(selector), None, None)?.select(&snapshot.objects)?;
        resolved.push((finalizer.clone(), ids));
    }
    // What plan orders by, check analyses: each controller goes after the
    // objects carrying its finalizer (cycles and conflicts that makes are
    // findings here too).
    let extra = plan::finalizer_relations(&snapshot.objects, &resolved);
    snapshot.resolved.relations.extend(extra);
    let mut timer = crate::timing::Timer::start();
    let graph = Graph::build(&snapshot.objects, &snapshot.resolved.relations);
    timer.lap("graph");
    let options = CheckOptions {
        known_finalizers: controllers.into_iter().map(|(f, _)| f).collect(),
        policy: SeverityPolicy { closed_world: args.closed_world, deny_warnings: args.deny.contains(&Deny::Warnings) },
    };
    let report = check::check(&snapshot, &graph, &options);
    timer.lap("check");
    let sources = &snapshot.sources;
    let text = match (args.statistics, args.output) {
        (true, CheckFormat::Json) => {
            render::findings::statistics_json(&check::statistics(&report.findings), &report.counts)
        }
        (true, _) => render::findings::statistics_table(&check::statistics(&report.findings), &report.counts),
        (false, CheckFormat::Table) => render::diagnostics::render(sources, &report.findings, &report.counts, style),
        (false, CheckFormat::Json) => render::findings::json(sources, &report.findings, &report.counts),
        (false, CheckFormat::Yaml) => render::findings::yaml(sources, &report.findings, &report.counts),
        (false, CheckFormat::Sarif) => render::findings::sarif(sources, &report.findings),
        (false, CheckFormat::Github) => render::findings::github(sources, &report.findings),
    };
    timer.lap("render");
    let code = if report.fatal {
        2
    } else if report.counts.errors > 0 {
        1
    } else {
        0
    };
    env.stdout.write_all(text.as_bytes()).map_err(Error::Output)?;
    Ok(Output { stderr: Vec::new(), code })
}

/// Report what loading found (on stderr, for commands whose stdout is
/// something else), and say whether the command may go on. An input that
/// cannot be read stops it (exit 2); so does a document that cannot be
/// parsed or used (TD001) — a plan or graph without it would be wrong —
/// unless `--skip-invalid` says to go on without it (its finding is then a
/// warning). `what` names what is not made: "plan", "graph".
fn load_report(
    snapshot: &Snapshot,
    style: render::diagnostics::Style,
    skip_invalid: bool,
    what: &str,
) -> Result<Vec<u8>, Output> {
    let findings: Vec<Finding> = snapshot.findings.clone();
    if findings.is_empty() {
        return Ok(Vec::new());
    }
    let mut counts = check::Counts::default();
    for f in &findings {
        match f.severity {
            Severity::Error => counts.errors += 1,
            Severity::Warning => counts.warnings += 1,
            Severity::Note => counts.notes += 1,
        }
    }
    let mut text = String::new();
    let handler_text = render::diagnostics::render(&snapshot.sources, &findings, &counts, style);
    // Only the diagnostics: the summary line is for `check`.
    let body = handler_text.trim_end().rsplit_once('\n').map(|(b, _)| b).unwrap_or("");
    text.push_str(body);
    text.push('\n');
    let unreadable = findings.iter().filter(|f| f.rule == Rule::Td001 && f.primary.is_none()).count();
    let invalid = findings.iter().filter(|f| f.rule == Rule::Td001).count() - unreadable;
    let refusal = if unreadable > 0 {
        Some(format!("no {what}: {} could not be read", count(unreadable, "input", "inputs")))
    } else if invalid > 0 && !skip_invalid {
        Some(format!(
            "no {what}: input that cannot be read or used ({} above); fix it, or give --skip-invalid to go on without it",
            count(invalid, "TD001 finding", "TD001 findings"),
        ))
    } else {
        None
    };
    match refusal {
        Some(message) => {
            text.push_str(&format!("teardown: error: {message}\n"));
            Err(Output { stderr: text.into_bytes(), code: 2 })
        }
        None => Ok(text.into_bytes()),
    }
}

/// Two different documents that give one object (TD002) stop a plan: which
/// one is the object? (Exit 1.) The same uid on objects of other
/// coordinates does not: an owner reference's coordinates decide, and the
/// plan warns.
fn refuse_duplicates(
    snapshot: &Snapshot,
    style: render::diagnostics::Style,
    mut stderr: Vec<u8>,
) -> Result<(), Output> {
    let objects = &snapshot.objects;
    let findings = check::duplicate_findings(snapshot, |d| !d.by_uid || !objects[d.first.index()].has_coordinates());
    if findings.is_empty() {
        return Ok(());
    }
    let counts = check::Counts { errors: findings.len(), ..check::Counts::default() };
    let text = render::diagnostics::render(&snapshot.sources, &findings, &counts, style);
    let body = text.trim_end().rsplit_once('\n').map(|(b, _)| b).unwrap_or("");
    stderr.extend_from_slice(body.as_bytes());
    stderr.extend_from_slice(
        format!(
            "\nteardown: error: no plan: {} given twice with different content ({} above); keep one of each\n",
            count(findings.len(), "object is", "objects are"),
            count(findings.len(), "TD002 finding", "TD002 findings"),
        )
        .as_bytes(),
    );
    Err(Output { stderr, code: 1 })
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn run_graph(args: GraphArgs, env: Env, style: render::diagnostics::Style) -> Result<Output, Error> {
    let query = Query::new(&args.focus, args.select.namespace.clone(), args.select.labels.as_deref())?;
    let snapshot = load::load(
        &args.input.paths(),
        &LoadOptions { dialect: args.input.dialect.clone(), progress: env.progress },
        env.stdin,
    );
    let stderr = match load_report(&snapshot, style, args.skip_invalid, "graph") {
        Ok(stderr) => stderr,
        Err(refused) => return Ok(refused),
    };
    let focus = if query.is_empty() { None } else { Some(query.select(&snapshot.objects)?) };
    let graph = Graph::build(&snapshot.objects, &snapshot.resolved.relations);
    let direction = if args.dependencies { Direction::Dependencies } else { Direction::Dependents };
    let rels = &snapshot.resolved.relations;
    let view = view::build(&snapshot.objects, rels, &graph, &ViewOptions { direction, focus, depth: args.depth });
    let objects = &snapshot.objects;
    let text = match args.output {
        GraphFormat::Tree => render::graph::tree(objects, rels, &view),
        GraphFormat::Json => render::graph::json(&snapshot.sources, objects, rels, &view),
        GraphFormat::Dot => render::graph::dot(objects, rels, &view),
        GraphFormat::Mermaid => render::graph::mermaid(objects, rels, &view),
    };
    env.stdout.write_all(text.as_bytes()).map_err(Error::Output)?;
    Ok(Output { stderr, code: 0 })
}

/// Load the input and make the plan the flags describe. Input that cannot be
/// read or used stops here (exit 2) unless `--skip-invalid`: a plan must not
/// miss objects.
fn make_plan(
    input: &crate::cli::InputArgs,
    flags: &PlanFlags,
    default_all: bool,
    stdin: &mut dyn Read,
    progress: bool,
    style: render::diagnostics::Style,
) -> Result<Result<(Snapshot, Plan), Output>, Error> {
    let controllers = finalizer_controllers(&flags.finalizer_controller)?;
    let targets = Query::new(&flags.delete, flags.select.namespace.clone(), flags.select.labels.as_deref())?;
    if flags.delete.is_empty() && !targets.is_empty() {
        return Err(Error::Usage("-n/-l narrow --delete; give --delete SELECTOR".into()));
    }
    // Cross-flag rules, before any input is read.
    if flags.root.is_some() && !flags.gc {
        return Err(Error::Usage("--root is where --gc starts; give --gc".into()));
    }
    let snapshot = load::load(&input.paths(), &LoadOptions { dialect: input.dialect.clone(), progress }, stdin);
    let stderr = match load_report(&snapshot, style, flags.skip_invalid, "plan") {
        Ok(stderr) => stderr,
        Err(refused) => return Ok(Err(refused)),
    };
    if let Err(refused) = refuse_duplicates(&snapshot, style, stderr.clone()) {
        return Ok(Err(refused));
    }
    let mut declared_in_new = Vec::new();
    let mode = if flags.all || (default_all && !flags.gc && flags.delete.is_empty() && flags.prune.is_empty()) {
        Mode::All
    } else if flags.gc {
        Mode::Gc
    } else if !flags.prune.is_empty() {
        let new = load::load(&flags.prune, &LoadOptions { dialect: input.dialect.clone(), progress }, stdin);
        // Never skipped: an object whose document in NEW is skipped would
        // look absent from NEW, and be pruned.
        if let Err(refused) = load_report(&new, style, false, "plan (in --prune NEW)") {
            let mut out = stderr;
            out.extend_from_slice(&refused.stderr);
            return Ok(Err(Output { stderr: out, code: refused.code }));
        }
        if new.objects.is_empty() && !flags.allow_empty_new {
            let mut out = stderr;
            out.extend_from_slice(
                b"teardown: error: no plan: --prune NEW holds no objects, so everything in INPUT would be pruned; give --allow-empty-new if that is meant\n",
            );
            return Ok(Err(Output { stderr: out, code: 1 }));
        }
        let (absent, in_new) = plan::absent_from(&snapshot.objects, &new.objects);
        declared_in_new = in_new;
        Mode::Prune(absent)
    } else {
        Mode::Delete(targets.select(&snapshot.objects)?)
    };
    let mut resolved = Vec::new();
    for (finalizer, selector) in controllers {
        let ids: Vec<ObjId> = Query::new(std::slice::from_ref(&selector), None, None)?.select(&snapshot.objects)?;
        resolved.push((finalizer, ids));
    }
    let root = match &flags.root {
        None => None,
        Some(id) => {
            let id = id.strip_prefix("id:").unwrap_or(id);
            match snapshot.objects.iter().position(|o| o.murano.is_some() && *o.name == *id) {
                Some(i) if snapshot.objects[i].murano.as_deref().is_some_and(|m| m.section == Section::Old) => {
                    return Err(Error::Usage(format!(
                        "--root {id}: that object is only in ObjectsCopy, not in the model (Objects)"
                    )));
                }
                Some(i) => Some(ObjId(i as u32)),
                None => {
                    return Err(Error::NoMatch { selector: format!("--root {id}"), suggestions: Vec::new() });
                }
            }
        }
    };
    let options = plan::Options {
        root,
        mode,
        cascade: flags.cascade,
        multi_owner: flags.multi_owner,
        allow_cycles: flags.allow_cycles,
        finalizer_controllers: resolved,
        closed_world: flags.closed_world,
        declared_in_new,
    };
    let mut timer = crate::timing::Timer::start();
    let made = plan::build(&snapshot, &options);
    timer.lap("plan");
    match made {
        Ok(plan) => Ok(Ok((snapshot, plan))),
        Err(e) => {
            let mut stderr = stderr;
            stderr.extend_from_slice(format!("teardown: error: {e}\n").as_bytes());
            Ok(Err(Output { stderr, code: 1 }))
        }
    }
}

fn run_plan(args: PlanArgs, env: Env, style: render::diagnostics::Style) -> Result<Output, Error> {
    let (snapshot, plan) = match make_plan(&args.input, &args.plan, false, env.stdin, env.progress, style)? {
        Ok(made) => made,
        Err(output) => return Ok(output),
    };
    let mut timer = crate::timing::Timer::start();
    let out = &mut *env.stdout;
    let written = match args.output {
        PlanFormat::Table => render::plan::table(&snapshot, &plan, out),
        PlanFormat::Json => render::plan::json(&snapshot, &plan, out),
        PlanFormat::Yaml => render::plan::yaml(&snapshot, &plan, out),
        PlanFormat::Names => render::plan::names(&plan, out),
        PlanFormat::Dot => out.write_all(render::plan::dot(&plan).as_bytes()),
        PlanFormat::Mermaid => out.write_all(render::plan::mermaid(&plan).as_bytes()),
    };
    written.map_err(Error::Output)?;
    timer.lap("render");
    let stderr = match args.output {
        PlanFormat::Table => render::plan::summary(&plan),
        PlanFormat::Json | PlanFormat::Yaml => String::new(),
        PlanFormat::Names | PlanFormat::Dot | PlanFormat::Mermaid => render::plan::warnings(&plan),
    };
    Ok(Output { stderr: stderr.into_bytes(), code: 0 })
}

fn run_explain(args: ExplainArgs, env: Env, style: render::diagnostics::Style) -> Result<Output, Error> {
    let query = Query::new(std::slice::from_ref(&args.object), None, None)?;
    let (snapshot, plan) = match make_plan(&args.input, &args.plan, true, env.stdin, env.progress, style)? {
        Ok(made) => made,
        Err(output) => return Ok(output),
    };
    let ids = query.select(&snapshot.objects)?;
    let explanations: Vec<_> = ids.iter().map(|&id| crate::analysis::explain::explain(&plan, id)).collect();
    let text = match args.output {
        ExplainFormat::Text => render::explain::text(&plan, &explanations),
        ExplainFormat::Json => render::explain::json(&plan, &explanations),
    };
    env.stdout.write_all(text.as_bytes()).map_err(Error::Output)?;
    Ok(Output { stderr: Vec::new(), code: 0 })
}
