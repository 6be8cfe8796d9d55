//! `oy chat` in a real pseudo-terminal against the scripted mock model:
//! slash commands, a streamed turn, Ctrl-C cancelling a running turn while
//! chat goes on, the approval prompt, the private history file, Ctrl-D.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};
use serde_json::json;

use crate::mock_model::{self, MockModel, Wire, call, text, tool_outputs};
use crate::support::Oy;

/// Generous: two busy cores build and run many tests at once.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The reply to a terminal's cursor-position query (`ESC [ 6 n`), which
/// rustyline sends before each prompt and would otherwise wait 100 ms for,
/// swallowing typed input.
const CURSOR_REPORT: &[u8] = b"\x1b[1;1R";

/// A running `oy chat` on a pseudo-terminal.
pub(crate) struct Chat {
    child: Box<dyn Child + Send + Sync>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    output: Arc<Mutex<Vec<u8>>>,
    /// How far [`Chat::expect`] has matched, in the cleaned text.
    cursor: usize,
    _master: Box<dyn MasterPty + Send>,
}

impl Chat {
    pub(crate) fn start(oy: &Oy, mock: &MockModel, args: &[&str]) -> Self {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 50,
                cols: 200,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_oy"));
        cmd.cwd(&oy.root);
        for (name, _) in std::env::vars_os() {
            let name = name.to_string_lossy().into_owned();
            if name.starts_with("AWS_")
                || name.starts_with("OPENAI_")
                || name.starts_with("OY_")
                || name.to_ascii_lowercase().ends_with("_proxy")
            {
                cmd.env_remove(&name);
            }
        }
        let home = oy.root.parent().unwrap().join("home");
        std::fs::create_dir_all(&home).unwrap();
        cmd.env("HOME", &home);
        cmd.env("XDG_DATA_HOME", &oy.data);
        cmd.env("XDG_CONFIG_HOME", oy.data.with_file_name("config"));
        cmd.env("NO_COLOR", "1");
        cmd.env("TERM", "xterm");
        cmd.env("OPENAI_BASE_URL", &mock.base_url);
        cmd.args([
            "chat",
            "--model",
            "mock-model",
            "--wire-api",
            mock.wire.flag(),
        ]);
        cmd.args(args);
        let child = pair.slave.spawn_command(cmd).unwrap();
        drop(pair.slave);

        let writer = Arc::new(Mutex::new(pair.master.take_writer().unwrap()));
        let output = Arc::new(Mutex::new(Vec::new()));
        let mut reader = pair.master.try_clone_reader().unwrap();
        let (sink, answer) = (Arc::clone(&output), Arc::clone(&writer));
        std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            loop {
                match reader.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(read) => {
                        let mut all = sink.lock().unwrap();
                        let before = all.len();
                        all.extend_from_slice(&chunk[..read]);
                        // Queries split across reads are caught by looking
                        // back a few bytes.
                        let from = before.saturating_sub(3);
                        let queries = all[from..].windows(4).filter(|w| w == b"\x1b[6n").count();
                        drop(all);
                        for _ in 0..queries {
                            let mut writer = answer.lock().unwrap();
                            let _ = writer.write_all(CURSOR_REPORT);
                            let _ = writer.flush();
                        }
                    }
                }
            }
        });
        Self {
            child,
            writer,
            output,
            cursor: 0,
            _master: pair.master,
        }
    }

    /// Everything shown so far, without terminal escape sequences.
    pub(crate) fn screen(&self) -> String {
        let bytes = self.output.lock().unwrap().clone();
        clean(&String::from_utf8_lossy(&bytes))
    }

    /// Waits until `needle` appears after what was matched before, and
    /// moves past it.
    pub(crate) fn expect(&mut self, needle: &str) {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let screen = self.screen();
            if let Some(found) = screen.get(self.cursor..).and_then(|rest| rest.find(needle)) {
                self.cursor += found + needle.len();
                return;
            }
            if Instant::now() > deadline {
                panic!(
                    "timed out waiting for {needle:?}; after the cursor:\n{}\n--- whole screen ---\n{screen}",
                    screen.get(self.cursor..).unwrap_or_default()
                );
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                // Let the reader drain what is left, then look once more.
                std::thread::sleep(Duration::from_millis(200));
                let screen = self.screen();
                if screen
                    .get(self.cursor..)
                    .is_some_and(|rest| rest.contains(needle))
                {
                    continue;
                }
                panic!("oy exited ({status:?}) before {needle:?} appeared:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the input prompt.
    pub(crate) fn prompt(&mut self) {
        self.expect("› ");
    }

    pub(crate) fn send(&mut self, bytes: &str) {
        let mut writer = self.writer.lock().unwrap();
        writer.write_all(bytes.as_bytes()).unwrap();
        writer.flush().unwrap();
    }

    /// Answers a question oy just asked: after a pause, since keys that
    /// arrive while the question is still settling count as typed ahead
    /// and are discarded.
    pub(crate) fn answer(&mut self, bytes: &str) {
        std::thread::sleep(Duration::from_millis(400));
        self.send(bytes);
    }

    /// Types a line at the prompt and presses Enter.
    pub(crate) fn line(&mut self, text: &str) {
        self.prompt();
        self.send(text);
        self.send("\r");
    }

    /// Waits for oy to exit and returns its exit code.
    pub(crate) fn wait(&mut self) -> u32 {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.exit_code();
            }
            assert!(
                Instant::now() < deadline,
                "oy chat did not exit:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Chat {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `text` without CSI/OSC escape sequences and carriage returns.
fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => match chars.peek() {
                Some('[') => {
                    chars.next();
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    chars.next();
                    while let Some(c) = chars.next() {
                        if c == '\x07' || (c == '\x1b' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {
                    chars.next();
                }
            },
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

fn history_file(oy: &Oy) -> std::path::PathBuf {
    oy.data.join("oy/history")
}

fn mode_of(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn slash_commands_a_streamed_turn_history_and_ctrl_d() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("Hello from the mock model.")]);
    let mut chat = Chat::start(&oy, &mock, &[]);
    chat.expect("/help for commands");

    chat.line("/help");
    chat.expect("/mode [MODE]");
    chat.expect("/todo");
    chat.expect("/tokens");
    chat.expect("Ctrl-C cancels a running turn");

    chat.line("/mode plan");
    chat.expect("mode plan · network");
    chat.line("/mode");
    chat.expect("mode plan · network deny");

    chat.line("/todo");
    chat.expect("no plan yet");

    chat.line("say hello");
    chat.expect("Hello from the mock model.");
    chat.expect("1 request");
    assert_eq!(mock.requests().len(), 1);
    let offered = mock_model::tool_names(&mock.requests()[0]);
    assert!(
        !offered.contains(&"write".to_owned()),
        "plan mode: {offered:?}"
    );
    assert!(
        !offered.contains(&"bash".to_owned()),
        "plan mode: {offered:?}"
    );

    chat.line("/tokens");
    chat.expect("spent 120 in / 30 out");

    chat.prompt();
    chat.send("\x04");
    chat.expect("saved");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());

    let history = history_file(&oy);
    assert_eq!(mode_of(&history), 0o600);
    let saved = std::fs::read_to_string(&history).unwrap();
    assert!(saved.contains("say hello"), "{saved}");
    assert!(saved.contains("/mode plan"), "{saved}");
}

#[test]
fn todo_shows_the_plan_the_model_keeps() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Responses,
        vec![
            call(
                "todo",
                json!({"items": [
                    {"text": "write the tests", "status": "in_progress"},
                    {"text": "ship it", "status": "pending"},
                    {"text": "read the code", "status": "done"},
                ]}),
            ),
            text("Planned."),
        ],
    );
    let mut chat = Chat::start(&oy, &mock, &[]);
    chat.line("make a plan");
    chat.expect("Planned.");
    chat.line("/todo");
    chat.expect("[~] write the tests");
    chat.expect("[ ] ship it");
    chat.expect("[x] read the code");
    chat.line("/quit");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn ctrl_c_cancels_a_running_turn_and_chat_goes_on() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            call(
                "bash",
                json!({"command": "echo $$ > sleeper.pid; exec sleep 30"}),
            ),
            text("Still here after the interruption."),
        ],
    );
    let mut chat = Chat::start(&oy, &mock, &["--mode", "auto"]);
    chat.line("run something slow");
    chat.expect("→ bash");
    let pid_file = oy.root.join("sleeper.pid");
    let deadline = Instant::now() + TIMEOUT;
    while !std::fs::read_to_string(&pid_file).is_ok_and(|pid| pid.ends_with('\n')) {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_owned();
    let started = Instant::now();
    chat.send("\x03");
    chat.expect("interrupted");
    chat.prompt();
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(20),
        "cancelling took {took:?}:\n{}",
        chat.screen()
    );
    // The command's process is gone (killed, and reaped), not orphaned.
    let proc = Path::new("/proc").join(&pid);
    while proc.exists() {
        assert!(
            Instant::now() < deadline,
            "`sleep 30` (pid {pid}) outlived the cancelled turn"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    chat.send("carry on\r");
    chat.expect("Still here after the interruption.");
    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    // The cancelled call still has a result, so the transcript stays valid.
    assert_eq!(tool_outputs(&requests[1]).len(), 1, "{}", requests[1]);

    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn ctrl_c_at_the_prompt_clears_the_line_and_does_not_quit() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("Answered the second line.")]);
    let mut chat = Chat::start(&oy, &mock, &[]);
    chat.prompt();
    chat.send("this line is abandoned");
    chat.send("\x03");
    chat.line("second line");
    chat.expect("Answered the second line.");
    let users = mock_model::user_texts(&mock.requests()[0]);
    assert_eq!(users, ["second line"]);
    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn a_denied_approval_shows_the_diff_and_writes_nothing() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            call(
                "write",
                json!({"path": "new.txt", "content": "first line\nsecond line\n"}),
            ),
            text("never reached"),
        ],
    );
    let mut chat = Chat::start(&oy, &mock, &[]);
    chat.line("create new.txt");
    chat.expect("+first line");
    chat.expect("+second line");
    chat.expect("[y/N");
    chat.answer("n\r");
    chat.expect("not approved");
    chat.prompt();
    assert!(!oy.root.join("new.txt").exists());
    assert_eq!(mock.requests().len(), 1, "the turn ends at the denial");
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn an_approved_write_lands() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Responses,
        vec![
            call("write", json!({"path": "new.txt", "content": "approved\n"})),
            text("Wrote it."),
        ],
    );
    let mut chat = Chat::start(&oy, &mock, &[]);
    chat.line("create new.txt");
    chat.expect("[y/N");
    chat.answer("y\r");
    chat.expect("Wrote it.");
    assert_eq!(oy.read("new.txt"), "approved\n");
    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

#[test]
fn mode_cannot_rise_above_the_workspace_config_and_ask_has_no_network() {
    let oy = Oy::new();
    oy.file(".oy/config.toml", "mode = \"default\"\n");
    let mock = mock_model::start(Wire::Chat, vec![text("Nothing to fetch.")]);
    let mut chat = Chat::start(&oy, &mock, &["--mode", "plan"]);
    chat.line("/mode auto");
    chat.expect("allows at most mode default");
    chat.expect("mode default · network ask");
    chat.line("/ask what is here?");
    chat.expect("Nothing to fetch.");
    let offered = mock_model::tool_names(&mock.requests()[0]);
    assert!(
        !offered.contains(&"webfetch".to_owned()),
        "/ask offers no network: {offered:?}"
    );
    assert!(
        !offered.contains(&"write".to_owned()),
        "/ask is read-only: {offered:?}"
    );
    chat.line("/mode");
    chat.expect("mode default · network ask");
}

#[test]
fn sigterm_at_the_prompt_ends_chat_with_130() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("unused")]);
    let mut chat = Chat::start(&oy, &mock, &[]);
    chat.prompt();
    let pid = chat.child.process_id().unwrap();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(chat.wait(), 130, "{}", chat.screen());
}
