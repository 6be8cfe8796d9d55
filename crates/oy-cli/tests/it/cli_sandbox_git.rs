//! The process sandbox and git, tried as an attacker would: nothing a
//! command does may make git run code later outside the sandbox, while
//! `git add` and `git commit` keep working (docs/sandbox.md).

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::cli_sandbox::{alive, bash, full_sandbox, git, wait_gone};
use crate::support::Oy;

/// A repository at `dir` with one commit.
fn repo_with_commit(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    fs::write(dir.join("f.txt"), "f\n").unwrap();
    git(dir, &["add", "f.txt"]);
    git(
        dir,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@e",
            "commit",
            "-q",
            "-m",
            "one",
        ],
    );
}

#[test]
fn submodule_and_config_named_git_paths_cannot_be_swapped_or_rewritten() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    let base = oy.root.parent().unwrap().to_path_buf();
    repo_with_commit(&base.join("subrepo"));
    repo_with_commit(&oy.root);
    git(
        &oy.root,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            "../subrepo",
            "sub",
        ],
    );
    git(&oy.root, &["config", "core.hooksPath", ".husky"]);
    fs::create_dir_all(oy.root.join(".husky")).unwrap();
    fs::write(
        base.join("evil.gitconfig"),
        "[core]\n\tfsmonitor = touch /tmp/oy-never\n",
    )
    .unwrap();
    let pointer = oy.read("sub/.git");
    let script = "mv .git/modules/sub .git/modules/sub.orig; mv .git/modules .git/modules.orig; \
        echo 'gitdir: ../evil.git' > sub/.git; echo x >> .git/modules/sub/config; \
        printf '#!/bin/sh\\necho pwned\\n' > .husky/pre-commit; \
        rm -rf .git/hooks; echo done";
    let run = bash(&oy, script, &[], &[]);
    assert!(run.stdout.contains("done"), "{}", run.stdout);
    assert!(
        oy.root.join(".git/modules/sub/config").exists(),
        "{}",
        run.stdout
    );
    assert!(
        !oy.read(".git/modules/sub/config").ends_with("x\n"),
        "{}",
        run.stdout
    );
    assert_eq!(oy.read("sub/.git"), pointer, "{}", run.stdout);
    assert!(
        !oy.root.join(".husky/pre-commit").exists(),
        "{}",
        run.stdout
    );
    assert!(oy.root.join(".git/hooks").is_dir(), "{}", run.stdout);
}

#[test]
fn a_linked_worktree_keeps_its_git_directories_and_still_commits() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    let base = oy.root.parent().unwrap().to_path_buf();
    let main = base.join("main");
    repo_with_commit(&main);
    fs::remove_dir_all(&oy.root).unwrap();
    git(&main, &["worktree", "add", "-q", oy.root.to_str().unwrap()]);
    let admin = main.join(".git/worktrees/ws");
    assert!(admin.is_dir());
    let script = format!(
        "mv {admin} {admin}.orig; echo x >> {main}/.git/config; echo /elsewhere > {admin}/commondir; \
         printf '#!/bin/sh\\n' > {main}/.git/hooks/post-commit; \
         echo new > g.txt && git add g.txt && git -c user.name=t -c user.email=t@e commit -q -m two && echo COMMITTED",
        admin = admin.display(),
        main = main.display()
    );
    let run = bash(&oy, &script, &[], &[]);
    assert!(run.stdout.contains("COMMITTED"), "{}", run.stdout);
    assert!(
        admin.is_dir() && !base.join("main/.git/worktrees/ws.orig").exists(),
        "{}",
        run.stdout
    );
    assert!(
        !fs::read_to_string(main.join(".git/config"))
            .unwrap()
            .ends_with("x\n")
    );
    assert!(
        !main.join(".git/hooks/post-commit").exists(),
        "{}",
        run.stdout
    );
    let log = Command::new("git")
        .args(["log", "--oneline"])
        .current_dir(&main)
        .arg("ws")
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&log.stdout).contains("two"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_protected_name_that_is_a_link_is_put_back() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    repo_with_commit(&oy.root);
    fs::remove_dir_all(oy.root.join(".git/hooks")).unwrap();
    fs::create_dir_all(oy.root.join(".githooks")).unwrap();
    std::os::unix::fs::symlink("../.githooks", oy.root.join(".git/hooks")).unwrap();
    let script = "echo pwned > .githooks/pre-commit; rm .git/hooks && mkdir .git/hooks && \
        printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit; echo done";
    let run = bash(&oy, script, &[], &[]);
    assert!(run.stdout.contains("done"), "{}", run.stdout);
    assert!(
        !oy.root.join(".githooks/pre-commit").exists(),
        "{}",
        run.stdout
    );
    let hooks = fs::symlink_metadata(oy.root.join(".git/hooks")).unwrap();
    assert!(hooks.file_type().is_symlink(), "{}", run.stdout);
    assert!(run.stdout.contains("put back"), "{}", run.stdout);
}

#[test]
fn git_pointers_a_command_could_write_never_grant_anything_outside() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    let base = oy.root.parent().unwrap().to_path_buf();
    let target = base.join("outside/granted.txt");
    let write = format!("echo x > {}; echo tried", target.display());
    // A non-git workspace: a planted `.git` file naming `/`.
    let run = bash(&oy, "echo 'gitdir: /' > .git", &[], &[]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let run = bash(&oy, &write, &[], &[]);
    assert!(
        run.stdout.contains("tried") && !target.exists(),
        "{}",
        run.stdout
    );
    // A repository whose `.git/commondir` was planted by a run that was
    // killed before it could clean up.
    fs::remove_file(oy.root.join(".git")).unwrap();
    repo_with_commit(&oy.root);
    fs::write(oy.root.join(".git/commondir"), "/\n").unwrap();
    let run = bash(&oy, &write, &[], &[]);
    assert!(
        run.stdout.contains("tried") && !target.exists(),
        "{}",
        run.stdout
    );
    // A bare repository made at the root is not left for git to find.
    let run = bash(&oy, "git init -q --bare . && echo made", &[], &[]);
    assert!(run.stdout.contains("made"), "{}", run.stdout);
    assert!(!oy.root.join("HEAD").exists(), "{}", run.stdout);
}

#[test]
fn a_hooks_path_the_config_names_but_nobody_made_yet_is_not_left_behind() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    repo_with_commit(&oy.root);
    git(&oy.root, &["config", "core.hooksPath", ".githooks"]);
    let run = bash(
        &oy,
        "mkdir .githooks && printf '#!/bin/sh\\necho pwned\\n' > .githooks/pre-commit && echo made",
        &[],
        &[],
    );
    assert!(run.stdout.contains("made"), "{}", run.stdout);
    assert!(!oy.root.join(".githooks").exists(), "{}", run.stdout);
}

#[test]
fn a_planted_name_is_removed_even_when_oy_is_killed_mid_call() {
    let oy = Oy::new();
    if !full_sandbox(&oy) || Command::new("pgrep").arg("-V").output().is_err() {
        return;
    }
    repo_with_commit(&oy.root);
    let args = serde_json::json!({
        "command": "echo /elsewhere > .git/commondir; sleep 987661",
        "timeout_ms": 60_000
    })
    .to_string();
    let mut child = oy
        .command()
        .args(["tool", "bash", &args, "--mode", "auto"])
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !(alive("sleep 987661") && oy.root.join(".git/commondir").exists())
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(oy.root.join(".git/commondir").exists());
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(wait_gone("sleep 987661"));
    let deadline = Instant::now() + Duration::from_secs(3);
    while oy.root.join(".git/commondir").exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !oy.root.join(".git/commondir").exists(),
        "the supervisor left a planted commondir"
    );
}

#[test]
fn git_metadata_that_runs_code_is_read_only_but_commits_work() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    git(&oy.root, &["init", "-q"]);
    oy.file("src.txt", "one\n");
    let config_before = oy.read(".git/config");
    let script = "set +e; \
        git config core.fsmonitor 'touch /tmp/pwned'; \
        echo '[core] fsmonitor = evil' >> .git/config; \
        printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit; \
        cp .git/hooks/pre-commit.sample .git/hooks/pre-commit; \
        mv .git/config .git/config.old; \
        mv .git .git-moved; \
        echo /elsewhere > .git/commondir; \
        echo '* filter=evil' > .git/info/attributes; echo attacked";
    let attack = bash(&oy, script, &[], &[]);
    assert!(attack.stdout.contains("attacked"), "{}", attack.stdout);
    // A name a bind mount could not cover is removed when the call ends.
    assert!(
        !oy.root.join(".git/commondir").exists(),
        "{}",
        attack.stdout
    );
    assert!(attack.stdout.contains("put back"), "{}", attack.stdout);
    let script = "git -c user.name=t -c user.email=t@e add src.txt && \
        git -c user.name=t -c user.email=t@e commit -q -m one && echo COMMITTED; \
        git status --short; git diff HEAD --stat";
    let run = bash(&oy, script, &[], &[]);
    assert_eq!(oy.read(".git/config"), config_before, "{}", run.stdout);
    assert!(
        !oy.root.join(".git/hooks/pre-commit").exists(),
        "{}",
        run.stdout
    );
    assert!(!oy.root.join(".git-moved").exists(), "{}", run.stdout);
    assert!(
        !oy.root.join(".git/info/attributes").exists()
            || !oy.read(".git/info/attributes").contains("evil")
    );
    assert!(run.stdout.contains("COMMITTED"), "{}", run.stdout);
    let log = Command::new("git")
        .args(["log", "--oneline"])
        .current_dir(&oy.root)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&log.stdout).contains("one"));
    assert!(
        attack.stdout.contains("Read-only file system"),
        "{}",
        attack.stdout
    );
    assert!(
        attack.stdout.contains("Device or resource busy"),
        "{}",
        attack.stdout
    );
}

#[test]
fn workspace_oy_directory_is_read_only() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    oy.file(".oy/config.toml", "mode = \"plan\"\n");
    let run = bash(
        &oy,
        "echo 'mode = \"auto\"' > .oy/config.toml; echo '[]' > .oy/tools.json; rm -rf .oy",
        &[],
        &[],
    );
    assert_eq!(
        oy.read(".oy/config.toml"),
        "mode = \"plan\"\n",
        "{}",
        run.stdout
    );
    assert!(!oy.root.join(".oy/tools.json").exists());
}

/// oy started in a home directory: its config and data directories lie in
/// the workspace. A command can neither write them nor move a directory
/// above them aside and put a link to its own in its place (which would
/// hand oy a config turning the sandbox off, or forged journal records,
/// at its next start).
#[test]
fn oys_own_directories_in_the_workspace_cannot_be_swapped_from_above() {
    let oy = Oy::new();
    if !full_sandbox(&oy) {
        return;
    }
    let home = &oy.root;
    oy.file(".config/oy/config.toml", "sandbox = \"on\"\n");
    oy.file(".local/share/oy/keep", "");
    oy.file("dotfiles/oy/config.toml", "sandbox = \"on\"\n");
    let env = [
        ("HOME", home.to_str().unwrap()),
        ("XDG_CONFIG_HOME", ""),
        ("XDG_DATA_HOME", ""),
    ];
    let attacks = [
        "mv .config .config.moved && mkdir -p fake/oy && echo 'sandbox = \"off\"' > fake/oy/config.toml && ln -s fake .config",
        "mv .local .local.moved",
        "mv .local/share .local/share.moved",
        "rm -rf .local/share",
        "echo 'sandbox = \"off\"' > .config/oy/config.toml",
    ];
    for attack in attacks {
        let mut cmd = oy.command();
        let args = serde_json::json!({ "command": attack, "timeout_ms": 20_000 }).to_string();
        cmd.args(["tool", "bash", args.as_str(), "--mode", "auto"]);
        for (name, value) in env {
            if value.is_empty() {
                cmd.env_remove(name);
            } else {
                cmd.env(name, value);
            }
        }
        let out = cmd.output().unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            std::fs::symlink_metadata(home.join(".config"))
                .unwrap()
                .is_dir(),
            "{attack}: {said}"
        );
        assert_eq!(
            oy.read(".config/oy/config.toml"),
            "sandbox = \"on\"\n",
            "{attack}: {said}"
        );
        assert!(
            home.join(".local/share/oy/keep").exists(),
            "{attack}: {said}"
        );
    }
    // A link on the way (dotfiles) is put back after the command.
    std::fs::remove_dir_all(home.join(".config")).unwrap();
    std::os::unix::fs::symlink("dotfiles", home.join(".config")).unwrap();
    let mut cmd = oy.command();
    let args = serde_json::json!({ "command": "rm .config && mkdir -p fake2/oy && ln -s fake2 .config", "timeout_ms": 20_000 }).to_string();
    cmd.args(["tool", "bash", args.as_str(), "--mode", "auto"])
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME");
    let out = cmd.output().unwrap();
    assert_eq!(
        std::fs::read_link(home.join(".config")).unwrap(),
        std::path::PathBuf::from("dotfiles"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
