//! The command line turned, once and before any input is read, into what a
//! command does. Every rule between flags is here: a combination that
//! cannot work fails in milliseconds, whatever the size of the input.

use crate::analysis::cascade::{CascadeMode, MultiOwner};
use crate::analysis::simulate::Controller;
use crate::cli::{
    CheckArgs, ConfigArgs, Deny, ExplainArgs, Format, GraphArgs, PlanArgs, PlanFlags, ReconcileArgs, RuleArgs,
    SimulateArgs,
};
use crate::controls::{contradiction, remover, Remover, RuleList};
use crate::error::Error;
use crate::findings::RuleSet;
use crate::plan::Detail;
use crate::select::{KindSel, Query};
use std::path::PathBuf;

/// Where a plan starts.
#[derive(Debug)]
pub enum Start {
    /// `--all` (and `explain` without a mode).
    All,
    /// `--gc`, from `--root` for Murano when given.
    Gc { root: Option<String> },
    /// `--prune NEW…`.
    Prune(Vec<PathBuf>),
    /// `--delete SELECTOR…` with `-n`/`-l`, or `-n`/`-l` alone (every
    /// object they match).
    Delete(Query),
}

#[derive(Debug)]
pub struct PlanSettings {
    pub start: Start,
    pub cascade: CascadeMode,
    /// `None`: each dialect's own rule.
    pub multi_owner: Option<MultiOwner>,
    pub allow_cycles: bool,
    /// `--finalizer-controller FINALIZER=SELECTOR`, parsed.
    pub finalizer_controllers: Vec<(String, Query)>,
    pub skip_invalid: bool,
    pub closed_world: bool,
    pub allow_empty_new: bool,
    /// The default ordering rules apply (no `--no-default-rules`).
    pub default_rules: bool,
}

/// Where a plan starts, once the input is read: its mode, the
/// collection's root (`--gc --root`), which objects `--prune NEW`
/// declares, and the objects `--delete` names.
pub type Started = (crate::plan::Mode, Option<crate::model::ObjId>, Vec<bool>, Vec<crate::model::ObjId>);

impl PlanSettings {
    /// The planner's options: these settings, where the plan starts, the
    /// objects whose controllers remove each `--finalizer-controller`
    /// finalizer, and what the format needs.
    pub fn options(
        &self,
        (mode, root, declared_in_new, named): Started,
        finalizer_controllers: Vec<(String, Vec<crate::model::ObjId>)>,
        detail: Detail,
    ) -> crate::plan::Options {
        crate::plan::Options {
            root,
            mode,
            cascade: self.cascade,
            multi_owner: self.multi_owner,
            allow_cycles: self.allow_cycles,
            finalizer_controllers,
            closed_world: self.closed_world,
            declared_in_new,
            detail,
            default_rules: if self.default_rules { crate::model::DefaultRule::ALL.to_vec() } else { Vec::new() },
            named,
        }
    }

    /// `default_all`: without a mode flag, plan everything (`explain`).
    pub fn new(flags: &PlanFlags, default_all: bool) -> Result<PlanSettings, Error> {
        let targets = selection(&flags.delete, &flags.select)?;
        let narrowing = targets.narrowing();
        // -n/-l choose targets; they narrow no other mode, and teardown
        // does not guess whether they were meant to.
        let other = if flags.all {
            Some(("--all", "everything in the input"))
        } else if flags.gc {
            Some(("--gc", "what the garbage collector would"))
        } else if !flags.prune.is_empty() {
            Some(("--prune", "what NEW lacks"))
        } else {
            None
        };
        if let Some((mode, what)) = other.filter(|_| !narrowing.is_empty()) {
            return Err(Error::Usage(format!(
                "{mode} deletes {what}, and {narrowing} cannot narrow it: give {mode} without {narrowing}, or {narrowing} without {mode} to delete every object {narrowing} matches"
            )));
        }
        // `-l '!canary'` alone: every object without that label,
        // Namespaces and CRDs (with everything in them) included.
        if flags.delete.is_empty() && targets.namespace.is_none() && targets.labels.iter().all(|r| !r.is_positive()) {
            if let Some(labels) = flags.select.labels.as_deref() {
                return Err(Error::Usage(format!(
                    "-l {labels} alone selects every object it does not exclude, Namespaces and CRDs with everything in them included; add KEY=VALUE or KEY, a kind (--delete KIND), or -n NAMESPACE"
                )));
            }
        }
        if flags.root.is_some() && !flags.gc {
            return Err(Error::Usage("--root is where --gc starts; give --gc".into()));
        }
        let start = if flags.all || (default_all && !flags.gc && flags.prune.is_empty() && targets.is_empty()) {
            Start::All
        } else if flags.gc {
            Start::Gc { root: flags.root.as_ref().map(|r| r.strip_prefix("id:").unwrap_or(r).to_string()) }
        } else if !flags.prune.is_empty() {
            Start::Prune(flags.prune.clone())
        } else {
            Start::Delete(targets)
        };
        Ok(PlanSettings {
            start,
            cascade: flags.cascade,
            multi_owner: flags.multi_owner,
            allow_cycles: flags.allow_cycles,
            // Flags and the settings file, once combined (`with_controls`).
            finalizer_controllers: Vec::new(),
            skip_invalid: flags.skip_invalid,
            closed_world: flags.closed_world,
            default_rules: !flags.no_default_rules,
            allow_empty_new: flags.allow_empty_new,
        })
    }
}

/// `--finalizer-controller FINALIZER=SELECTOR|external`, each parsed; one
/// finalizer said to be external and named objects' is refused.
fn finalizer_flags(values: &[String]) -> Result<Vec<(String, Remover)>, Error> {
    let mut out: Vec<(String, Remover)> = Vec::new();
    for v in values {
        let (f, s) = match v.split_once('=') {
            Some((f, s)) if !f.is_empty() && !s.is_empty() => (f, s),
            _ => {
                return Err(Error::Usage(format!(
                    "invalid --finalizer-controller `{v}`: expected FINALIZER=SELECTOR or FINALIZER=external"
                )))
            }
        };
        let r = remover(s).map_err(|m| Error::Usage(format!("--finalizer-controller {v}: {m}")))?;
        out.push((f.to_string(), r));
    }
    for (f, r) in &out {
        if matches!(r, Remover::External) && out.iter().any(|(g, o)| g == f && matches!(o, Remover::Objects(_))) {
            return Err(Error::Usage(format!(
                "--finalizer-controller {f}=external says its controller is outside the snapshot, and another --finalizer-controller {f}=… names objects of it; keep one"
            )));
        }
    }
    Ok(out)
}

/// Who removes each finalizer that flags or the settings file name.
#[derive(Clone, Debug, Default)]
pub struct Finalizers {
    /// Finalizers whose controllers are objects of the snapshot.
    pub named: Vec<(String, Query)>,
    /// Finalizers whose controllers are outside it.
    pub external: Vec<String>,
}

/// The finding controls of a run: flags over the settings file.
#[derive(Debug, Default)]
pub struct Controls {
    /// The rules reported.
    pub rules: RuleSet,
    /// The file's `closed-world` (a flag can only add to it).
    pub closed_world: bool,
    /// The file's `deny = ["warnings"]`.
    pub deny_warnings: bool,
    pub finalizers: Finalizers,
}

/// Flags and the settings file made into the finding controls, before any
/// input is read. The rules are layered as ruff layers them: the file's
/// `select` (default: all rules), less its `ignore`; then `--select`, when
/// given, starts over from what it names; `--ignore` takes rules out of the
/// result. A finalizer named by `--finalizer-controller` is mapped by the
/// flags alone; the file maps the others.
pub fn controls(rules: &RuleArgs, config: &ConfigArgs, finalizer_flags_given: &[String]) -> Result<Controls, Error> {
    controls_from(rules, finalizer_flags_given, || crate::config::load(config))
}

/// [`controls`] with a settings file already read (`apply` reads the one
/// of a plan file's command itself), or none.
pub fn controls_with(
    rules: &RuleArgs,
    file: Option<crate::config::Config>,
    finalizer_flags_given: &[String],
) -> Result<Controls, Error> {
    controls_from(rules, finalizer_flags_given, || Ok(file))
}

/// The controls, with the settings file `file` gives, read once the flags
/// are checked.
fn controls_from(
    rules: &RuleArgs,
    finalizer_flags_given: &[String],
    file: impl FnOnce() -> Result<Option<crate::config::Config>, Error>,
) -> Result<Controls, Error> {
    let select = RuleList::from_flag("--select", &rules.select)?;
    let ignore = RuleList::from_flag("--ignore", &rules.ignore)?;
    if let (Some(s), Some(i)) = (&select, &ignore) {
        contradiction(s, i).map_err(|(rule, _)| {
            Error::Usage(format!("--select and --ignore both name {rule} ({}); say one", rule.name()))
        })?;
    }
    let flagged = finalizer_flags(finalizer_flags_given)?;
    let file = file()?;
    let mut set = RuleSet::ALL;
    if let Some(file) = &file {
        if let Some(s) = &file.select {
            set = s.set;
        }
        if let Some(i) = &file.ignore {
            set = set.without(i.set);
        }
    }
    if let Some(s) = &select {
        set = s.set;
    }
    if let Some(i) = &ignore {
        set = set.without(i.set);
    }
    let from_file = file.as_ref().map(|f| f.finalizers.as_slice()).unwrap_or(&[]);
    let mut finalizers = Finalizers::default();
    // A finalizer the flags map is theirs alone; the file maps the others.
    let from_file: Vec<_> = from_file.iter().filter(|(f, _)| !flagged.iter().any(|(g, _)| g == f)).cloned().collect();
    let entries = flagged.into_iter().chain(from_file);
    for (f, r) in entries {
        match r {
            Remover::External => {
                if !finalizers.external.contains(&f) {
                    finalizers.external.push(f)
                }
            }
            Remover::Objects(q) => finalizers.named.push((f, q)),
        }
    }
    Ok(Controls {
        rules: set,
        closed_world: file.as_ref().is_some_and(|f| f.closed_world),
        deny_warnings: file.as_ref().is_some_and(|f| f.deny_warnings),
        finalizers,
    })
}

/// A plan's settings with the finding controls: the finalizer controllers
/// of flags and file, and the file's `closed-world`.
pub fn with_controls(settings: &mut PlanSettings, controls: &Controls) {
    settings.finalizer_controllers = controls.finalizers.named.clone();
    settings.closed_world |= controls.closed_world;
}

/// Before a command reads anything: its settings file is looked for from
/// its inputs (ruff's rule), and what a directory walk leaves out is made
/// from the flags and the file: `--exclude` replaces the file's `exclude`,
/// the file's `extend-exclude` and `--extend-exclude` add to it.
pub fn settle(command: &mut crate::cli::Command) -> Result<(), Error> {
    let Some((input, config)) = command.input_mut() else { return Ok(()) };
    config.beside = input.paths();
    let file = crate::config::load(config)?;
    let cwd = std::path::PathBuf::from(".");
    let mut exclude = crate::input::walk::Exclude::default();
    match &file {
        Some(f) if input.exclude.is_empty() => exclude.add(&f.exclude, &f.dir),
        _ => exclude.add(&input.exclude, &cwd),
    }
    if let Some(f) = &file {
        exclude.add(&f.extend_exclude, &f.dir);
    }
    exclude.add(&input.extend_exclude, &cwd);
    if !exclude.is_empty() {
        input.excluded = Some(std::sync::Arc::new(exclude));
    }
    Ok(())
}

/// `check`'s flag rules, and its finding controls.
pub fn check(args: &CheckArgs) -> Result<Controls, Error> {
    if args.statistics && !matches!(args.output, Format::Table | Format::Json) {
        return Err(Error::Usage("--statistics prints a table (the default) or JSON (-o json)".into()));
    }
    let mut controls = controls(&args.rules, &args.config, &args.finalizer_controller)?;
    controls.closed_world |= args.closed_world;
    controls.deny_warnings |= args.deny.contains(&Deny::Warnings);
    Ok(controls)
}

/// `plan`'s rules between its output and its other flags: `-o kubectl`
/// with `--dialect` forced to one whose objects are not Kubernetes
/// resources cannot print a single kubectl command; with `--multi-owner
/// any`, it would plan deletions Kubernetes' collector does not make.
pub fn plan_output(output: Format, dialect: Option<&str>, multi_owner: Option<MultiOwner>) -> Result<(), Error> {
    if output != Format::Kubectl {
        return Ok(());
    }
    // Objects a dialect reads are Kubernetes resources when they are known
    // by their coordinates (`Object::is_kubernetes`).
    let foreign = |d: &str| {
        let found =
            crate::dialect::by_name(d).and_then(|i| crate::dialect::REGISTRY.get(i)).map(|d| d.origin().identity);
        found != Some(crate::model::Identity::Coordinates)
    };
    match dialect {
        Some(d) if foreign(d) => {
            return Err(Error::Usage(format!(
                "-o kubectl prints kubectl commands, but --dialect {d} reads objects that are not Kubernetes resources; kubectl cannot delete them"
            )))
        }
        _ => {}
    }
    if multi_owner == Some(MultiOwner::Any) {
        // A dependent the plan deletes with one owner while another stays is
        // no cascade root, and the collector would keep it.
        return Err(Error::Usage(String::from(
            "-o kubectl --multi-owner any: Kubernetes' garbage collector deletes a dependent only when all its owners are gone, so an object the plan deletes with one owner while another stays would never be deleted by the script; plan without --multi-owner any, or print -o names",
        )));
    }
    Ok(())
}

/// `plan --as TOOL` shows the tool's order beside the plan: in a table or a
/// plan file. The formats made for scripts and pictures print teardown's
/// plan alone, so a comparison asked for with them would be silently
/// dropped: refused.
///
/// The tools delete Kubernetes resources: with `--dialect` forced to one
/// whose objects are not, there is nothing to compare.
pub fn plan_tool_order(
    output: Format,
    dialect: Option<&str>,
    tool: Option<crate::plan::tool_order::Tool>,
) -> Result<(), Error> {
    let Some(tool) = tool else { return Ok(()) };
    if let Some(d) = dialect {
        let found =
            crate::dialect::by_name(d).and_then(|i| crate::dialect::REGISTRY.get(i)).map(|d| d.origin().identity);
        if found != Some(crate::model::Identity::Coordinates) {
            return Err(Error::Usage(format!(
                "--as {}: --dialect {d} reads objects that are not Kubernetes resources, which {} does not delete",
                tool.id(),
                tool.name()
            )));
        }
    }
    let format = match output {
        Format::Table | Format::Wide | Format::Json | Format::Yaml => return Ok(()),
        other => other.name(),
    };
    Err(Error::Usage(format!(
        "--as {} shows {}'s order beside the plan, which -o {format} does not print (it is teardown's plan alone); use -o table, json or yaml",
        tool.id(),
        tool.name()
    )))
}

/// What `plan` is told (and a plan file's recorded command, `apply`):
/// the plan to make, the rules whose findings it says, how much detail
/// its format needs, the tool whose order goes beside it (`--as`), and
/// whether data loss fails the run. Made before any input is read.
#[derive(Debug)]
pub struct PlanCommand {
    pub plan: PlanSettings,
    pub rules: RuleSet,
    pub detail: Detail,
    pub output: Format,
    pub tool_order: Option<crate::plan::tool_order::Tool>,
    /// `--fail-on data-loss`.
    pub fail_on_data_loss: bool,
}

impl PlanCommand {
    /// `config`: the settings file `apply` read for a plan file's command
    /// (instead of looking for one).
    pub fn new(args: &PlanArgs, config: Option<Option<crate::config::Config>>) -> Result<PlanCommand, Error> {
        let mut plan = PlanSettings::new(&args.plan, false)?;
        plan_output(args.output, args.input.dialect.as_deref(), plan.multi_owner)?;
        plan_tool_order(args.output, args.input.dialect.as_deref(), args.tool_order)?;
        let finalizers = &args.plan.finalizer_controller;
        let controls = match config {
            None => controls(&args.rules, &args.config, finalizers)?,
            Some(file) => controls_with(&args.rules, file, finalizers)?,
        };
        with_controls(&mut plan, &controls);
        spaced_selector(&args.plan.delete, &args.input.inputs)?;
        let detail = match args.output {
            Format::Table | Format::Wide | Format::Markdown => Detail { reasons: true, places: false },
            Format::Json | Format::Yaml => Detail::ALL,
            _ => Detail::default(),
        };
        Ok(PlanCommand {
            plan,
            rules: controls.rules,
            detail,
            output: args.output,
            tool_order: args.tool_order,
            fail_on_data_loss: args.fail_on == Some(crate::cli::FailOn::DataLoss),
        })
    }
}

/// What `explain` is told: the object asked about, the plan it is asked
/// of (everything, without a mode) and the rules whose findings it says.
#[derive(Debug)]
pub struct ExplainSettings {
    pub object: Query,
    pub plan: PlanSettings,
    pub rules: RuleSet,
}

impl ExplainSettings {
    pub fn new(args: &ExplainArgs) -> Result<ExplainSettings, Error> {
        let object = Query::new(std::slice::from_ref(&args.object), None, None)?;
        let mut plan = PlanSettings::new(&args.plan, true)?;
        let controls = controls(&RuleArgs::default(), &args.config, &args.plan.finalizer_controller)?;
        with_controls(&mut plan, &controls);
        let selectors: Vec<String> = std::iter::once(&args.object).chain(&args.plan.delete).cloned().collect();
        spaced_selector(&selectors, &args.input.inputs)?;
        Ok(ExplainSettings { object, plan, rules: controls.rules })
    }
}

/// What `graph` is told: the objects it focuses on and the rules whose
/// findings it says.
#[derive(Debug)]
pub struct GraphSettings {
    pub focus: Query,
    pub rules: RuleSet,
}

impl GraphSettings {
    pub fn new(args: &GraphArgs) -> Result<GraphSettings, Error> {
        let focus = selection(&args.focus, &args.select)?;
        let rules = controls(&args.rules, &args.config, &[])?.rules;
        spaced_selector(&args.focus, &args.input.inputs)?;
        Ok(GraphSettings { focus, rules })
    }
}

/// What `simulate` is told: the objects deleted, the propagation policy
/// (Krake's collector has none) and the rules whose findings it says.
#[derive(Debug)]
pub struct SimulateSettings {
    pub targets: Query,
    pub cascade: CascadeMode,
    pub rules: RuleSet,
}

impl SimulateSettings {
    pub fn new(args: &SimulateArgs) -> Result<SimulateSettings, Error> {
        let targets = selection(&args.delete, &args.select)?;
        let cascade = match (args.controller, args.cascade) {
            (Controller::Krake, Some(_)) => return Err(Error::Usage(
                "--cascade is a Kubernetes propagation policy; Krake's collector has none (--controller kubernetes)"
                    .into(),
            )),
            (_, Some(c)) => c,
            (_, None) => CascadeMode::Background,
        };
        let rules = controls(&args.rules, &args.config, &[])?.rules;
        spaced_selector(&args.delete, &args.input.inputs)?;
        Ok(SimulateSettings { targets, cascade, rules })
    }
}

/// The `plan` command a plan file records (`apply`), parsed as the
/// command line is; it must name no input (the plan's `inputs` are its
/// inputs) and write a plan file (`-o json` or `yaml`). The error says
/// why the file is not a plan.
pub fn recorded_plan(command: &[String]) -> Result<PlanArgs, String> {
    use clap::Parser;
    if command.first().map(String::as_str) != Some("plan") {
        return Err("it records no `plan` command (`command`), as plan files of this teardown do".into());
    }
    let argv = std::iter::once("teardown").chain(command.iter().map(String::as_str));
    let cli = crate::cli::Cli::try_parse_from(argv).map_err(|e| {
        let first = e.to_string().lines().next().unwrap_or_default().to_string();
        format!("its command cannot be read ({})", crate::escape::escape(first.trim_start_matches("error: ")))
    })?;
    let crate::cli::Command::Plan(args) = cli.command else {
        return Err("its command is not a `plan` command".into());
    };
    if !args.input.inputs.is_empty() {
        return Err("its command names inputs (a plan file names them in `inputs`)".into());
    }
    if !matches!(args.output, Format::Json | Format::Yaml) {
        return Err("its command does not write a plan file (-o json or -o yaml)".into());
    }
    Ok(args)
}

/// The settings file the command reads: `--config FILE` beneath the
/// plan's directory (found as an input is, and read through it), none with
/// `--isolated`, else the one found from the plan's directory up.
pub fn plan_file_config(
    args: &PlanArgs,
    root: &crate::apply::place::Root,
) -> Result<Option<crate::config::Config>, crate::apply::place::Refusal> {
    use crate::apply::place::{self, Refusal};
    if args.config.isolated {
        return Ok(None);
    }
    match &args.config.config {
        Some(path) => {
            let recorded = path.to_string_lossy().into_owned();
            let f = root.find(&recorded)?;
            let (sources, problems) = place::sources(std::slice::from_ref(&f), crate::config::MAX_SIZE);
            if let Some(p) = problems.first() {
                return Err(Refusal::Io { path: recorded, error: std::io::Error::other(p.to_string()) });
            }
            let text = sources.files.first().map(|f| f.text.to_string()).unwrap_or_default();
            crate::config::parse(&text, &root.show(path))
                .map(Some)
                .map_err(|e| Refusal::Io { path: recorded, error: std::io::Error::other(e.to_string()) })
        }
        None => {
            let Some(dir) = root.real() else { return Ok(None) };
            let found = crate::config::find(&dir);
            let args = crate::cli::ConfigArgs { config: found, isolated: false, beside: Vec::new() };
            match args.config {
                Some(_) => crate::config::load(&args).map_err(|e| Refusal::Io {
                    path: crate::config::FILE_NAME.into(),
                    error: std::io::Error::other(e.to_string()),
                }),
                None => Ok(None),
            }
        }
    }
}

/// The kinds crd-reconciler's controllers may recreate safely, unless told
/// otherwise (the seed document's ephemeral resources).
pub const EPHEMERAL: [&str; 5] = ["configmap", "horizontalpodautoscaler", "ingress", "pod", "service"];

/// What `reconcile` is told.
#[derive(Debug)]
pub struct ReconcileSettings {
    /// `--kind`; empty: the kinds of the objects with a desired state.
    pub kinds: Vec<KindSel>,
    /// The default ephemeral kinds and `--ephemeral`, less `--non-ephemeral`.
    pub ephemeral: Vec<KindSel>,
    pub non_ephemeral: Vec<KindSel>,
    pub desired: Vec<PathBuf>,
    /// The rules whose findings are said.
    pub rules: RuleSet,
}

impl ReconcileSettings {
    pub fn new(args: &ReconcileArgs) -> Result<ReconcileSettings, Error> {
        let parse = |v: &[String]| v.iter().map(|k| KindSel::parse(k)).collect::<Result<Vec<_>, _>>();
        let kinds = parse(&args.kinds)?;
        let asked = parse(&args.ephemeral)?;
        let non_ephemeral = parse(&args.non_ephemeral)?;
        if let Some((e, n)) = asked.iter().find_map(|e| non_ephemeral.iter().find(|n| e.same(n)).map(|n| (e, n))) {
            return Err(Error::Usage(format!(
                "--ephemeral {} and --non-ephemeral {} name the same kind; say one",
                e.text, n.text
            )));
        }
        let defaults = EPHEMERAL.iter().map(|k| KindSel::parse(k)).collect::<Result<Vec<_>, _>>()?;
        let ephemeral =
            defaults.into_iter().filter(|d| !non_ephemeral.iter().any(|n| n.same(d))).chain(asked).collect();
        let rules = controls(&args.rules, &args.config, &[])?.rules;
        Ok(ReconcileSettings { kinds, ephemeral, non_ephemeral, desired: args.desired.clone(), rules })
    }

    /// Is a sub-resource of this group and kind ephemeral?
    pub fn is_ephemeral(&self, group: &str, kind: &str) -> bool {
        !self.non_ephemeral.iter().any(|k| k.names(group, kind)) && self.ephemeral.iter().any(|k| k.names(group, kind))
    }
}

/// Selectors with `-n`/`-l` (`plan --delete`, `simulate --delete`, `graph
/// --focus`), and the rules between them: `-n` with a selector it cannot
/// narrow (an id, a cluster-scoped built-in kind, another namespace) is
/// refused, never ignored. (What only the snapshot can tell, a custom
/// cluster-scoped kind or a word that is an id, is refused by `select`.)
pub fn selection(selectors: &[String], select: &crate::cli::SelectArgs) -> Result<Query, Error> {
    let query = Query::new(selectors, select.namespace.clone(), select.labels.as_deref())?;
    let Some(ns) = &query.namespace else { return Ok(query) };
    for (text, sel) in &query.selectors {
        match sel {
            crate::select::Selector::Id(id) => {
                return Err(Error::Usage(format!(
                    "selector `{text}` with -n {ns}: `{id}` is the id of an object (Murano, native or pairs), which is in no namespace; drop -n"
                )))
            }
            crate::select::Selector::Object { namespace: Some(written), .. } if written != ns => {
                return Err(Error::Usage(format!(
                    "selector `{text}` is in namespace {written}, but -n says {ns}; give the namespace once"
                )))
            }
            _ => {}
        }
        if let Some(kind) = sel.cluster_scoped_builtin() {
            return Err(crate::select::cluster_scoped(text, ns, &kind));
        }
    }
    Ok(query)
}

/// `teardown plan --delete deploy web dump.yaml`: a selector written with a
/// space, as `kubectl delete deploy web` takes it. teardown reads `web` as
/// an INPUT; when no such file exists, say what was meant (exit 2) before
/// anything is read: KIND/NAME, with a slash.
pub fn spaced_selector(selectors: &[String], inputs: &[PathBuf]) -> Result<(), Error> {
    let bare = |s: &&String| !s.is_empty() && !s.contains(['/', ':', '=', ' ']);
    let Some(kind) = selectors.iter().rev().find(bare) else { return Ok(()) };
    let missing = inputs.iter().find(|p| {
        let word = p.to_string_lossy();
        word != "-" && !word.contains(['/', '.']) && std::fs::symlink_metadata(p).is_err()
    });
    let Some(name) = missing else { return Ok(()) };
    let name = crate::escape::escape(&name.to_string_lossy()).into_owned();
    Err(Error::Usage(format!(
        "no file or directory `{name}`: teardown names an object KIND/NAME, with a slash (`{kind}/{name}`, as `kubectl get {kind}/{name}`), and reads a word after a selector as an INPUT; did you mean `{kind}/{name}`?"
    )))
}
