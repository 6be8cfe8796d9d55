//! `exec_command` and `write_stdin`: PTY sessions driven as a model would —
//! typed input and control characters, exits reported and sessions closed,
//! the session limit, output caps, the workdir boundary, the approval
//! policy, the filtered environment, and every process group killed when
//! the context goes.

use std::ffi::OsString;
use std::time::{Duration, Instant};

use oy_tools::{Answer, CancelToken, ChildEnv, Mode, Preview, ToolOutput};
use serde_json::json;

use crate::support::{Env, assert_tool_error, symlink, wait_gone};

/// A PATH with bash, and nothing of the test process's environment.
const PATH: &str = "/usr/local/bin:/usr/bin:/bin";
/// The most any wait in these tests takes before it counts as a failure.
const PATIENCE: Duration = Duration::from_secs(10);

fn auto() -> Env {
    Env::new(Mode::AutoApprove)
}

fn start(env: &Env, cmd: &str, yield_ms: u64) -> ToolOutput {
    let out = env.call(
        "exec_command",
        json!({"cmd": cmd, "yield_time_ms": yield_ms}),
    );
    assert!(out.ok, "{cmd}: {}", out.text);
    out
}

/// The session id in `session N running` / `session N exited …`.
fn session_id(out: &ToolOutput) -> u32 {
    let header = out
        .text
        .lines()
        .find(|line| line.starts_with("session "))
        .unwrap_or_else(|| panic!("no session line in {:?}", out.text));
    header.split(' ').nth(1).unwrap().parse().unwrap()
}

/// The output after the status line.
fn body(out: &ToolOutput) -> &str {
    let at = out.text.find("session ").unwrap();
    let rest = &out.text[at..];
    rest.split_once('\n').map_or("", |(_, body)| body)
}

fn write(env: &Env, id: u32, chars: &str) -> ToolOutput {
    let out = env.call(
        "write_stdin",
        json!({"session_id": id, "chars": chars, "yield_time_ms": 50}),
    );
    assert!(out.ok, "{chars:?}: {}", out.text);
    out
}

/// Types `chars` into session `id`, then reads until the output holds
/// `needle` (or, with `None`, until the process exits); returns the output
/// gathered and the last status line.
fn send_until(env: &Env, id: u32, chars: &str, needle: Option<&str>) -> (String, String) {
    let deadline = Instant::now() + PATIENCE;
    let mut seen = String::new();
    let mut out = write(env, id, chars);
    loop {
        seen.push_str(body(&out));
        let status = out.text.lines().next().unwrap_or("").to_owned();
        if needle.is_some_and(|needle| seen.contains(needle)) || !status.ends_with("running") {
            return (seen, status);
        }
        assert!(
            Instant::now() < deadline,
            "no {needle:?} from session {id}: {seen:?}"
        );
        out = write(env, id, "");
    }
}

/// Starts `cmd` and reads until its output holds `needle`; returns the
/// session id and the output.
fn start_until(env: &Env, cmd: &str, needle: &str) -> (u32, String) {
    let out = start(env, cmd, 50);
    let id = session_id(&out);
    let mut seen = body(&out).to_owned();
    if !seen.contains(needle) {
        seen.push_str(&send_until(env, id, "", Some(needle)).0);
    }
    (id, seen)
}

/// `key=<number>` in terminal output.
fn number_after(text: &str, key: &str) -> u32 {
    let at = text
        .find(key)
        .unwrap_or_else(|| panic!("no {key} in {text:?}"));
    text[at + key.len()..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap()
}

#[test]
fn a_short_command_reports_its_exit_code_and_output_at_once() {
    let env = auto();
    let started = Instant::now();
    let out = env.call(
        "exec_command",
        json!({"cmd": "echo hello; exit 3", "yield_time_ms": 20000}),
    );
    assert!(out.ok, "{}", out.text);
    assert_eq!(out.text, "session 1 exited with code 3\nhello\r\n");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "waited the full yield"
    );
    assert_tool_error(
        &env.call("write_stdin", json!({"session_id": 1, "chars": ""})),
        "no such session 1; start one with exec_command",
    );
}

#[test]
fn a_running_session_returns_its_id_and_echoes_typed_lines() {
    let env = auto();
    let out = start(
        &env,
        r#"while IFS= read -r line; do echo "got:$line"; done"#,
        50,
    );
    assert!(out.text.starts_with("session 1 running\n"), "{}", out.text);
    let (seen, status) = send_until(&env, 1, "hello pty\n", Some("got:hello pty"));
    assert_eq!(status, "session 1 running");
    assert!(seen.contains("got:hello pty\r\n"), "{seen:?}");
    let (seen, _) = send_until(&env, 1, "second\n", Some("got:second"));
    assert!(!seen.contains("got:hello"), "old output repeated: {seen:?}");
}

#[test]
fn eof_closes_a_cat_session_and_its_id_is_then_an_error() {
    let env = auto();
    let id = session_id(&start(&env, "cat", 50));
    // Once from the terminal's echo, once from cat.
    let (seen, _) = send_until(&env, id, "ping-42\n", Some("ping-42\r\nping-42\r\n"));
    assert!(seen.contains("ping-42\r\nping-42\r\n"), "{seen:?}");
    let (_, status) = send_until(&env, id, "\u{4}", None);
    assert_eq!(status, format!("session {id} exited with code 0"));
    let out = env.call("write_stdin", json!({"session_id": id, "chars": "more\n"}));
    assert_tool_error(
        &out,
        &format!("no such session {id}; start one with exec_command"),
    );
    assert!(out.text.contains("RECOVERY: start one with exec_command"));
}

#[test]
fn ctrl_c_ends_a_sleeping_session_and_reports_the_signal() {
    let env = auto();
    let id = session_id(&start(&env, "sleep 30", 50));
    let started = Instant::now();
    let (_, status) = send_until(&env, id, "\u{3}", None);
    assert_eq!(
        status,
        format!("session {id} exited with code 130 (killed by SIGINT)")
    );
    assert!(started.elapsed() < PATIENCE);
    assert_tool_error(
        &env.call("write_stdin", json!({"session_id": id})),
        "no such session",
    );
}

#[test]
fn an_unknown_session_is_a_tool_error() {
    let env = auto();
    assert_tool_error(
        &env.call("write_stdin", json!({"session_id": 99, "chars": "x"})),
        "no such session 99; start one with exec_command",
    );
}

#[test]
fn terminal_sequences_pass_through_raw() {
    let env = auto();
    let out = start(&env, r"printf '\033[31mred\033[0m\n'", 5000);
    assert!(
        out.text.contains("\u{1b}[31mred\u{1b}[0m"),
        "{:?}",
        out.text
    );
}

#[test]
fn the_seventeenth_session_reaps_the_oldest_idle_one() {
    let env = auto();
    let (first, seen) = start_until(&env, "echo pid=$$ ready; exec cat", "ready");
    assert_eq!(first, 1);
    let first_pid = number_after(&seen, "pid=");
    for expected in 2..=16 {
        assert_eq!(session_id(&start(&env, "cat", 0)), expected);
    }
    let out = start(&env, "cat", 0);
    assert!(
        out.text.starts_with(
            "closed session 1 (the oldest idle one; at most 16 sessions live at once)\nsession 17 running\n"
        ),
        "{}",
        out.text
    );
    assert!(wait_gone(first_pid, PATIENCE), "session 1's bash survived");
    assert_tool_error(
        &env.call("write_stdin", json!({"session_id": 1, "chars": ""})),
        "no such session 1",
    );
    // The others are untouched; the next start reaps session 2.
    assert!(write(&env, 3, "").text.starts_with("session 3 running"));
    let out = start(&env, "cat", 0);
    assert!(out.text.starts_with("closed session 2 "), "{}", out.text);
}

#[test]
fn output_is_capped_with_head_tail_and_the_marker() {
    let env = auto();
    let out = env.call(
        "exec_command",
        json!({"cmd": "seq 1 20000", "yield_time_ms": 20000, "max_output_tokens": 50}),
    );
    assert!(out.ok, "{}", out.text);
    assert!(out.truncated);
    let body = body(&out);
    assert!(
        out.text.starts_with("session 1 exited with code 0\n"),
        "{}",
        out.text
    );
    assert!(body.starts_with("1\r\n2\r\n"), "{body:?}");
    assert!(body.ends_with("19999\r\n20000\r\n"), "{body:?}");
    assert!(body.contains("[truncated: "), "{body:?}");
    assert!(body.len() < 200 + 80, "{} bytes: {body:?}", body.len());
}

/// `seq 1 200000` through a terminal: every `\n` becomes `\r\n`.
const SEQ_200000_BYTES: usize = 9 + 180 + 2700 + 36_000 + 450_000 + 600_006 + 2 * 200_000;

#[test]
fn output_between_calls_is_bounded_and_what_was_dropped_is_counted() {
    let env = auto();
    let id = session_id(&start(&env, "sleep 0.2; seq 1 200000", 0));
    let deadline = Instant::now() + PATIENCE;
    let (mut shown, mut omitted) = (0, 0);
    loop {
        let out = env.call(
            "write_stdin",
            json!({"session_id": id, "yield_time_ms": 20000}),
        );
        assert!(out.ok, "{}", out.text);
        let body = body(&out);
        assert!(body.len() < 33_000, "{} bytes returned", body.len());
        match body.split_once("[truncated: ") {
            Some((head, rest)) => {
                let (counts, tail) = rest.split_once("]\n").unwrap();
                omitted += number_after(counts, "/ ") as usize;
                shown += head.len() + tail.len();
            }
            None => shown += body.len(),
        }
        if out
            .text
            .starts_with(&format!("session {id} exited with code 0\n"))
        {
            break;
        }
        assert!(Instant::now() < deadline, "seq did not finish");
    }
    assert!(omitted > SEQ_200000_BYTES / 2, "omitted {omitted}");
    assert_eq!(shown + omitted, SEQ_200000_BYTES);
}

#[test]
fn workdir_outside_the_workspace_is_refused_and_nothing_runs() {
    let env = auto();
    env.file("a-file.txt", "x\n");
    symlink(&env.outside, env.root.join("out-link"));
    let ran = env.outside.join("ran");
    let cmd = format!("touch {}", ran.display());
    for (workdir, needle) in [
        ("../outside".to_owned(), "outside the workspace"),
        (env.outside.display().to_string(), "outside the workspace"),
        ("out-link".to_owned(), "outside the workspace"),
        ("a-file.txt".to_owned(), "not a directory"),
        ("missing-dir".to_owned(), "does not exist"),
    ] {
        let out = env.call("exec_command", json!({"cmd": cmd, "workdir": workdir}));
        assert_tool_error(&out, needle);
    }
    assert!(!ran.exists(), "a refused command ran");
    assert!(env.ctx.ledger().entries().is_empty());
}

#[test]
fn workdir_inside_is_where_the_command_runs() {
    let env = auto();
    env.file("sub/dir/keep.txt", "");
    let out = start(&env, "pwd", 5000);
    assert_eq!(body(&out), format!("{}\r\n", env.root.display()));
    let out = env.call(
        "exec_command",
        json!({"cmd": "pwd", "workdir": "sub/dir", "yield_time_ms": 5000}),
    );
    assert_eq!(
        body(&out),
        format!("{}\r\n", env.root.join("sub/dir").display())
    );
}

#[test]
fn an_empty_command_is_refused() {
    let env = auto();
    assert_tool_error(
        &env.call("exec_command", json!({"cmd": "  "})),
        "the command is empty",
    );
}

#[test]
fn plan_mode_does_not_offer_the_pty_tools() {
    let env = Env::new(Mode::Plan);
    let offered: Vec<String> = env
        .registry
        .specs(&env.ctx)
        .into_iter()
        .map(|spec| spec.name.into_owned())
        .collect();
    assert!(
        !offered.iter().any(|name| name == "exec_command"),
        "{offered:?}"
    );
    assert!(
        !offered.iter().any(|name| name == "write_stdin"),
        "{offered:?}"
    );
    assert_tool_error(
        &env.call("exec_command", json!({"cmd": "true"})),
        "not available",
    );
    assert_tool_error(
        &env.call("write_stdin", json!({"session_id": 1, "chars": "x"})),
        "not available",
    );
}

#[test]
fn default_mode_without_a_terminal_denies_with_the_hint() {
    let env = Env::new(Mode::Default);
    let ran = env.outside.join("ran");
    let out = env.call(
        "exec_command",
        json!({"cmd": format!("touch {}", ran.display())}),
    );
    assert_tool_error(&out, "non-interactive");
    assert!(out.text.contains("the auto-approve mode"), "{}", out.text);
    assert!(!ran.exists());
    assert!(env.ctx.ledger().entries().is_empty());
}

#[test]
fn approval_shows_the_exact_command_and_the_escaped_input() {
    let env = Env::interactive(Mode::Default, Answer::Approve);
    let id = session_id(&start(&env, "cat", 0));
    write(&env, id, "a\tb\n\u{7}");
    let requests = env.events.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(requests[0].preview, Preview::Command("cat".to_owned()));
    assert_eq!(
        requests[1].preview,
        Preview::Command(r"a\tb\n\u{7}".to_owned())
    );
    // Reading alone asks nothing.
    write(&env, id, "");
    assert_eq!(env.events.requests.lock().unwrap().len(), 2);
}

#[test]
fn declined_input_is_not_sent() {
    let env = Env::interactive(Mode::Default, Answer::Approve);
    let id = session_id(&start(&env, "cat", 0));
    *env.events.answer.lock().unwrap() = Some(Answer::Deny);
    let out = env.call("write_stdin", json!({"session_id": id, "chars": "\u{4}"}));
    assert_tool_error(&out, "declined");
    // cat never saw the EOF: the session still runs.
    let out = env.call(
        "write_stdin",
        json!({"session_id": id, "yield_time_ms": 300}),
    );
    assert!(
        out.text.starts_with(&format!("session {id} running")),
        "{}",
        out.text
    );
}

#[test]
fn credential_variables_do_not_reach_the_session() {
    let vars: Vec<(OsString, OsString)> = [
        ("PATH", PATH),
        ("OY_PTY_API_KEY", "planted-secret-7731"),
        ("OY_PTY_VISIBLE", "visible-4412"),
    ]
    .into_iter()
    .map(|(name, value)| (name.into(), value.into()))
    .collect();
    let env = auto().map_ctx(|ctx| ctx.with_child_env(ChildEnv::filtered(vars, &[])));
    let out = start(&env, "env", 5000);
    assert!(
        out.text.contains("OY_PTY_VISIBLE=visible-4412"),
        "{}",
        out.text
    );
    assert!(!out.text.contains("planted-secret-7731"), "{}", out.text);
    assert!(!out.text.contains("OY_PTY_API_KEY"), "{}", out.text);
}

#[test]
fn a_cancelled_turn_stops_waiting_but_keeps_the_session() {
    let cancel = CancelToken::new();
    let env = auto().map_ctx(|ctx| ctx.with_cancel(cancel.clone()));
    let out = start(&env, "sleep 30", 50);
    assert!(out.text.starts_with("session 1 running"), "{}", out.text);
    cancel.cancel();
    // Reading output (no input) is not a side effect: it still works, and
    // the cancelled turn cuts its wait short.
    let started = Instant::now();
    let out = env.call(
        "write_stdin",
        json!({"session_id": 1, "chars": "", "yield_time_ms": 20000}),
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(out.text.starts_with("session 1 running"), "{}", out.text);
    // Starting anything new is refused once the turn is cancelled.
    let out = env.call("exec_command", json!({"cmd": "true"}));
    assert!(
        !out.ok && out.text.contains("the turn was cancelled"),
        "{}",
        out.text
    );
}

#[test]
fn what_a_command_leaves_in_its_group_dies_when_it_exits() {
    let env = auto();
    let out = start(&env, "sleep 300 & echo child=$!", 10000);
    assert!(
        out.text.starts_with("session 1 exited with code 0\n"),
        "{}",
        out.text
    );
    let child = number_after(&out.text, "child=");
    assert!(
        wait_gone(child, PATIENCE),
        "background sleep {child} survived"
    );
}

#[test]
fn dropping_the_context_kills_every_session_process_group() {
    let env = auto();
    let mut pids = Vec::new();
    for cmd in [
        "echo pid=$$; sleep 300 & echo child=$!; echo ready; wait",
        "trap '' HUP INT TERM; echo pid=$$; sleep 300 & echo child=$!; echo ready; wait",
        "echo pid=$$ child=$$ ready; exec cat",
    ] {
        let (_, seen) = start_until(&env, cmd, "ready");
        pids.push(number_after(&seen, "pid="));
        pids.push(number_after(&seen, "child="));
    }
    drop(env);
    for pid in pids {
        assert!(wait_gone(pid, PATIENCE), "process {pid} survived the drop");
    }
}
