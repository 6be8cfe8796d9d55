//! The `oy` command line: turns flags, the environment and the terminal into
//! a resolved [`Config`] and wires the oy libraries together.
//!
//! It owns the ambient authority the libraries never touch: the current
//! directory, environment variables, the XDG data directory, the terminal.
//! It must never hold tool, policy or provider logic — that lives in the
//! library crates, so an embedding program gets the same behaviour.

mod agent_setup;
mod approver;
mod cli;
mod commands;
mod config;
mod exit;
mod json_text;
mod lone_word;
mod mcp;
mod mentions;
mod private_dir;
mod prompt_commands;
mod provider_setup;
mod render;
mod report;
mod signals;
mod state_store;
mod stdout;
mod user_tools;

pub use config::Config;
pub use exit::Exit;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

/// Parses `args` (program name first), runs the command, returns the exit code.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = match cli::Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            // clap prints help/version to stdout and errors to stderr itself.
            let _ = error.print();
            return if error.use_stderr() {
                Exit::Usage.into()
            } else {
                Exit::Ok.into()
            };
        }
    };
    match commands::run(cli) {
        Ok(exit) => exit.into(),
        // `oy tools | head`: the reader has what it wanted.
        Err(error) if stdout::is_closed(&error) => Exit::Ok.into(),
        Err(error) => {
            report(&error);
            if error.downcast_ref::<exit::UsageError>().is_some() {
                Exit::Usage.into()
            } else {
                Exit::Failed.into()
            }
        }
    }
}

#[expect(clippy::print_stderr, reason = "the binary's own error report")]
fn report(error: &anyhow::Error) {
    // Error texts can carry file names and server answers.
    eprintln!(
        "oy: error: {}",
        render::terminal_safe(&format!("{error:#}"))
    );
}
