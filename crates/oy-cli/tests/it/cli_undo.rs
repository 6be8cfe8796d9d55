//! Checkpoints and undo end to end (docs/undo.md): a run in which every
//! mutating tool and a command change the workspace, then `oy diff`,
//! `oy undo` (dry run, refusal, real) and `oy undo --redo` — in a git
//! workspace whose repository must see nothing, and outside git.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::cli_run::{events, types};
use crate::mock_model::{self, Wire, call, text};
use crate::support::Oy;

fn git(root: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Every file below `dir` (not `.git` unless asked) with its bytes and mode.
fn tree(dir: &Path, with_git: bool) -> BTreeMap<String, (Vec<u8>, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap().flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(dir).unwrap().display().to_string();
            if !with_git && rel == ".git" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                out.insert(
                    format!("{rel}/"),
                    (Vec::new(), meta.permissions().mode() & 0o777),
                );
                stack.push(path);
            } else {
                out.insert(
                    rel,
                    (
                        std::fs::read(&path).unwrap(),
                        meta.permissions().mode() & 0o777,
                    ),
                );
            }
        }
    }
    out
}

fn workspace(with_git: bool) -> Oy {
    let oy = Oy::new();
    oy.file(
        "src/lib.rs",
        "pub fn greet() -> &'static str {\n    \"Hello\"\n}\n",
    )
    .file("docs/old.md", "old name\n")
    .file("gone/a.txt", "a\n")
    .file("gone/b/c.txt", "c\n")
    .file("notes.txt", "one\ntwo\n");
    if with_git {
        oy.file(".gitignore", "target/\n");
        git(&oy.root, &["init", "-q"]);
        git(&oy.root, &["add", "-A"]);
        git(&oy.root, &["commit", "-q", "-m", "first"]);
        oy.file("untracked.txt", "mine\n");
    }
    oy
}

/// A turn in which every mutating tool and a command act.
fn busy_turn(oy: &Oy) -> mock_model::Ran {
    let patch = "*** Begin Patch\n*** Update File: notes.txt\n@@\n one\n-two\n+TWO\n*** Add File: new/added.md\n+added\n*** End Patch\n";
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            call(
                "write",
                json!({"path": "fresh/file.txt", "content": "fresh\n"}),
            ),
            call("read", json!({"path": "src/lib.rs"})),
            call(
                "replace",
                json!({"path": "src/lib.rs", "old": "\"Hello\"", "new": "\"Howdy\""}),
            ),
            call("patch", json!({ "patch": patch })),
            call("move", json!({"from": "docs/old.md", "to": "docs/new.md"})),
            call("remove", json!({"path": "gone", "recursive": true})),
            call(
                "todo",
                json!({"items": [{"text": "check", "status": "pending"}], "persist": true}),
            ),
            call(
                "bash",
                json!({"command": "echo by-command > made.txt && rm -f untracked.txt && echo x >> src/lib.rs"}),
            ),
            text("done"),
        ],
    );
    mock_model::run(oy, &mock, &["--mode", "auto", "--json", "change things"])
}

fn undo(oy: &Oy, args: &[&str]) -> crate::support::Run {
    let mut all = vec!["undo"];
    all.extend_from_slice(args);
    oy.run(&all)
}

#[test]
fn a_turn_of_every_tool_and_a_command_is_undone_exactly_in_git() {
    let oy = workspace(true);
    let before = tree(&oy.root, false);
    let git_before = tree(&oy.root.join(".git"), true);
    let status = git(&oy.root, &["status", "--porcelain", "--ignored"]);

    let out = busy_turn(&oy);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let events = events(&out);
    let checkpoint = events
        .iter()
        .find(|event| event["type"] == "checkpoint")
        .unwrap_or_else(|| panic!("no checkpoint event: {:?}", types(&events)));
    assert_eq!(checkpoint["commands"], "git");
    assert!(
        types(&events).iter().position(|t| t == "checkpoint")
            < types(&events).iter().position(|t| t == "turn_finished")
    );
    let after = tree(&oy.root, false);
    assert_ne!(before, after);
    assert_eq!(oy.read("made.txt"), "by-command\n");

    let diff = oy.run(&["diff"]);
    assert_eq!(diff.code, 0, "{}", diff.stderr);
    for needle in [
        "+fresh",
        "-two",
        "+TWO",
        "\"Howdy\"",
        "+by-command",
        "-mine",
    ] {
        assert!(
            diff.stdout.contains(needle),
            "{needle} not in\n{}",
            diff.stdout
        );
    }

    let dry = undo(&oy, &["--dry-run"]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(dry.stderr.contains("would undo turn 1"), "{}", dry.stderr);
    assert_eq!(tree(&oy.root, false), after, "a dry run changes nothing");

    let undone = undo(&oy, &[]);
    assert_eq!(undone.code, 0, "{}", undone.stderr);
    assert!(undone.stderr.contains("undid turn 1"), "{}", undone.stderr);
    assert_eq!(tree(&oy.root, false), before, "everything is back, exactly");
    assert_eq!(
        tree(&oy.root.join(".git"), true),
        git_before,
        ".git was touched"
    );
    assert_eq!(
        git(&oy.root, &["status", "--porcelain", "--ignored"]),
        status
    );
    assert_eq!(git(&oy.root, &["stash", "list"]), "");
    assert_eq!(
        git(&oy.root, &["for-each-ref"]).lines().count(),
        1,
        "only main"
    );

    let redone = undo(&oy, &["--redo"]);
    assert_eq!(redone.code, 0, "{}", redone.stderr);
    assert_eq!(tree(&oy.root, false), after, "redo puts the turn back");
    assert_eq!(undo(&oy, &["--redo"]).code, 1, "redo is once");
}

#[test]
fn outside_git_files_are_undone_and_the_output_says_commands_are_not() {
    let oy = workspace(false);
    let out = busy_turn(&oy);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let undone = undo(&oy, &[]);
    assert_eq!(undone.code, 0, "{}", undone.stderr);
    assert!(
        undone
            .stderr
            .contains("what commands changed was not undone"),
        "{}",
        undone.stderr
    );
    assert_eq!(oy.read("notes.txt"), "one\ntwo\n");
    assert_eq!(oy.read("gone/b/c.txt"), "c\n");
    assert_eq!(
        oy.read("made.txt"),
        "by-command\n",
        "a command's file stays"
    );
}

#[test]
fn a_file_changed_since_makes_undo_refuse_and_change_nothing() {
    let oy = workspace(true);
    busy_turn(&oy);
    oy.file("notes.txt", "the person's own edit\n");
    let after = tree(&oy.root, false);
    let refused = undo(&oy, &[]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("undo refused"),
        "{}",
        refused.stderr
    );
    assert!(refused.stderr.contains("notes.txt"), "{}", refused.stderr);
    assert!(refused.stderr.contains("hint:"), "{}", refused.stderr);
    assert_eq!(tree(&oy.root, false), after, "nothing changed");
}

#[test]
fn undo_without_a_session_is_a_usage_error() {
    let oy = Oy::new();
    let out = undo(&oy, &[]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("no saved session"), "{}", out.stderr);
}

/// SIGKILL at moments spread over an undo of many files: every file is
/// wholly old or wholly new, and the next undo finishes the job.
#[test]
fn a_killed_undo_leaves_every_file_old_or_new_and_a_second_undo_finishes() {
    let files = 60;
    let old = |n: usize| format!("old {n}\n{}", "pad\n".repeat(2000));
    let new = |n: usize| format!("new {n}\n{}", "pad\n".repeat(2000));
    let mut patch = String::from("*** Begin Patch\n");
    for n in 0..files {
        patch.push_str(&format!(
            "*** Update File: f/{n}.txt\n@@\n-old {n}\n+new {n}\n"
        ));
    }
    patch.push_str("*** End Patch\n");
    for round in 0..12u64 {
        let oy = Oy::new();
        for n in 0..files {
            oy.file(&format!("f/{n}.txt"), &old(n));
        }
        let mock = mock_model::start(
            Wire::Chat,
            vec![call("patch", json!({ "patch": patch })), text("done")],
        );
        let out = mock_model::run(&oy, &mock, &["--mode", "auto", "rewrite"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(oy.read("f/0.txt"), new(0));
        let mut child = oy.command().arg("undo").spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_micros(1_000 + round * 3_000));
        let _ = child.kill();
        let _ = child.wait();
        for n in 0..files {
            let text = oy.read(&format!("f/{n}.txt"));
            assert!(
                text == old(n) || text == new(n),
                "f/{n}.txt is torn after a kill in round {round}"
            );
        }
        let again = undo(&oy, &[]);
        // A kill after the undo finished leaves nothing to do.
        assert!(
            again.code == 0 || again.stderr.contains("nothing to undo"),
            "{}",
            again.stderr
        );
        for n in 0..files {
            assert_eq!(oy.read(&format!("f/{n}.txt")), old(n), "round {round}");
        }
    }
}
