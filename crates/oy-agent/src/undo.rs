//! Undo for a session: where its checkpoints live, closing a turn's
//! checkpoint (the `checkpoint` event), and `Agent::undo`, `redo` and
//! `session_diff` over them (docs/undo.md).

use std::path::Path;
use std::sync::Arc;

use oy_boundary::Workspace;
use oy_checkpoint::{Checkpoints, Commands, Limits, UndoReport};
use oy_tools::ToolContext;

use crate::agent::Agent;
use crate::error::AgentError;
use crate::events::AgentEvent;
use crate::notes::ContextNote;

/// The name of the directory, under the frontend's data directory, that
/// holds one checkpoint directory per session.
pub const CHECKPOINTS_DIR: &str = "checkpoints";

/// Opens the checkpoints of session `id` under `dir` (the directory of
/// every session's checkpoints), making its directory when missing.
pub fn open_checkpoints(dir: &Path, id: &str) -> Result<Checkpoints, AgentError> {
    crate::session::check_id(id)?;
    // 0700, like every directory oy keeps private data in.
    let own = oy_tools::private_dir(dir, Some(id)).map_err(|error| {
        AgentError::session(format!("cannot make the checkpoint directory: {error}"))
    })?;
    Ok(Checkpoints::open(&own, Limits::default())?)
}

/// The checkpoints of session `id` under `dir`, set up as a run's are:
/// snapshots use the git `tools` finds outside the workspace (never one a
/// command could plant) with the tools' child environment, and `tools`'
/// workspace gets the protected paths installed first, so an undo through
/// it is refused wherever a file tool would be.
pub fn session_checkpoints(
    tools: &ToolContext,
    dir: &Path,
    id: &str,
) -> Result<Checkpoints, AgentError> {
    oy_tools::protect_workspace(tools.workspace(), tools.sandbox().private_dirs());
    Ok(open_checkpoints(dir, id)?.with_git(tools.git_program(), tools.child_env().vars().to_vec()))
}

impl Agent {
    /// Closes the turn's checkpoint (a git snapshot may run: on a
    /// blocking thread) and reports it when the turn changed something.
    pub(crate) async fn end_checkpoint(&self) {
        let Some(checkpoints) = self.tools.checkpoints().map(Arc::clone) else {
            return;
        };
        let tools = Arc::clone(&self.tools);
        let summary = tokio::task::spawn_blocking(move || checkpoints.end_turn(tools.workspace()))
            .await
            .ok()
            .flatten();
        let Some(summary) = summary else { return };
        let (commands, commands_note) = match &summary.commands {
            Commands::None => ("none", None),
            Commands::Git { .. } => ("git", None),
            Commands::Untracked {
                why,
                outside_git: true,
            } => ("outside_git", Some(why.clone())),
            Commands::Untracked { why, .. } => ("not_undoable", Some(why.clone())),
        };
        if summary.files.is_empty() && commands == "none" {
            return;
        }
        self.emit(&AgentEvent::Checkpoint {
            turn: summary.turn,
            files: summary.files,
            commands: commands.to_owned(),
            commands_note,
            not_kept: summary.not_kept,
        });
    }

    /// Undoes the last `count` turns that changed something (a dry run
    /// only reports). Refused — nothing changed — when a path was changed
    /// since by someone else: the report names it.
    /// An applied undo or redo is told to the model with the next turn,
    /// so it does not go on from files that are no longer there.
    pub async fn undo(&mut self, count: usize, dry_run: bool) -> Result<UndoReport, AgentError> {
        self.restore(move |checkpoints, ws| checkpoints.undo(ws, count, dry_run))
            .await
    }

    /// Redoes the last undo, once, before the next turn.
    pub async fn redo(&mut self, dry_run: bool) -> Result<UndoReport, AgentError> {
        self.restore(move |checkpoints, ws| checkpoints.redo(ws, dry_run))
            .await
    }

    /// Everything the session's turns changed so far, as a unified diff.
    pub async fn session_diff(&self) -> Result<String, AgentError> {
        let checkpoints = self.checkpoints()?;
        let tools = Arc::clone(&self.tools);
        tokio::task::spawn_blocking(move || checkpoints.diff(tools.workspace()))
            .await
            .map_err(|error| AgentError::Build(format!("the diff stopped: {error}")))?
            .map_err(AgentError::from)
    }

    fn checkpoints(&self) -> Result<Arc<Checkpoints>, AgentError> {
        self.tools.checkpoints().map(Arc::clone).ok_or_else(|| {
            AgentError::session("this session keeps no checkpoints, so there is nothing to undo")
        })
    }

    async fn restore(
        &mut self,
        run: impl FnOnce(&Checkpoints, &Workspace) -> Result<UndoReport, oy_checkpoint::CheckpointError>
        + Send
        + 'static,
    ) -> Result<UndoReport, AgentError> {
        let checkpoints = self.checkpoints()?;
        let tools = Arc::clone(&self.tools);
        oy_tools::protect_workspace(tools.workspace(), tools.sandbox().private_dirs());
        let report = tokio::task::spawn_blocking(move || run(&checkpoints, tools.workspace()))
            .await
            .map_err(|error| AgentError::Build(format!("the undo stopped: {error}")))??;
        if report.applied || !report.conflicts.is_empty() {
            self.emit(&AgentEvent::Undo(report.clone()));
        }
        if report.applied {
            self.add_context_note(ContextNote::new("undo", undo_note(&report)));
        }
        Ok(report)
    }
}

/// What the model is told after an undo or redo.
fn undo_note(report: &UndoReport) -> String {
    let turns: Vec<String> = report.turns.iter().map(u64::to_string).collect();
    let what = match report.direction {
        oy_checkpoint::RestoreDirection::Undo => format!(
            "The user undid turn(s) {}: these paths are back to how they were before: ",
            turns.join(", ")
        ),
        oy_checkpoint::RestoreDirection::Redo => format!(
            "The user redid turn(s) {}: these paths are again as those turns left them: ",
            turns.join(", ")
        ),
    };
    let mut text = what + &report.paths.join(", ");
    if !report.unrestorable.is_empty() {
        let left: Vec<&str> = report
            .unrestorable
            .iter()
            .map(|item| item.path.as_str())
            .collect();
        text.push_str(&format!(". Left as they were: {}", left.join(", ")));
    }
    text.push_str(". Read files again before changing them.");
    text
}
