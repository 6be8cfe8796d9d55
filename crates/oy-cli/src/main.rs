//! The `oy` binary: parse the command line, run it, map the outcome to an exit code.

use std::process::ExitCode;

fn main() -> ExitCode {
    // Before anything else: `oy` re-executed as the sandbox launcher runs
    // the command and never gets to parsing flags.
    if let Some(code) = oy_tools::sandbox::dispatch(std::env::args_os()) {
        std::process::exit(code);
    }
    // Children (also unsandboxed ones) must not read oy's memory or its
    // environment through /proc; failing to say so is not fatal.
    let _ = oy_tools::sandbox::protect_process();
    oy_cli::main_with_args(std::env::args_os())
}
