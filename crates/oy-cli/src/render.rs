//! Turning agent events into output: for people (streamed answer text on
//! stdout, tool activity and notes on stderr, colour only on a terminal
//! without `NO_COLOR`), as JSON lines (`--json`), or nothing but the final
//! answer (`-q`).

mod activity;
mod answer;
mod calls;
mod human;
pub(crate) mod undo;

use std::io::Write;
use std::sync::Mutex;

use oy_agent::{AgentEvent, AgentEventSink, TurnStop};

use human::Human;

/// How events are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// Streamed text and tool notes.
    Human,
    /// One JSON object per line on stdout.
    Json,
    /// Only the final answer, printed by the command at the end.
    Quiet,
}

/// ANSI styling, or none.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    pub(crate) enabled: bool,
}

impl Style {
    /// Colour when `stream_is_terminal` and `NO_COLOR` is unset or empty.
    pub(crate) fn detect(stream_is_terminal: bool) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        Self {
            enabled: stream_is_terminal && !no_color,
        }
    }

    pub(crate) fn paint(self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    pub(crate) fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    pub(crate) fn red(self, text: &str) -> String {
        self.paint("31", text)
    }

    pub(crate) fn green(self, text: &str) -> String {
        self.paint("32", text)
    }

    pub(crate) fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }
}

/// The event sink of `oy run` and `oy chat`.
pub(crate) struct Renderer {
    output: Output,
    human: Mutex<Option<Human>>,
    /// Fired when stdout's reader goes away (`oy run --json | head`): the
    /// rest of the turn would be work and tokens nobody reads.
    on_closed: Mutex<Option<oy_tools::CancelToken>>,
}

impl Renderer {
    /// `verbose` shows whole command outputs and diffs.
    pub(crate) fn new(output: Output, verbose: bool) -> Self {
        Self {
            output,
            human: Mutex::new((output == Output::Human).then(|| Human::new(verbose))),
            on_closed: Mutex::new(None),
        }
    }

    /// Cancels `token` once a write to stdout finds its reader gone.
    pub(crate) fn cancel_when_closed(&self, token: oy_tools::CancelToken) {
        *self
            .on_closed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(token);
    }

    fn stdout_closed(&self) {
        if let Some(token) = self
            .on_closed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
        {
            token.cancel();
        }
    }

    fn human(&self) -> std::sync::MutexGuard<'_, Option<Human>> {
        self.human
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Prints the rest of a streamed answer and clears the spinner, so a
    /// prompt or a message starts on a clean line.
    pub(crate) fn finish_text(&self) {
        if let Some(human) = self.human().as_mut() {
            human.settle();
        }
    }
}

impl AgentEventSink for Renderer {
    fn emit(&self, event: &AgentEvent) {
        match self.output {
            Output::Human => {
                if let Some(human) = self.human().as_mut() {
                    human.event(event);
                }
            }
            Output::Json => {
                if let Ok(line) = crate::json_text::json_text(event, false) {
                    let mut stdout = std::io::stdout().lock();
                    let written = writeln!(stdout, "{line}").and_then(|()| stdout.flush());
                    if written.is_err_and(|error| error.kind() == std::io::ErrorKind::BrokenPipe) {
                        self.stdout_closed();
                    }
                }
            }
            Output::Quiet => {
                if let AgentEvent::Error { message } = event {
                    let mut stderr = std::io::stderr().lock();
                    let _ = writeln!(stderr, "oy: error: {}", terminal_safe(message));
                } else if let AgentEvent::InterruptedChange(change) = event {
                    let mut stderr = std::io::stderr().lock();
                    let _ = writeln!(stderr, "oy: warning: {}", terminal_safe(&change.message()));
                } else if let AgentEvent::InterruptedTurn { effects } = event {
                    let mut stderr = std::io::stderr().lock();
                    let said = oy_agent::interrupted_turn_message(effects);
                    let _ = writeln!(stderr, "oy: warning: {}", terminal_safe(&said));
                } else if let AgentEvent::TurnFinished {
                    stop,
                    reason: Some(reason),
                    hint,
                    ..
                } = event
                    && *stop != TurnStop::ProviderError
                {
                    let mut stderr = std::io::stderr().lock();
                    let _ = writeln!(stderr, "oy: {}", terminal_safe(reason));
                    if let Some(hint) = hint {
                        let _ = writeln!(stderr, "hint: {}", terminal_safe(hint));
                    }
                }
            }
        }
    }
}

pub(crate) use oy_term::{terminal_line, terminal_safe};

/// [`terminal_safe`], without a copy when there is nothing to replace:
/// text of printable ASCII, tabs and newlines only (most tool output)
/// holds no character [`oy_term::is_unsafe_char`] names.
pub(crate) fn terminal_safe_text(text: &str) -> std::borrow::Cow<'_, str> {
    if text
        .bytes()
        .all(|byte| matches!(byte, b' '..=b'~' | b'\n' | b'\t'))
    {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(terminal_safe(text))
    }
}

/// `text` on one line, cut to `max` characters, made terminal-safe.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let flat: String = terminal_safe(text)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if flat.chars().count() <= max {
        flat
    } else {
        let mut cut: String = flat.chars().take(max).collect();
        cut.push('…');
        cut
    }
}

/// Says once per run when commands are not fully confined (the sandbox is
/// off, or the kernel lacks a part of it); loudly in auto-approve, where
/// no one sees a command before it runs. Plan mode runs no commands.
#[expect(clippy::print_stderr, reason = "a one-line diagnostic for the person")]
pub(crate) fn announce_sandbox(config: &crate::Config) {
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if config.settings.policy.mode == oy_tools::Mode::Plan {
        return;
    }
    let Some(warning) = config.sandbox.warning() else {
        return;
    };
    if SAID.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return;
    }
    if config.settings.policy.mode == oy_tools::Mode::AutoApprove {
        eprintln!(
            "oy: WARNING: auto-approve runs every command without asking, and {}",
            terminal_safe(&warning)
        );
    } else {
        eprintln!("oy: warning: {}", terminal_safe(&warning));
    }
}

#[cfg(test)]
mod tests {
    use super::{terminal_safe, terminal_safe_text};

    #[test]
    fn the_copy_free_path_agrees_with_terminal_safe() {
        let mut samples: Vec<String> = (0..=0x7f_u8)
            .map(|byte| format!("a{}\tb\n", char::from(byte)))
            .collect();
        samples.extend(
            [
                "plain text\n",
                "",
                "\u{1b}[31mred",
                "caf\u{e9}",
                "bidi \u{202e}evil",
                "zero\u{200b}width",
                "\u{85}next line",
                "\r\n",
            ]
            .map(str::to_owned),
        );
        for sample in &samples {
            assert_eq!(
                terminal_safe_text(sample),
                terminal_safe(sample),
                "{sample:?}"
            );
        }
        assert!(matches!(
            terminal_safe_text("fn main() {}\n\tok\n"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
