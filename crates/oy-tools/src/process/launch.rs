//! Before and around a spawn: the working directory, checked through the
//! workspace boundary, and a spawn failure phrased for the model.

use std::io;
use std::path::PathBuf;

use oy_boundary::FileKind;

use crate::context::Invocation;
use crate::error::ToolError;

/// The host directory a child runs in: the workspace root, or `dir`
/// (relative to the root, or absolute inside it) when it is an existing
/// directory inside the workspace — symlinks are followed only while they
/// stay inside. Also returns the path as shown to the user. `field` names
/// the argument in errors.
pub(crate) fn working_dir(
    call: &Invocation<'_>,
    dir: Option<&str>,
    field: &str,
) -> Result<(PathBuf, String), ToolError> {
    let ws = call.workspace();
    let path = match dir {
        Some(dir) => ws.path(dir)?,
        None => ws.root_path(),
    };
    let shown = path.to_text();
    let metadata = ws.metadata(&path)?;
    if metadata.kind != FileKind::Directory {
        return Err(ToolError::failed(
            format!("`{field}` {shown} is a {}, not a directory", metadata.kind),
            format!(
                "set `{field}` to a directory inside the workspace, or leave it out to run at the root"
            ),
        ));
    }
    let shown = if shown.is_empty() {
        ".".to_owned()
    } else {
        shown
    };
    Ok((ws.host_path(&path), shown))
}

/// Why `program` could not be started, as a tool error.
pub(crate) fn spawn_error(program: &str, error: &io::Error) -> ToolError {
    match error.kind() {
        io::ErrorKind::NotFound => ToolError::failed(
            format!("`{program}` was not found (searched the PATH of the command environment)"),
            "check the program name, install it, or give its full path",
        ),
        io::ErrorKind::PermissionDenied => ToolError::failed(
            format!("`{program}` could not be run: permission denied"),
            "give a program that is executable by the user",
        ),
        io::ErrorKind::InvalidInput => ToolError::failed(
            format!("`{program}` could not be started: {error}"),
            "remove NUL bytes from the program, its arguments and its environment",
        ),
        _ => ToolError::failed(
            format!("`{program}` could not be started: {error}"),
            "retry once; if it keeps failing, report it to the user",
        ),
    }
}
