//! Dispatch from a parsed command line to the command handlers: each
//! command resolves the config from the flags it takes (`oy completions`
//! none at all, `oy doctor` leniently), and `oy WORD` goes through the
//! lone-word rule before any model is asked.

mod audit;
pub(crate) mod chat;
mod completions;
mod doctor;
mod mcp;
mod model;
mod resume;
mod run;
mod sandbox;
mod sessions;
mod tool;
mod tools;
pub(crate) mod undo;

use std::io::IsTerminal;

use anyhow::Result;
use clap::CommandFactory as _;

use crate::cli::{Cli, Command, Common, RunCommand};
use crate::config::Config;
use crate::exit::{Exit, UsageError};
use crate::lone_word::LoneWord;

/// Runs the parsed command.
pub(crate) fn run(cli: Cli) -> Result<Exit> {
    match cli.command {
        None => top_level(cli.run),
        Some(Command::Run(command)) => {
            let config = for_agent(&command.flags.common())?;
            run::run(config, command.args)
        }
        Some(Command::Chat(command)) => {
            let config = for_agent(&command.flags.common())?;
            chat::run(config, command.args)
        }
        Some(Command::Resume(command)) => {
            let config = for_agent(&command.flags.common())?;
            resume::run(config, command)
        }
        Some(Command::Model(args)) => {
            let config = Config::resolve(&Common::default().provider(&args.provider))?;
            model::run(&config, &args)
        }
        Some(Command::Doctor(args)) => doctor::run(&args.flags.common()),
        Some(Command::Undo(args)) => {
            let config = Config::resolve(&Common::default().root(&args.root))?;
            undo::run(&config, &args)
        }
        Some(Command::Diff(args)) => {
            let config = Config::resolve(&Common::default().root(&args.root))?;
            undo::diff(&config, &args)
        }
        Some(Command::Sessions(args)) => {
            let config = Config::resolve(&Common::default().root(&args.root))?;
            sessions::run(&config, &args)
        }
        Some(Command::Audit(args)) => {
            let common = Common::default().root(&args.root).provider(&args.provider);
            audit::run(&Config::resolve(&common)?, &args)
        }
        Some(Command::Completions(args)) => completions::run(&args),
        Some(Command::Mcp(args)) => mcp::run(&Config::resolve(&args.common())?, &args),
        Some(Command::Tools(args)) => {
            let common = Common::default()
                .root(&args.root)
                .policy(&args.policy)
                .trust(&args.trust)
                .mcp(&args.mcp);
            tools::run(&Config::resolve(&common)?, &args)
        }
        Some(Command::Tool(args)) => {
            let common = Common::default()
                .root(&args.root)
                .policy(&args.policy)
                .commands(&args.commands)
                .trust(&args.trust);
            tool::run(&Config::resolve(&common)?, &args)
        }
        Some(Command::Sandbox(args)) => {
            let common = Common::default()
                .root(&args.root)
                .policy(&args.policy)
                .commands(&args.commands);
            sandbox::run(&Config::resolve(&common)?, &args)
        }
    }
}

/// `oy [FLAGS] [PROMPT]`: a lone word is checked first; no prompt on a
/// terminal is a chat, anything else a run.
fn top_level(command: RunCommand) -> Result<Exit> {
    lone_word(&command.args.prompt)?;
    let config = for_agent(&command.flags.common())?;
    let args = command.args;
    if args.prompt.is_empty()
        && !args.json
        && std::io::stdin().is_terminal()
        && std::io::stdout().is_terminal()
    {
        let chat = crate::cli::ChatArgs {
            prompt: Vec::new(),
            verbose: args.verbose,
            max_turns: args.max_turns,
            resume: args.resume,
            continue_: args.continue_,
        };
        return chat::run(config, chat);
    }
    run::run(config, args)
}

/// The config of a session with the model, warning (once, on stderr) when
/// the workspace is the filesystem's root or the home directory and was
/// not named.
fn for_agent(common: &Common) -> Result<Config> {
    let config = Config::resolve(common)?;
    if !config.root_named
        && let Some(warning) = config.broad_root()
    {
        crate::config::warn(&warning);
    }
    Ok(config)
}

/// Refuses a lone word that is not a task ([`crate::lone_word`]).
fn lone_word(prompt: &[String]) -> Result<()> {
    // Only a lone bare word needs the command names (building the
    // grammar is work no ordinary prompt should pay for).
    if !matches!(prompt, [word] if crate::lone_word::is_bare(word)) {
        return Ok(());
    }
    let mut cli = Cli::command();
    cli.build();
    let names: Vec<&str> = cli.get_subcommands().map(clap::Command::get_name).collect();
    let word = prompt.first().map(String::as_str).unwrap_or_default();
    let message = match crate::lone_word::classify(prompt, &names) {
        LoneWord::Prompt => return Ok(()),
        LoneWord::Command(name) => format!(
            "`{name}` is a command, but flags came before it\nhint: give the command first, then its flags: `oy {name} --help` lists them"
        ),
        LoneWord::Near(names) => {
            let names: Vec<String> = names.iter().map(|name| format!("`oy {name}`")).collect();
            format!(
                "unknown command `{word}`\nhint: did you mean {}?\nhint: to send it to the model as a prompt, use `oy run {word}`",
                names.join(" or ")
            )
        }
        LoneWord::NotACommand => format!(
            "`{word}` is not a command; to send it as a prompt, use `oy run {word}`\nhint: `oy --help` lists the commands"
        ),
    };
    Err(UsageError::new(message).into())
}

#[cfg(test)]
mod tests {
    use super::chat::{ChatInput, parse_input};

    #[test]
    fn every_reserved_name_is_a_built_in_chat_command() {
        for name in crate::prompt_commands::BUILTINS {
            let input = parse_input(&format!("/{name}"));
            assert!(
                !matches!(input, ChatInput::Custom(..)),
                "/{name} parses as {input:?}"
            );
        }
        assert_eq!(
            parse_input("/review  src/lib.rs  now "),
            ChatInput::Custom("review".to_owned(), "src/lib.rs  now".to_owned())
        );
    }
}
