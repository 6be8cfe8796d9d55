//! `oy sessions`: the saved sessions of this workspace (or all, `--all`),
//! newest first, as a table or JSON.

use std::io::Write;

use anyhow::Result;
use oy_boundary::Workspace;

use crate::agent_setup::session_store;
use crate::cli::SessionsArgs;
use crate::config::Config;
use crate::exit::Exit;
use crate::json_text::json_text;
use crate::render::terminal_line;

pub(crate) fn run(config: &Config, args: &SessionsArgs) -> Result<Exit> {
    let store = session_store(config)?;
    let root = Workspace::open(&config.root)
        .map(|workspace| workspace.root().display().to_string())
        .unwrap_or_else(|_| config.root.display().to_string());
    let sessions: Vec<_> = store
        .list()?
        .into_iter()
        .filter(|header| args.all || header.workspace == root)
        .collect();
    let mut stdout = crate::stdout::lock();
    if args.json {
        writeln!(stdout, "{}", json_text(&sessions, false)?)?;
        return Ok(Exit::Ok);
    }
    if sessions.is_empty() {
        let scope = if args.all { "" } else { " for this workspace" };
        writeln!(stdout, "no saved sessions{scope}")?;
        return Ok(Exit::Ok);
    }
    // Every field comes from a session file, and the workspace path and
    // title from outside oy: each is one line, with nothing a terminal acts on.
    for header in &sessions {
        let place = if args.all {
            format!("  {}", terminal_line(&header.workspace))
        } else {
            String::new()
        };
        writeln!(
            stdout,
            "{}  {}  {} turn{}  {}{place}",
            terminal_line(&header.id),
            terminal_line(&header.updated_at),
            header.turns,
            if header.turns == 1 { "" } else { "s" },
            terminal_line(&header.title)
        )?;
    }
    writeln!(
        stdout,
        "resume with: oy resume [ID]  or  oy run --resume ID \"…\""
    )?;
    Ok(Exit::Ok)
}
