//! Exit codes (README, "Everyday use"): 0 done, 1 failed, 2 usage, 3 stopped by policy, 130 interrupted.

use std::process::ExitCode;

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Done.
    Ok,
    /// Failed (a tool error, a provider error after retries, a guard tripped).
    Failed,
    /// Usage or configuration error.
    Usage,
    /// Stopped by policy (a needed approval denied, or no TTY to ask).
    Policy,
    /// Interrupted (Ctrl-C).
    Interrupted,
    /// A command's own exit code, passed through (`oy sandbox`).
    Code(u8),
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(match exit {
            Exit::Ok => 0,
            Exit::Failed => 1,
            Exit::Usage => 2,
            Exit::Policy => 3,
            Exit::Interrupted => 130,
            Exit::Code(code) => code,
        })
    }
}

/// An error that is the user's input, not a failure: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub(crate) struct UsageError {
    pub(crate) message: String,
}

impl UsageError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

impl From<oy_tools::UnknownName> for UsageError {
    fn from(error: oy_tools::UnknownName) -> Self {
        Self::new(error.to_string())
    }
}
