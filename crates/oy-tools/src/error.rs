//! `ToolError`: why a tool call failed, and what the model should try instead.

use oy_boundary::BoundaryError;

/// A failed tool call. Rendered for the model as `TOOL_ERROR: …` plus a
/// `RECOVERY: …` line ([`ToolError::recovery`]); it never ends the loop.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// No tool has this name.
    #[error("unknown tool `{name}`")]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// The tools that are offered.
        available: Vec<String>,
    },
    /// The arguments are not JSON at all.
    #[error("arguments for `{tool}` are not valid JSON: {problem}")]
    MalformedJson {
        /// The tool.
        tool: String,
        /// The parser's message.
        problem: String,
        /// A valid call to copy from.
        example: String,
    },
    /// The arguments are JSON but do not fit the tool's schema.
    #[error("invalid arguments for `{tool}`: {problem}")]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// Which field is wrong and how.
        problem: String,
        /// A valid call to copy from.
        example: String,
    },
    /// The tool exists but is not offered in this mode or frontend.
    #[error("`{tool}` is not available: {reason}")]
    NotOffered {
        /// The tool.
        tool: String,
        /// Why (the mode, or no interactive user).
        reason: String,
        /// What would make it available.
        hint: String,
    },
    /// The approval policy or the user refused the action.
    #[error("{tool} denied: {reason}")]
    Denied {
        /// The tool.
        tool: String,
        /// Why.
        reason: String,
        /// What would allow it (a flag, a mode).
        hint: String,
    },
    /// The workspace boundary refused or failed the operation.
    #[error(transparent)]
    Boundary(#[from] BoundaryError),
    /// The tool ran and could not do what was asked.
    #[error("{message}")]
    Failed {
        /// What went wrong.
        message: String,
        /// What to try instead.
        recovery: String,
    },
}

impl ToolError {
    /// Shorthand for [`ToolError::Failed`].
    pub fn failed(message: impl Into<String>, recovery: impl Into<String>) -> Self {
        Self::Failed {
            message: message.into(),
            recovery: recovery.into(),
        }
    }

    /// True for errors a command line treats as usage errors (exit 2):
    /// an unknown tool or arguments that are not JSON.
    pub fn is_usage(&self) -> bool {
        matches!(self, Self::UnknownTool { .. } | Self::MalformedJson { .. })
    }

    /// True when a policy or the user refused the call.
    pub fn is_denied(&self) -> bool {
        matches!(self, Self::Denied { .. } | Self::NotOffered { .. })
    }

    /// What the model should try instead.
    pub fn recovery(&self) -> String {
        match self {
            Self::UnknownTool { available, .. } => {
                format!("call one of the available tools: {}", available.join(", "))
            }
            Self::MalformedJson { example, .. } | Self::InvalidArguments { example, .. } => {
                format!("send arguments as a JSON object like {example}")
            }
            Self::NotOffered { hint, .. } | Self::Denied { hint, .. } => hint.clone(),
            Self::Boundary(error) => boundary_recovery(error),
            Self::Failed { recovery, .. } => recovery.clone(),
        }
    }

    /// The exact text the model sees for this error.
    pub fn to_model_text(&self) -> String {
        format!("TOOL_ERROR: {self}\nRECOVERY: {}", self.recovery())
    }
}

fn boundary_recovery(error: &BoundaryError) -> String {
    match error {
        BoundaryError::Escape { .. } => {
            "use a path inside the workspace, relative to its root".to_owned()
        }
        BoundaryError::InvalidPath { .. } => {
            "send a non-empty relative path such as \"src/main.rs\"".to_owned()
        }
        BoundaryError::NotFound { .. } => {
            "check the name with `list` or `search`, then retry with the exact path".to_owned()
        }
        BoundaryError::NotAFile { .. } => {
            "pass a regular file; use `list` to see what a directory holds".to_owned()
        }
        BoundaryError::NotADirectory { .. } => {
            "pass a directory, or remove the file that is in the way".to_owned()
        }
        BoundaryError::TooLarge { .. } => {
            "read a slice with `offset`/`limit`, or `search` for what you need".to_owned()
        }
        BoundaryError::NotUtf8 { .. } | BoundaryError::Binary { .. } => {
            "this tool handles UTF-8 text only; inspect the file another way".to_owned()
        }
        BoundaryError::AlreadyExists { .. } => {
            "the destination exists: choose another path, or replace it deliberately (`move` has `overwrite`)".to_owned()
        }
        BoundaryError::DirectoryNotEmpty { .. } => {
            "the directory is not empty: `remove` with `recursive: true` deletes it with its contents".to_owned()
        }
        BoundaryError::RootProtected { .. } => {
            "act on a path below the workspace root, never the root itself".to_owned()
        }
        BoundaryError::Protected { path, .. } => format!(
            "file tools never change this path, in any mode. If the change is needed, tell the user exactly what to change in {path} and why, so they can make it themselves"
        ),
        BoundaryError::PermissionDenied { path, .. } => format!(
            "{path} is not writable for the user oy runs as; tell the user, who can change its permissions if the change is wanted"
        ),
        BoundaryError::SymlinkLoop { .. } => {
            "the path goes through a symlink loop; use the real path".to_owned()
        }
        BoundaryError::OffsetPastEnd { total_lines, .. } => {
            format!("use an offset between 1 and {total_lines}")
        }
        _ => "check the path and try again; if it keeps failing, report it to the user".to_owned(),
    }
}
