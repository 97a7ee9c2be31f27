//! The command line, as clap definitions. Parsed once into [`Cli`]; `app`
//! runs it.

use crate::analysis::cascade::{CascadeMode, MultiOwner};
use crate::analysis::simulate::Controller;
use crate::input::{Limits, Size};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{ArgGroup, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

// Help headings. Flags without one are the command's own, under "Options".
const INPUT: &str = "Input";
const LIMITS: &str = "Limits";
const SELECTION: &str = "Selection";
const RULES: &str = "Rules";
const SETTINGS: &str = "Settings";

/// The output formats: one vocabulary for every command. Each command
/// offers its own few ([`Formats`], with what each means there); `-o`
/// refuses any other with clap's own error, which lists that command's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Wide,
    Tree,
    Markdown,
    Json,
    Yaml,
    Sarif,
    Github,
    Names,
    Refs,
    Dot,
    Mermaid,
    Kubectl,
}

impl Format {
    /// What `-o` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Wide => "wide",
            Format::Tree => "tree",
            Format::Markdown => "markdown",
            Format::Json => "json",
            Format::Yaml => "yaml",
            Format::Sarif => "sarif",
            Format::Github => "github",
            Format::Names => "names",
            Format::Refs => "refs",
            Format::Dot => "dot",
            Format::Mermaid => "mermaid",
            Format::Kubectl => "kubectl",
        }
    }
}

/// A format one command offers: what it means there (`--help` lists it),
/// and another word `-o` takes for it.
#[derive(Clone, Copy, Debug)]
pub struct Offer {
    pub format: Format,
    pub help: &'static str,
    pub alias: Option<&'static str>,
}

/// `format`, meaning `help` (no other word for it).
const fn offer(format: Format, help: &'static str) -> Offer {
    Offer { format, help, alias: None }
}

/// The formats of one command, in the order `--help` lists them; its `-o`
/// parser.
#[derive(Clone, Copy, Debug)]
pub struct Formats(pub &'static [Offer]);

/// The help of `-o yaml` wherever it is offered.
const SAME_IN_YAML: &str = "The same document as JSON, in YAML";

impl Formats {
    fn values(self) -> impl Iterator<Item = PossibleValue> {
        self.0.iter().map(|o| {
            let value = PossibleValue::new(o.format.name()).help(o.help);
            match o.alias {
                Some(alias) => value.alias(alias),
                None => value,
            }
        })
    }
}

impl TypedValueParser for Formats {
    type Value = Format;

    /// The values clap's parser of an enum takes, refused with its words: the
    /// word checked against the offered values (a word that is not UTF-8 as
    /// the enum parser says it, replaced characters and all).
    fn parse_ref(&self, cmd: &clap::Command, arg: Option<&clap::Arg>, value: &OsStr) -> Result<Format, clap::Error> {
        let word = value.to_string_lossy();
        let word = PossibleValuesParser::new(self.values()).parse_ref(cmd, arg, OsStr::new(word.as_ref()))?;
        let ignore_case = arg.is_some_and(clap::Arg::is_ignore_case_set);
        let found = self.0.iter().zip(self.values()).find(|(_, v)| v.matches(&word, ignore_case));
        match found {
            Some((offer, _)) => Ok(offer.format),
            None => Err(clap::Error::new(clap::error::ErrorKind::InvalidValue).with_cmd(cmd)),
        }
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.values()))
    }
}

const ABOUT: &str = "Offline graph analysis and deletion planning for resource snapshots.";

const LONG_ABOUT: &str = "\
Offline graph analysis and deletion planning for resource snapshots.

teardown reads snapshots from files and standard input, builds the owner /
destruction-dependency graph, and checks it. It never talks to a cluster. Each
document is read by the dialect that recognises it (or --dialect NAME):
  kubernetes  what `kubectl get -o yaml` or `-o json` prints: objects, Lists
  krake       Krake resources (metadata.owners)
  murano      Murano object models, object store dumps and deployment tasks
  kubevela    KubeVela ResourceTrackers beside their Applications
  native      teardown's own format: `resources:` with owners and destruction dependencies
  pairs       `tsort`-style pairs (with --dialect pairs only)
YAML streams, JSON documents one after another (NDJSON, pretty-printed) and
`kind: List`s are read from any file, whatever its name, and from standard input.
Input that holds no object at all is an error (exit 2).

Exit codes: 0 ok; 1 findings at error level, or a selector that matches nothing;
2 usage, I/O or parse error, or no object in the input.";

const EXAMPLES: &str = "\
Examples:
  kubectl get -A -o yaml $(kubectl api-resources --verbs=list -o name | paste -sd, -) > dump.yaml
  teardown check dump.yaml                        # what is wrong with a cluster's dump
  teardown plan --delete ns/shop dump.yaml        # what deleting a namespace takes, in order
  teardown explain pod/shop/web-1 --delete ns/shop dump.yaml  # why that pod goes
  teardown plan --delete ns/shop dump.yaml -o kubectl > delete.sh  # the script that runs the plan";

#[derive(Parser, Debug)]
#[command(name = "teardown", version, about = ABOUT, long_about = LONG_ABOUT, after_help = EXAMPLES, max_term_width = 100)]
pub struct Cli {
    /// When to use colors; NO_COLOR in the environment means never, unless
    /// this says always.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, global = true, value_name = "WHEN")]
    pub color: ColorWhen,

    /// Say nothing on stderr but errors: no warnings, notes or summary
    /// lines (`check` keeps its findings, its output, and drops the summary
    /// line).
    #[arg(short, long, global = true)]
    pub quiet: bool,

    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// Parse the command line, or print help, the version or a usage error
    /// and exit. `--color` (and NO_COLOR) colour the help and the errors too,
    /// so it is read before clap parses the rest.
    pub fn parse_args(args: Vec<OsString>) -> Cli {
        let choice = match color_flag(&args) {
            Some(ColorWhen::Always) => clap::ColorChoice::Always,
            Some(ColorWhen::Never) => clap::ColorChoice::Never,
            _ => clap::ColorChoice::Auto,
        };
        let matches = Cli::command().color(choice).get_matches_from(args);
        Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
    }
}

/// The last `--color WHEN` or `--color=WHEN` before `--`, if any is valid.
fn color_flag(args: &[OsString]) -> Option<ColorWhen> {
    let mut when = None;
    let mut args = args.iter().skip(1).map(|a| a.to_str().unwrap_or(""));
    while let Some(arg) = args.next() {
        let value = match arg {
            "--" => break,
            "--color" => args.next(),
            _ => arg.strip_prefix("--color="),
        };
        if let Some(w) = value.and_then(|v| ColorWhen::from_str(v, false).ok()) {
            when = Some(w);
        }
    }
    when
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Validate a snapshot: parse errors, duplicates, dangling or invalid
    /// owners, cycles, unresolved dependencies, finalizers (rules TD001–TD018).
    #[command(after_help = "Examples:
  kubectl get -A -o yaml deploy,rs,pods | teardown check  # validate a live cluster's workloads
  teardown check manifests/ --closed-world        # the files are the whole cluster
  teardown check manifests/ -o sarif --exit-zero > teardown.sarif  # for code scanning")]
    Check(CheckArgs),
    /// Plan a deletion: what cascades, in which order (steps of objects that
    /// can go in parallel), what is kept or orphaned.
    #[command(after_help = "Examples:
  teardown plan --delete ns/shop dump.yaml        # the namespace, with what it holds
  teardown plan --delete pods -l app=web -n shop dump.yaml  # every Pod labelled app=web in shop
  teardown plan --delete deploy/shop/web dump.yaml -o kubectl > delete.sh  # review, then bash delete.sh
  teardown plan --delete deploy/shop/web dump.yaml -o names | xargs kubectl get   # look at each object
  teardown plan --all manifests/ -o json > plan.json   # everything, in order; for `apply`
  teardown plan --all dump.yaml --as helm         # beside what `helm uninstall` would do")]
    Plan(PlanArgs),
    /// Explain why an object is (or is not) in a plan, and why at its step.
    #[command(after_help = "Examples:
  teardown explain pod/shop/web-1 --delete ns/shop dump.yaml  # why the pod goes with shop
  teardown explain svc/shop/web dump.yaml         # why at its step of --all
  teardown explain cm/shop/conf --delete deploy/shop/web dump.yaml  # why it is kept")]
    Explain(ExplainArgs),
    /// Replay a garbage collector's deletion workflow on the snapshot, event
    /// by event: API calls, watch events, finalizers, rounds.
    #[command(after_help = "Examples:
  teardown simulate --controller kubernetes --delete deploy/shop/web dump.yaml
  teardown simulate --controller kubernetes --cascade foreground --delete ns/shop dump.yaml
  teardown simulate --controller krake --delete cluster/c1 krake/")]
    Simulate(SimulateArgs),
    /// Print the owner / destruction-dependency graph as a tree, JSON, DOT or Mermaid.
    #[command(after_help = "Examples:
  teardown graph dump.yaml                        # every tree of owners
  teardown graph --focus deploy/shop/web --depth 2 dump.yaml
  teardown graph -o dot dump.yaml | dot -Tsvg > graph.svg")]
    Graph(GraphArgs),
    /// Apply crd-reconciler's decision table: what a controller does with
    /// each sub-resource of each custom resource, by which rule, and how the
    /// custom resource's state changes.
    #[command(after_help = "Examples:
  teardown reconcile live.yaml                    # every custom resource with a spec.state
  teardown reconcile --kind Database --desired desired/ live.yaml
  teardown reconcile live.yaml -o json")]
    Reconcile(ReconcileArgs),
    /// Apply a saved plan (`plan … -o json > plan.json`) to the snapshot
    /// files: remove deleted objects' documents, take the references to them
    /// out of the objects that stay (owner references, native destroyAfter),
    /// mark still-referenced Murano objects destroyed.
    Apply(ApplyArgs),
    /// Print a shell completion script.
    #[command(after_help = "Examples:
  mkdir -p ~/.local/share/bash-completion/completions
  teardown completions bash > ~/.local/share/bash-completion/completions/teardown
  teardown completions zsh > ~/.zfunc/_teardown   # with fpath+=~/.zfunc in ~/.zshrc")]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): one page with every command and flag, or
    /// one command's page.
    #[command(after_help = "Examples:
  teardown man | man -l -                         # read it now
  mkdir -p ~/.local/share/man/man1 && teardown man > ~/.local/share/man/man1/teardown.1
  teardown man plan > ~/.local/share/man/man1/teardown-plan.1")]
    Man {
        /// The command whose page to print (teardown-COMMAND(1)) [default:
        /// one page that holds every command]
        #[arg(value_name = "COMMAND")]
        command: Option<String>,
    },
}

impl Command {
    /// The inputs and the settings file's arguments, of a command that
    /// reads snapshots.
    pub fn input_mut(&mut self) -> Option<(&mut InputArgs, &mut ConfigArgs)> {
        match self {
            Command::Check(a) => Some((&mut a.input, &mut a.config)),
            Command::Plan(a) => Some((&mut a.input, &mut a.config)),
            Command::Explain(a) => Some((&mut a.input, &mut a.config)),
            Command::Simulate(a) => Some((&mut a.input, &mut a.config)),
            Command::Graph(a) => Some((&mut a.input, &mut a.config)),
            Command::Reconcile(a) => Some((&mut a.input, &mut a.config)),
            Command::Apply(_) | Command::Completions { .. } | Command::Man { .. } => None,
        }
    }

    /// The command's name and the inputs it reads, if it reads snapshots.
    pub fn input(&self) -> Option<(&'static str, &InputArgs)> {
        match self {
            Command::Check(a) => Some(("check", &a.input)),
            Command::Plan(a) => Some(("plan", &a.input)),
            Command::Explain(a) => Some(("explain", &a.input)),
            Command::Simulate(a) => Some(("simulate", &a.input)),
            Command::Graph(a) => Some(("graph", &a.input)),
            Command::Reconcile(a) => Some(("reconcile", &a.input)),
            Command::Apply(_) | Command::Completions { .. } | Command::Man { .. } => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// Files (YAML or JSON, whatever their names), directories (read
    /// recursively: *.yaml, *.yml, *.json, sorted), or - for standard input
    /// [default: -]
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Read every document with this dialect instead of recognising it.
    #[arg(long, value_name = "NAME", value_parser = dialects(), help_heading = INPUT)]
    pub dialect: Option<String>,

    /// Follow symbolic links inside the directories given (only to what lies
    /// inside them); without it they are not followed, as ripgrep does not
    #[arg(short = 'L', long, help_heading = INPUT)]
    pub follow: bool,

    /// Leave out what a directory walk finds with this name or path (a glob:
    /// `charts`, `*.tmpl.yaml`, `deploy/**/test`), replacing teardown.toml's
    /// `exclude`; repeatable
    #[arg(long, value_name = "GLOB", value_delimiter = ',', help_heading = INPUT)]
    pub exclude: Vec<String>,

    /// Leave out this too, beside teardown.toml's `exclude`; repeatable
    #[arg(long, value_name = "GLOB", value_delimiter = ',', help_heading = INPUT)]
    pub extend_exclude: Vec<String>,

    /// What is left out, flags and settings file together (made once the
    /// settings file is found: `settings::settle`).
    #[arg(skip)]
    pub excluded: Option<std::sync::Arc<crate::input::walk::Exclude>>,

    #[command(flatten)]
    pub limits: LimitArgs,
}

impl InputArgs {
    /// How the inputs are read: the limits, and whether links are followed.
    pub fn reading(&self) -> Limits {
        Limits { follow: self.follow, exclude: self.excluded.clone(), ..self.limits.limits() }
    }
}

/// How much is read before teardown refuses (see "Limits" in the README).
/// (Each flag names its heading: a struct's `next_help_heading` would go on
/// to the flags after it in the command.)
#[derive(Args, Debug, Clone)]
pub struct LimitArgs {
    /// Refuse a file, or standard input, larger than this (refused by its
    /// size, before it is read); K, M, G, T are powers of 1024
    #[arg(long, value_name = "SIZE", default_value_t = Size(Limits::FILE_SIZE), help_heading = LIMITS)]
    pub max_file_size: Size,

    /// Refuse an object (a document, or an item of a list) larger than this
    #[arg(long, value_name = "SIZE", default_value_t = Size(Limits::OBJECT_SIZE), help_heading = LIMITS)]
    pub max_object_size: Size,
}

impl LimitArgs {
    pub fn limits(&self) -> Limits {
        Limits { file_size: self.max_file_size.0, object_size: self.max_object_size.0, follow: false, exclude: None }
    }
}

/// The names `--dialect` takes: every dialect of the registry.
fn dialects() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        crate::dialect::REGISTRY.iter().map(|d| clap::builder::PossibleValue::new(d.name()).help(d.about())),
    )
}

impl InputArgs {
    /// The inputs in sorted path order, as a directory's files are read:
    /// the order they are named in on the command line changes nothing in
    /// the output (tests/props_determinism.rs).
    pub fn paths(&self) -> Vec<PathBuf> {
        if self.inputs.is_empty() {
            vec![PathBuf::from("-")]
        } else {
            let mut paths = self.inputs.clone();
            paths.sort();
            paths
        }
    }
}

#[derive(Args, Debug, Clone)]
pub struct SelectArgs {
    /// Only objects in this namespace: narrows KIND (a cluster-scoped kind
    /// is refused) and KIND/NAME (a cluster-scoped object named is taken,
    /// as kubectl does); alone, every object in the namespace, never a
    /// cluster-scoped one (not the Namespace itself: ns/NAME is that).
    #[arg(short = 'n', long = "namespace", value_name = "NAMESPACE", help_heading = SELECTION)]
    pub namespace: Option<String>,

    /// Label selector as kubectl's: KEY=VALUE, KEY!=VALUE, KEY in (V1,V2),
    /// KEY notin (V1,V2), KEY, !KEY, comma-separated; narrows the
    /// selectors, or alone selects every object it matches.
    #[arg(short = 'l', long = "selector", value_name = "LABELS", help_heading = SELECTION)]
    pub labels: Option<String>,

    /// Every namespace, as kubectl's -A: what a selector without -n reads
    /// already (a snapshot has no current namespace).
    #[arg(short = 'A', long, conflicts_with = "namespace", help_heading = SELECTION)]
    pub all_namespaces: bool,
}

/// `check -o`: its formats, each with what it means there.
pub const CHECK_FORMATS: Formats = Formats(&[
    offer(Format::Table, "Diagnostics with snippets, and a summary line"),
    offer(Format::Json, "The findings as JSON (`schemaVersion` 1)"),
    offer(Format::Yaml, SAME_IN_YAML),
    offer(Format::Sarif, "SARIF 2.1.0, for GitHub code scanning"),
    offer(Format::Github, "GitHub Actions workflow annotations"),
    offer(Format::Markdown, "For a pull request: the counts, then the findings in a table"),
]);

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Deny {
    /// Treat every warning as an error.
    Warnings,
}

/// Where the settings file is (`teardown.toml`).
#[derive(Args, Debug, Clone, Default)]
pub struct ConfigArgs {
    /// Read settings from this file instead of the teardown.toml found in
    /// the inputs' directory or above it (up to the repository root).
    #[arg(long, value_name = "FILE", conflicts_with = "isolated", help_heading = SETTINGS)]
    pub config: Option<PathBuf>,

    /// Where the settings file is looked for from: the inputs (set once
    /// the command line is read; none: the working directory).
    #[arg(skip)]
    pub beside: Vec<PathBuf>,

    /// Read no teardown.toml: flags and defaults only.
    #[arg(long, help_heading = SETTINGS)]
    pub isolated: bool,
}

/// Which findings are reported (by `check`) and which warnings are said
/// (by the other commands).
#[derive(Args, Debug, Clone, Default)]
pub struct RuleArgs {
    /// Report only the findings (and warnings) of these rules: ids or
    /// names, comma-separated or repeated (TD003,unknown-finalizer), or ALL
    /// [default: ALL, or teardown.toml's]
    #[arg(long, value_name = "RULES", value_delimiter = ',', help_heading = RULES)]
    pub select: Vec<String>,

    /// Do not report the findings (and warnings) of these rules (ids or
    /// names, comma-separated or repeated).
    #[arg(long, value_name = "RULES", value_delimiter = ',', help_heading = RULES)]
    pub ignore: Vec<String>,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[arg(short, long, value_parser = CHECK_FORMATS, default_value = "table", value_name = "FORMAT")]
    pub output: Format,

    /// The snapshot is the whole cluster: an owner missing from it is gone,
    /// and the collector will delete the dependent (TD003 becomes an error).
    #[arg(long)]
    pub closed_world: bool,

    /// Make findings of this kind errors.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub deny: Vec<Deny>,

    /// The object whose controller removes FINALIZER (e.g.
    /// example.com/cleanup=deployment/ops/cleaner), or `external`: the
    /// controller is outside the snapshot. Repeatable.
    #[arg(long = "finalizer-controller", value_name = "FINALIZER=SELECTOR|external")]
    pub finalizer_controller: Vec<String>,

    /// Check each package on its own: every directory named, and every
    /// directory below holding a Kptfile, kustomization.yaml or Chart.yaml
    /// (which its parent leaves out); a file named stands for the package
    /// it is in. Findings of all, one exit code.
    #[arg(long)]
    pub packages: bool,

    /// Print how many findings of each rule there are instead of the
    /// findings (a Markdown table, or JSON with -o json).
    #[arg(long)]
    pub statistics: bool,

    #[command(flatten)]
    pub rules: RuleArgs,

    /// Exit 0 even when there are findings at error level (they are still
    /// printed); input that cannot be read or used (TD001) still exits 2.
    #[arg(long)]
    pub exit_zero: bool,

    #[command(flatten)]
    pub config: ConfigArgs,
}

/// `graph -o`: its formats, each with what it means there.
pub const GRAPH_FORMATS: Formats = Formats(&[
    offer(Format::Tree, "An indented tree (shared objects and cycles marked)"),
    offer(Format::Json, "The nodes and edges as JSON (`schemaVersion` 1)"),
    offer(Format::Yaml, SAME_IN_YAML),
    offer(Format::Names, "The objects shown, each once, in tree order, for `xargs -L1 kubectl`"),
    offer(Format::Refs, "The objects shown, each once, in tree order, as full references"),
    offer(Format::Dot, "Graphviz DOT"),
    offer(Format::Mermaid, "A Mermaid flowchart"),
]);

#[derive(Args, Debug)]
pub struct GraphArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[arg(short, long, value_parser = GRAPH_FORMATS, default_value = "tree", value_name = "FORMAT")]
    pub output: Format,

    /// Start from these objects (KIND/NAME, KIND/NAMESPACE/NAME, KIND, uid:UID,
    /// id:ID), or from what -n/-l alone select. Repeatable.
    #[arg(long, value_name = "SELECTOR")]
    pub focus: Vec<String>,

    #[command(flatten)]
    pub select: SelectArgs,

    /// Walk from an object to what it owns and what must go before it (default).
    #[arg(long, conflicts_with = "dependencies")]
    pub dependents: bool,

    /// Walk from an object to its owners and what must go after it.
    #[arg(long)]
    pub dependencies: bool,

    /// Show at most N levels below each starting object.
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,

    /// Go on without documents that cannot be read or used (TD001): they
    /// become warnings instead of stopping the command (exit 2).
    #[arg(long)]
    pub skip_invalid: bool,

    #[command(flatten)]
    pub rules: RuleArgs,

    #[command(flatten)]
    pub config: ConfigArgs,
}

/// `plan -o`: its formats, each with what it means there.
pub const PLAN_FORMATS: Formats = Formats(&[
    offer(Format::Table, "A table of steps with short reasons; warnings and a summary on stderr"),
    offer(Format::Wide, "The table with every reason of each object"),
    offer(Format::Markdown, "For a pull request: summary, data loss, then the steps, collapsed"),
    offer(Format::Json, "The plan file (`schemaVersion` 1), which `teardown apply` reads"),
    offer(Format::Yaml, SAME_IN_YAML),
    offer(Format::Names, "Every object, in plan order, as kubectl names it (one namespace only)"),
    offer(Format::Refs, "One full reference a line (`Kind[.group]/[namespace/]name`), in plan order"),
    offer(Format::Dot, "Graphviz DOT, one cluster per step"),
    offer(Format::Mermaid, "A Mermaid flowchart, one subgraph per step"),
    offer(Format::Kubectl, "A bash script deleting each step's cascade roots: how to run a plan"),
]);

/// What makes `plan --fail-on` exit 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// The plan destroys something for good.
    DataLoss,
}

/// How a plan is made; shared by `plan` and `explain`.
#[derive(Args, Debug, Clone)]
pub struct PlanFlags {
    /// Delete these objects (KIND/NAME, KIND/NAMESPACE/NAME, uid:UID, id:ID,
    /// or KIND: every object of the kind, narrowed by -n/-l; a word alone is
    /// a kind or an id, as the snapshot says; repeatable, or
    /// comma-separated), with what cascades from them. Without it, -n/-l
    /// alone delete every object they match.
    #[arg(long, value_name = "SELECTOR", value_delimiter = ',')]
    pub delete: Vec<String>,

    /// Destroy everything in the input, in order.
    #[arg(long)]
    pub all: bool,

    /// What the garbage collector would delete now: objects whose owners are
    /// all gone or invalid, and objects already being deleted; Murano objects
    /// that ObjectsCopy has and Objects lacks, or that the root does not reach
    /// (inline or by id); with their cascades.
    #[arg(long)]
    pub gc: bool,

    /// Destroy the objects of INPUT that NEW (files or directories) lacks,
    /// with their cascades: Murano's offline change, cli-utils/kapp prune.
    /// A namespaced object of NEW without metadata.namespace is refused
    /// (kubectl apply would put it in its -n or context namespace).
    /// Repeatable.
    #[arg(long, value_name = "NEW")]
    pub prune: Vec<PathBuf>,

    /// Murano: the object `--gc` collects from (default: each document's
    /// first top-level object, of Objects in a deployment task).
    #[arg(long, value_name = "ID")]
    pub root: Option<String>,

    #[command(flatten)]
    pub select: SelectArgs,

    /// How dependents of deleted objects are treated (kubectl's words);
    /// foreground and background give the same plan (and differ in the
    /// commands of -o kubectl).
    #[arg(long, value_enum, default_value_t = CascadeMode::Background, value_name = "MODE")]
    pub cascade: CascadeMode,

    /// A dependent with several owners is deleted when all of its solid owners
    /// are (all), or when any of them is (any) [default: each dialect's
    /// collector: all for Kubernetes, any for Krake]
    #[arg(long = "multi-owner", value_enum, value_name = "RULE")]
    pub multi_owner: Option<MultiOwner>,

    /// Plan an ownership cycle as one group instead of failing.
    #[arg(long)]
    pub allow_cycles: bool,

    /// The object whose controller removes FINALIZER: it is destroyed after
    /// every object carrying it; or `external`: the controller is outside
    /// the snapshot (no ordering). Repeatable.
    #[arg(long = "finalizer-controller", value_name = "FINALIZER=SELECTOR|external")]
    pub finalizer_controller: Vec<String>,

    /// Plan without documents of INPUT that cannot be read or used (TD001):
    /// they become warnings in the plan instead of stopping it (exit 2).
    /// Never for --prune NEW (a skipped document would look absent); a plan
    /// that depends on a skipped document (an owner its objects name, a
    /// cascade through it) is refused (exit 2).
    #[arg(long)]
    pub skip_invalid: bool,

    /// The snapshot is the whole cluster: with --gc, an object whose owner
    /// is missing from it is collected (without: kept, "owner not in
    /// snapshot").
    #[arg(long)]
    pub closed_world: bool,

    /// Prune even when NEW holds no objects at all (everything in INPUT
    /// goes); without it an empty NEW is refused, as kapp refuses an empty
    /// resource list.
    #[arg(long)]
    pub allow_empty_new: bool,

    /// Leave out the default ordering rules (a ServiceAccount, its bindings
    /// and their roles after the workloads that run as it; claim, volume,
    /// storage class; a webhook configuration or APIService before its
    /// Service and the workloads behind it; a deleted namespace's Pods before
    /// the rest of it) and other tools' ordering metadata (Argo CD waves, kapp
    /// change rules, Flux dependsOn, Crossplane Usages): only owner
    /// references, declared dependencies and what Kubernetes controllers
    /// delete (a Service's Endpoints, a Node's Pods, a claim's volume) order
    /// the plan.
    #[arg(long)]
    pub no_default_rules: bool,
}

#[derive(Args, Debug)]
#[command(group(ArgGroup::new("mode").args(["delete", "all", "gc", "prune"])))]
#[command(group(ArgGroup::new("what").required(true).multiple(true).args(["delete", "all", "gc", "prune", "namespace", "labels"])))]
pub struct PlanArgs {
    /// The command as a plan file records it (no flag of its own). First:
    /// the fields after it take their values out of the matches.
    #[command(flatten)]
    pub recorded: Recorded,

    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub plan: PlanFlags,

    #[arg(short, long, value_parser = PLAN_FORMATS, default_value = "table", value_name = "FORMAT")]
    pub output: Format,

    /// Also show the order TOOL would delete the same objects in, and
    /// where it destroys an object before one that still needs it
    /// (warnings TD016); the plan and the exit code stay teardown's. With
    /// -o table, json or yaml.
    #[arg(long = "as", value_enum, value_name = "TOOL")]
    pub tool_order: Option<crate::plan::tool_order::Tool>,

    /// Exit 1 (after printing the plan) when the plan does this: for CI
    /// gates. `data-loss`: it destroys something for good (a volume whose
    /// reclaim policy is Delete, a CRD's custom resources, a Namespace, a
    /// Secret nothing recreates).
    #[arg(long, value_enum, value_name = "CONDITION")]
    pub fail_on: Option<FailOn>,

    #[command(flatten)]
    pub rules: RuleArgs,

    #[command(flatten)]
    pub config: ConfigArgs,
}

/// A `plan` command as a plan file records it (`command`), for `apply` to
/// make the plan again: `plan`, then each flag given on the command line,
/// in the order `plan` defines them, written `--flag` or `--flag=VALUE`
/// (each value of a repeated or comma-separated flag on its own). Left
/// out: the inputs (the plan file's `inputs` name them, as files), the
/// flags of every command (`--color`, `-q`), and defaults not given, so
/// that the same plan made from the same files records the same command
/// however they were named (a directory, or its files one by one).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recorded(pub Vec<String>);

impl FromArgMatches for Recorded {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Recorded, clap::Error> {
        Ok(Recorded(record(matches)))
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.0 = record(matches);
        Ok(())
    }
}

impl Args for Recorded {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        cmd
    }
}

/// The words of [`Recorded`] for the matches of a `plan` command.
fn record(matches: &clap::ArgMatches) -> Vec<String> {
    let cli = Cli::command();
    let Some(plan) = cli.find_subcommand("plan") else { return Vec::new() };
    let mut words = vec!["plan".to_string()];
    for arg in plan.get_arguments() {
        let id = arg.get_id().as_str();
        if arg.is_positional() || arg.is_global_set() {
            continue;
        }
        if matches.value_source(id) != Some(clap::parser::ValueSource::CommandLine) {
            continue;
        }
        let flag = match (arg.get_long(), arg.get_short()) {
            (Some(long), _) => format!("--{long}"),
            (None, Some(short)) => format!("-{short}"),
            (None, None) => continue,
        };
        match arg.get_action() {
            action if action.takes_values() => {
                let values = matches.try_get_raw(id).ok().flatten().into_iter().flatten();
                words.extend(values.map(|v| format!("{flag}={}", v.to_string_lossy())));
            }
            clap::ArgAction::Count => {
                let n = matches.try_get_one::<u8>(id).ok().flatten().copied().unwrap_or(0);
                words.extend(std::iter::repeat_n(flag, usize::from(n)));
            }
            _ => words.push(flag),
        }
    }
    words
}

/// `explain -o`: its formats, each with what it means there.
pub const EXPLAIN_FORMATS: Formats = Formats(&[
    Offer { alias: Some("text"), ..offer(Format::Table, "The chains that explain it, as text") },
    offer(Format::Json, "The chains as JSON (`schemaVersion` 1)"),
    offer(Format::Yaml, SAME_IN_YAML),
    offer(Format::Names, "The objects it names, each once, in order, for `xargs -L1 kubectl`"),
    offer(Format::Refs, "The objects it names, each once, in order, as full references"),
]);

#[derive(Args, Debug)]
#[command(group(ArgGroup::new("mode").args(["delete", "all", "gc", "prune"])))]
pub struct ExplainArgs {
    /// The object to explain (KIND/NAME, KIND/NAMESPACE/NAME, KIND, uid:UID,
    /// id:ID). -n/-l are plan flags here: they choose the plan (as in `plan
    /// -n NS`), not this object.
    #[arg(value_name = "SELECTOR")]
    pub object: String,

    #[command(flatten)]
    pub input: InputArgs,

    /// The plan to explain (default: --all).
    #[command(flatten)]
    pub plan: PlanFlags,

    #[arg(short, long, value_parser = EXPLAIN_FORMATS, default_value = "table", value_name = "FORMAT")]
    pub output: Format,

    #[command(flatten)]
    pub config: ConfigArgs,
}

/// `simulate -o`: its formats, each with what it means there.
pub const SIMULATE_FORMATS: Formats = Formats(&[
    offer(Format::Table, "The numbered trace, then a summary"),
    offer(Format::Json, "The trace as an event list, with the summary"),
    offer(Format::Yaml, SAME_IN_YAML),
    offer(Format::Names, "One removed object a line, in removal order, for `xargs -L1 kubectl delete`"),
    offer(Format::Refs, "One full reference a line of the objects removed, in removal order"),
]);

#[derive(Args, Debug)]
pub struct SimulateArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Delete these objects (KIND/NAME, KIND/NAMESPACE/NAME, KIND, uid:UID,
    /// id:ID; repeatable, or comma-separated), narrowed by -n/-l.
    #[arg(long, value_name = "SELECTOR", value_delimiter = ',', required = true)]
    pub delete: Vec<String>,

    #[command(flatten)]
    pub select: SelectArgs,

    /// Whose garbage collector to replay.
    #[arg(long, value_enum, value_name = "CONTROLLER")]
    pub controller: Controller,

    /// Kubernetes: the propagation policy of the DELETE [default: background].
    /// Krake has none.
    #[arg(long, value_enum, value_name = "MODE")]
    pub cascade: Option<CascadeMode>,

    /// Simulate without documents that cannot be read or used (TD001).
    #[arg(long)]
    pub skip_invalid: bool,

    #[arg(short, long, value_parser = SIMULATE_FORMATS, default_value = "table", value_name = "FORMAT")]
    pub output: Format,

    #[command(flatten)]
    pub rules: RuleArgs,

    #[command(flatten)]
    pub config: ConfigArgs,
}

/// `reconcile -o`: its formats, each with what it means there.
pub const RECONCILE_FORMATS: Formats = Formats(&[
    offer(Format::Table, "Each sub-resource's rule and action, the state changes, the rules that fired"),
    offer(Format::Json, "The decisions as JSON (`schemaVersion` 1)"),
    offer(Format::Yaml, SAME_IN_YAML),
]);

#[derive(Args, Debug)]
pub struct ReconcileArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// The kinds of the custom resources (KIND or KIND.GROUP; repeatable, or
    /// comma-separated) [default: the kinds of the objects that have a
    /// spec.state]
    #[arg(long = "kind", value_name = "KIND", value_delimiter = ',')]
    pub kinds: Vec<String>,

    /// The sub-resources as they should be (files or directories;
    /// repeatable): each live one is compared with its desired one ("spec
    /// matches"), and one missing from INPUT does not exist. Without it,
    /// every spec matches.
    #[arg(long, value_name = "FILES")]
    pub desired: Vec<PathBuf>,

    /// This kind of sub-resource is ephemeral too: it can be recreated
    /// safely (repeatable) [ephemeral by default: ConfigMap,
    /// HorizontalPodAutoscaler, Ingress, Pod, Service]
    #[arg(long, value_name = "KIND", value_delimiter = ',')]
    pub ephemeral: Vec<String>,

    /// This kind of sub-resource is not ephemeral, even if it is by default
    /// (repeatable).
    #[arg(long = "non-ephemeral", value_name = "KIND", value_delimiter = ',')]
    pub non_ephemeral: Vec<String>,

    #[arg(short, long, value_parser = RECONCILE_FORMATS, default_value = "table", value_name = "FORMAT")]
    pub output: Format,

    #[command(flatten)]
    pub rules: RuleArgs,

    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Args, Debug)]
#[command(after_help = "\
Examples:
  teardown plan --delete deploy/shop/web manifests/ -o json > plan.json
  teardown apply --dry-run plan.json     # the unified diff, nothing written
  teardown apply plan.json               # edit the files, keeping FILE.bak")]
pub struct ApplyArgs {
    /// The plan file (`-` for standard input), as `plan -o json` or `-o yaml` wrote it.
    #[arg(value_name = "PLAN")]
    pub plan: PathBuf,
    /// Print the changes as a unified diff; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Do not keep a copy of each changed file as FILE.bak.
    #[arg(long)]
    pub no_backup: bool,

    #[command(flatten)]
    pub limits: LimitArgs,
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMANDS: [(&str, Formats); 6] = [
        ("check", CHECK_FORMATS),
        ("graph", GRAPH_FORMATS),
        ("plan", PLAN_FORMATS),
        ("explain", EXPLAIN_FORMATS),
        ("simulate", SIMULATE_FORMATS),
        ("reconcile", RECONCILE_FORMATS),
    ];

    fn output(words: &[&str]) -> Result<Format, String> {
        let cli =
            Cli::try_parse_from(std::iter::once("teardown").chain(words.iter().copied())).map_err(|e| e.to_string())?;
        match cli.command {
            Command::Check(a) => Ok(a.output),
            Command::Graph(a) => Ok(a.output),
            Command::Plan(a) => Ok(a.output),
            Command::Explain(a) => Ok(a.output),
            Command::Simulate(a) => Ok(a.output),
            Command::Reconcile(a) => Ok(a.output),
            _ => Err("another command".into()),
        }
    }

    /// The words each command needs besides `-o`.
    fn words(command: &str) -> Vec<&str> {
        match command {
            "plan" => vec!["plan", "--all"],
            "explain" => vec!["explain", "id:a"],
            "simulate" => vec!["simulate", "--delete", "id:a", "--controller", "kubernetes"],
            other => vec![other],
        }
    }

    #[test]
    fn each_command_takes_its_formats_and_refuses_the_others_listing_its_own() {
        let all = [
            Format::Table,
            Format::Wide,
            Format::Tree,
            Format::Markdown,
            Format::Json,
            Format::Yaml,
            Format::Sarif,
            Format::Github,
            Format::Names,
            Format::Refs,
            Format::Dot,
            Format::Mermaid,
            Format::Kubectl,
        ];
        for format in all {
            assert!(COMMANDS.iter().any(|(_, f)| f.0.iter().any(|o| o.format == format)), "{format:?} offered nowhere");
        }
        for (command, formats) in COMMANDS {
            let listed: Vec<&str> = formats.0.iter().map(|o| o.format.name()).collect();
            for format in all {
                let mut args = words(command);
                args.extend(["-o", format.name()]);
                match output(&args) {
                    Ok(got) => {
                        assert!(listed.contains(&format.name()) && got == format, "{command} -o {}", format.name())
                    }
                    Err(e) => {
                        assert!(!listed.contains(&format.name()), "{command} -o {}: {e}", format.name());
                        let values = format!("[possible values: {}]", listed.join(", "));
                        assert!(
                            e.contains(&format!("invalid value '{}' for '--output <FORMAT>'", format.name())),
                            "{e}"
                        );
                        assert!(e.contains(&values), "{command}: {e}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_default_is_the_first_format_and_an_alias_is_its_format() {
        for (command, formats) in COMMANDS {
            assert_eq!(output(&words(command)).ok(), formats.0.first().map(|o| o.format), "{command}");
        }
        assert_eq!(output(&["explain", "id:a", "-o", "text"]), Ok(Format::Table));
    }
}
