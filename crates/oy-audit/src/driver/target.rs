//! Where the report goes: its format, its default file name, and the
//! checks on its path, made before any work so a refused path costs
//! nothing and sends nothing.

use oy_boundary::{FileKind, Workspace, WorkspacePath};

use crate::error::AuditError;
use crate::report::{Report, render_markdown, render_sarif};

/// Directory names of version-control internals the report may not go
/// into: a file there (`.git/hooks/pre-commit`, `.git/config`) can run code.
const VCS_DIRS: &[&str] = &[".git", ".hg", ".svn", ".bzr", "_darcs"];

/// The report's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReportFormat {
    /// `ISSUES.md`: a transparency line, a summary, the findings, a JSON block.
    #[default]
    Markdown,
    /// SARIF 2.1.0 for code scanning.
    Sarif,
}

impl ReportFormat {
    /// The file the report goes to when none is named.
    pub fn default_file_name(self) -> &'static str {
        match self {
            Self::Markdown => "ISSUES.md",
            Self::Sarif => "oy-audit.sarif",
        }
    }

    /// `report` as text in this format.
    pub fn render(self, report: &Report) -> String {
        match self {
            Self::Markdown => render_markdown(report),
            Self::Sarif => render_sarif(report),
        }
    }
}

/// A report path that passed [`ReportTarget::check`]: inside the
/// workspace, and a file the frontend may replace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportTarget {
    name: String,
    path: WorkspacePath,
    format: ReportFormat,
}

impl ReportTarget {
    /// Checks the report path `name` (the format's default file name when
    /// `None`). The report must land inside the workspace, and must not be
    /// a symlink (the repository would choose which file is overwritten),
    /// something other than a regular file, or inside version-control
    /// internals. A path that does not exist yet is fine.
    pub fn check(
        workspace: &Workspace,
        name: Option<&str>,
        format: ReportFormat,
    ) -> Result<Self, AuditError> {
        let name = name.unwrap_or(format.default_file_name()).to_owned();
        let path = match workspace.path(&name) {
            Ok(path) => path,
            Err(source) => return Err(AuditError::ReportOutside { path: name, source }),
        };
        let in_vcs = name
            .trim_start_matches("./")
            .split('/')
            .any(|part| VCS_DIRS.contains(&part));
        if in_vcs {
            return Err(AuditError::ReportInVcs { path: name });
        }
        match workspace.symlink_metadata(&path) {
            Ok(meta) if meta.kind == FileKind::Symlink => {
                Err(AuditError::ReportSymlink { path: name })
            }
            Ok(meta) if meta.kind != FileKind::File => {
                Err(AuditError::ReportNotFile { path: name })
            }
            _ => Ok(Self { name, path, format }),
        }
    }

    /// The path as given (or defaulted): what messages show.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The checked path to write to.
    pub fn path(&self) -> &WorkspacePath {
        &self.path
    }

    /// The format.
    pub fn format(&self) -> ReportFormat {
        self.format
    }

    /// The directory part of the name, when it has one: the frontend
    /// creates it before writing.
    pub fn parent(&self) -> Option<&str> {
        self.name
            .trim_end_matches('/')
            .rsplit_once('/')
            .map(|(parent, _)| parent)
            .filter(|parent| !parent.is_empty())
    }
}
