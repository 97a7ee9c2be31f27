//! The commands: each turns its settings into a result, written to
//! `Env::stdout` as it is made, and returns how the run ended. One file a
//! command; what they share (loading input that must be usable) is in
//! `shared.rs`.

mod apply;
mod check;
mod explain;
mod graph;
mod plan;
mod planned;
mod reconcile;
mod shared;
mod simulate;

pub use shared::{Env, Status};

use crate::cli::{Cli, ColorWhen, Command};
use crate::error::Error;
use crate::render::diagnostics::Style;
use clap::CommandFactory;

pub fn run(mut cli: Cli, env: Env) -> Result<Status, Error> {
    let color = match cli.color {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => env.stdout_is_terminal && !env.no_color,
    };
    let style = Style { color };
    if let Some((name, input)) = cli.command.input() {
        if input.inputs.is_empty() && env.stdin_is_terminal {
            return Err(Error::Usage(format!(
                "no INPUT given, and standard input is a terminal: name files or directories \
                 (`teardown {name} manifests/`), or pipe a snapshot in (`kubectl get -A -o yaml | teardown {name}`); \
                 `-` reads the terminal until Ctrl-D"
            )));
        }
    }
    crate::settings::settle(&mut cli.command)?;
    match cli.command {
        Command::Check(args) => check::run(args, env, style),
        Command::Graph(args) => graph::run(args, env, style),
        Command::Plan(args) => plan::run(args, env, style),
        Command::Explain(args) => explain::run(args, env, style),
        Command::Simulate(args) => simulate::run(args, env, style),
        Command::Reconcile(args) => reconcile::run(args, env, style),
        Command::Apply(args) => apply::run(args, env, style),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "teardown", env.stdout);
            Ok(Status::Success)
        }
        Command::Man { command } => {
            let mut cli = Cli::command();
            cli.build();
            let page = match command {
                None => crate::render::man::whole(&cli, env.stdout),
                Some(name) => {
                    let pages = || crate::render::man::pages(&cli);
                    let Some(sub) = pages().find(|s| s.get_name() == name) else {
                        let names: Vec<&str> = pages().map(|s| s.get_name()).collect();
                        return Err(Error::Usage(format!(
                            "no man page for `{name}`; there is one for {}",
                            names.join(", ")
                        )));
                    };
                    crate::render::man::page(&cli, sub, env.stdout)
                }
            };
            page.map_err(Error::Output)?;
            Ok(Status::Success)
        }
    }
}
