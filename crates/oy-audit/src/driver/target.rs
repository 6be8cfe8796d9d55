//! Where the report goes: its format, its default file name, and the
//! checks on its path, made before any work so a refused path costs
//! nothing and sends nothing.
//!
//! A report only ever replaces a report: an existing file at the path
//! must carry oy's mark (the findings block of `ISSUES.md`, oy as the
//! SARIF tool), else the person's own `ISSUES.md` would be lost. With the
//! default name the report then goes beside it (`ISSUES.oy.md`); a name
//! the person chose is refused.

use oy_boundary::{FileKind, Workspace, WorkspacePath};

use crate::error::AuditError;
use crate::report::{Report, is_oy_markdown, is_oy_sarif, render_markdown, render_sarif};

/// The most of an existing file read to look for oy's mark; a larger one
/// is not a report oy wrote.
const MAX_MARK_BYTES: u64 = 8 * 1024 * 1024;

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
    /// The default name, when a file oy did not write holds it and the
    /// report goes beside it instead.
    beside: Option<String>,
}

impl ReportTarget {
    /// Checks the report path `name` (the format's default file name when
    /// `None`). The report must land inside the workspace, and must not be
    /// a symlink (the repository would choose which file is overwritten),
    /// something other than a regular file, or inside version-control
    /// internals. A path that does not exist yet is fine; an existing
    /// file must be a report oy wrote (or empty). When `name` is `None`
    /// and the default file is someone else's, the report goes beside it
    /// ([`ReportTarget::beside`]); a chosen name is refused instead
    /// ([`AuditError::ReportNotOurs`]).
    pub fn check(
        workspace: &Workspace,
        name: Option<&str>,
        format: ReportFormat,
    ) -> Result<Self, AuditError> {
        let Some(chosen) = name else {
            let default = format.default_file_name();
            return match Self::check_one(workspace, default, format) {
                Err(AuditError::ReportNotOurs { .. }) => {
                    let mut target = Self::check_one(workspace, &beside_name(default), format)?;
                    target.beside = Some(default.to_owned());
                    Ok(target)
                }
                other => other,
            };
        };
        Self::check_one(workspace, chosen, format)
    }

    fn check_one(
        workspace: &Workspace,
        name: &str,
        format: ReportFormat,
    ) -> Result<Self, AuditError> {
        let name = name.to_owned();
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
        // A linked directory on the way would let the repository choose
        // where the report lands (`reports -> .git/hooks`).
        let mut prefix = String::new();
        let parents = name
            .split('/')
            .filter(|part| !part.is_empty() && *part != ".");
        for part in parents.clone().take(parents.count().saturating_sub(1)) {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(part);
            let linked = workspace
                .path(&prefix)
                .and_then(|dir| workspace.symlink_metadata(&dir))
                .is_ok_and(|meta| meta.kind == FileKind::Symlink);
            if linked {
                return Err(AuditError::ReportSymlink { path: prefix });
            }
        }
        match workspace.symlink_metadata(&path) {
            Ok(meta) if meta.kind == FileKind::Symlink => {
                Err(AuditError::ReportSymlink { path: name })
            }
            Ok(meta) if meta.kind != FileKind::File => {
                Err(AuditError::ReportNotFile { path: name })
            }
            Ok(meta) if meta.len > 0 && !is_ours(workspace, &path, format) => {
                Err(AuditError::ReportNotOurs { path: name })
            }
            _ => Ok(Self {
                name,
                path,
                format,
                beside: None,
            }),
        }
    }

    /// The same checks again, just before the report is written: the
    /// review takes minutes, and the repository's files may change
    /// meanwhile (a link or someone's file put at the path).
    pub fn recheck(&self, workspace: &Workspace) -> Result<(), AuditError> {
        Self::check_one(workspace, &self.name, self.format).map(|_| ())
    }

    /// The default file name the report went beside, because a file oy
    /// did not write holds it.
    pub fn beside(&self) -> Option<&str> {
        self.beside.as_deref()
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

/// `ISSUES.md` → `ISSUES.oy.md`: the same name with `.oy` before the
/// extension.
fn beside_name(name: &str) -> String {
    match name.rsplit_once('.') {
        Some((stem, extension)) => format!("{stem}.oy.{extension}"),
        None => format!("{name}.oy"),
    }
}

/// True when the file at `path` is a report oy wrote in `format`.
fn is_ours(workspace: &Workspace, path: &WorkspacePath, format: ReportFormat) -> bool {
    let Ok(text) = workspace.read_text(path, MAX_MARK_BYTES) else {
        return false;
    };
    match format {
        ReportFormat::Markdown => is_oy_markdown(&text),
        ReportFormat::Sarif => is_oy_sarif(&text),
    }
}
