//! `patch`: apply a unified diff or a `*** Begin Patch` envelope to one or
//! more files — every path and hunk checked first, then one approval, then
//! all changes land or none do.

mod apply;
mod commit;
mod land;
mod parse;

use std::collections::HashSet;

use oy_boundary::{BoundaryError, FileKind, Workspace, WorkspacePath};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use self::apply::{Applied, Doc};
use self::commit::Step;
use self::parse::{Action, FilePatch, HunkLine};
use crate::args::parse_args;
use crate::context::Invocation;
use crate::diff::{DiffWriter, LazyDiff, Region};
use crate::error::ToolError;
use crate::output::{ChangeSummary, ToolOutput};
use crate::protected::{Change, shown_with_target, with_reason};
use crate::registry::Tool;
use crate::session_allow::Subject;
use crate::spec::{Effect, LazySpec, ToolSpec};
use crate::tools::read::EDITABLE_BYTES;
use crate::tools::seen::Seen;

/// Files named in the approval summary before "and N more".
const SUMMARY_FILES: usize = 5;

/// Arguments of `patch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PatchArgs {
    /// A unified diff, or a `*** Begin Patch` ... `*** End Patch` envelope.
    patch: String,
}

/// The `patch` tool.
pub struct PatchTool {
    spec: LazySpec,
}

impl PatchTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: LazySpec::new::<PatchArgs>(
                "patch",
                "Apply a unified diff or a *** Begin Patch envelope (Add/Update/Delete/Move). All hunks must match exactly; all-or-nothing.",
                Effect::WorkspaceWrite,
            ),
        }
    }
}

impl Default for PatchTool {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for PatchTool {
    fn spec(&self) -> &ToolSpec {
        self.spec.get()
    }

    fn name(&self) -> &str {
        self.spec.name()
    }

    fn effect(&self) -> Effect {
        self.spec.effect()
    }

    fn example(&self) -> &'static str {
        r#"{"patch":"*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-fn old_name() {}\n+fn new_name() {}\n*** End Patch\n"}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: PatchArgs = parse_args("patch", args, self.example())?;
        // A call that will be refused anyway costs no matching.
        call.precheck(Effect::WorkspaceWrite, "apply a patch")?;
        let ws = call.workspace();
        let files = parse::parse(&args.patch)?;
        let mut changes = Vec::new();
        for file in &files {
            let path = resolve(ws, &file.path, &file.header)?;
            let to = file
                .move_to
                .as_deref()
                .map(|to| resolve(ws, to, &file.header))
                .transpose()?;
            changes.push((file.action, path, to));
        }
        let (effect, why) = call.effect_of(
            &changes
                .iter()
                .map(|(action, path, to)| match (action, to) {
                    (_, Some(to)) => Change::Move { from: path, to },
                    (Action::Delete, None) => Change::Remove(path),
                    (_, None) => Change::Write(path),
                })
                .collect::<Vec<_>>(),
        )?;
        let mut work = apply::patch_budget();
        let plans = files
            .iter()
            .map(|file| plan(ws, file, &mut work))
            .collect::<Result<Vec<_>, _>>()?;
        check_distinct(ws, &plans)?;
        let diff = LazyDiff::new(|diff: &mut DiffWriter| {
            for plan in &plans {
                plan.diff(diff);
            }
        });
        call.authorize_as(
            &Subject::FileChange,
            effect,
            with_reason(summary(ws, &plans), why.as_deref()),
            || diff.preview(),
        )?;
        for plan in &plans {
            plan.unchanged(ws)?;
        }
        let (bytes_written, diff) = land::land(call, &plans, diff)?;
        let mut text = format!("patched {} file(s):\n", plans.len());
        for plan in &plans {
            text.push_str(&plan.report());
            text.push('\n');
        }
        Ok(ToolOutput::changed(
            text,
            ChangeSummary {
                files: plans.iter().flat_map(Plan::touched).collect(),
                bytes_written,
            },
        )
        .with_diff(diff))
    }
}

/// One file section, checked and computed, ready to commit.
struct Plan {
    step: Step,
    stats: Stats,
}

/// Line counts of one file's change.
struct Stats {
    added: usize,
    removed: usize,
    /// Hunks that matched only ignoring trailing whitespace.
    lenient: Vec<usize>,
    /// Where the hunks landed (empty: diff the whole file).
    regions: Vec<Region>,
}

impl Stats {
    fn of(applied: &Applied) -> Self {
        Self {
            added: applied.added,
            removed: applied.removed,
            lenient: applied.lenient.clone(),
            regions: applied.regions.clone(),
        }
    }
}

impl Plan {
    /// `Err` when a file changed since the plan (and its preview) was
    /// made from it: nothing is written from a stale preview.
    fn unchanged(&self, ws: &Workspace) -> Result<(), ToolError> {
        match &self.step {
            Step::Create { path, .. } => Seen::Missing.unchanged(ws, path),
            Step::Replace { path, old, .. } | Step::Delete { path, old } => {
                still_holds(ws, path, old.as_bytes())
            }
            Step::Move { from, to, old, .. } => {
                still_holds(ws, from, old.as_bytes())?;
                Seen::Missing.unchanged(ws, to)
            }
        }
    }

    fn paths(&self) -> Vec<&WorkspacePath> {
        match &self.step {
            Step::Create { path, .. } | Step::Replace { path, .. } | Step::Delete { path, .. } => {
                vec![path]
            }
            Step::Move { from, to, .. } => vec![from, to],
        }
    }

    fn touched(&self) -> Vec<String> {
        self.paths()
            .into_iter()
            .map(WorkspacePath::to_text)
            .collect()
    }

    /// The text before (`None` = no file).
    fn old_text(&self) -> Option<&str> {
        match &self.step {
            Step::Create { .. } => None,
            Step::Replace { old, .. } | Step::Delete { old, .. } | Step::Move { old, .. } => {
                Some(old)
            }
        }
    }

    /// The text after (`None` = no file).
    fn new_text(&self) -> Option<&str> {
        match &self.step {
            Step::Create { bytes, .. } | Step::Replace { bytes, .. } => Some(bytes),
            Step::Move { old, bytes, .. } => Some(bytes.as_deref().unwrap_or(old)),
            Step::Delete { .. } => None,
        }
    }

    fn diff(&self, diff: &mut DiffWriter) {
        let (old, new) = (self.old_text(), self.new_text());
        match &self.step {
            Step::Create { path, .. } | Step::Replace { path, .. } | Step::Delete { path, .. } => {
                diff.file_in_regions(&path.to_text(), old, new, &self.stats.regions);
            }
            Step::Move { from, to, .. } => {
                diff.text(&format!("rename from {from}\nrename to {to}\n"));
                diff.file_in_regions(&to.to_text(), old, new, &self.stats.regions);
            }
        }
    }

    fn short(&self, ws: &Workspace) -> String {
        let counts = format!("+{} -{}", self.stats.added, self.stats.removed);
        match &self.step {
            Step::Create { path, .. } => {
                format!("add {} ({counts})", shown_with_target(ws, path))
            }
            Step::Replace { path, .. } => {
                format!("update {} ({counts})", shown_with_target(ws, path))
            }
            Step::Move { from, to, .. } => format!("move {from} -> {to} ({counts})"),
            Step::Delete { path, .. } => format!("delete {path}"),
        }
    }

    fn report(&self) -> String {
        let counts = format!("+{} -{}", self.stats.added, self.stats.removed);
        let (path, mut notes) = match &self.step {
            Step::Create { path, .. } => (path, vec!["created".to_owned()]),
            Step::Replace { path, .. } => (path, Vec::new()),
            Step::Move { from, to, .. } => (to, vec![format!("moved from {from}")]),
            Step::Delete { path, .. } => (path, vec!["deleted".to_owned()]),
        };
        if !self.stats.lenient.is_empty() {
            let hunks: Vec<String> = self.stats.lenient.iter().map(ToString::to_string).collect();
            notes.push(format!(
                "hunk {} matched only when ignoring trailing whitespace",
                hunks.join(", ")
            ));
        }
        if notes.is_empty() {
            format!("{path}: {counts}")
        } else {
            format!("{path}: {counts} ({})", notes.join("; "))
        }
    }
}

/// `Err` when `path` no longer holds `old`. The bytes are compared as they
/// are read (no digest of either side, no copy of the file); only a file
/// that changed is looked at again, by [`Seen`], for its error.
fn still_holds(ws: &Workspace, path: &WorkspacePath, old: &[u8]) -> Result<(), ToolError> {
    match ws.file_equals(path, old) {
        Ok(true) => Ok(()),
        _ => Seen::of_bytes(old).unchanged(ws, path),
    }
}

/// Validates one section against the workspace and computes its result.
fn plan(ws: &Workspace, file: &FilePatch, work: &mut apply::Work) -> Result<Plan, ToolError> {
    let path = resolve(ws, &file.path, &file.header)?;
    let shown = path.to_text();
    match file.action {
        Action::Add => {
            let has_old_lines = file
                .hunks
                .iter()
                .flat_map(|hunk| &hunk.lines)
                .any(|line| !matches!(line, HunkLine::Add(_)));
            if has_old_lines {
                return Err(ToolError::failed(
                    format!("`{}` adds {shown} but has ' ' or '-' lines", file.header),
                    "a new file has only '+' lines; to change an existing file use `*** Update File:` or `--- a/path`",
                ));
            }
            absent(ws, &path, &file.header)?;
            let applied = apply::apply_within(&Doc::empty(), &file.hunks, &shown, work)?;
            let stats = Stats::of(&applied);
            Ok(Plan {
                step: Step::Create {
                    new_dirs: missing_dirs(ws, &path, &file.header)?,
                    path,
                    bytes: applied.doc.render(),
                },
                stats,
            })
        }
        Action::Update => {
            let old_text = read_existing(ws, &path, "update", &file.header)?;
            let applied = apply::apply_within(&Doc::parse(&old_text), &file.hunks, &shown, work)?;
            let new_text = applied.doc.render();
            let stats = Stats::of(&applied);
            drop(applied);
            let step = match &file.move_to {
                None => Step::Replace {
                    path,
                    old: old_text,
                    bytes: new_text,
                },
                Some(to) => {
                    let to = resolve(ws, to, &file.header)?;
                    absent(ws, &to, &file.header)?;
                    Step::Move {
                        new_dirs: missing_dirs(ws, &to, &file.header)?,
                        from: path,
                        to,
                        bytes: (new_text != old_text).then_some(new_text),
                        old: old_text,
                    }
                }
            };
            Ok(Plan { step, stats })
        }
        Action::Delete => {
            match ws.symlink_metadata(&path) {
                Ok(meta) if meta.kind == FileKind::File => {}
                Ok(meta) => {
                    return Err(ToolError::failed(
                        format!(
                            "cannot delete {shown}: it is a {}, not a regular file",
                            meta.kind
                        ),
                        "patch deletes regular files only; use `remove` for directories and links",
                    ));
                }
                Err(e) => return Err(missing_or(e, &shown, "delete", &file.header)),
            }
            let old_text = read_existing(ws, &path, "delete", &file.header)?;
            let doc = Doc::parse(&old_text);
            let removed = if file.hunks.is_empty() {
                doc.line_count()
            } else {
                let applied = apply::apply_within(&doc, &file.hunks, &shown, work)?;
                let left = applied.doc.line_count();
                if left > 0 {
                    return Err(ToolError::failed(
                        format!(
                            "`{}` deletes {shown}, but its '-' lines leave {left} line(s) of the file; nothing was changed",
                            file.header
                        ),
                        format!(
                            "the '-' lines must cover all of {shown}, or use `*** Delete File: {shown}`"
                        ),
                    ));
                }
                applied.removed
            };
            Ok(Plan {
                step: Step::Delete {
                    path,
                    old: old_text,
                },
                stats: Stats {
                    added: 0,
                    removed,
                    lenient: Vec::new(),
                    regions: Vec::new(),
                },
            })
        }
    }
}

/// A section's path, with the section named if it is refused.
fn resolve(ws: &Workspace, raw: &str, header: &str) -> Result<WorkspacePath, ToolError> {
    ws.path(raw).map_err(|e| in_section(e, header))
}

fn in_section(error: BoundaryError, header: &str) -> ToolError {
    let message = format!("{error} (in `{header}`); nothing was changed");
    ToolError::failed(message, ToolError::Boundary(error).recovery())
}

/// Nothing may exist where a file is added or moved to.
fn absent(ws: &Workspace, path: &WorkspacePath, header: &str) -> Result<(), ToolError> {
    match ws.symlink_metadata(path) {
        Err(BoundaryError::NotFound { .. }) => Ok(()),
        Err(e) => Err(in_section(e, header)),
        Ok(meta) => Err(ToolError::failed(
            format!(
                "cannot create {path}: a {} already exists there (in `{header}`); nothing was changed",
                meta.kind
            ),
            "to change an existing file use `*** Update File:` or a diff against its current content; or pick another path",
        )),
    }
}

fn missing_or(error: BoundaryError, shown: &str, verb: &str, header: &str) -> ToolError {
    if error.is_not_found() {
        ToolError::failed(
            format!(
                "cannot {verb} {shown}: it does not exist (in `{header}`); nothing was changed"
            ),
            "check the path with `list`; to create a file use `*** Add File:` or `--- /dev/null`",
        )
    } else {
        in_section(error, header)
    }
}

/// The current text of a file the patch changes.
fn read_existing(
    ws: &Workspace,
    path: &WorkspacePath,
    verb: &str,
    header: &str,
) -> Result<String, ToolError> {
    let shown = path.to_text();
    let bytes = ws
        .read_bytes(path, EDITABLE_BYTES)
        .map_err(|e| missing_or(e, &shown, verb, header))?;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) => Err(in_section(
            BoundaryError::NotUtf8 {
                path: shown,
                byte_offset: e.utf8_error().valid_up_to() as u64,
            },
            header,
        )),
    }
}

/// Ancestors of `path` that do not exist yet, deepest first, so undoing a
/// creation can remove the directories it made.
fn missing_dirs(
    ws: &Workspace,
    path: &WorkspacePath,
    header: &str,
) -> Result<Vec<WorkspacePath>, ToolError> {
    let mut dirs = Vec::new();
    let mut parent = path.as_path().parent();
    while let Some(dir) = parent.filter(|dir| !dir.as_os_str().is_empty()) {
        let dir_path = ws.path(dir).map_err(|e| in_section(e, header))?;
        match ws.symlink_metadata(&dir_path) {
            Err(BoundaryError::NotFound { .. }) => dirs.push(dir_path),
            Ok(_) => break,
            Err(e) => return Err(in_section(e, header)),
        }
        parent = dir.parent();
    }
    Ok(dirs)
}

/// Each file may appear in one section only (as source or destination),
/// however it is named: two names that resolve to the same place (through
/// a link) or to the same file (hard links) would each be patched from the
/// old text, and the first change lost.
fn check_distinct(ws: &Workspace, plans: &[Plan]) -> Result<(), ToolError> {
    let mut places = HashSet::new();
    let mut files = HashSet::new();
    let mut named: Vec<(&WorkspacePath, String)> = Vec::new();
    for plan in plans {
        let follow_final = !matches!(plan.step, Step::Delete { .. });
        for path in plan.paths() {
            let place = ws
                .resolved(path, follow_final)
                .map_or_else(|_| path.to_text(), |resolved| resolved.to_text());
            let file = ws
                .metadata(path)
                .ok()
                .filter(|meta| meta.kind == FileKind::File)
                .map(|meta| meta.file_id);
            let clash = !places.insert(place.clone()) || file.is_some_and(|id| !files.insert(id));
            if clash {
                let other = named
                    .iter()
                    .find(|(_, known)| *known == place)
                    .map(|(other, _)| other.to_text());
                let same = match other {
                    Some(other) if other != path.to_text() => format!(" (as {other})"),
                    _ => String::new(),
                };
                return Err(ToolError::failed(
                    format!(
                        "{path} appears in more than one file section{same}, or names the same file as another section through a link; nothing was changed"
                    ),
                    "put all changes to one file in a single section (one `*** Update File:` or one `---`/`+++` header), under one name",
                ));
            }
            named.push((path, place));
        }
    }
    Ok(())
}

/// One line for the approval prompt.
fn summary(ws: &Workspace, plans: &[Plan]) -> String {
    let mut parts: Vec<String> = plans
        .iter()
        .take(SUMMARY_FILES)
        .map(|plan| plan.short(ws))
        .collect();
    if plans.len() > SUMMARY_FILES {
        parts.push(format!("and {} more", plans.len() - SUMMARY_FILES));
    }
    format!("patch {} file(s): {}", plans.len(), parts.join(", "))
}
