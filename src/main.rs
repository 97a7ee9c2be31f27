use clap::Parser;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use teardown::app::{self, Env};
use teardown::cli::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let env = Env {
        stdin: &mut std::io::stdin().lock(),
        stdout_is_terminal: std::io::stdout().is_terminal(),
        no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
    };
    match app::run(cli, env) {
        Ok(out) => {
            // The result first, then what is said about it (warnings, the
            // summary line), so that a terminal shows them at the end.
            let mut stdout = std::io::stdout().lock();
            let written = stdout.write_all(&out.stdout).and_then(|()| stdout.flush());
            let _ = std::io::stderr().write_all(&out.stderr);
            match written {
                Ok(()) => ExitCode::from(out.code),
                // A reader that stopped reading (`| head`) is not an error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => {
                    let _ = writeln!(std::io::stderr(), "teardown: error: cannot write output: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "teardown: error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
