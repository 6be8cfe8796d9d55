//! The scope check: `--path` must name a real directory or file, reached
//! without a symlink in any component — a link named like a harmless file
//! could otherwise point the audit at a secret one the name rules would
//! have skipped.

use oy_boundary::{FileKind, Workspace};

use crate::error::AuditError;

/// Refuses a scope any of whose components is a symlink.
pub fn check_scope(workspace: &Workspace, scope: &str) -> Result<(), AuditError> {
    let mut prefix = String::new();
    for component in scope
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
    {
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix.push_str(component);
        let path = workspace.path(&prefix)?;
        if workspace.symlink_metadata(&path)?.kind == FileKind::Symlink {
            return Err(AuditError::LinkedScope { path: prefix });
        }
    }
    Ok(())
}
