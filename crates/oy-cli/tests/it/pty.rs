//! `oy` in a real pseudo-terminal: what a person at a terminal sees,
//! answered as a terminal would (the cursor-position query), with
//! expectations that wait for text to appear.

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

use crate::mock_model::MockModel;
use crate::support::Oy;

/// Generous: two busy cores build and run many tests at once.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The reply to a terminal's cursor-position query (`ESC [ 6 n`), which
/// rustyline sends before each prompt and would otherwise wait 100 ms for,
/// swallowing typed input.
const CURSOR_REPORT: &[u8] = b"\x1b[1;1R";

/// A running `oy` on a pseudo-terminal.
pub(crate) struct Pty {
    child: Box<dyn Child + Send + Sync>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    output: Arc<Mutex<Vec<u8>>>,
    /// How far [`Chat::expect`] has matched, in the cleaned text.
    cursor: usize,
    _master: Box<dyn MasterPty + Send>,
}

impl Pty {
    /// `oy ARGS` in `oy`'s workspace on a 50×200 terminal, talking to
    /// `mock`, with `NO_COLOR=1` and `env` applied (an empty value removes
    /// the variable).
    pub(crate) fn start(oy: &Oy, mock: &MockModel, args: &[&str], env: &[(&str, &str)]) -> Self {
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
        cmd.env("OY_MODEL", "mock-model");
        cmd.env("OY_WIRE_API", mock.wire.flag());
        for (name, value) in env {
            if value.is_empty() {
                cmd.env_remove(name);
            } else {
                cmd.env(name, value);
            }
        }
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
        clean(&self.raw())
    }

    /// What the terminal shows now: the output replayed through a terminal
    /// emulator as tall as needed that nothing scrolls away, so redrawn
    /// and cleared lines (a spinner) are gone as on a real screen.
    pub(crate) fn shown(&self) -> String {
        let mut parser = vt100::Parser::new(2000, 200, 0);
        parser.process(&self.output.lock().unwrap());
        parser.screen().contents().trim_end().to_owned()
    }

    /// Everything shown so far, escape sequences and all.
    pub(crate) fn raw(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().unwrap()).into_owned()
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

    /// The process id of `oy`.
    pub(crate) fn pid(&self) -> u32 {
        self.child.process_id().unwrap()
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
                "oy did not exit:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `text` without CSI/OSC escape sequences and carriage returns.
pub(crate) fn clean(text: &str) -> String {
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
