//! [`ConfigError`]: why the configuration could not be resolved. Texts
//! name config keys and files, never a frontend's flags: a command line
//! adds its own (`--sandbox`) where a value came from one.

use std::path::PathBuf;

use oy_boundary::BoundaryError;
use oy_provider::ConnectError;
use oy_tools::UnknownName;

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A config file that does not parse (TOML, or a value of the wrong
    /// kind), with the position of the problem when known.
    #[error(
        "invalid config file {}{}: {message}",
        path.display(),
        match at { Some((line, column)) => format!(" at line {line}, column {column}"), None => String::new() }
    )]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line and column.
        at: Option<(usize, usize)>,
        /// The parser's message.
        message: String,
    },
    /// `idle_timeout_secs = 0`: a stream could never be silent.
    #[error("idle_timeout_secs in {source_name} must be at least 1")]
    ZeroIdleTimeout {
        /// The config file's path (or "the config file").
        source_name: String,
    },
    /// A mode name the frontend was given that names no mode.
    #[error(transparent)]
    Mode(UnknownName),
    /// A network setting the frontend was given that names none.
    #[error(transparent)]
    Network(UnknownName),
    /// A wire API name that names none.
    #[error(transparent)]
    WireApi(ConnectError),
    /// A sandbox setting other than `on` or `off`.
    #[error("unknown sandbox setting `{given}`: use on or off")]
    Sandbox {
        /// What was given.
        given: String,
    },
    /// The workspace config exists but cannot be read (a link out of the
    /// root, too large, not text): fails closed, since it may have been
    /// meant to restrict.
    #[error("cannot read the workspace config {}: {source}", path.display())]
    WorkspaceUnreadable {
        /// Its host path.
        path: PathBuf,
        /// Why.
        source: BoundaryError,
    },
    /// A config text that cannot be edited: it does not parse as TOML (or
    /// its table cannot be written back).
    #[error("{message}")]
    Edit {
        /// The TOML library's message.
        message: String,
    },
    /// The workspace config's path could not be formed in the workspace.
    #[error(transparent)]
    Boundary(#[from] BoundaryError),
    /// The trust record of workspace prompt files cannot be read or written.
    #[error(transparent)]
    Trust(#[from] oy_tools::TrustError),
}

impl ConfigError {
    /// True when the error is the user's input (a value or a file they
    /// wrote), not a failure of the system.
    pub fn is_usage(&self) -> bool {
        !matches!(self, Self::Boundary(_) | Self::Trust(_))
    }
}
