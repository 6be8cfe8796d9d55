//! Dispatch from a parsed command line to the command handlers.

mod audit;
mod chat;
mod completions;
mod doctor;
mod model;
mod run;
mod sandbox;
mod sessions;
mod tool;
mod tools;

use std::io::IsTerminal;

use anyhow::Result;

use crate::cli::{Cli, Command};
use crate::config::Config;
use crate::exit::Exit;

/// Runs the parsed command.
pub(crate) fn run(cli: Cli) -> Result<Exit> {
    let config = Config::resolve(&cli.common)?;
    match cli.command {
        None if cli.run.prompt.is_empty()
            && !cli.run.json
            && std::io::stdin().is_terminal()
            && std::io::stdout().is_terminal() =>
        {
            let chat = crate::cli::ChatArgs {
                max_turns: cli.run.max_turns,
                resume: cli.run.resume,
                continue_: cli.run.continue_,
            };
            chat::run(config, chat)
        }
        None => run::run(config, cli.run),
        Some(Command::Run(args)) => run::run(config, args),
        Some(Command::Chat(args)) => chat::run(config, args),
        Some(Command::Model(args)) => model::run(&config, &args),
        Some(Command::Doctor) => doctor::run(&config),
        Some(Command::Sessions(args)) => sessions::run(&config, &args),
        Some(Command::Audit(args)) => audit::run(&config, &args),
        Some(Command::Completions(args)) => completions::run(&args),
        Some(Command::Tools(args)) => tools::run(&config, &args),
        Some(Command::Tool(args)) => tool::run(&config, &args),
        Some(Command::Sandbox(args)) => sandbox::run(&config, &args),
    }
}
