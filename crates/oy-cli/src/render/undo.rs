//! How an undo or redo reads to a person (`oy undo`, `/undo`, `/redo`):
//! what was put back, what was left and why, and — for a refusal — which
//! files changed since, with what to do next. Every path comes from the
//! workspace, so each line passes the terminal-safe rule.

use oy_checkpoint::{RestoreDirection, UndoReport};

use crate::render::{Style, terminal_line};

/// The lines to show for `report`, styled; the diff (a dry run's) is not
/// among them.
pub(crate) fn report_lines(report: &UndoReport, style: Style) -> Vec<String> {
    let verb = match report.direction {
        RestoreDirection::Undo => "undo",
        RestoreDirection::Redo => "redo",
    };
    let turns = turn_list(&report.turns);
    let mut lines = Vec::new();
    if !report.conflicts.is_empty() {
        lines.push(style.red(&format!(
            "{verb} refused: {} changed since {turns} (nothing was changed):",
            plural(report.conflicts.len(), "file was", "files were")
        )));
        for conflict in &report.conflicts {
            lines.push(format!(
                "  {}: oy left {}, now {}",
                terminal_line(&conflict.path),
                conflict.expected,
                conflict.found
            ));
        }
        lines.push(format!(
            "hint: keep your changes elsewhere (e.g. `git stash`) or put those files back, then {verb} again"
        ));
        return lines;
    }
    let done = match (report.direction, report.dry_run) {
        (RestoreDirection::Undo, true) => "would undo",
        (RestoreDirection::Redo, true) => "would redo",
        (RestoreDirection::Undo, false) => "undid",
        (RestoreDirection::Redo, false) => "redid",
    };
    let paths: Vec<String> = report
        .paths
        .iter()
        .map(|path| terminal_line(path))
        .collect();
    let what = if paths.is_empty() {
        "no file needed changing".to_owned()
    } else {
        format!(
            "{} {}",
            plural(paths.len(), "file", "files"),
            paths.iter().take(8).cloned().collect::<Vec<_>>().join(", ")
        ) + if paths.len() > 8 { ", …" } else { "" }
    };
    lines.push(style.green(&format!("{done} {turns}: {what}")));
    for item in &report.unrestorable {
        lines.push(style.yellow(&format!(
            "  left as is: {} ({})",
            terminal_line(&item.path),
            terminal_line(&item.why)
        )));
    }
    for why in &report.commands_not_undone {
        lines.push(style.yellow(&format!(
            "  what commands changed was not undone — {}",
            terminal_line(why)
        )));
    }
    if report.dry_run {
        lines.push(style.dim(&format!("run it without --dry-run to {verb}")));
    } else if report.direction == RestoreDirection::Undo && !paths.is_empty() {
        lines.push(style.dim("redo takes this back (once, before the next turn)"));
    }
    lines
}

fn turn_list(turns: &[u64]) -> String {
    let mut sorted = turns.to_vec();
    sorted.sort_unstable();
    match sorted.as_slice() {
        [one] => format!("turn {one}"),
        many => format!(
            "turns {}",
            many.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn plural(count: usize, one: &str, many: &str) -> String {
    if count == 1 {
        format!("1 {one}")
    } else {
        format!("{count} {many}")
    }
}
