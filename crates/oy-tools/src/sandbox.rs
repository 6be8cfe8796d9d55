//! The process sandbox: every process a tool starts (`bash`, `exec`,
//! `exec_command`, user tools) runs under a supervisor in its own session,
//! and — unless the user turned it off — confined by the kernel: Landlock
//! for the filesystem and for signals and ptrace, seccomp for sockets,
//! read-only bind mounts for the parts of `.git` that can make git run
//! code, no capabilities and `no_new_privs`. `docs/sandbox.md` is the
//! contract; SECURITY.md says what it does not confine.
//!
//! Nothing here needs `unsafe`: instead of a `pre_exec` hook, the program
//! that embeds oy-tools re-executes itself as a launcher ([`dispatch`]):
//! a *supervisor* stage (a child subreaper that kills every descendant
//! when the call ends) and a *confine* stage that restricts itself and
//! then `exec`s the command.

mod ancestors;
mod argv;
mod confine;
mod env_transport;
pub(crate) mod git_dirs;
mod landlock_rules;
mod launch;
mod policy;
mod probe;
mod refusal;
mod seccomp;
mod supervise;

pub use launch::{dispatch, protect_process};
pub use policy::{Sandbox, SandboxInputs, SandboxSetting, TOOLCHAIN_VARS};
pub use probe::{Level, Support};

pub(crate) use git_dirs::Watched;
pub(crate) use launch::{Launch, Launched, is_executable};
pub(crate) use refusal::explain_refusal;

/// The hidden first argument that turns the embedding program into the
/// launcher. Never shown in `--help`; only oy-tools builds such a command.
pub const LAUNCHER_ARG: &str = "__oy-sandbox";
