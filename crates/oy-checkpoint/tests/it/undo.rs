//! Undo and redo of file-tool changes.

use std::os::unix::fs::PermissionsExt;

use oy_checkpoint::{Commands, Limits, TurnState};

use crate::support::{Setup, mode};

#[test]
fn undo_puts_back_content_and_mode_and_redo_reapplies() {
    let s = Setup::new();
    s.outside_write("a.txt", "old\n");
    std::fs::set_permissions(
        s.root().join("a.txt"),
        std::fs::Permissions::from_mode(0o750),
    )
    .unwrap();
    s.checkpoints.begin_turn(1).unwrap();
    s.write("a.txt", "first\n");
    s.write("a.txt", "second\n");
    let summary = s.checkpoints.end_turn(&s.ws).unwrap();
    assert_eq!(summary.files, vec!["a.txt"]);
    assert_eq!(summary.commands, Commands::None);

    let dry = s.checkpoints.undo(&s.ws, 1, true).unwrap();
    assert!(!dry.applied && dry.dry_run);
    assert!(dry.diff.contains("-second\n+old\n"), "{}", dry.diff);
    assert_eq!(s.read("a.txt").unwrap(), "second\n");

    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert!(report.applied);
    assert_eq!(report.turns, vec![1]);
    assert_eq!(s.read("a.txt").unwrap(), "old\n");
    assert_eq!(mode(&s.root().join("a.txt")), 0o750);

    let dry_redo = s.checkpoints.redo(&s.ws, true).unwrap();
    assert!(
        dry_redo.diff.contains("-old\n+second\n"),
        "{}",
        dry_redo.diff
    );
    let redo = s.checkpoints.redo(&s.ws, false).unwrap();
    assert!(redo.applied);
    assert_eq!(s.read("a.txt").unwrap(), "second\n");
    // Redo is once.
    assert!(s.checkpoints.redo(&s.ws, false).is_err());
}

#[test]
fn created_files_and_their_new_directories_are_removed() {
    let s = Setup::new();
    s.checkpoints.begin_turn(1).unwrap();
    s.write("new/deep/file.rs", "fn main() {}\n");
    s.checkpoints.end_turn(&s.ws).unwrap();
    assert!(s.root().join("new/deep/file.rs").exists());
    s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert!(
        !s.root().join("new").exists(),
        "the new directories went too"
    );
}

#[test]
fn a_removed_tree_and_a_move_come_back() {
    let s = Setup::new();
    s.outside_write("dir/a.txt", "a\n");
    s.outside_write("dir/sub/b.txt", "b\n");
    s.outside_write("m.txt", "m\n");
    s.checkpoints.begin_turn(1).unwrap();
    s.tool(&["dir"], |ws| {
        ws.remove(&ws.path("dir").unwrap(), true).unwrap();
    });
    s.tool(&["m.txt", "moved/m.txt"], |ws| {
        ws.create_dir_all(&ws.path("moved").unwrap()).unwrap();
        ws.rename(
            &ws.path("m.txt").unwrap(),
            &ws.path("moved/m.txt").unwrap(),
            false,
        )
        .unwrap();
    });
    s.checkpoints.end_turn(&s.ws).unwrap();
    assert!(!s.root().join("dir").exists());
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert!(report.conflicts.is_empty(), "{report:?}");
    assert_eq!(s.read("dir/a.txt").unwrap(), "a\n");
    assert_eq!(s.read("dir/sub/b.txt").unwrap(), "b\n");
    assert_eq!(s.read("m.txt").unwrap(), "m\n");
    assert!(!s.root().join("moved").exists());
}

#[test]
fn an_outside_change_since_the_turn_is_refused_and_nothing_changes() {
    let s = Setup::new();
    s.outside_write("a.txt", "old a\n");
    s.outside_write("b.txt", "old b\n");
    s.checkpoints.begin_turn(1).unwrap();
    s.write("a.txt", "new a\n");
    s.write("b.txt", "new b\n");
    s.checkpoints.end_turn(&s.ws).unwrap();
    s.outside_write("b.txt", "the person's edit\n");
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert!(!report.applied);
    assert_eq!(report.conflicts.len(), 1);
    assert_eq!(report.conflicts[0].path, "b.txt");
    assert_eq!(s.read("a.txt").unwrap(), "new a\n", "nothing was changed");
    assert_eq!(s.read("b.txt").unwrap(), "the person's edit\n");
    assert_eq!(s.checkpoints.turns()[0].state, TurnState::Closed);
}

#[test]
fn undo_counts_turns_that_changed_something_and_goes_back_several() {
    let s = Setup::new();
    s.outside_write("a.txt", "0\n");
    for turn in 1..=3 {
        s.checkpoints.begin_turn(turn).unwrap();
        s.write("a.txt", &format!("{turn}\n"));
        s.checkpoints.end_turn(&s.ws).unwrap();
    }
    // A turn that only talked.
    s.checkpoints.begin_turn(4).unwrap();
    assert!(s.checkpoints.end_turn(&s.ws).is_some());
    let report = s.checkpoints.undo(&s.ws, 2, false).unwrap();
    assert_eq!(report.turns, vec![3, 2]);
    assert_eq!(s.read("a.txt").unwrap(), "1\n");
    s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(s.read("a.txt").unwrap(), "0\n");
    assert!(s.checkpoints.undo(&s.ws, 1, false).is_err(), "nothing left");
}

#[test]
fn a_new_turn_ends_the_chance_to_redo() {
    let s = Setup::new();
    s.checkpoints.begin_turn(1).unwrap();
    s.write("a.txt", "x\n");
    s.checkpoints.end_turn(&s.ws).unwrap();
    s.checkpoints.undo(&s.ws, 1, false).unwrap();
    s.checkpoints.begin_turn(2).unwrap();
    s.checkpoints.end_turn(&s.ws);
    assert!(s.checkpoints.redo(&s.ws, false).is_err());
}

#[test]
fn a_file_over_the_bound_is_named_and_left_as_it_is() {
    let s = Setup::with_limits(Limits {
        max_file_bytes: 10,
        ..Limits::default()
    });
    s.outside_write("big.txt", "0123456789abcdef\n");
    s.outside_write("small.txt", "s\n");
    s.checkpoints.begin_turn(1).unwrap();
    s.write("big.txt", "short\n");
    s.write("small.txt", "t\n");
    let summary = s.checkpoints.end_turn(&s.ws).unwrap();
    assert_eq!(summary.not_kept.len(), 1);
    assert_eq!(summary.not_kept[0].path, "big.txt");
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert!(report.applied);
    assert_eq!(report.unrestorable[0].path, "big.txt");
    assert_eq!(s.read("small.txt").unwrap(), "s\n");
    assert_eq!(s.read("big.txt").unwrap(), "short\n");
}

#[test]
fn checkpoints_survive_a_new_process_and_blobs_are_private() {
    let s = Setup::new();
    s.outside_write("a.txt", "old\n");
    s.checkpoints.begin_turn(1).unwrap();
    s.write("a.txt", "new\n");
    s.checkpoints.end_turn(&s.ws).unwrap();
    let diff = s.checkpoints.diff(&s.ws).unwrap();
    assert!(diff.contains("-old\n+new\n"), "{diff}");
    let again = s.reopen();
    again.undo(&s.ws, 1, false).unwrap();
    assert_eq!(s.read("a.txt").unwrap(), "old\n");
    for entry in walk(&s.dir.path().join("cp")) {
        if entry.is_file() {
            assert_eq!(mode(&entry), 0o600, "{}", entry.display());
        }
    }
}

#[test]
fn a_change_oy_never_saw_finish_is_left_and_named() {
    let s = Setup::new();
    s.outside_write("a.txt", "old\n");
    s.checkpoints.begin_turn(1).unwrap();
    // Killed after announcing, during the write: no after-state recorded.
    let path = s.ws.path("a.txt").unwrap();
    s.checkpoints
        .before_change(&s.ws, std::slice::from_ref(&path))
        .unwrap();
    s.ws.write(&path, b"half way\n").unwrap();
    // The person goes on editing after the kill: undo cannot tell that
    // from what the tool wrote, so it leaves the file and says why.
    s.outside_write("a.txt", "the person's work\n");
    let again = s.reopen();
    let report = again.undo(&s.ws, 1, false).unwrap();
    assert_eq!(report.unrestorable.len(), 1, "{report:?}");
    assert!(
        report.unrestorable[0].why.contains("oy stopped"),
        "{report:?}"
    );
    assert_eq!(s.read("a.txt").unwrap(), "the person's work\n");
}

#[test]
fn a_changed_saved_copy_is_never_restored() {
    let s = Setup::new();
    s.outside_write("a.txt", "old\n");
    s.checkpoints.begin_turn(1).unwrap();
    s.write("a.txt", "new\n");
    s.checkpoints.end_turn(&s.ws).unwrap();
    for entry in walk(&s.dir.path().join("cp/blobs")) {
        if entry.is_file() && std::fs::read(&entry).unwrap() == b"old\n" {
            std::fs::write(&entry, b"bad\n").unwrap();
        }
    }
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(report.unrestorable.len(), 1, "{report:?}");
    assert!(
        report.unrestorable[0]
            .why
            .contains("changed after it was saved"),
        "{report:?}"
    );
    assert!(report.paths.is_empty(), "{report:?}");
    assert_eq!(s.read("a.txt").unwrap(), "new\n");
}

pub fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        }
        out.push(path);
    }
    out
}
