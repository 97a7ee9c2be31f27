use clap::Parser;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use teardown::app::{self, Env};
use teardown::cli::Cli;
use teardown::error::Error;

/// mimalloc keeps freed memory for reuse: large inputs make and drop big
/// buffers, and the system allocator returns each to the kernel only to
/// fault it back in.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut stdout = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    let env = Env {
        stdin: &mut std::io::stdin().lock(),
        stdout_is_terminal: std::io::stdout().is_terminal(),
        progress: std::io::stderr().is_terminal(),
        no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        stdout: &mut stdout,
    };
    let result = app::run(cli, env);
    // The result first, then what is said about it (warnings, the summary
    // line), so that a terminal shows them at the end.
    let flushed = stdout.flush();
    match (result, flushed) {
        // A reader that stopped reading (`| head`) is not an error.
        (Err(Error::Output(e)), _) | (Ok(_), Err(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        (Ok(_), Err(e)) => {
            let _ = writeln!(std::io::stderr(), "teardown: error: cannot write output: {e}");
            ExitCode::from(2)
        }
        (Ok(out), Ok(())) => {
            let _ = std::io::stderr().write_all(&out.stderr);
            ExitCode::from(out.code)
        }
        (Err(e), _) => {
            let _ = writeln!(std::io::stderr(), "teardown: error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
