//! `oy sandbox [-- CMD ARGS…]`: runs one command under exactly the sandbox
//! a tool call gets (the same launcher, rules and environment), with the
//! terminal's stdio, and exits with its code; without a command, shows the
//! level and the rules.

use std::io::Write;
use std::os::unix::process::ExitStatusExt;

use anyhow::{Context, Result};
use oy_boundary::Workspace;
use oy_tools::Network;

use crate::cli::SandboxArgs;
use crate::config::Config;
use crate::exit::Exit;

pub(crate) fn run(config: &Config, args: &SandboxArgs) -> Result<Exit> {
    let workspace = Workspace::open(&config.root)
        .with_context(|| format!("cannot open the workspace {}", config.root.display()))?;
    let root = workspace.root().to_path_buf();
    let network = config.settings.policy.network == Network::Allow;
    let Some((program, rest)) = args.command.split_first() else {
        show(config, &root, network)?;
        return Ok(Exit::Ok);
    };
    crate::render::announce_sandbox(config);
    let status = config
        .sandbox
        .command(program, rest, &root, &config.child_env, &root, network)
        .and_then(|mut command| command.status());
    let status = match status {
        Ok(status) => status,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            report_missing(program);
            return Ok(Exit::Code(127));
        }
        Err(error) => return Err(error).context("cannot start the command"),
    };
    let code = status
        .code()
        .or_else(|| status.signal().map(|signal| 128 + signal))
        .unwrap_or(1);
    Ok(Exit::Code(u8::try_from(code).unwrap_or(1)))
}

#[expect(clippy::print_stderr, reason = "the person's own command line")]
fn report_missing(program: &std::ffi::OsStr) {
    eprintln!(
        "oy: error: {}: not found on the PATH of the command environment",
        crate::render::terminal_line(&program.to_string_lossy())
    );
}

/// The level, what is missing, and the rules, for a person to read.
fn show(config: &Config, root: &std::path::Path, network: bool) -> Result<()> {
    let sandbox = &config.sandbox;
    let mut out = crate::stdout::lock();
    // Paths are one line each in the listing: a newline in a name must not
    // forge a rule.
    let safe = |path: &std::path::Path| crate::render::terminal_line(&path.display().to_string());
    writeln!(
        out,
        "sandbox: {} (setting: {})",
        sandbox.level(),
        sandbox.setting().name()
    )?;
    for missing in sandbox.missing() {
        writeln!(
            out,
            "  not confined: {}",
            crate::render::terminal_line(&missing)
        )?;
    }
    if sandbox.level() == oy_tools::sandbox::Level::None {
        return Ok(());
    }
    writeln!(
        out,
        "network: {}",
        if network {
            "allowed (--network allow)"
        } else {
            "off: only Unix sockets (use --network allow)"
        }
    )?;
    writeln!(
        out,
        "writable:\n  {}\n  $TMPDIR (a private directory per run)",
        safe(root)
    )?;
    let protected = sandbox.protected_paths(root);
    if !protected.is_empty() {
        writeln!(out, "read-only inside the workspace:")?;
        for path in protected {
            writeln!(out, "  {}", safe(&path))?;
        }
    }
    writeln!(out, "readable (besides the workspace), where present:")?;
    for path in sandbox.read_paths() {
        if path.symlink_metadata().is_ok() {
            writeln!(out, "  {}", safe(path))?;
        }
    }
    writeln!(
        out,
        "everything else in your home directory is neither readable nor writable"
    )?;
    Ok(())
}
