//! The journal's records and their recovery, on real files: each test
//! makes the state a process killed at some step would leave, with the
//! record it would have written, and checks what the next start does.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use oy_boundary::Workspace;

use super::*;
use crate::diff::Region;
use crate::state::content_digest;

struct Setup {
    _data: tempfile::TempDir,
    _root: tempfile::TempDir,
    ws: Workspace,
    journal: ChangeJournal,
}

fn setup(files: &[(&str, &str)]) -> Setup {
    let root = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = root.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let ws = Workspace::open(root.path()).unwrap();
    let data = tempfile::tempdir().unwrap();
    let journal = ChangeJournal::for_workspace(&data.path().join(JOURNAL_DIR), ws.root())
        .with_lock_wait(std::time::Duration::from_secs(2));
    Setup {
        _data: data,
        _root: root,
        ws,
        journal,
    }
}

impl Setup {
    fn file(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.ws.root().join(name)).ok()
    }

    fn put(&self, name: &str, text: &str) {
        let path = self.ws.root().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn record(&self, changes: Vec<Change>) -> Record {
        Record {
            version: VERSION,
            workspace: self.ws.root().to_string_lossy().into_owned(),
            tool: "patch".to_owned(),
            call_id: "call-1".to_owned(),
            pid: 4_194_300,
            started_ms: now_ms(),
            changes,
        }
    }

    /// Writes `changes`' record as the killed process would have, and
    /// lets it go (the process died: its lock with it).
    fn crashed(&self, changes: Vec<Change>) {
        drop(self.journal.begin(&self.record(changes)).unwrap());
    }

    fn records(&self) -> Vec<String> {
        std::fs::read_dir(self.journal.dir())
            .map(|entries| {
                entries
                    .map(|entry| entry.unwrap().file_name().into_string().unwrap())
                    // The workspace's lock file stays; it holds nothing.
                    .filter(|name| name != "lock")
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn replace(path: &str, old: &str, new: &str) -> Change {
    Change::Replace {
        path: path.to_owned(),
        new: content_digest(new.as_bytes()),
        old_len: old.len() as u64,
        undo: undo_splices(old, new, &[]),
    }
}

fn create(path: &str, new: &str, new_dirs: &[&str]) -> Change {
    Change::Create {
        path: path.to_owned(),
        new: content_digest(new.as_bytes()),
        new_dirs: new_dirs.iter().map(|d| (*d).to_owned()).collect(),
    }
}

fn moved(from: &str, to: &str, old: &str, new: &str) -> Change {
    Change::Move {
        from: from.to_owned(),
        to: to.to_owned(),
        old: content_digest(old.as_bytes()),
        new: content_digest(new.as_bytes()),
        new_dirs: Vec::new(),
        undo: undo_splices(old, new, &[]),
    }
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn a_record_is_private_held_while_alive_and_gone_when_finished() {
    let s = setup(&[]);
    let intent = s.journal.begin(&s.record(Vec::new())).unwrap();
    let names = s.records();
    assert_eq!(names.len(), 1, "{names:?}");
    let name = names.first().unwrap();
    assert!(name.ends_with(RECORD_SUFFIX), "{name}");
    assert_eq!(mode(s.journal.dir()), 0o700);
    assert_eq!(mode(&s.journal.dir().join(name)), 0o600);
    // Held: recovery leaves a live process's record alone.
    assert!(s.journal.recover(&s.ws).is_empty());
    assert_eq!(s.records().len(), 1);
    intent.finish();
    assert!(s.records().is_empty());
}

#[test]
fn a_half_applied_change_is_undone_whole() {
    let s = setup(&[
        ("a.txt", "old a\n"),
        ("b.txt", "old b\n"),
        ("gone.txt", "deleted\n"),
    ]);
    std::fs::set_permissions(
        s.ws.root().join("a.txt"),
        std::fs::Permissions::from_mode(0o750),
    )
    .unwrap();
    let changes = vec![
        create("new/dir/c.txt", "made\n", &["new/dir", "new"]),
        replace("a.txt", "old a\n", "new a\n"),
        replace("b.txt", "old b\n", "new b\n"),
        Change::Delete {
            path: "gone.txt".to_owned(),
            old_text: "deleted\n".to_owned(),
            mode: 0o600,
        },
    ];
    // Killed after the first two steps: c made, a rewritten (keeping its
    // mode, as a staged write does), b and gone.txt not reached.
    s.put("new/dir/c.txt", "made\n");
    s.put("a.txt", "new a\n");
    s.crashed(changes);

    let recovered = s.journal.recover(&s.ws);
    assert_eq!(recovered.len(), 1);
    let done = recovered.first().unwrap();
    assert_eq!(done.outcome, RecoveryOutcome::RolledBack, "{done:?}");
    assert_eq!(done.restored, ["new/dir/c.txt", "a.txt"]);
    assert!(done.left.is_empty(), "{done:?}");
    assert!(done.message().contains("undone"), "{}", done.message());
    assert_eq!(s.file("a.txt").as_deref(), Some("old a\n"));
    assert_eq!(mode(&s.ws.root().join("a.txt")), 0o750);
    assert_eq!(s.file("b.txt").as_deref(), Some("old b\n"));
    assert_eq!(s.file("gone.txt").as_deref(), Some("deleted\n"));
    assert!(!s.ws.root().join("new").exists(), "made directories stay");
    assert!(s.records().is_empty());
    // Done once: the next start has nothing to do.
    assert!(s.journal.recover(&s.ws).is_empty());
}

#[test]
fn a_change_that_had_landed_whole_stands() {
    let s = setup(&[("a.txt", "new a\n"), ("b.txt", "new b\n")]);
    s.crashed(vec![
        replace("a.txt", "old a\n", "new a\n"),
        replace("b.txt", "old b\n", "new b\n"),
    ]);
    let recovered = s.journal.recover(&s.ws);
    assert_eq!(
        recovered.first().map(|r| r.outcome),
        Some(RecoveryOutcome::Landed)
    );
    assert_eq!(s.file("a.txt").as_deref(), Some("new a\n"));
    assert_eq!(s.file("b.txt").as_deref(), Some("new b\n"));
    assert!(s.records().is_empty());
}

#[test]
fn a_change_killed_before_its_first_step_changed_nothing() {
    let s = setup(&[("a.txt", "old a\n"), ("b.txt", "old b\n")]);
    s.crashed(vec![
        replace("a.txt", "old a\n", "new a\n"),
        replace("b.txt", "old b\n", "new b\n"),
    ]);
    let recovered = s.journal.recover(&s.ws);
    let done = recovered.first().unwrap();
    assert_eq!(done.outcome, RecoveryOutcome::NothingChanged);
    assert!(done.left.is_empty());
    assert_eq!(s.file("a.txt").as_deref(), Some("old a\n"));
}

#[test]
fn a_file_edited_since_is_never_touched_and_nothing_is_undone() {
    // Killed after a.txt; b.txt then edited by someone: undoing a.txt
    // alone could make their work half, so nothing is undone.
    let s = setup(&[("a.txt", "new a\n"), ("b.txt", "someone's edit\n")]);
    s.crashed(vec![
        replace("a.txt", "old a\n", "new a\n"),
        replace("b.txt", "old b\n", "new b\n"),
    ]);
    let done = s.journal.recover(&s.ws).pop().unwrap();
    assert_eq!(done.outcome, RecoveryOutcome::ChangedSince);
    assert_eq!(done.left, ["b.txt"]);
    assert!(done.message().contains("b.txt"), "{}", done.message());
    assert_eq!(s.file("a.txt").as_deref(), Some("new a\n"));
    assert_eq!(s.file("b.txt").as_deref(), Some("someone's edit\n"));
    assert!(s.records().is_empty(), "said once");
}

#[test]
fn a_file_removed_by_someone_is_not_taken_for_a_done_deletion() {
    // Killed before any step; the person then removed creds.txt: the
    // deletion is the last step, so with the first not done it was not
    // oy's doing, and the file is not brought back.
    let s = setup(&[("a.txt", "old a\n")]);
    s.crashed(vec![
        replace("a.txt", "old a\n", "new a\n"),
        Change::Delete {
            path: "creds.txt".to_owned(),
            old_text: "token=1\n".to_owned(),
            mode: 0o600,
        },
    ]);
    let done = s.journal.recover(&s.ws).pop().unwrap();
    assert_eq!(done.outcome, RecoveryOutcome::ChangedSince);
    assert_eq!(done.left, ["creds.txt"]);
    assert_eq!(s.file("creds.txt"), None);
}

#[test]
fn stacked_interrupted_changes_are_undone_newest_first() {
    // Change one (older) made v0 -> v1 and died; change two made v1 -> v2
    // on top and died too. Undone newest first, a.txt is v0 again.
    let s = setup(&[("a.txt", "v2\n"), ("c.txt", "c0\n"), ("d.txt", "d0\n")]);
    s.crashed(vec![
        replace("a.txt", "v0\n", "v1\n"),
        replace("c.txt", "c0\n", "c1\n"),
    ]);
    std::thread::sleep(std::time::Duration::from_millis(2));
    s.crashed(vec![
        replace("a.txt", "v1\n", "v2\n"),
        replace("d.txt", "d0\n", "d1\n"),
    ]);
    let done = s.journal.recover(&s.ws);
    assert_eq!(done.len(), 2, "{done:?}");
    assert!(
        done.iter()
            .all(|r| r.outcome == RecoveryOutcome::RolledBack),
        "{done:?}"
    );
    assert_eq!(s.file("a.txt").as_deref(), Some("v0\n"));
}

#[test]
fn recovery_waits_for_a_change_landing_and_a_change_waits_for_recovery() {
    let s = setup(&[("a.txt", "new a\n"), ("b.txt", "old b\n")]);
    s.crashed(vec![
        replace("a.txt", "old a\n", "new a\n"),
        replace("b.txt", "old b\n", "new b\n"),
    ]);
    let landing = s.journal.lock(LockKind::Shared).unwrap();
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(300));
            drop(landing);
        });
        let done = s.journal.recover(&s.ws);
        assert_eq!(done.len(), 1);
    });
    assert!(started.elapsed() >= std::time::Duration::from_millis(300));
    assert_eq!(s.file("a.txt").as_deref(), Some("old a\n"));
    // And a change cannot begin while a recovery holds the workspace.
    let recovering = s.journal.lock(LockKind::Exclusive).unwrap();
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(std::time::Duration::from_millis(300));
            drop(recovering);
        });
        s.journal.begin(&s.record(Vec::new())).unwrap().finish();
    });
    assert!(started.elapsed() >= std::time::Duration::from_millis(300));
}

#[test]
fn records_of_another_format_or_kind_are_left_alone() {
    let s = setup(&[("a.txt", "new a\n")]);
    let mut record = s.record(vec![replace("a.txt", "old a\n", "new a\n")]);
    record.version = VERSION + 1;
    drop(s.journal.begin(&record).unwrap());
    // A FIFO where a record would be: never opened for reading (a
    // blocking open would hang every start).
    let fifo = s.journal.dir().join("1-1.journal");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        0,
    )
    .unwrap();
    assert!(s.journal.recover(&s.ws).is_empty());
    assert_eq!(s.records().len(), 2, "{:?}", s.records());
    assert_eq!(s.file("a.txt").as_deref(), Some("new a\n"));
}

#[test]
fn the_message_is_one_line_whatever_the_call_id() {
    let s = setup(&[("a.txt", "new a\n"), ("b.txt", "old b\n")]);
    let mut record = s.record(vec![
        replace("a.txt", "old a\n", "new a\n"),
        replace("b.txt", "old b\n", "new b\n"),
    ]);
    record.call_id = "c1\noy: all good\u{1b}[2J".to_owned();
    drop(s.journal.begin(&record).unwrap());
    let message = s.journal.recover(&s.ws).pop().unwrap().message();
    assert!(!message.chars().any(char::is_control), "{message:?}");
}

#[test]
fn exact_splices_put_back_only_the_regions_that_changed() {
    let old = "one\ntwo\nthree\nfour\nfive\n";
    let new = "one\nTWO\nthree\nfour\nFIVE\nsix\n";
    let regions = [
        Region {
            old: 1..2,
            new: 1..2,
        },
        Region {
            old: 4..5,
            new: 4..6,
        },
    ];
    let s = setup(&[("a.txt", new), ("b.txt", "b new\n")]);
    let undo = undo_splices(old, new, &regions);
    assert_eq!(undo.len(), 2);
    s.crashed(vec![
        Change::Replace {
            path: "a.txt".to_owned(),
            new: content_digest(new.as_bytes()),
            old_len: old.len() as u64,
            undo,
        },
        replace("b.txt", "b old\n", "b new\n"),
        replace("c.txt", "c old\n", "c new\n"),
    ]);
    s.put("c.txt", "c old\n");
    let done = s.journal.recover(&s.ws).pop().unwrap();
    assert_eq!(done.restored, ["a.txt", "b.txt"]);
    // c.txt never reached: its old text, so not named as left.
    assert!(done.left.is_empty(), "{done:?}");
    assert_eq!(s.file("a.txt").as_deref(), Some(old));
}

#[test]
fn moves_are_undone_from_every_point_they_can_stop_at() {
    // Renamed and rewritten; renamed only; and a file the undo itself
    // renamed back before it was killed, still holding the new text.
    for (at_from, at_to) in [
        (None, Some("new\n")),
        (None, Some("old\n")),
        (Some("new\n"), None),
    ] {
        let s = setup(&[("other.txt", "other new\n"), ("last.txt", "last old\n")]);
        if let Some(text) = at_from {
            s.put("from.txt", text);
        }
        if let Some(text) = at_to {
            s.put("sub/to.txt", text);
        }
        s.crashed(vec![
            replace("other.txt", "other old\n", "other new\n"),
            moved("from.txt", "sub/to.txt", "old\n", "new\n"),
            replace("last.txt", "last old\n", "last new\n"),
        ]);
        let done = s.journal.recover(&s.ws).pop().unwrap();
        assert_eq!(done.outcome, RecoveryOutcome::RolledBack, "{done:?}");
        assert_eq!(s.file("from.txt").as_deref(), Some("old\n"), "{at_from:?}");
        assert_eq!(s.file("sub/to.txt"), None);
        assert_eq!(s.file("other.txt").as_deref(), Some("other old\n"));
    }
}

#[test]
fn undo_never_writes_through_a_link() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("a.txt"), "new a\n").unwrap();
    let s = setup(&[("b.txt", "new b\n")]);
    // After the crash, a.txt's directory became a link leading out (and
    // a temp file of the dead writer's name waits out there).
    std::fs::write(outside.path().join(".a.txt.oy-tmp.4194300.1"), "x").unwrap();
    std::os::unix::fs::symlink(outside.path(), s.ws.root().join("dir")).unwrap();
    s.crashed(vec![
        replace("dir/a.txt", "old a\n", "new a\n"),
        replace("b.txt", "old b\n", "new b\n"),
        replace("c.txt", "old c\n", "new c\n"),
    ]);
    let done = s.journal.recover(&s.ws).pop().unwrap();
    assert_eq!(
        std::fs::read_to_string(outside.path().join("a.txt")).unwrap(),
        "new a\n",
        "{done:?}"
    );
    // What lies through the link is not the change's: nothing is undone.
    assert_eq!(done.outcome, RecoveryOutcome::ChangedSince);
    assert_eq!(s.file("b.txt").as_deref(), Some("new b\n"));
    assert!(outside.path().join(".a.txt.oy-tmp.4194300.1").exists());
}

#[test]
fn the_dead_writers_temp_files_are_swept_and_no_one_elses() {
    let s = setup(&[("a.txt", "new a\n"), ("b.txt", "old b\n")]);
    let debris = [".a.txt.oy-tmp.4194300.7", ".b.txt.oy-tmp.4194300.0"];
    let kept = [
        ".a.txt.oy-tmp.4194301.7",
        ".a.txt.oy-tmp.4194300.x",
        ".a.txt.oy-tmp.4194300.",
        ".c.txt.oy-tmp.4194300.1",
        "a.txt.oy-tmp.4194300.1",
    ];
    for name in debris.iter().chain(&kept) {
        s.put(name, "temp");
    }
    std::fs::create_dir(s.ws.root().join(".b.txt.oy-tmp.4194300.9")).unwrap();
    s.crashed(vec![
        replace("a.txt", "old a\n", "new a\n"),
        replace("b.txt", "old b\n", "new b\n"),
    ]);
    assert_eq!(s.journal.recover(&s.ws).len(), 1);
    for name in debris {
        assert!(s.file(name).is_none(), "{name} left");
    }
    for name in kept {
        assert!(s.file(name).is_some(), "{name} removed");
    }
    assert!(s.ws.root().join(".b.txt.oy-tmp.4194300.9").is_dir());
}

#[test]
fn a_damaged_record_is_set_aside_and_said() {
    let s = setup(&[]);
    drop(s.journal.begin(&s.record(Vec::new())).unwrap());
    let name = s.records().pop().unwrap();
    std::fs::write(s.journal.dir().join(&name), b"{\"version\":1,\"works").unwrap();
    let done = s.journal.recover(&s.ws).pop().unwrap();
    assert_eq!(done.outcome, RecoveryOutcome::Unreadable);
    assert!(done.record.to_string_lossy().ends_with(".damaged"));
    assert!(done.message().contains("damaged"), "{}", done.message());
    assert!(s.journal.recover(&s.ws).is_empty(), "said once");
}

#[test]
fn another_workspaces_record_and_a_fresh_temporary_are_left_alone() {
    let s = setup(&[("a.txt", "new a\n")]);
    let mut record = s.record(vec![replace("a.txt", "old a\n", "new a\n")]);
    record.workspace = "/somewhere/else".to_owned();
    drop(s.journal.begin(&record).unwrap());
    // A record still being written by a live process (this one).
    let writing = format!(".{}-2.tmp", std::process::id());
    std::fs::write(s.journal.dir().join(&writing), b"partial").unwrap();
    assert!(s.journal.recover(&s.ws).is_empty());
    assert_eq!(s.records().len(), 2);
    assert_eq!(s.file("a.txt").as_deref(), Some("new a\n"));
}

#[test]
fn a_record_whose_writer_died_while_writing_it_is_removed() {
    let s = setup(&[]);
    drop(s.journal.begin(&s.record(Vec::new())).unwrap());
    s.journal.recover(&s.ws);
    // No process has pid 4194400 (above any pid_max Linux allows).
    std::fs::write(s.journal.dir().join(".4194400-2.tmp"), b"partial").unwrap();
    assert!(s.journal.recover(&s.ws).is_empty());
    assert!(s.records().is_empty(), "{:?}", s.records());
}

#[test]
fn a_journal_never_written_costs_nothing_and_says_nothing() {
    let s = setup(&[]);
    assert!(s.journal.recover(&s.ws).is_empty());
    assert!(!s.journal.dir().exists());
}
