//! Protected paths and command-like changes (`docs/protected-paths.md`),
//! tried the way a model steered by a hostile file would: through every
//! file tool, other spellings, links, moves of the parent, and in the mode
//! that allows the most.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use oy_tools::{
    Answer, ApprovalRequest, Approver, ChildEnv, Effect, Mode, RefusedBy, Reply, Sandbox,
    SandboxInputs, SandboxSetting, ToolOutput,
};
use serde_json::{Value, json};

use crate::support::{Env, assert_tool_error, symlink};

const GIT_CONFIG: &str = "[core]\n\trepositoryformatversion = 0\n";

/// A workspace with a real-looking repository: `.git/config`, a sample hook.
fn repo(mode: Mode) -> Env {
    let env = Env::new(mode);
    env.file(".git/config", GIT_CONFIG)
        .file(".git/HEAD", "ref: refs/heads/main\n")
        .file(".git/hooks/pre-commit.sample", "#!/bin/sh\nexit 0\n");
    fs::create_dir_all(env.root.join(".git/objects")).unwrap();
    fs::set_permissions(
        env.root.join(".git/hooks/pre-commit.sample"),
        fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    env
}

fn assert_protected(out: &ToolOutput) {
    assert_tool_error(out, "refusing to");
    assert!(out.text.contains("make it themselves"), "{}", out.text);
}

#[test]
fn git_config_and_hooks_are_refused_by_every_file_tool_even_in_auto_approve() {
    let env = repo(Mode::AutoApprove);
    let fsmonitor = "[core]\n\tfsmonitor = touch /tmp/pwned\n";
    let calls: Vec<(&str, Value)> = vec![
        (
            "write",
            json!({"path": ".git/config", "content": fsmonitor}),
        ),
        (
            "write",
            json!({"path": ".git/config", "content": fsmonitor, "append": true}),
        ),
        (
            "write",
            json!({"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\nid\n"}),
        ),
        (
            "patch",
            json!({"patch": "*** Begin Patch\n*** Update File: .git/config\n@@\n [core]\n+\tfsmonitor = id\n*** End Patch"}),
        ),
        (
            "patch",
            json!({"patch": "--- /dev/null\n+++ b/.git/hooks/post-checkout\n@@ -0,0 +1 @@\n+id\n"}),
        ),
        (
            "move",
            json!({"from": ".git/hooks/pre-commit.sample", "to": ".git/hooks/pre-commit"}),
        ),
        ("move", json!({"from": ".git", "to": "old-git"})),
        ("move", json!({"from": ".git/config", "to": "config"})),
        ("remove", json!({"path": ".git/config"})),
        ("remove", json!({"path": ".git", "recursive": true})),
    ];
    for (tool, args) in calls {
        let out = env.call(tool, args.clone());
        assert_protected(&out);
        assert!(!out.ok, "{tool} {args}");
    }
    // read first, so replace gets past its read check
    assert!(env.call("read", json!({"path": ".git/config"})).ok);
    assert_protected(&env.call(
        "replace",
        json!({"path": ".git/config", "old": "[core]", "new": "[core]\n\tfsmonitor = id"}),
    ));
    assert_eq!(env.read(".git/config"), GIT_CONFIG);
    assert!(!env.exists(".git/hooks/pre-commit"));
    assert!(!env.exists(".git/hooks/post-checkout"));
    assert!(!env.ctx.ledger().side_effect_attempted());
}

#[test]
fn other_spellings_nested_repositories_and_oy_settings_are_protected_too() {
    let env = repo(Mode::AutoApprove);
    env.file("vendor/lib/.git/config", GIT_CONFIG)
        .file("vendor/lib/src.rs", "fn f() {}\n");
    for path in [
        ".GIT/config",
        ".Git./hooks/pre-push",
        "./src/../.git/config",
        "vendor/lib/.git/config",
        ".oy/config.toml",
        ".oy/tools.json",
        "sub/.oy/config.toml",
        ".git",
    ] {
        let out = env.call("write", json!({"path": path, "content": "x\n"}));
        assert_protected(&out);
    }
    // Removing a directory that holds a nested repository's `.git`.
    let out = env.call("remove", json!({"path": "vendor", "recursive": true}));
    assert_protected(&out);
    assert!(out.text.contains(".git"), "{}", out.text);
    assert!(env.exists("vendor/lib/src.rs"));
    // Ordinary files beside them are fine.
    assert!(
        env.call(
            "write",
            json!({"path": ".gitignore", "content": "target\n"})
        )
        .ok
    );
    assert!(
        env.call(
            "write",
            json!({"path": "vendor/lib/src.rs", "content": "fn g() {}\n"})
        )
        .ok
    );
}

#[test]
fn links_into_protected_places_are_refused() {
    let env = repo(Mode::AutoApprove);
    symlink(".git", env.root.join("gitlink"));
    symlink(".git/config", env.root.join("cfg"));
    symlink(".git/hooks", env.root.join("hooks"));
    for path in ["gitlink/config", "cfg", "hooks/pre-commit"] {
        assert_protected(&env.call("write", json!({"path": path, "content": "x\n"})));
    }
    assert_protected(&env.call(
        "patch",
        json!({"patch": "*** Begin Patch\n*** Update File: cfg\n@@\n [core]\n+\tfsmonitor = id\n*** End Patch"}),
    ));
    assert_eq!(env.read(".git/config"), GIT_CONFIG);
    // The link itself is not protected: removing it leaves `.git` alone.
    assert!(env.call("remove", json!({"path": "cfg"})).ok);
    assert_eq!(env.read(".git/config"), GIT_CONFIG);
}

#[test]
fn a_gitdir_target_inside_the_root_is_protected() {
    let env = Env::new(Mode::AutoApprove);
    env.file(".repo/config", GIT_CONFIG)
        .file(".repo/HEAD", "ref: refs/heads/main\n")
        .file(".git", "gitdir: .repo\n");
    fs::create_dir_all(env.root.join(".repo/objects")).unwrap();
    let env = env.map_ctx(|ctx| ctx);
    assert_protected(&env.call(
        "write",
        json!({"path": ".repo/config", "content": "[core]\n\tfsmonitor = id\n"}),
    ));
    assert_protected(&env.call("move", json!({"from": ".repo", "to": "elsewhere"})));
    assert_protected(&env.call("remove", json!({"path": ".repo", "recursive": true})));
    assert_eq!(env.read(".repo/config"), GIT_CONFIG);
}

fn sandbox_with(private_dirs: Vec<PathBuf>, home: Option<PathBuf>) -> Arc<Sandbox> {
    Arc::new(Sandbox::resolve(SandboxInputs {
        setting: SandboxSetting::Off,
        private_dirs,
        home,
        ..SandboxInputs::default()
    }))
}

#[test]
fn oy_config_and_data_inside_the_root_cannot_be_changed_to_raise_privileges() {
    let env = Env::new(Mode::AutoApprove);
    env.file(".config/oy/config.toml", "mode = \"default\"\n")
        .file(".config/other/app.toml", "x = 1\n");
    let root = env.root.clone();
    let env = env.map_ctx(|ctx| {
        ctx.with_sandbox(sandbox_with(
            vec![root.join(".config/oy"), root.join(".local/share/oy")],
            Some(root.clone()),
        ))
    });
    for (tool, args) in [
        (
            "write",
            json!({"path": ".config/oy/config.toml", "content": "mode = \"auto-approve\"\n"}),
        ),
        (
            "write",
            json!({"path": ".config/oy/tools.json", "content": "{\"tools\": []}\n"}),
        ),
        (
            "write",
            json!({"path": ".local/share/oy/trusted.json", "content": "{}\n"}),
        ),
        ("move", json!({"from": ".config", "to": "config-old"})),
        ("remove", json!({"path": ".config", "recursive": true})),
    ] {
        assert_protected(&env.call(tool, args));
    }
    assert_eq!(env.read(".config/oy/config.toml"), "mode = \"default\"\n");
    assert!(
        env.call(
            "write",
            json!({"path": ".config/other/app.toml", "content": "x = 2\n"})
        )
        .ok
    );
}

/// A context whose child `PATH` starts with the workspace's `bin/`.
fn with_bin_on_path(env: Env) -> Env {
    let path = format!("{}:/usr/bin:/bin", env.root.join("bin").display());
    env.map_ctx(|ctx| ctx.with_child_env(ChildEnv::filtered([("PATH".into(), path.into())], &[])))
}

#[test]
fn a_file_put_on_the_command_path_needs_the_command_approval() {
    let env = with_bin_on_path(Env::new(Mode::AcceptEdits));
    env.file("scripts/build.sh", "#!/bin/sh\nmake\n");
    fs::set_permissions(
        env.root.join("scripts/build.sh"),
        fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    // `bin/` does not exist yet: the rule is about where PATH looks.
    let out = env.call(
        "write",
        json!({"path": "bin/bash", "content": "#!/bin/sh\nid\n"}),
    );
    assert_tool_error(&out, "command PATH");
    assert!(out.text.contains("the auto-approve mode"), "{}", out.text);
    assert_eq!(
        out.refusal.as_ref().map(|r| r.by),
        Some(RefusedBy::NoOneToAsk)
    );
    assert!(!env.exists("bin/bash"));
    let out = env.call(
        "move",
        json!({"from": "scripts/build.sh", "to": "bin/bash"}),
    );
    assert_tool_error(&out, "needs the command approval");
    assert!(env.exists("scripts/build.sh"));
    // Moving an executable anywhere, or a directory holding one, too.
    let out = env.call(
        "move",
        json!({"from": "scripts/build.sh", "to": "tools/build.sh"}),
    );
    assert_tool_error(&out, "is executable");
    let out = env.call("move", json!({"from": "scripts", "to": "tools"}));
    assert_tool_error(&out, "holds the executable");
    // Ordinary edits stay automatic in accept-edits.
    assert!(
        env.call(
            "write",
            json!({"path": "src/a.rs", "content": "fn a() {}\n"})
        )
        .ok
    );
    assert!(
        env.call("move", json!({"from": "src/a.rs", "to": "src/b.rs"}))
            .ok
    );
    // Auto-approve allows commands, so it allows these.
    let env = env.map_ctx(|ctx| {
        ctx.set_policy(oy_tools::Policy::new(Mode::AutoApprove, false));
        ctx
    });
    assert!(
        env.call(
            "write",
            json!({"path": "bin/bash", "content": "#!/bin/sh\nid\n"})
        )
        .ok
    );
}

#[test]
fn an_interactive_person_is_asked_with_the_command_approval_and_told_why() {
    let env = with_bin_on_path(Env::interactive(Mode::AcceptEdits, Answer::Approve));
    let out = env.call(
        "write",
        json!({"path": "bin/git", "content": "#!/bin/sh\n"}),
    );
    assert!(out.ok, "{}", out.text);
    let requests = env.events.requests.lock().unwrap();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].effect, Effect::Process);
    assert!(
        requests[0].summary.contains("command PATH"),
        "{}",
        requests[0].summary
    );
}

#[test]
fn hooks_named_by_git_config_and_home_start_up_files_need_the_command_approval() {
    let env = Env::new(Mode::AcceptEdits);
    env.file(".git/config", "[core]\n\thooksPath = .husky\n")
        .file(".git/HEAD", "ref: refs/heads/main\n");
    fs::create_dir_all(env.root.join(".git/objects")).unwrap();
    let root = env.root.clone();
    let env = env.map_ctx(|ctx| ctx.with_sandbox(sandbox_with(Vec::new(), Some(root))));
    for path in [
        ".husky/pre-commit",
        ".bashrc",
        ".gitconfig",
        ".config/git/config",
        ".ssh/config",
    ] {
        let out = env.call("write", json!({"path": path, "content": "x\n"}));
        assert_tool_error(&out, "needs the command approval");
        assert!(!env.exists(path), "{path}");
    }
    assert!(
        env.call("write", json!({"path": "README.md", "content": "hi\n"}))
            .ok
    );
}

/// An approver that saves the file (as the person's editor would) while
/// the prompt is up, then answers yes.
struct EditsWhileAsking {
    path: PathBuf,
    text: &'static str,
    asked: Mutex<u32>,
}

impl Approver for EditsWhileAsking {
    fn approve(&self, _request: &ApprovalRequest) -> Answer {
        *self.asked.lock().unwrap() += 1;
        fs::write(&self.path, self.text).unwrap();
        Answer::Approve
    }
}

#[test]
fn a_file_saved_while_the_prompt_waits_is_never_overwritten() {
    let saved = "the person's own edit\n";
    for (tool, args) in [
        (
            "write",
            json!({"path": "notes.txt", "content": "model text\n"}),
        ),
        (
            "replace",
            json!({"path": "notes.txt", "old": "first", "new": "model"}),
        ),
        (
            "patch",
            json!({"patch": "*** Begin Patch\n*** Update File: notes.txt\n@@\n-first\n+model\n*** End Patch"}),
        ),
        (
            "write",
            json!({"path": "notes.txt", "content": "more\n", "append": true}),
        ),
    ] {
        let env = Env::new(Mode::Default);
        env.file("notes.txt", "first\n");
        let approver = Arc::new(EditsWhileAsking {
            path: env.root.join("notes.txt"),
            text: saved,
            asked: Mutex::new(0),
        });
        let env = env.map_ctx(|ctx| ctx.with_approver(approver.clone()));
        assert!(env.call("read", json!({"path": "notes.txt"})).ok);
        let out = env.call(tool, args);
        assert_eq!(*approver.asked.lock().unwrap(), 1, "{tool}");
        assert_tool_error(&out, "changed while the change was waiting for approval");
        assert_eq!(env.read("notes.txt"), saved, "{tool}");
    }
    // A file created while waiting is not replaced by a `create`.
    let env = Env::new(Mode::Default);
    let approver = Arc::new(EditsWhileAsking {
        path: env.root.join("new.txt"),
        text: saved,
        asked: Mutex::new(0),
    });
    let env = env.map_ctx(|ctx| ctx.with_approver(approver));
    let out = env.call(
        "patch",
        json!({"patch": "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+model\n"}),
    );
    assert_tool_error(&out, "changed while");
    assert_eq!(env.read("new.txt"), saved);
}

#[test]
fn two_patch_sections_naming_one_file_through_a_link_or_a_hard_link_are_refused() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("a.txt", "one\ntwo\n");
    symlink("a.txt", env.root.join("link.txt"));
    fs::hard_link(env.root.join("a.txt"), env.root.join("hard.txt")).unwrap();
    for other in ["link.txt", "hard.txt", "./sub/../a.txt"] {
        let out = env.call(
            "patch",
            json!({"patch": format!(
                "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: {other}\n@@\n-two\n+TWO\n*** End Patch"
            )}),
        );
        assert_tool_error(&out, "more than one file section");
        assert_eq!(env.read("a.txt"), "one\ntwo\n", "{other}");
    }
}

#[test]
fn a_patch_that_will_be_refused_is_refused_before_any_matching() {
    // Nobody to ask in default mode: the refusal, not a hunk mismatch.
    let env = Env::new(Mode::Default);
    env.file("a.txt", "one\n");
    let out = env.call(
        "patch",
        json!({"patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n-nothing like it\n+x\n*** End Patch"}),
    );
    assert_tool_error(&out, "no one to ask");
    assert!(!out.text.contains("does not match"), "{}", out.text);
}

/// An approver that says no, with or without a reason.
struct SaysNo(Option<&'static str>);

impl Approver for SaysNo {
    fn approve(&self, _request: &ApprovalRequest) -> Answer {
        Answer::Deny
    }

    fn reply(&self, _request: &ApprovalRequest) -> Reply {
        Reply {
            answer: Answer::Deny,
            reason: self.0.map(str::to_owned),
        }
    }
}

#[test]
fn a_no_with_a_reason_reaches_the_model_and_a_bare_no_stops_the_turn() {
    let env = Env::new(Mode::Default)
        .map_ctx(|ctx| ctx.with_approver(Arc::new(SaysNo(Some("use the staging config instead")))));
    let out = env.call("write", json!({"path": "a.txt", "content": "x\n"}));
    assert_tool_error(&out, "use the staging config instead");
    assert!(out.refusal.is_none(), "a reason lets the turn go on");
    let env = Env::new(Mode::Default).map_ctx(|ctx| ctx.with_approver(Arc::new(SaysNo(None))));
    let out = env.call("write", json!({"path": "a.txt", "content": "x\n"}));
    assert_tool_error(&out, "declined");
    let refusal = out.refusal.expect("a bare no is a refusal");
    assert_eq!(refusal.by, RefusedBy::Person);
    assert!(
        refusal.hint.contains("accept-edits (or auto-approve) mode"),
        "{}",
        refusal.hint
    );
}

#[test]
fn the_shell_is_never_a_program_from_the_workspace() {
    let env = with_bin_on_path(Env::new(Mode::AutoApprove));
    env.file("bin/bash", "#!/bin/sh\necho planted\n");
    fs::set_permissions(env.root.join("bin/bash"), fs::Permissions::from_mode(0o755)).unwrap();
    for (tool, args) in [
        ("bash", json!({"command": "echo hello"})),
        (
            "exec_command",
            json!({"cmd": "echo hello", "yield_time_ms": 2000}),
        ),
    ] {
        let out = env.call(tool, args);
        assert!(out.ok, "{tool}: {}", out.text);
        assert!(out.text.contains("hello"), "{tool}: {}", out.text);
        assert!(!out.text.contains("planted"), "{tool}: {}", out.text);
    }
}

#[test]
fn the_git_oy_runs_for_snapshots_is_never_one_from_the_workspace() {
    let env = with_bin_on_path(Env::new(Mode::AutoApprove));
    env.file("bin/git", "#!/bin/sh\necho planted\n");
    fs::set_permissions(env.root.join("bin/git"), fs::Permissions::from_mode(0o755)).unwrap();
    // A PATH directory outside that is a link into the workspace, too.
    let outside = tempfile::tempdir().unwrap();
    symlink(env.root.join("bin"), outside.path().join("linked"));
    let path = format!("{}:/usr/bin:/bin", outside.path().join("linked").display());
    let env = env
        .map_ctx(|ctx| ctx.with_child_env(ChildEnv::filtered([("PATH".into(), path.into())], &[])));
    let found = env.ctx.git_program();
    if let Some(found) = &found {
        assert!(found.is_absolute(), "{}", found.display());
        assert!(!found.starts_with(&env.root), "{}", found.display());
        assert!(!found.starts_with(outside.path()), "{}", found.display());
    } else {
        eprintln!("note: no git in /usr/bin or /bin on this machine");
    }
}

#[test]
fn git_and_oy_directories_reached_through_links_or_pointers_are_protected() {
    // `.git` and `.oy` as links to directories of other names.
    let env = Env::new(Mode::AutoApprove);
    env.file("gitstore/config", GIT_CONFIG)
        .file("gitstore/HEAD", "ref: refs/heads/main\n")
        .file("oyconf/config.toml", "mode = \"default\"\n");
    fs::create_dir_all(env.root.join("gitstore/objects")).unwrap();
    symlink("gitstore", env.root.join(".git"));
    symlink("oyconf", env.root.join(".oy"));
    let env = env.map_ctx(|ctx| ctx);
    for path in [".git/config", "gitstore/config", ".oy/config.toml"] {
        assert_protected(&env.call("write", json!({"path": path, "content": "x\n"})));
    }
    assert_eq!(env.read("gitstore/config"), GIT_CONFIG);

    // A `gitdir:` target that does not exist yet cannot be made.
    let env = Env::new(Mode::AutoApprove);
    env.file(".git", "gitdir: gd\n");
    let env = env.map_ctx(|ctx| ctx);
    assert_protected(&env.call(
        "patch",
        json!({"patch": "*** Begin Patch\n*** Add File: gd/HEAD\n+ref: refs/heads/main\n*** Add File: gd/config\n+[core]\n+\tfsmonitor = id\n*** End Patch"}),
    ));
    assert!(!env.exists("gd"));

    // A linked worktree's common directory, named by `commondir`.
    let env = Env::new(Mode::AutoApprove);
    env.file("store/config", GIT_CONFIG)
        .file("store/HEAD", "ref: refs/heads/main\n")
        .file("store/worktrees/w/HEAD", "ref: refs/heads/w\n")
        .file("store/worktrees/w/commondir", "../..\n")
        .file(".git", "gitdir: store/worktrees/w\n");
    fs::create_dir_all(env.root.join("store/objects")).unwrap();
    let env = env.map_ctx(|ctx| ctx);
    assert_protected(&env.call("write", json!({"path": "store/config", "content": "x\n"})));
    assert_eq!(env.read("store/config"), GIT_CONFIG);
}

#[test]
fn planting_a_git_repository_needs_the_command_approval() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("src/main.rs", "fn main() {}\n");
    let plant = "*** Begin Patch\n*** Add File: src/objects/info/keep\n+\n*** Add File: src/refs/heads/keep\n+\n*** Add File: src/HEAD\n+ref: refs/heads/main\n*** Add File: src/config\n+[core]\n+\tfsmonitor = id\n*** End Patch";
    let out = env.call("patch", json!({ "patch": plant }));
    assert_tool_error(&out, "makes its directory a git repository");
    assert!(!env.exists("src/HEAD") && !env.exists("src/config"));
    // A repository directory already there (a test fixture): its config
    // and hooks are command-like too.
    env.file("fixture/HEAD", "ref: refs/heads/main\n");
    fs::create_dir_all(env.root.join("fixture/objects")).unwrap();
    fs::create_dir_all(env.root.join("fixture/refs")).unwrap();
    let out = env.call(
        "write",
        json!({"path": "fixture/config", "content": "[core]\n\tfsmonitor = id\n"}),
    );
    assert_tool_error(&out, "is a git repository's directory");
    // Moving a directory that holds a HEAD.
    let out = env.call("move", json!({"from": "fixture", "to": "elsewhere"}));
    assert_tool_error(&out, "needs the command approval");
}

#[test]
fn hooks_named_by_the_enclosing_repository_count_when_the_root_is_below_its_top() {
    // The repository's top is the root's parent; its config names the
    // root's `hooks/` and husky's `.husky/_`.
    let env = Env::new(Mode::AcceptEdits);
    let top = env.root.parent().unwrap().to_path_buf();
    fs::create_dir_all(top.join(".git/objects")).unwrap();
    fs::write(top.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    fs::write(
        top.join(".git/config"),
        "[core]\n\thooksPath = ws/.husky/_\n[include]\n\tpath = ../ws/gitconfig\n",
    )
    .unwrap();
    let env = env.map_ctx(|ctx| ctx);
    for path in [".husky/pre-commit", "gitconfig"] {
        let out = env.call("write", json!({"path": path, "content": "x\n"}));
        assert_tool_error(&out, "git's config names");
    }
    assert!(
        env.call("write", json!({"path": "src/lib.rs", "content": "x\n"}))
            .ok
    );
}

#[test]
fn links_on_the_command_path_and_home_files_behind_links_are_judged_where_named() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("node_modules/eslint/bin/eslint.js", "// real\n")
        .file("dotfiles/bashrc", "# mine\n");
    fs::create_dir_all(env.root.join("bin")).unwrap();
    symlink(
        "../node_modules/eslint/bin/eslint.js",
        env.root.join("bin/eslint"),
    );
    symlink("dotfiles/bashrc", env.root.join(".bashrc"));
    let root = env.root.clone();
    // PATH spelled with a `..` through a directory that does not exist.
    let path = format!("{}/nope/../bin:/usr/bin:/bin", root.display());
    let env = env.map_ctx(|ctx| {
        ctx.with_child_env(ChildEnv::filtered([("PATH".into(), path.into())], &[]))
            .with_sandbox(sandbox_with(Vec::new(), Some(root)))
    });
    for path in ["bin/eslint", "bin/deploy", ".bashrc"] {
        let out = env.call("write", json!({"path": path, "content": "echo pwned\n"}));
        assert_tool_error(&out, "needs the command approval");
    }
    assert_eq!(env.read("node_modules/eslint/bin/eslint.js"), "// real\n");
    assert_eq!(env.read("dotfiles/bashrc"), "# mine\n");
}

#[test]
fn the_approval_names_the_file_a_link_really_writes() {
    let env = Env::interactive(Mode::Default, Answer::Deny);
    fs::create_dir_all(env.root.join(".github/workflows")).unwrap();
    symlink(".github/workflows/release.yml", env.root.join("NOTES.md"));
    let out = env.call("write", json!({"path": "NOTES.md", "content": "x\n"}));
    assert!(!out.ok);
    let requests = env.events.requests.lock().unwrap();
    assert!(
        requests[0]
            .summary
            .contains("NOTES.md (a link to .github/workflows/release.yml)"),
        "{}",
        requests[0].summary
    );
}
