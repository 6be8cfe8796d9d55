//! Dispatch from a parsed command line to the command handlers.

mod tool;
mod tools;

use anyhow::Result;

use crate::cli::{Cli, Command};
use crate::config::Config;
use crate::exit::Exit;

/// Runs the parsed command.
pub(crate) fn run(cli: Cli) -> Result<Exit> {
    let config = Config::resolve(&cli.common)?;
    match cli.command {
        Command::Tools(args) => tools::run(&config, &args),
        Command::Tool(args) => tool::run(&config, &args),
    }
}
