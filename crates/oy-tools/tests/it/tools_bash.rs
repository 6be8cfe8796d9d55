//! `bash`: exit codes as results, separate capped streams, timeouts and
//! cancellation that kill the whole process group (grandchildren too), the
//! credential-filtered environment, the working directory boundary, and the
//! approval policy — through the registry, as the model would call.

use std::ffi::OsString;
use std::time::{Duration, Instant};

use oy_tools::{Answer, CancelToken, ChildEnv, Effect, Mode, Preview};
use serde_json::json;

use crate::support::{Env, assert_tool_error, read_pid, symlink, wait_gone};

/// A PATH with bash, and nothing of the test process's environment.
const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

fn auto() -> Env {
    Env::new(Mode::AutoApprove)
}

#[test]
fn exit_codes_are_results_not_tool_errors() {
    let env = auto();
    for (command, code) in [("true", 0), ("exit 3", 3), ("no-such-command-oy-test", 127)] {
        let out = env.call("bash", json!({"command": command}));
        assert!(out.ok, "{command}: {}", out.text);
        assert!(
            out.text.starts_with(&format!("exit: {code}\n")),
            "{command}: {}",
            out.text
        );
    }
    let out = env.call("bash", json!({"command": "no-such-command-oy-test"}));
    assert!(out.text.contains("[stderr]\n"), "{}", out.text);
    assert!(out.text.contains("not found"), "{}", out.text);
}

#[test]
fn stdout_and_stderr_are_reported_separately() {
    let env = auto();
    let out = env.call(
        "bash",
        json!({"command": "echo out; echo err >&2; echo out2"}),
    );
    assert_eq!(out.text, "exit: 0\n[stdout]\nout\nout2\n[stderr]\nerr\n");
    let out = env.call("bash", json!({"command": "echo only-err >&2"}));
    assert_eq!(out.text, "exit: 0\n[stderr]\nonly-err\n");
    let out = env.call("bash", json!({"command": "true"}));
    assert_eq!(out.text, "exit: 0\n(no output)\n");
    let out = env.call("bash", json!({"command": "printf no-newline"}));
    assert_eq!(out.text, "exit: 0\n[stdout]\nno-newline\n");
}

#[test]
fn stdin_is_closed() {
    let env = auto();
    let out = env.call("bash", json!({"command": "cat; echo after"}));
    assert_eq!(out.text, "exit: 0\n[stdout]\nafter\n");
}

#[test]
fn timeout_kills_the_whole_group_including_grandchildren() {
    let env = auto();
    let started = Instant::now();
    let out = env.call(
        "bash",
        json!({"command": "sleep 30 & echo $! > bg.pid; echo started; sleep 30", "timeout_ms": 1500}),
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert!(out.ok, "{}", out.text);
    assert_eq!(
        out.text,
        "exit: 124\ntimed out after 1500 ms; process group killed\n[stdout]\nstarted\n"
    );
    let grandchild = read_pid(&env.root, "bg.pid");
    assert!(
        wait_gone(grandchild, Duration::from_secs(5)),
        "grandchild {grandchild} survived"
    );
}

#[test]
fn background_jobs_neither_hold_the_call_nor_outlive_it() {
    let env = auto();
    let started = Instant::now();
    // The background sleep holds stdout open; the call must not wait for it.
    let out = env.call(
        "bash",
        json!({"command": "sleep 30 & echo $! > bg.pid; echo done"}),
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(out.text, "exit: 0\n[stdout]\ndone\n");
    let grandchild = read_pid(&env.root, "bg.pid");
    assert!(
        wait_gone(grandchild, Duration::from_secs(5)),
        "background job {grandchild} survived"
    );
}

#[test]
fn a_process_that_left_the_group_cannot_hang_the_call() {
    let env = auto();
    let started = Instant::now();
    // `setsid` escapes the group kill and keeps stdout open for 3 s; the
    // call returns after its short grace anyway, with the output so far.
    let out = env.call(
        "bash",
        json!({"command": "setsid sleep 3 & echo $! > escaped.pid; echo done"}),
    );
    assert!(
        started.elapsed() < Duration::from_millis(2500),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(out.text, "exit: 0\n[stdout]\ndone\n");
    // Leave nothing behind: the escapee ends by itself.
    let escaped = read_pid(&env.root, "escaped.pid");
    assert!(wait_gone(escaped, Duration::from_secs(10)));
}

#[test]
fn each_stream_is_capped_with_head_tail_and_marker() {
    let env = auto();
    let total: usize = (1..=100_000).map(|n: u32| n.to_string().len() + 1).sum();
    // Shown: lines 1..=100 (292 bytes) and 99901..=100000 (601 bytes).
    let marker = format!(
        "[truncated: 99800 lines / {} bytes omitted]",
        total - 292 - 601
    );
    let out = env.call("bash", json!({"command": "seq 1 100000; seq 1 100000 >&2"}));
    assert!(out.ok && out.truncated, "{}", out.text);
    let (stdout, stderr) = out.text.split_once("[stderr]\n").unwrap();
    for stream in [stdout, stderr] {
        let stream = format!("\n{stream}");
        assert!(stream.contains("\n1\n2\n3\n"), "{stream}");
        assert!(
            stream.contains(&format!("\n100\n{marker}\n99901\n")),
            "{stream}"
        );
        assert!(stream.ends_with("\n99999\n100000\n"), "{stream}");
    }
    assert!(out.text.len() < 4 * 1024, "{} bytes", out.text.len());
}

#[test]
fn long_lines_are_capped_by_bytes() {
    let env = auto();
    let out = env.call(
        "bash",
        json!({"command": "head -c 100000 /dev/zero | tr '\\0' x"}),
    );
    assert!(out.truncated);
    assert!(
        out.text
            .contains("[truncated: 1 lines / 91808 bytes omitted]"),
        "{}",
        out.text
    );
}

#[test]
fn endless_output_is_bounded_by_the_timeout() {
    let env = auto();
    let started = Instant::now();
    let out = env.call("bash", json!({"command": "yes", "timeout_ms": 1000}));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert!(
        out.text.starts_with("exit: 124\ntimed out after 1000 ms"),
        "{}",
        &out.text[..80]
    );
    assert!(out.text.contains("[stdout]\ny\ny\n"));
    assert!(out.text.contains(" lines / "));
    assert!(out.text.ends_with("y\ny\n"));
    // 8 KB per stream at most, whatever `yes` wrote.
    assert!(out.text.len() < 9 * 1024, "{} bytes", out.text.len());
}

fn planted() -> ChildEnv {
    let vars: Vec<(OsString, OsString)> = [
        ("PATH", PATH),
        ("HOME", "/srv/oy-test-home"),
        ("LANG", "C.UTF-8"),
        ("GITHUB_TOKEN", "planted-ghp"),
        ("OPENAI_API_KEY", "planted-sk"),
        ("AWS_SECRET_ACCESS_KEY", "planted-aws"),
        ("DATABASE_URL", "postgres://planted@db/x"),
        ("HTTP_PROXY", "http://user:planted-pw@proxy:3128"),
        ("DEPLOY_TOKEN", "allowed-value"),
    ]
    .into_iter()
    .map(|(name, value)| (name.into(), value.into()))
    .collect();
    ChildEnv::filtered(vars, &["DEPLOY_TOKEN".to_owned()])
}

#[test]
fn commands_see_the_filtered_environment_only() {
    let env = auto().map_ctx(|ctx| ctx.with_child_env(planted()));
    let out = env.call("bash", json!({"command": "env"}));
    assert!(out.ok, "{}", out.text);
    assert!(!out.text.contains("planted"), "{}", out.text);
    for name in [
        "GITHUB_TOKEN",
        "OPENAI_API_KEY",
        "AWS_SECRET",
        "DATABASE_URL",
        "HTTP_PROXY",
    ] {
        assert!(!out.text.contains(name), "{name} leaked: {}", out.text);
    }
    assert!(
        out.text.contains("\nDEPLOY_TOKEN=allowed-value\n"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains(&format!("\nPATH={PATH}\n")),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("\nHOME=/srv/oy-test-home\n"),
        "{}",
        out.text
    );
    // Nothing of the test process's own environment either.
    assert!(!out.text.contains("CARGO_"), "{}", out.text);
}

#[test]
fn workdir_inside_the_workspace_is_used() {
    let env = auto();
    env.file("sub/dir/keep.txt", "");
    symlink("sub", env.root.join("link"));
    let out = env.call("bash", json!({"command": "pwd", "workdir": "sub/dir"}));
    assert_eq!(
        out.text,
        format!(
            "exit: 0\n[stdout]\n{}\n",
            env.root.join("sub/dir").display()
        )
    );
    let absolute = env.root.join("sub");
    let out = env.call("bash", json!({"command": "pwd", "workdir": absolute}));
    assert_eq!(
        out.text,
        format!("exit: 0\n[stdout]\n{}\n", absolute.display())
    );
    let out = env.call("bash", json!({"command": "ls", "workdir": "link/dir"}));
    assert_eq!(out.text, "exit: 0\n[stdout]\nkeep.txt\n");
    let out = env.call("bash", json!({"command": "pwd"}));
    assert_eq!(
        out.text,
        format!("exit: 0\n[stdout]\n{}\n", env.root.display())
    );
}

#[test]
fn workdir_outside_the_workspace_is_refused_and_nothing_runs() {
    let env = auto();
    env.file("file.txt", "x");
    symlink(&env.outside, env.root.join("out-link"));
    let outside = env.outside.display().to_string();
    for (workdir, needle) in [
        ("../outside", "TOOL_ERROR"),
        (outside.as_str(), "TOOL_ERROR"),
        ("/", "TOOL_ERROR"),
        ("out-link", "TOOL_ERROR"),
        ("missing", "TOOL_ERROR"),
        ("file.txt", "not a directory"),
    ] {
        let out = env.call(
            "bash",
            json!({"command": "touch ran.txt", "workdir": workdir}),
        );
        assert_tool_error(&out, needle);
    }
    assert!(!env.exists("ran.txt"));
    assert!(!env.outside.join("ran.txt").exists());
    assert!(
        env.ctx.ledger().entries().is_empty(),
        "nothing was attempted"
    );
}

#[test]
fn plan_mode_does_not_offer_bash() {
    let env = Env::new(Mode::Plan);
    let offered: Vec<String> = env
        .registry
        .specs(&env.ctx)
        .into_iter()
        .map(|s| s.name.into_owned())
        .collect();
    assert!(
        !offered.iter().any(|name| name == "bash" || name == "exec"),
        "{offered:?}"
    );
    let out = env.call("bash", json!({"command": "touch ran.txt"}));
    assert_tool_error(&out, "`bash` is not available");
    assert!(!env.exists("ran.txt"));
}

#[test]
fn default_mode_without_a_person_denies_with_the_hint() {
    for mode in [Mode::Default, Mode::AcceptEdits] {
        let env = Env::new(mode);
        let out = env.call("bash", json!({"command": "touch ran.txt"}));
        assert_tool_error(&out, "bash denied");
        assert_tool_error(&out, "the auto-approve mode");
        assert!(!env.exists("ran.txt"));
        assert!(env.ctx.ledger().entries().is_empty());
    }
}

#[test]
fn the_approval_preview_is_the_exact_command() {
    let command = "echo 'a; b' && touch ran.txt";
    let env = Env::interactive(Mode::Default, Answer::Approve);
    let out = env.call("bash", json!({"command": command, "workdir": "."}));
    assert_eq!(out.text, "exit: 0\n[stdout]\na; b\n");
    assert!(env.exists("ran.txt"));
    let requests = env.events.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].tool, "bash");
    assert_eq!(requests[0].effect, Effect::Process);
    assert_eq!(requests[0].preview, Preview::Command(command.to_owned()));

    let env = Env::interactive(Mode::Default, Answer::Deny);
    let out = env.call("bash", json!({"command": command}));
    assert_tool_error(&out, "the user declined");
    assert!(!env.exists("ran.txt"));
}

#[test]
fn cancellation_kills_the_group_and_returns_promptly() {
    let token = CancelToken::new();
    let env = auto().map_ctx(|ctx| ctx.with_cancel(token.clone()));
    let pid_file = env.root.join("bg.pid");
    let canceller = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !pid_file.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        std::thread::sleep(Duration::from_millis(100));
        token.cancel();
        Instant::now()
    });
    let out = env.call(
        "bash",
        json!({"command": "sleep 30 & echo $! > bg.pid; sleep 30", "timeout_ms": 60000}),
    );
    let returned = Instant::now();
    let cancelled_at = canceller.join().unwrap();
    assert!(
        returned.duration_since(cancelled_at) < Duration::from_secs(5),
        "returned {:?} after the cancel",
        returned.duration_since(cancelled_at)
    );
    assert_eq!(
        out.text,
        "exit: 130\ncancelled; process group killed\n(no output)\n"
    );
    let grandchild = read_pid(&env.root, "bg.pid");
    assert!(
        wait_gone(grandchild, Duration::from_secs(5)),
        "grandchild {grandchild} survived"
    );
}

#[test]
fn a_token_fired_before_the_call_starts_nothing() {
    let token = CancelToken::new();
    token.cancel();
    let env = auto().map_ctx(|ctx| ctx.with_cancel(token));
    let out = env.call("bash", json!({"command": "touch ran.txt"}));
    // The gate refuses every side effect once the turn is cancelled.
    assert_tool_error(&out, "the turn was cancelled");
    assert!(!env.exists("ran.txt"));
}

#[test]
fn the_ledger_records_each_attempt_and_its_outcome() {
    let env = auto();
    env.ctx.ledger().begin_turn();
    assert!(!env.ctx.ledger().side_effect_attempted());
    env.call("bash", json!({"command": "exit 3"}));
    assert!(env.ctx.ledger().side_effect_attempted());
    let entries = env.ctx.ledger().entries();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].tool, "bash");
    // A non-zero exit is a result: the call itself succeeded.
    assert_eq!(entries[0].succeeded, Some(true));
}

#[test]
fn missing_bash_is_a_clear_tool_error() {
    let no_bash = ChildEnv::filtered([("PATH".into(), "/nonexistent-oy".into())], &[]);
    let env = auto().map_ctx(|ctx| ctx.with_child_env(no_bash));
    let out = env.call("bash", json!({"command": "true"}));
    assert_tool_error(&out, "`bash` was not found");
}

#[test]
fn bad_arguments_are_tool_errors() {
    let env = auto();
    for args in [
        json!({"command": "true", "timeout_ms": 0}),
        json!({"command": "true", "timeout_ms": 600_001}),
        json!({"command": ""}),
        json!({"command": "true", "shell": "zsh"}),
        json!({}),
    ] {
        let out = env.call("bash", args);
        assert_tool_error(&out, "invalid arguments for `bash`");
    }
    assert!(env.ctx.ledger().entries().is_empty());
}

#[test]
fn snapshot_bash_result() {
    let env = auto();
    let out = env.call(
        "bash",
        json!({"command": "echo building; echo 'warning: unused' >&2; exit 2"}),
    );
    insta::assert_snapshot!(out.text);
}
