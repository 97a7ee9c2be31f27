use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use teardown::cli::Cli;
use teardown::commands::{self, Env};
use teardown::error::Error;

/// mimalloc keeps freed memory for reuse: large inputs make and drop big
/// buffers, and the system allocator returns each to the kernel only to
/// fault it back in.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Memory freed is given back to the kernel at once, not 10 ms later (as
/// `MIMALLOC_PURGE_DELAY=0` does; a value set there still rules): loading
/// frees its temporaries in bursts (a large list's runs, copied into the
/// snapshot's vector), and mimalloc's default delay kept them resident at
/// the peak — 13 % of it on a 100k-object list (236 MB against 206 MB,
/// `/usr/bin/time -v teardown check -o json`), at no measurable cost in time.
fn purge_freed_memory_at_once() {
    extern "C" {
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    // `mi_option_purge_delay` in mimalloc.h's `mi_option_e` (the v2 and the
    // v3 headers that libmimalloc-sys builds alike).
    const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: a plain C call of the allocator this binary links (its
        // `mi_decl_export void mi_option_set(mi_option_t, long)`), with an
        // option it defines; it only stores the value.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 0) };
    }
}

fn main() -> ExitCode {
    purge_freed_memory_at_once();
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
