//! `!command` in chat: the person's own command, run as if typed in their
//! terminal — `$SHELL -c` (else `/bin/sh`) in the workspace root, with
//! their whole environment, outside the sandbox and without an approval
//! (it is theirs, not the model's). Its output shows as it comes (through
//! the terminal-safe rule) and is captured head and tail; Ctrl-C stops it
//! (its process group) and the chat goes on. The command, how it ended and
//! what it printed go to the model with the next message as a context
//! note, which the library redacts of secrets and bounds
//! (`oy_agent::ContextNote::shell`).
//!
//! Its input is empty (`/dev/null`): it runs in its own process group, so
//! Ctrl-C reaches oy and not it, and a program waiting for a terminal
//! would wait forever. Whatever of the group still holds its output open
//! once the shell exits (`!server &`) is ended with it.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use oy_agent::{Agent, ContextNote, ShellStatus};
use oy_tools::CancelToken;
use rustix::process::{Pid, Signal, kill_process_group};

use super::say_styled;
use crate::render::Style;

/// Bytes of output kept from the start and from the end.
const HEAD_BYTES: usize = 32 * 1024;
const TAIL_BYTES: usize = 32 * 1024;
/// A line longer than this is shown and kept in pieces.
const MAX_LINE: usize = 16 * 1024;
/// How often the command is checked for its end or a Ctrl-C.
const POLL: Duration = Duration::from_millis(20);
/// After SIGTERM, how long the group has before SIGKILL.
const TERM_GRACE: Duration = Duration::from_millis(500);
/// After the shell exits, how long its output may take to close.
const DRAIN: Duration = Duration::from_millis(300);

/// Runs `command` for the person and queues its note on `agent`.
pub(super) async fn run(agent: &mut Agent, command: &str, style: Style) {
    let shell = std::env::var_os("SHELL")
        .filter(|shell| !shell.is_empty())
        .unwrap_or_else(|| OsString::from("/bin/sh"));
    let root = agent.tool_context().workspace().root().to_path_buf();
    let cancel = agent.tool_context().cancel_token().clone();
    let owned = command.to_owned();
    let shell_shown = shell.to_string_lossy().into_owned();
    let ran =
        tokio::task::spawn_blocking(move || execute(&shell, &owned, &root, &cancel, true)).await;
    let ran = match ran {
        Ok(Ok(ran)) => ran,
        Ok(Err(error)) => {
            say_styled(
                |text| style.red(text),
                &format!("oy: cannot run {shell_shown}: {error}"),
            );
            return;
        }
        Err(error) => {
            say_styled(
                |text| style.red(text),
                &format!("oy: the command failed: {error}"),
            );
            return;
        }
    };
    let note = ContextNote::shell(command, ran.status, &ran.output);
    let ended = match ran.status {
        ShellStatus::Exited(code) => format!("exit {code}"),
        ShellStatus::Signalled(signal) => format!("ended by signal {signal}"),
        _ => "stopped".to_owned(),
    };
    let redacted = match note.redacted() {
        0 => String::new(),
        1 => " (1 secret-shaped value redacted)".to_owned(),
        n => format!(" ({n} secret-shaped values redacted)"),
    };
    say_styled(
        |text| style.dim(text),
        &format!("{ended} · the command and its output go with your next message{redacted}"),
    );
    agent.add_context_note(note);
}

/// What the command did.
struct Ran {
    status: ShellStatus,
    output: String,
}

/// Runs `command` to its end or a cancellation; `show` echoes its output.
fn execute(
    shell: &OsString,
    command: &str,
    root: &Path,
    cancel: &CancelToken,
    show: bool,
) -> std::io::Result<Ran> {
    let mut child = Command::new(shell)
        .arg("-c")
        .arg(command)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    let group = i32::try_from(child.id()).ok().and_then(Pid::from_raw);
    let capture = Arc::new(Mutex::new(Capture::default()));
    let (done, pumps_done) = mpsc::channel();
    let (out, err) = if show {
        (Shown::Out, Shown::Err)
    } else {
        (Shown::Nowhere, Shown::Nowhere)
    };
    if let Some(stdout) = child.stdout.take() {
        pump(stdout, out, &capture, done.clone());
    }
    if let Some(stderr) = child.stderr.take() {
        pump(stderr, err, &capture, done);
    }
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break match (status.code(), status.signal()) {
                (Some(code), _) => ShellStatus::Exited(code),
                (None, Some(signal)) => ShellStatus::Signalled(signal),
                (None, None) => ShellStatus::Exited(-1),
            };
        }
        if cancel.is_cancelled() {
            stop(group, &mut child);
            break ShellStatus::Interrupted;
        }
        std::thread::sleep(POLL);
    };
    // Both pumps end when no one holds the pipes any more.
    let deadline = Instant::now() + DRAIN;
    let mut open = 2;
    while open > 0 {
        let left = deadline.saturating_duration_since(Instant::now());
        match pumps_done.recv_timeout(left) {
            Ok(()) => open -= 1,
            Err(_) => break,
        }
    }
    if open > 0 {
        if let Some(group) = group {
            let _ = kill_process_group(group, Signal::KILL);
        }
        // Something that left the group may still hold them: stop waiting.
        let deadline = Instant::now() + DRAIN;
        while open > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            match pumps_done.recv_timeout(left) {
                Ok(()) => open -= 1,
                Err(_) => break,
            }
        }
    }
    let output = capture
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .text();
    Ok(Ran { status, output })
}

/// SIGTERM to the group, SIGKILL after a grace period, then reaps.
fn stop(group: Option<Pid>, child: &mut std::process::Child) {
    if let Some(group) = group {
        let _ = kill_process_group(group, Signal::TERM);
        let deadline = Instant::now() + TERM_GRACE;
        while Instant::now() < deadline {
            if matches!(child.try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(POLL);
        }
        let _ = kill_process_group(group, Signal::KILL);
    } else {
        let _ = child.kill();
    }
    let _ = child.wait();
}

/// Where a stream's lines are shown.
#[derive(Clone, Copy)]
enum Shown {
    Out,
    Err,
    Nowhere,
}

/// Reads `reader` line by line on its own thread: each line is shown
/// terminal-safe on oy's matching stream and captured.
fn pump(
    reader: impl Read + Send + 'static,
    shown: Shown,
    capture: &Arc<Mutex<Capture>>,
    done: mpsc::Sender<()>,
) {
    let capture = Arc::clone(capture);
    // Without a reader the pipe fills and the command blocks; the person
    // can stop it with Ctrl-C.
    let _ = std::thread::Builder::new()
        .name("oy-shell-output".to_owned())
        .spawn(move || {
            let mut reader = BufReader::new(reader);
            let mut line = Vec::new();
            loop {
                let buf = match reader.fill_buf() {
                    Ok([]) => break,
                    Ok(buf) => buf,
                    Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                let (take, complete) = match buf.iter().position(|&byte| byte == b'\n') {
                    Some(newline) => (newline + 1, true),
                    None => (buf.len().min(MAX_LINE - line.len().min(MAX_LINE)), false),
                };
                line.extend_from_slice(&buf[..take]);
                reader.consume(take);
                if complete || line.len() >= MAX_LINE {
                    emit(&line, shown, &capture);
                    line.clear();
                }
            }
            if !line.is_empty() {
                emit(&line, shown, &capture);
            }
            let _ = done.send(());
        });
}

/// One line: what a terminal would leave of it (the text after its last
/// carriage return, escape sequences removed), shown and kept.
fn emit(raw: &[u8], shown: Shown, capture: &Mutex<Capture>) {
    let text = String::from_utf8_lossy(raw);
    let (body, newline) = match text.strip_suffix('\n') {
        Some(body) => (body.strip_suffix('\r').unwrap_or(body), "\n"),
        None => (text.as_ref(), ""),
    };
    let visible = body
        .rsplit('\r')
        .find(|part| !part.is_empty())
        .unwrap_or("");
    let line = format!("{}{newline}", oy_term::strip_ansi(visible));
    match shown {
        Shown::Out => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(line.as_bytes());
            let _ = stdout.flush();
        }
        Shown::Err => {
            let mut stderr = std::io::stderr().lock();
            let _ = stderr.write_all(line.as_bytes());
        }
        Shown::Nowhere => {}
    }
    capture
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(line);
}

/// Output kept head and tail, both streams in the order they came.
#[derive(Default)]
struct Capture {
    head: String,
    tail: VecDeque<String>,
    tail_bytes: usize,
    omitted_lines: usize,
    omitted_bytes: usize,
}

impl Capture {
    fn push(&mut self, line: String) {
        if self.head.len() + line.len() <= HEAD_BYTES && self.tail.is_empty() {
            self.head.push_str(&line);
            return;
        }
        self.tail_bytes += line.len();
        self.tail.push_back(line);
        while self.tail_bytes > TAIL_BYTES && self.tail.len() > 1 {
            if let Some(dropped) = self.tail.pop_front() {
                self.tail_bytes -= dropped.len();
                self.omitted_lines += 1;
                self.omitted_bytes += dropped.len();
            }
        }
    }

    fn text(&self) -> String {
        let mut text = self.head.clone();
        if self.omitted_bytes > 0 {
            if !text.ends_with('\n') && !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&oy_tools::limit::marker(
                self.omitted_lines,
                self.omitted_bytes,
            ));
            text.push('\n');
        }
        text.extend(self.tail.iter().map(String::as_str));
        text
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn root() -> PathBuf {
        std::env::temp_dir()
    }

    /// `command` under `/bin/sh`, its output not echoed.
    fn run_blocking(command: &str, root: &Path) -> Ran {
        execute(
            &OsString::from("/bin/sh"),
            command,
            root,
            &CancelToken::new(),
            false,
        )
        .unwrap()
    }

    #[test]
    fn a_bang_line_is_a_shell_command() {
        use super::super::{ChatInput, parse_input};
        assert_eq!(
            parse_input("  !git status --short "),
            ChatInput::Shell("git status --short".to_owned())
        );
        assert!(matches!(parse_input("!"), ChatInput::Unknown(_)));
        assert!(matches!(parse_input("! "), ChatInput::Unknown(_)));
        assert_eq!(
            parse_input("run it!"),
            ChatInput::Turn("run it!".to_owned())
        );
    }

    #[test]
    fn output_of_both_streams_is_captured_and_the_status_kept() {
        let ran = run_blocking("echo out; echo err >&2; exit 3", &root());
        assert_eq!(ran.status, ShellStatus::Exited(3));
        assert!(ran.output.contains("out\n"), "{}", ran.output);
        assert!(ran.output.contains("err\n"), "{}", ran.output);
    }

    #[test]
    fn a_terminal_would_show_the_text_after_the_last_carriage_return() {
        let ran = run_blocking(
            "printf 'step 1\\rstep 2\\r\\n\\033[31mred\\033[0m\\n'",
            &root(),
        );
        assert_eq!(ran.output, "step 2\nred\n");
    }

    #[test]
    fn a_huge_output_keeps_its_head_and_tail() {
        let ran = run_blocking("seq 1 100000", &root());
        assert!(ran.output.len() < HEAD_BYTES + TAIL_BYTES + 200);
        assert!(ran.output.starts_with("1\n2\n"));
        assert!(ran.output.ends_with("99999\n100000\n"));
        assert!(ran.output.contains("[truncated: "), "marker");
    }

    #[test]
    fn a_cancelled_command_and_its_group_are_stopped() {
        let cancel = CancelToken::new();
        let trigger = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            trigger.cancel();
        });
        let started = Instant::now();
        let ran = execute(
            &OsString::from("/bin/sh"),
            "sleep 30 & sleep 30",
            &root(),
            &cancel,
            false,
        )
        .unwrap();
        assert_eq!(ran.status, ShellStatus::Interrupted);
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
