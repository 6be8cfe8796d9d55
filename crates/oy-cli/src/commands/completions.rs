//! `oy completions SHELL`: the shell completion script, generated from the
//! clap grammar so it cannot drift from the real flags.

use anyhow::Result;
use clap::CommandFactory as _;

use crate::cli::{Cli, CompletionsArgs};
use crate::exit::Exit;

pub(crate) fn run(args: &CompletionsArgs) -> Result<Exit> {
    let mut command = Cli::command();
    let name = command.get_name().to_owned();
    let mut stdout = std::io::stdout().lock();
    clap_complete::generate(args.shell, &mut command, name, &mut stdout);
    Ok(Exit::Ok)
}
