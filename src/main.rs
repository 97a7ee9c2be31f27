use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use teardown::cli::Cli;
use teardown::commands::{self, Env};
use teardown::error::Error;

/// mimalloc keeps freed memory for reuse: large inputs make and drop big
/// buffers, and the system allocator returns each to the kernel only to
/// fault it back in. (Its own settings, measured at a million objects: docs/
/// contributing.md, Benchmarks.)
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let mut timer = teardown::timing::Timer::start();
    let cli = Cli::parse_args(std::env::args_os().collect());
    timer.lap("arguments");
    let mut stdout = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    let mut said = Vec::new();
    let env = Env {
        stdin: &mut std::io::stdin().lock(),
        stdout_is_terminal: std::io::stdout().is_terminal(),
        stdin_is_terminal: std::io::stdin().is_terminal(),
        progress: std::io::stderr().is_terminal(),
        no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        quiet: cli.quiet,
        stdout: &mut stdout,
        stderr: &mut said,
    };
    let result = commands::run(cli, env);
    timer.lap("run (total)");
    // The result first, then what is said about it (warnings, the summary
    // line, the error), so that a terminal shows them at the end.
    let result = match (result, stdout.flush()) {
        (Ok(status), Err(e)) => Err((status, Error::Output(e))),
        (Ok(status), Ok(())) => Ok(status),
        (Err(e), _) => Err((commands::Status::Success, e)),
    };
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(&said);
    match result {
        Ok(status) => ExitCode::from(status.exit_code()),
        // A reader that stopped reading (`| head`) is not an error.
        Err((_, e)) if e.is_closed_pipe() => ExitCode::SUCCESS,
        Err((_, e)) => {
            // Errors name objects and files: text from the input, escaped.
            let _ = writeln!(stderr, "teardown: error: {}", teardown::escape::escape(&e.to_string()));
            ExitCode::from(e.exit_code())
        }
    }
}
