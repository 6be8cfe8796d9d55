//! The `oy` binary: parse the command line, run it, map the outcome to an exit code.

use std::process::ExitCode;

fn main() -> ExitCode {
    oy_cli::main_with_args(std::env::args_os())
}
