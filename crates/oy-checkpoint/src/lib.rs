//! Checkpoints: what each turn of an oy session changed in the workspace,
//! kept so that the turn can be undone exactly (docs/undo.md).
//!
//! Before a tool changes a path, [`Checkpoints::before_change`] saves what
//! was there (content and mode, a directory's whole tree, or absence) once
//! per turn in the session's private directory: content-addressed blobs,
//! mode 0600, size-bounded. Before the first command of a turn in a git
//! workspace, [`Checkpoints::before_command`] snapshots the working tree
//! (every file git does not ignore) as a tree in a git directory of oy's
//! own, with its own index and objects and no config a command could
//! write; at the end of the turn a second snapshot says what the commands
//! changed. [`Checkpoints::undo`] puts the paths back through
//! `oy-boundary`, after checking that nobody changed them since; the last
//! undo can be redone once.
//!
//! It owns: the checkpoint directory's format (index and blobs), the git
//! snapshots, the undo/redo plan and its conflict check, and the session's
//! diff. It must never: change a workspace path except through
//! `oy-boundary`, or through a parent that is a symbolic link; run git
//! against the user's repository, or a git found inside the workspace;
//! trust bytes it did not check against their digest; read an environment
//! variable (the git program and environment are handed in); print.

mod blobs;
mod capture;
mod checkpoints;
mod error;
mod fold;
mod git;
mod index;
mod restore;
mod session_diff;

pub use checkpoints::{Checkpoints, Limits};
pub use error::CheckpointError;
pub use index::{Commands, NotKept, State, TurnState, TurnSummary};
pub use restore::{Conflict, RestoreDirection, UndoReport, Unrestorable};
