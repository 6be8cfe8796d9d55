//! What a frontend hears about a call (docs/events.md): live `tool_output`
//! deltas of a running command — in order, coalesced, bounded, flushed
//! before `tool_call_finished`, none for a silent command — and how each
//! call ended (`status`, `exit_code`), with the diff of every applied file
//! change — and nothing of a read run for the person (an `@path` mention).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oy_tools::{
    Answer, CallStatus, CancelToken, EventSink, Mode, OutputStream, ToolCallFinished, ToolEvent,
    ToolOutputDelta,
};
use serde_json::json;

use crate::support::Env;

fn auto() -> Env {
    Env::new(Mode::AutoApprove)
}

/// The events of the last call, in order.
fn last_call(env: &Env) -> Vec<ToolEvent> {
    let events = env.events.events.lock().unwrap();
    let start = events
        .iter()
        .rposition(|event| matches!(event, ToolEvent::ToolCallStarted(_)))
        .expect("a call started");
    events[start..].to_vec()
}

fn finished(events: &[ToolEvent]) -> ToolCallFinished {
    match events.last() {
        Some(ToolEvent::ToolCallFinished(finished)) => finished.clone(),
        other => panic!("the call's last event is not tool_call_finished: {other:?}"),
    }
}

fn deltas(events: &[ToolEvent], stream: OutputStream) -> Vec<ToolOutputDelta> {
    events
        .iter()
        .filter_map(|event| match event {
            ToolEvent::ToolOutput(delta) if delta.stream == stream => Some(delta.clone()),
            _ => None,
        })
        .collect()
}

/// Checks that `deltas` are `expected` in order, each text where its
/// skipped bytes put it, and that together they account for every byte.
fn assert_accounts_for(deltas: &[ToolOutputDelta], expected: &str) {
    let mut at = 0_usize;
    for delta in deltas {
        at += usize::try_from(delta.skipped_bytes).unwrap();
        assert_eq!(
            &expected[at..at + delta.text.len()],
            delta.text,
            "a delta is not the output at byte {at}"
        );
        at += delta.text.len();
    }
    assert_eq!(at, expected.len(), "the deltas do not cover the output");
}

/// Records when each event came.
#[derive(Default)]
struct Timed(Mutex<Vec<(Instant, ToolEvent)>>);

impl EventSink for Timed {
    fn emit(&self, event: &ToolEvent) {
        self.0.lock().unwrap().push((Instant::now(), event.clone()));
    }
}

#[test]
fn a_burst_of_output_comes_in_few_deltas_that_account_for_every_byte() {
    let env = auto();
    let out = env.call(
        "bash",
        json!({"command": "for i in $(seq 1 1000); do echo \"line $i\"; done"}),
    );
    assert!(out.ok, "{}", out.text);
    let events = last_call(&env);
    let stdout = deltas(&events, OutputStream::Stdout);
    let expected: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
    assert!(!stdout.is_empty());
    assert!(stdout.len() <= 20, "{} deltas for 1000 lines", stdout.len());
    for delta in &stdout {
        assert!(
            delta.text.len() <= 4096,
            "{} bytes in one delta",
            delta.text.len()
        );
        assert_eq!(
            (delta.call_id.as_str(), delta.tool.as_str()),
            ("call-1", "bash")
        );
    }
    assert_accounts_for(&stdout, &expected);
    // The last delta holds the newest output, and the model's view is
    // unchanged by any of this.
    assert!(stdout.last().unwrap().text.ends_with("line 1000\n"));
    assert!(
        out.text.starts_with("exit: 0\n[stdout]\nline 1\n"),
        "{}",
        out.text
    );
    assert!(deltas(&events, OutputStream::Stderr).is_empty());
}

#[test]
fn output_arrives_while_the_command_runs_paced_per_stream() {
    let timed = Arc::new(Timed::default());
    let env = auto().map_ctx(|ctx| ctx.with_events(timed.clone()));
    let started = Instant::now();
    let out = env.call(
        "bash",
        json!({"command": "for i in $(seq 1 8); do echo $i; echo e$i >&2; sleep 0.15; done; echo end"}),
    );
    let elapsed = started.elapsed();
    assert!(out.ok, "{}", out.text);
    let events = timed.0.lock().unwrap().clone();
    let (finished_at, _) = events
        .iter()
        .find(|(_, event)| matches!(event, ToolEvent::ToolCallFinished(_)))
        .unwrap();
    let only: Vec<ToolEvent> = events.iter().map(|(_, event)| event.clone()).collect();
    for (stream, expected) in [
        (
            OutputStream::Stdout,
            (1..=8).map(|i| format!("{i}\n")).collect::<String>() + "end\n",
        ),
        (
            OutputStream::Stderr,
            (1..=8).map(|i| format!("e{i}\n")).collect::<String>(),
        ),
    ] {
        let stream_deltas = deltas(&only, stream);
        assert_accounts_for(&stream_deltas, &expected);
        assert!(stream_deltas.iter().all(|delta| delta.skipped_bytes == 0));
        let times: Vec<Instant> = events
            .iter()
            .filter(|(_, event)| matches!(event, ToolEvent::ToolOutput(d) if d.stream == stream))
            .map(|(at, _)| *at)
            .collect();
        // Live: most of it came well before the call ended, not all at once.
        assert!(times.len() >= 3, "{stream:?}: {} deltas", times.len());
        assert!(
            *finished_at - times[0] > Duration::from_millis(500),
            "the first {stream:?} delta came only at the end"
        );
        // Paced: never two of one stream within the period (slack for a
        // busy machine's scheduling), the final flush excepted.
        for pair in times[..times.len() - 1].windows(2) {
            assert!(
                pair[1] - pair[0] >= Duration::from_millis(50),
                "{stream:?} deltas {:?} apart",
                pair[1] - pair[0]
            );
        }
        let most = elapsed.as_millis() / 100 + 2;
        assert!(times.len() as u128 <= most, "{} > {most}", times.len());
    }
}

#[test]
fn the_last_output_is_flushed_before_the_call_finishes() {
    let env = auto();
    env.call(
        "bash",
        json!({"command": "echo start; sleep 0.3; printf tail-without-newline"}),
    );
    let events = last_call(&env);
    let stdout = deltas(&events, OutputStream::Stdout);
    assert_accounts_for(&stdout, "start\ntail-without-newline");
    let last_delta = events
        .iter()
        .rposition(|event| matches!(event, ToolEvent::ToolOutput(_)))
        .unwrap();
    assert_eq!(last_delta, events.len() - 2, "{events:?}");
    assert_eq!(finished(&events).exit_code, Some(0));
}

#[test]
fn a_silent_command_sends_no_output_events() {
    let env = auto();
    env.call("bash", json!({"command": "sleep 0.3"}));
    let events = last_call(&env);
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(finished(&events).status, CallStatus::Ok);
}

#[test]
fn exec_and_user_tools_stream_too() {
    let env = auto();
    env.call(
        "exec",
        json!({"cmd": "sh", "args": ["-c", "echo out; echo err >&2; exit 4"]}),
    );
    let events = last_call(&env);
    assert_accounts_for(&deltas(&events, OutputStream::Stdout), "out\n");
    assert_accounts_for(&deltas(&events, OutputStream::Stderr), "err\n");
    let done = finished(&events);
    assert_eq!((done.status, done.exit_code), (CallStatus::Ok, Some(4)));
}

#[test]
fn a_pty_session_streams_what_it_prints() {
    let env = auto();
    let out = env.call(
        "exec_command",
        json!({"cmd": "echo one; sleep 0.3; echo two", "yield_time_ms": 5000}),
    );
    assert!(out.text.contains("exited with code 0"), "{}", out.text);
    let events = last_call(&env);
    let stdout = deltas(&events, OutputStream::Stdout);
    let text: String = stdout.iter().map(|delta| delta.text.as_str()).collect();
    assert_eq!(text, "one\r\ntwo\r\n");
    assert!(stdout.len() >= 2, "{stdout:?}");
    assert_eq!(finished(&events).exit_code, Some(0));
}

#[test]
fn how_a_command_ended_is_its_status_and_exit_code() {
    let env = auto();
    for (command, code) in [("exit 3", 3), ("true", 0), ("kill -TERM $$", 143)] {
        env.call("bash", json!({"command": command}));
        let done = finished(&last_call(&env));
        assert_eq!(
            (done.ok, done.status, done.exit_code),
            (true, CallStatus::Ok, Some(code)),
            "{command}"
        );
    }
    env.call("bash", json!({"command": "sleep 20", "timeout_ms": 300}));
    let done = finished(&last_call(&env));
    assert_eq!(
        (done.ok, done.status, done.exit_code),
        (true, CallStatus::TimedOut, Some(124))
    );
    env.call("bash", json!({"command": ""}));
    let done = finished(&last_call(&env));
    assert_eq!(
        (done.ok, done.status, done.exit_code),
        (false, CallStatus::Failed, None)
    );
    env.call("read", json!({"path": "missing.txt"}));
    assert_eq!(finished(&last_call(&env)).status, CallStatus::Failed);
}

#[test]
fn a_command_killed_by_a_cancellation_is_cancelled() {
    let token = CancelToken::new();
    let env = auto().map_ctx(|ctx| ctx.with_cancel(token.clone()));
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        token.cancel();
    });
    env.call("bash", json!({"command": "echo started; sleep 20"}));
    canceller.join().unwrap();
    let events = last_call(&env);
    let done = finished(&events);
    assert_eq!(
        (done.status, done.exit_code),
        (CallStatus::Cancelled, Some(130))
    );
    assert_accounts_for(&deltas(&events, OutputStream::Stdout), "started\n");
    // Once cancelled, the gate refuses: also `cancelled`, not `denied`.
    env.call("write", json!({"path": "a.txt", "content": "x"}));
    let done = finished(&last_call(&env));
    assert_eq!((done.ok, done.status), (false, CallStatus::Cancelled));
}

#[test]
fn a_refusal_is_denied() {
    let env = Env::interactive(Mode::Default, Answer::Deny);
    env.call("bash", json!({"command": "true"}));
    let done = finished(&last_call(&env));
    assert_eq!((done.status, done.exit_code), (CallStatus::Denied, None));
    // No one to ask is a refusal too; so is a tool the mode does not offer.
    let env = Env::new(Mode::Default);
    env.call("write", json!({"path": "a.txt", "content": "x"}));
    assert_eq!(finished(&last_call(&env)).status, CallStatus::Denied);
    assert_eq!(finished(&last_call(&env)).diff, None);
    let env = Env::new(Mode::Plan);
    env.call("bash", json!({"command": "true"}));
    assert_eq!(finished(&last_call(&env)).status, CallStatus::Denied);
}

#[test]
fn a_user_tool_that_fails_or_times_out_says_so() {
    let mut env = Env::new(Mode::AutoApprove);
    let manifest = json!({"tools": [
        {"name": "fails", "description": "d", "parameters": {"type": "object"},
         "command": ["sh", "-c", "echo why >&2; exit 5"]},
        {"name": "slow", "description": "d", "parameters": {"type": "object"},
         "command": ["sleep", "20"], "timeoutSec": 1},
    ]})
    .to_string();
    for def in oy_tools::parse_manifest("test", &manifest, &env.registry.names()).unwrap() {
        env.registry.push(Box::new(oy_tools::UserTool::new(def)));
    }
    env.call("fails", json!({}));
    let events = last_call(&env);
    let done = finished(&events);
    assert_eq!(
        (done.ok, done.status, done.exit_code),
        (false, CallStatus::Failed, Some(5))
    );
    assert_accounts_for(&deltas(&events, OutputStream::Stderr), "why\n");
    env.call("slow", json!({}));
    let done = finished(&last_call(&env));
    assert_eq!(
        (done.ok, done.status, done.exit_code),
        (false, CallStatus::TimedOut, Some(124))
    );
}

#[test]
fn every_applied_change_carries_its_diff() {
    let env = Env::new(Mode::AcceptEdits);
    env.call("write", json!({"path": "a.txt", "content": "one\ntwo\n"}));
    let diff = finished(&last_call(&env)).diff.unwrap();
    assert_eq!(
        diff,
        "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"
    );
    // Nobody was asked: the diff was made for the event all the same.
    assert!(env.events.requests.lock().unwrap().is_empty());

    env.call("read", json!({"path": "a.txt"}));
    assert_eq!(finished(&last_call(&env)).diff, None);

    env.call(
        "replace",
        json!({"path": "a.txt", "old": "two", "new": "TWO"}),
    );
    let diff = finished(&last_call(&env)).diff.unwrap();
    assert!(diff.contains("-two\n+TWO\n"), "{diff}");

    env.call(
        "patch",
        json!({"patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch\n"}),
    );
    let diff = finished(&last_call(&env)).diff.unwrap();
    assert!(diff.starts_with("--- a/a.txt\n+++ b/a.txt\n"), "{diff}");
    assert!(diff.contains("-one\n+ONE\n"), "{diff}");

    env.call("move", json!({"from": "a.txt", "to": "b.txt"}));
    let diff = finished(&last_call(&env)).diff.unwrap();
    assert_eq!(diff, "rename from a.txt\nrename to b.txt\n");

    env.call("remove", json!({"path": "b.txt"}));
    let diff = finished(&last_call(&env)).diff.unwrap();
    assert_eq!(
        diff,
        "--- a/b.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-ONE\n-TWO\n"
    );

    env.file("d/x.txt", "x\n");
    env.call("remove", json!({"path": "d", "recursive": true}));
    let diff = finished(&last_call(&env)).diff.unwrap();
    assert_eq!(
        diff,
        "--- a/d\n+++ /dev/null\n(directory removed with its contents)\n"
    );

    env.call(
        "todo",
        json!({"items": [{"text": "ship it", "status": "pending"}], "persist": true}),
    );
    let diff = finished(&last_call(&env)).diff.unwrap();
    assert!(diff.contains("+++ b/TODO.md\n"), "{diff}");
    assert!(diff.contains("ship it"), "{diff}");
}

#[test]
fn an_approved_change_shows_the_diff_the_person_saw() {
    let env = Env::interactive(Mode::Default, Answer::Approve);
    env.file("a.txt", "old\n");
    env.call("read", json!({"path": "a.txt"}));
    env.call(
        "replace",
        json!({"path": "a.txt", "old": "old", "new": "new"}),
    );
    let diff = finished(&last_call(&env)).diff.unwrap();
    let requests = env.events.requests.lock().unwrap();
    assert_eq!(requests[0].preview, oy_tools::Preview::Diff(diff));
}

#[test]
fn a_huge_diff_is_capped_in_the_event() {
    let env = auto();
    let content: String = (0..50_000).map(|i| format!("line {i}\n")).collect();
    let started = Instant::now();
    let out = env.call("write", json!({"path": "big.txt", "content": content}));
    assert!(out.ok, "{}", out.text);
    assert!(started.elapsed() < Duration::from_secs(5));
    let diff = finished(&last_call(&env)).diff.unwrap();
    assert!(diff.len() <= 64 * 1024, "{} bytes", diff.len());
    let (kept, marker) = diff.trim_end().rsplit_once('\n').unwrap();
    let more: usize = marker
        .strip_prefix("… ")
        .and_then(|rest| rest.strip_suffix(" more diff lines"))
        .unwrap_or_else(|| panic!("no marker: {marker:?}"))
        .parse()
        .unwrap();
    // Three header lines and 50 000 added lines in all.
    assert_eq!(kept.lines().count() + more, 50_003);
    assert!(kept.ends_with(&format!("+line {}", kept.lines().count() - 4)));
}

#[test]
fn a_read_for_the_person_is_reported_by_no_event_and_counts_as_read() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("a.txt", "old\n");
    let out = env
        .registry
        .run_read_only(&env.ctx, "mention-1", "read", &json!({"path": "a.txt"}))
        .unwrap();
    assert_eq!(out.text, "1\told\n");
    assert!(env.events.events.lock().unwrap().is_empty());
    // `replace` takes it as read: no "read it first" refusal.
    let replaced = env.call(
        "replace",
        json!({"path": "a.txt", "old": "old", "new": "new"}),
    );
    assert!(replaced.ok, "{}", replaced.text);
    assert_eq!(env.read("a.txt"), "new\n");
}

#[test]
fn only_reading_tools_run_for_the_person() {
    let env = auto();
    let refused = env.registry.run_read_only(
        &env.ctx,
        "mention-1",
        "write",
        &json!({"path": "a.txt", "content": "x"}),
    );
    assert!(
        matches!(refused, Err(oy_tools::ToolError::NotOffered { .. })),
        "{refused:?}"
    );
    assert!(!env.exists("a.txt"));
    let missing =
        env.registry
            .run_read_only(&env.ctx, "mention-2", "read", &json!({"path": "nope.txt"}));
    assert!(missing.is_err());
}
