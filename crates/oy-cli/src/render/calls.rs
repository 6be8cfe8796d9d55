//! What a tool call looks like on the screen: a short label from its
//! arguments, the line that says how it ended, and the last lines of a
//! command's output. Pure functions of the event values, so the snapshot
//! tests can pin them.

use std::time::Duration;

use oy_agent::{CallStatus, ToolCallFinished};
use serde_json::Value;

use super::{Style, one_line};

/// Lines of a command's output kept on screen after it ends (all of them
/// with `--verbose`).
pub(crate) const TAIL_LINES: usize = 5;

/// Lines of a file change's diff shown (all of them with `--verbose`).
pub(crate) const DIFF_LINES: usize = 40;

/// The longest label.
const LABEL_CHARS: usize = 160;

/// `bash cargo test`, `read src/main.rs`, `search "fn main" in src`: the
/// tool and the argument that says what it does; the raw arguments when
/// they are not the JSON the tool expects. Terminal-safe, one line.
pub(crate) fn label(tool: &str, arguments: &str) -> String {
    let detail = serde_json::from_str::<Value>(arguments)
        .ok()
        .and_then(|args| detail(tool, &args))
        .unwrap_or_else(|| arguments.to_owned());
    let detail = one_line(&detail, LABEL_CHARS);
    let tool = one_line(tool, 40);
    if detail.is_empty() || detail == "{}" {
        tool
    } else {
        format!("{tool} {detail}")
    }
}

fn detail(tool: &str, args: &Value) -> Option<String> {
    let text = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_owned);
    match tool {
        "bash" => text("command"),
        "exec" => {
            let mut line = text("cmd")?;
            for arg in args
                .get("args")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                line.push(' ');
                line.push_str(&oy_tools::tools::quote(arg.as_str()?));
            }
            Some(line)
        }
        "exec_command" => text("cmd"),
        "write_stdin" => Some(match args.get("session_id") {
            Some(id) => format!("session {id}"),
            None => String::new(),
        }),
        "move" => Some(format!("{} → {}", text("from")?, text("to")?)),
        "search" => {
            let pattern = text("pattern")?;
            Some(match text("path") {
                Some(path) => format!("{pattern:?} in {path}"),
                None => format!("{pattern:?}"),
            })
        }
        "list" => text("pattern").or_else(|| text("path")),
        "webfetch" => text("url"),
        "ask" => text("question"),
        "patch" => Some(patched_paths(&text("patch")?).join(", ")),
        "todo" => Some(String::new()),
        _ => text("path"),
    }
}

/// The files a patch names (`+++ b/x`, `*** Update File: x`…), in order.
fn patched_paths(patch: &str) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for line in patch.lines() {
        let path = line
            .strip_prefix("+++ ")
            .map(|rest| rest.strip_prefix("b/").unwrap_or(rest))
            .or_else(|| line.strip_prefix("*** Update File: "))
            .or_else(|| line.strip_prefix("*** Add File: "))
            .or_else(|| line.strip_prefix("*** Delete File: "))
            .map(|path| path.split('\t').next().unwrap_or(path).trim());
        if let Some(path) = path
            && path != "/dev/null"
            && !paths.iter().any(|seen| seen == path)
        {
            paths.push(path.to_owned());
        }
    }
    paths
}

/// The line under a call saying how it ended: `✓ exit 0 · 1.2 s`,
/// `✗ exit 1 · 0.3 s`, `⊘ cancelled after 2.1 s`, `✓ +3 −1 · 4 ms`…
/// `None` for a refusal an approval line already said (`refusal_said`).
pub(crate) fn ending(
    finished: &ToolCallFinished,
    style: Style,
    refusal_said: bool,
) -> Option<String> {
    let took = took(finished.duration_ms);
    let line = match finished.status {
        CallStatus::Denied if refusal_said => return None,
        CallStatus::Denied => {
            let first = finished.output.lines().next().unwrap_or_default();
            style.yellow(&format!(
                "  ✗ refused: {}",
                one_line(first.trim_start_matches("TOOL_ERROR: "), 200)
            ))
        }
        CallStatus::Cancelled => style.yellow(&format!("  ⊘ cancelled after {took}")),
        CallStatus::TimedOut => style.yellow(&format!(
            "  ⏱ timed out after {took}{}",
            finished
                .exit_code
                .map_or_else(String::new, |code| format!(" (exit {code})"))
        )),
        CallStatus::Failed => {
            let first = finished.output.lines().next().unwrap_or_default();
            format!(
                "  {} {}",
                style.red("✗"),
                one_line(first.trim_start_matches("TOOL_ERROR: "), 200)
            )
        }
        _ => match finished.exit_code {
            Some(code) if code != 0 => style.red(&format!("  ✗ exit {code} · {took}")),
            Some(code) => format!(
                "  {} {}",
                style.green("✓"),
                style.dim(&format!("exit {code} · {took}"))
            ),
            None => {
                let what = match finished.diff.as_deref() {
                    Some(diff) => {
                        let (added, removed) = oy_term::diff_stat(diff);
                        format!("+{added} −{removed} · {took}")
                    }
                    None => format!("{took} · {}", size(finished.output_bytes)),
                };
                format!("  {} {}", style.green("✓"), style.dim(&what))
            }
        },
    };
    Some(line)
}

/// `12 ms`, `1.2 s`, `3 min 4 s`.
pub(crate) fn took(duration_ms: u64) -> String {
    let duration = Duration::from_millis(duration_ms);
    if duration < Duration::from_secs(1) {
        format!("{duration_ms} ms")
    } else if duration < Duration::from_secs(60) {
        format!("{:.1} s", duration.as_secs_f64())
    } else {
        format!(
            "{} min {} s",
            duration.as_secs() / 60,
            duration.as_secs() % 60
        )
    }
}

/// `85 B`, `1.3 KB`, `2.0 MB`.
fn size(bytes: usize) -> String {
    match bytes {
        0..1_000 => format!("{bytes} B"),
        1_000..1_000_000 => format!("{:.1} KB", bytes as f64 / 1e3),
        _ => format!("{:.1} MB", bytes as f64 / 1e6),
    }
}

/// A command's output as the model got it, without oy's framing
/// (`exit: N`, the `[stdout]`/`[stderr]` headers, `(no output)`), for a
/// call whose output did not stream.
pub(crate) fn output_body(output: &str) -> String {
    output
        .lines()
        .filter(|line| {
            !(line.starts_with("exit: ")
                || *line == "[stdout]"
                || *line == "[stderr]"
                || *line == "(no output)")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The last `count` non-empty-at-the-end lines of `text`, each cut to
/// `width` characters and made terminal-safe, prefixed `  │ `.
pub(crate) fn tail(text: &str, count: usize, width: usize, style: Style) -> Vec<String> {
    let lines: Vec<&str> = text.trim_end_matches(['\n', '\r']).lines().collect();
    let start = lines.len().saturating_sub(count);
    let room = width.saturating_sub(5).max(20);
    lines[start..]
        .iter()
        .map(|line| {
            // A carriage return redraws a progress line: show its last state.
            let line = line.rsplit('\r').next().unwrap_or(line);
            // A coloured `ls` or compiler shows its text, not its escapes.
            let line = oy_term::strip_ansi(line);
            style.dim(&format!("  │ {}", one_line(&line, room)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(
        status: CallStatus,
        exit_code: Option<i32>,
        diff: Option<&str>,
    ) -> ToolCallFinished {
        ToolCallFinished {
            call_id: "c1".to_owned(),
            tool: "bash".to_owned(),
            ok: !matches!(status, CallStatus::Failed | CallStatus::Denied),
            duration_ms: 2100,
            output_bytes: 85,
            truncated: false,
            output: "TOOL_ERROR: `path` is missing\nRECOVERY: pass it".to_owned(),
            status,
            exit_code,
            diff: diff.map(str::to_owned),
        }
    }

    const PLAIN: Style = Style { enabled: false };

    #[test]
    fn labels_name_what_the_call_does() {
        assert_eq!(
            label("bash", r#"{"command":"cargo test"}"#),
            "bash cargo test"
        );
        assert_eq!(
            label("exec", r#"{"cmd":"git","args":["log","-n 1"]}"#),
            "exec git log '-n 1'"
        );
        assert_eq!(
            label("read", r#"{"path":"src/main.rs"}"#),
            "read src/main.rs"
        );
        assert_eq!(
            label("search", r#"{"pattern":"fn main","path":"src"}"#),
            "search \"fn main\" in src"
        );
        assert_eq!(
            label(
                "patch",
                "{\"patch\":\"--- a/x.rs\\n+++ b/x.rs\\n@@ -1 +1 @@\\n-a\\n+b\\n\"}"
            ),
            "patch x.rs"
        );
        assert_eq!(label("todo", r#"{"items":[]}"#), "todo");
        assert_eq!(label("bash", "{not json"), "bash {not json");
        assert_eq!(
            label("bash", r#"{"command":"echo \u001b[2J\nrm"}"#),
            "bash echo \u{fffd}[2J rm"
        );
    }

    #[test]
    fn every_ending_says_what_happened() {
        let line = |status, code, diff| ending(&finished(status, code, diff), PLAIN, true);
        assert_eq!(
            line(CallStatus::Ok, Some(0), None).unwrap(),
            "  ✓ exit 0 · 2.1 s"
        );
        assert_eq!(
            line(CallStatus::Ok, Some(2), None).unwrap(),
            "  ✗ exit 2 · 2.1 s"
        );
        assert_eq!(
            line(CallStatus::Cancelled, Some(130), None).unwrap(),
            "  ⊘ cancelled after 2.1 s"
        );
        assert_eq!(
            line(CallStatus::TimedOut, Some(124), None).unwrap(),
            "  ⏱ timed out after 2.1 s (exit 124)"
        );
        assert_eq!(
            line(CallStatus::Failed, None, None).unwrap(),
            "  ✗ `path` is missing"
        );
        assert_eq!(line(CallStatus::Denied, None, None), None);
        assert_eq!(
            ending(&finished(CallStatus::Denied, None, None), PLAIN, false).unwrap(),
            "  ✗ refused: `path` is missing"
        );
        assert_eq!(
            line(
                CallStatus::Ok,
                None,
                Some("--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n-a\n+b\n+c\n")
            )
            .unwrap(),
            "  ✓ +2 −1 · 2.1 s"
        );
        assert_eq!(
            line(CallStatus::Ok, None, None).unwrap(),
            "  ✓ 2.1 s · 85 B"
        );
    }

    #[test]
    fn a_tail_keeps_the_last_lines_cut_and_safe() {
        let text = "one\ntwo\nthree\nfour\nfive\nsix\n\x1b]0;title\x07seven\n";
        assert_eq!(
            tail(text, 3, 80, PLAIN),
            ["  │ five", "  │ six", "  │ seven"]
        );
        assert_eq!(tail("50%\r100%\n", 5, 80, PLAIN), ["  │ 100%"]);
        assert_eq!(tail("\x1b[01;34msrc\x1b[0m\n", 5, 80, PLAIN), ["  │ src"]);
        let long = "x".repeat(100);
        assert_eq!(
            tail(&long, 1, 30, PLAIN)[0],
            format!("  │ {}…", "x".repeat(25))
        );
    }

    #[test]
    fn framing_is_dropped_from_a_commands_output() {
        assert_eq!(
            output_body("exit: 0\n[stdout]\nhello\n[stderr]\nwarn\n"),
            "hello\nwarn"
        );
        assert_eq!(output_body("exit: 0\n(no output)\n"), "");
    }
}
