//! `oy completions SHELL`: the shell completion script, generated from the
//! clap grammar so it cannot drift from the real flags.

use anyhow::Result;
use clap::CommandFactory as _;

use crate::cli::{Cli, CompletionsArgs};
use crate::exit::Exit;

pub(crate) fn run(args: &CompletionsArgs) -> Result<Exit> {
    let mut command = Cli::command();
    let name = command.get_name().to_owned();
    // clap_complete panics when its writer fails: the script is made in
    // memory, and a closed stdout (`| head`) is then a quiet exit.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, name, &mut script);
    crate::stdout::write_all(&script)?;
    Ok(Exit::Ok)
}
