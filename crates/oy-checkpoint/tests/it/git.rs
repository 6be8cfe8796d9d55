//! Command changes in a git workspace: snapshots that the repository never
//! sees, and their undo; outside git, the undo says it cannot.

use std::path::Path;
use std::process::Command;

use oy_checkpoint::Commands;

use crate::support::Setup;
use crate::undo::walk;

pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

pub fn have_git() -> bool {
    let found = Command::new("git").arg("--version").output().is_ok();
    if !found {
        eprintln!("skipped: git is not installed");
    }
    found
}

/// Every file under `.git` with its bytes: what "the repository saw
/// nothing" means.
fn git_dir_state(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = walk(&root.join(".git"))
        .into_iter()
        .filter(|path| path.is_file())
        .map(|path| {
            (
                path.strip_prefix(root).unwrap().display().to_string(),
                std::fs::read(&path).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

pub fn repo() -> Setup {
    let s = Setup::new();
    git(s.root(), &["init", "-q"]);
    s.outside_write("tracked.txt", "tracked\n");
    s.outside_write("src/lib.rs", "pub fn a() {}\n");
    s.outside_write(".gitignore", "target/\n");
    git(s.root(), &["add", "-A"]);
    git(s.root(), &["commit", "-q", "-m", "first"]);
    s.outside_write("staged.txt", "staged\n");
    git(s.root(), &["add", "staged.txt"]);
    s.outside_write("untracked.txt", "mine\n");
    s.outside_write("target/ignored.bin", "build output\n");
    git(s.root(), &["stash", "list"]);
    s
}

#[test]
fn a_commands_changes_are_undone_and_the_repository_sees_nothing() {
    if !have_git() {
        return;
    }
    let s = repo();
    let status = git(s.root(), &["status", "--porcelain", "--ignored"]);
    let refs = git(s.root(), &["for-each-ref"]);
    let log = git(s.root(), &["log", "--all", "--oneline"]);
    let stash = git(s.root(), &["stash", "list"]);
    let before = git_dir_state(s.root());

    s.checkpoints.begin_turn(1).unwrap();
    s.checkpoints.before_command(&s.ws);
    // What a command would do.
    s.outside_write("tracked.txt", "changed by a command\n");
    std::fs::remove_file(s.root().join("untracked.txt")).unwrap();
    s.outside_write("src/new.rs", "new\n");
    s.outside_write("target/ignored.bin", "rebuilt\n");
    let summary = s.checkpoints.end_turn(&s.ws).unwrap();
    assert!(
        matches!(summary.commands, Commands::Git { .. }),
        "{summary:?}"
    );
    assert_eq!(
        summary.files,
        vec!["src/new.rs", "tracked.txt", "untracked.txt"]
    );

    assert_eq!(
        git_dir_state(s.root()),
        before,
        ".git changed while snapshotting"
    );
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert!(report.applied, "{report:?}");
    assert_eq!(s.read("tracked.txt").unwrap(), "tracked\n");
    assert_eq!(s.read("untracked.txt").unwrap(), "mine\n");
    assert!(s.read("src/new.rs").is_none());
    // Ignored files are not part of a snapshot.
    assert_eq!(s.read("target/ignored.bin").unwrap(), "rebuilt\n");

    assert_eq!(git_dir_state(s.root()), before, ".git changed");
    assert_eq!(
        git(s.root(), &["status", "--porcelain", "--ignored"]),
        status
    );
    assert_eq!(git(s.root(), &["for-each-ref"]), refs);
    assert_eq!(git(s.root(), &["log", "--all", "--oneline"]), log);
    assert_eq!(git(s.root(), &["stash", "list"]), stash);
}

#[test]
fn a_tool_change_before_the_first_command_keeps_its_own_before() {
    if !have_git() {
        return;
    }
    let s = repo();
    s.checkpoints.begin_turn(1).unwrap();
    s.write("tracked.txt", "by a tool\n");
    s.checkpoints.before_command(&s.ws);
    s.outside_write("tracked.txt", "then by a command\n");
    s.checkpoints.end_turn(&s.ws).unwrap();
    s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(s.read("tracked.txt").unwrap(), "tracked\n");
}

#[test]
fn a_command_then_a_tool_goes_back_to_before_the_command() {
    if !have_git() {
        return;
    }
    let s = repo();
    s.checkpoints.begin_turn(1).unwrap();
    s.checkpoints.before_command(&s.ws);
    s.outside_write("tracked.txt", "by a command\n");
    s.write("tracked.txt", "then by a tool\n");
    s.checkpoints.end_turn(&s.ws).unwrap();
    s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(s.read("tracked.txt").unwrap(), "tracked\n");
}

#[test]
fn outside_git_the_undo_says_command_changes_stay() {
    let s = Setup::new();
    s.outside_write("a.txt", "old\n");
    s.checkpoints.begin_turn(1).unwrap();
    s.write("a.txt", "new\n");
    s.checkpoints.before_command(&s.ws);
    s.outside_write("b.txt", "made by a command\n");
    let summary = s.checkpoints.end_turn(&s.ws).unwrap();
    assert!(
        matches!(summary.commands, Commands::Untracked { .. }),
        "{summary:?}"
    );
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert!(report.applied);
    assert_eq!(report.commands_not_undone.len(), 1, "{report:?}");
    assert_eq!(s.read("a.txt").unwrap(), "old\n");
    assert_eq!(s.read("b.txt").unwrap(), "made by a command\n");
}
