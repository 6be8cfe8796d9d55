//! The capability-based workspace filesystem: the only door to a workspace's
//! files.
//!
//! A [`Workspace`] holds a `cap_std` directory capability for the root.
//! Callers turn strings into [`WorkspacePath`]s with [`Workspace::path`]
//! (lexical checks), and every operation then resolves symlinks against the
//! real tree, refusing any that leave the root, before acting through the
//! capability so that the kernel (`openat2` + `RESOLVE_BENEATH` on Linux)
//! refuses anything a race could have redirected.
//!
//! It owns: path parsing, symlink resolution, size-capped and line-sliced
//! reads, text/binary detection, atomic writes (also staged many at a
//! time, their bytes made durable together), append, rename, remove,
//! protected paths (names and directories no change may touch), the
//! gitignore-aware walker (and opening walked files by its directory
//! handles), missing-path suggestions, and whether a root is too broad to
//! work in ([`BroadRoot`]). Failures are [`BoundaryError`]s
//! with the path and a typed reason; an escape is always
//! [`BoundaryError::Escape`], also when a race made the kernel refuse it.
//!
//! It must never: follow a link out of the root, change a protected path, act on a path another
//! workspace made, open a FIFO or device, leave a torn file behind a failed
//! write, remove or reuse a file it did not create, remove the root, read
//! an environment variable, print, or depend on another oy crate. It is
//! synchronous; async callers run it on a blocking thread.

mod atomic;
mod breadth;
mod error;
mod lines;
mod metadata;
mod path;
mod protect;
mod read;
mod remove;
mod rename;
mod resolve;
mod staged;
mod suggest;
mod walk;
mod walk_rules;
mod workspace;
mod write;

pub use breadth::BroadRoot;
pub use error::{BoundaryError, EscapeRoute, InvalidPathReason, Result};
pub use lines::{Line, LineSlice, LineWindow};
pub use metadata::{FileKind, Metadata};
pub use path::{WorkspacePath, c_quoted};
pub use protect::Protection;
pub use staged::Staged;
pub use walk::{Walk, WalkControl, WalkEntry, WalkOptions};
pub use workspace::Workspace;
pub use write::{APPEND_LIMIT_BYTES, WriteOutcome};
