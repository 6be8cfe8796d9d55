//! `exec`: the one-line JSON contract (docs/tools.md), argv passed verbatim (no
//! shell), stdin passthrough, environment additions on top of the filtered
//! environment, the working directory boundary, timeouts that kill the
//! group, and the approval policy.

use std::ffi::OsString;
use std::time::{Duration, Instant};

use oy_tools::{Answer, ChildEnv, Effect, Mode, Preview, ToolOutput};
use serde_json::{Value, json};

use crate::support::{Env, assert_tool_error, read_pid, wait_gone};

fn auto() -> Env {
    Env::new(Mode::AutoApprove)
}

/// The result line, checked to be exactly one line with exactly the four
/// keys of the contract, in order.
fn result(out: &ToolOutput) -> Value {
    assert!(out.ok, "{}", out.text);
    assert!(!out.text.contains('\n'), "more than one line: {}", out.text);
    assert!(out.text.starts_with("{\"exitCode\":"), "{}", out.text);
    let value: Value = serde_json::from_str(&out.text).unwrap();
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    let mut expected = ["durationMs", "exitCode", "stderr", "stdout"];
    expected.sort_unstable();
    assert_eq!(keys, expected, "{}", out.text);
    let stdout_at = out.text.find("\"stdout\":").unwrap();
    let stderr_at = out.text.find("\"stderr\":").unwrap();
    let duration_at = out.text.rfind("\"durationMs\":").unwrap();
    assert!(
        stdout_at < stderr_at && stderr_at < duration_at,
        "{}",
        out.text
    );
    assert!(value["durationMs"].is_u64());
    value
}

#[test]
fn returns_the_one_line_json_contract() {
    let env = auto();
    let out = env.call("exec", json!({"cmd": "printf", "args": ["%s", "hi"]}));
    let value = result(&out);
    assert_eq!(value["exitCode"], 0);
    assert_eq!(value["stdout"], "hi");
    assert_eq!(value["stderr"], "");
}

#[test]
fn a_non_zero_exit_is_a_result() {
    let env = auto();
    let out = env.call(
        "exec",
        json!({"cmd": "sh", "args": ["-c", "echo oops >&2; exit 3"]}),
    );
    let value = result(&out);
    assert_eq!(value["exitCode"], 3);
    assert_eq!(value["stderr"], "oops\n");
    let value = result(&env.call("exec", json!({"cmd": "false"})));
    assert_eq!(value["exitCode"], 1);
}

#[test]
fn shell_syntax_in_arguments_arrives_verbatim() {
    let env = auto();
    env.file("a.txt", "").file("b.txt", "");
    let args = [
        "a;b",
        "x && y",
        "$(touch pwned)",
        "*",
        "`id`",
        "$HOME",
        "'q'",
        "a|b > c",
    ];
    let mut argv = vec!["%s\\n"];
    argv.extend(args);
    let out = env.call("exec", json!({"cmd": "printf", "args": argv}));
    let value = result(&out);
    let expected: String = args.iter().map(|arg| format!("{arg}\n")).collect();
    assert_eq!(value["stdout"], expected);
    assert!(!env.exists("pwned") && !env.exists("c"));
    let value = result(&env.call("exec", json!({"cmd": "printf", "args": ["%s", "a;b"]})));
    assert_eq!(value["stdout"], "a;b");
}

#[test]
fn stdin_is_passed_through_then_closed() {
    let env = auto();
    let value = result(&env.call("exec", json!({"cmd": "cat", "stdin": "line 1\nline 2\n"})));
    assert_eq!(value["stdout"], "line 1\nline 2\n");
    // Without `stdin`, stdin is closed: `cat` ends at once.
    let value = result(&env.call("exec", json!({"cmd": "cat"})));
    assert_eq!(
        (value["exitCode"].clone(), value["stdout"].clone()),
        (json!(0), json!(""))
    );
}

#[test]
fn stdin_to_a_child_that_never_reads_cannot_deadlock() {
    let env = auto();
    let started = Instant::now();
    let big = "x".repeat(1024 * 1024);
    let value = result(&env.call(
        "exec",
        json!({"cmd": "sleep", "args": ["0.2"], "stdin": big}),
    ));
    assert_eq!(value["exitCode"], 0);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn env_adds_to_the_filtered_environment() {
    let vars: Vec<(OsString, OsString)> = [
        ("PATH", "/usr/local/bin:/usr/bin:/bin"),
        ("HOME", "/srv/oy-test-home"),
        ("GITHUB_TOKEN", "planted-ghp"),
        ("OPENAI_API_KEY", "planted-sk"),
    ]
    .into_iter()
    .map(|(name, value)| (name.into(), value.into()))
    .collect();
    let env = auto().map_ctx(|ctx| ctx.with_child_env(ChildEnv::filtered(vars, &[])));
    let out = env.call(
        "exec",
        json!({"cmd": "env", "env": {"FOO": "bar baz", "HOME": "/elsewhere", "MY_TOKEN": "given-by-caller"}}),
    );
    let stdout = result(&out)["stdout"].as_str().unwrap().to_owned();
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.contains(&"FOO=bar baz"), "{stdout}");
    assert!(lines.contains(&"HOME=/elsewhere"), "{stdout}");
    assert!(
        lines.contains(&"PATH=/usr/local/bin:/usr/bin:/bin"),
        "{stdout}"
    );
    // An explicit entry is the caller's own value, passed as given.
    assert!(lines.contains(&"MY_TOKEN=given-by-caller"), "{stdout}");
    assert!(!stdout.contains("planted"), "{stdout}");
    assert!(!stdout.contains("CARGO_"), "{stdout}");
    // Nothing is expanded: a value cannot copy a filtered variable.
    let out = env.call(
        "exec",
        json!({"cmd": "env", "env": {"COPY": "$GITHUB_TOKEN"}}),
    );
    let stdout = result(&out)["stdout"].as_str().unwrap().to_owned();
    assert!(
        stdout.lines().any(|line| line == "COPY=$GITHUB_TOKEN"),
        "{stdout}"
    );
    assert!(!stdout.contains("planted"), "{stdout}");
}

#[test]
fn cwd_must_be_a_directory_inside_the_workspace() {
    let env = auto();
    env.file("sub/keep.txt", "");
    let value = result(&env.call("exec", json!({"cmd": "pwd", "cwd": "sub"})));
    assert_eq!(
        value["stdout"],
        format!("{}\n", env.root.join("sub").display())
    );
    let outside = env.outside.display().to_string();
    for cwd in [
        "../outside",
        outside.as_str(),
        "/tmp",
        "missing",
        "sub/keep.txt",
    ] {
        let out = env.call(
            "exec",
            json!({"cmd": "touch", "args": ["ran.txt"], "cwd": cwd}),
        );
        assert_tool_error(&out, "");
    }
    assert!(!env.exists("ran.txt") && !env.outside.join("ran.txt").exists());
    assert!(!env.exists("sub/ran.txt"));
}

#[test]
fn timeout_reports_124_and_kills_the_group() {
    let env = auto();
    let started = Instant::now();
    let out = env.call(
        "exec",
        json!({
            "cmd": "bash",
            "args": ["-c", "sleep 30 & echo $! > bg.pid; echo started; sleep 30"],
            "timeoutSec": 2
        }),
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    let value = result(&out);
    assert_eq!(value["exitCode"], 124);
    assert_eq!(value["stdout"], "started\n");
    assert_eq!(
        value["stderr"],
        "oy: timed out after 2 s; process group killed"
    );
    assert!(value["durationMs"].as_u64().unwrap() >= 2000);
    let grandchild = read_pid(&env.root, "bg.pid");
    assert!(
        wait_gone(grandchild, Duration::from_secs(5)),
        "grandchild {grandchild} survived"
    );
}

#[test]
fn streams_are_capped_inside_the_json() {
    let env = auto();
    let value = result(&env.call("exec", json!({"cmd": "seq", "args": ["1", "100000"]})));
    let stdout = value["stdout"].as_str().unwrap();
    assert!(stdout.starts_with("1\n2\n"), "{stdout}");
    assert!(
        stdout.contains("\n100\n[truncated: 99800 lines / "),
        "{stdout}"
    );
    assert!(stdout.ends_with("\n100000\n"), "{stdout}");
}

#[test]
fn a_missing_program_is_a_clear_tool_error() {
    let env = auto();
    let out = env.call("exec", json!({"cmd": "no-such-program-oy-test"}));
    assert_tool_error(&out, "`no-such-program-oy-test` was not found");
    let out = env.call("exec", json!({"cmd": "./missing.sh"}));
    assert_tool_error(&out, "was not found");
}

#[test]
fn bad_arguments_are_tool_errors_and_nothing_runs() {
    let env = auto();
    for args in [
        json!({"cmd": ""}),
        json!({"cmd": "true", "timeoutSec": 0}),
        json!({"cmd": "true", "timeoutSec": 601}),
        json!({"cmd": "true", "env": {"A=B": "x"}}),
        json!({"cmd": "true", "env": {"": "x"}}),
        json!({"cmd": "true", "args": ["a\u{0}b"]}),
        json!({"cmd": "true", "args": "not-a-list"}),
        json!({"cmd": "true", "timeout_sec": 5}),
    ] {
        let out = env.call("exec", args.clone());
        assert_tool_error(&out, "invalid arguments for `exec`");
    }
    assert!(env.ctx.ledger().entries().is_empty());
}

#[test]
fn policy_plan_hides_it_default_denies_it_and_the_preview_is_the_argv() {
    let env = Env::new(Mode::Plan);
    let out = env.call("exec", json!({"cmd": "touch", "args": ["ran.txt"]}));
    assert_tool_error(&out, "`exec` is not available");
    assert!(!env.exists("ran.txt"));

    let env = Env::new(Mode::Default);
    let out = env.call("exec", json!({"cmd": "touch", "args": ["ran.txt"]}));
    assert_tool_error(&out, "exec denied");
    assert_tool_error(&out, "the auto-approve mode");
    assert!(!env.exists("ran.txt"));

    let env = Env::interactive(Mode::AcceptEdits, Answer::Approve);
    let out = env.call(
        "exec",
        json!({"cmd": "printf", "args": ["%s", "a;b", "it's"], "env": {"FOO": "x y"}}),
    );
    assert_eq!(result(&out)["stdout"], "a;bit's");
    let requests = env.events.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].effect, Effect::Process);
    assert_eq!(
        requests[0].preview,
        Preview::Command(r#"env 'FOO=x y' printf %s 'a;b' 'it'\''s'"#.to_owned())
    );
    assert_eq!(env.ctx.ledger().entries().len(), 1);
}

#[test]
fn snapshot_exec_result() {
    let env = auto();
    let out = env.call(
        "exec",
        json!({"cmd": "sh", "args": ["-c", "echo built; echo 'warning: unused' >&2; exit 2"]}),
    );
    result(&out);
    // The duration is the only unstable part.
    let (before, after) = out.text.split_once("\"durationMs\":").unwrap();
    let rest = after.trim_start_matches(|c: char| c.is_ascii_digit());
    insta::assert_snapshot!(format!("{before}\"durationMs\":0{rest}"));
}
