//! Turning agent events into output: for people (streamed answer text on
//! stdout, tool activity and notes on stderr, colour only on a terminal
//! without `NO_COLOR`), as JSON lines (`--json`), or nothing but the final
//! answer (`-q`).

use std::io::{IsTerminal, Write};
use std::sync::Mutex;

use oy_agent::{AgentEvent, AgentEventSink, ApprovalStage, ToolCallFinished, TurnStop};

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
    enabled: bool,
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
    style: Style,
    /// True while the last thing written to stdout was answer text
    /// without a final newline.
    open_line: Mutex<bool>,
}

impl Renderer {
    pub(crate) fn new(output: Output) -> Self {
        Self {
            output,
            style: Style::detect(std::io::stderr().is_terminal()),
            open_line: Mutex::new(false),
        }
    }

    fn open_line(&self) -> std::sync::MutexGuard<'_, bool> {
        self.open_line
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Ends a streamed answer line so notes start on their own line.
    pub(crate) fn finish_text(&self) {
        let mut open = self.open_line();
        if *open {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout);
            let _ = stdout.flush();
            *open = false;
        }
    }

    /// A line on stderr. Callers apply colour after [`terminal_safe`] on
    /// every untrusted part (tool names, summaries, errors come from the
    /// model or the server).
    fn note(&self, text: &str) {
        self.finish_text();
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "{text}");
    }

    fn human(&self, event: &AgentEvent) {
        let style = self.style;
        match event {
            AgentEvent::SessionStarted {
                session_id,
                provider,
                model,
                mode,
                resumed,
                ..
            } => {
                let verb = if *resumed { "resumed" } else { "session" };
                let (session_id, provider, model) = (
                    terminal_safe(session_id),
                    terminal_safe(provider),
                    terminal_safe(model),
                );
                self.note(&style.dim(&format!(
                    "· {verb} {session_id} · {provider} {model} · mode {mode}"
                )));
            }
            AgentEvent::TextDelta { text } => {
                // Model text is untrusted: no escape sequences reach the terminal.
                let text = terminal_safe(text);
                let mut stdout = std::io::stdout().lock();
                let _ = write!(stdout, "{text}");
                let _ = stdout.flush();
                *self.open_line() = !text.ends_with('\n');
            }
            AgentEvent::ToolCallStarted(started) => {
                let tool = terminal_safe(&started.tool);
                self.note(&style.dim(&format!("→ {tool} {}", one_line(&started.arguments, 160))));
            }
            AgentEvent::ToolCallFinished(finished) => {
                let ToolCallFinished {
                    tool,
                    ok,
                    duration_ms,
                    output_bytes,
                    truncated,
                    output,
                    ..
                } = finished;
                let cut = if *truncated { ", truncated" } else { "" };
                let tool = terminal_safe(tool);
                if *ok {
                    self.note(&style.dim(&format!(
                        "  {} {tool} ({duration_ms} ms, {output_bytes} B{cut})",
                        style.green("✓")
                    )));
                } else {
                    let first = output.lines().next().unwrap_or_default();
                    self.note(&format!(
                        "  {} {tool}: {}",
                        style.red("✗"),
                        one_line(first.trim_start_matches("TOOL_ERROR: "), 200)
                    ));
                }
            }
            AgentEvent::Approval(approval) if approval.stage == ApprovalStage::Denied => {
                self.note(&style.yellow(&format!(
                    "  ✗ {} not approved: {}",
                    terminal_safe(&approval.tool),
                    one_line(&approval.summary, 300)
                )));
            }
            AgentEvent::Compaction {
                tokens_before,
                tokens_after,
                summary_by,
                ..
            } => self.note(&style.dim(&format!(
                "· compacted the context: ~{} → ~{} tokens (summary: {summary_by})",
                tokens_before, tokens_after
            ))),
            AgentEvent::Retry {
                attempt,
                delay_ms,
                error,
            } => self.note(&style.yellow(&format!(
                "· provider error (attempt {attempt}), retrying in {:.1} s: {}",
                *delay_ms as f64 / 1000.0,
                terminal_safe(error)
            ))),
            AgentEvent::TurnFinished {
                stop,
                reason,
                hint,
                requests,
                usage,
                ..
            } => {
                if *stop != TurnStop::Done && *stop != TurnStop::ProviderError {
                    let reason = terminal_safe(reason.as_deref().unwrap_or("stopped"));
                    self.note(&style.yellow(&format!("oy: {reason}")));
                    if let Some(hint) = hint {
                        self.note(&format!("hint: {}", terminal_safe(hint)));
                    }
                }
                let approx = if usage.estimated { "~" } else { "" };
                self.note(&style.dim(&format!(
                    "· {requests} request{} · {approx}{} in / {approx}{} out tokens",
                    if *requests == 1 { "" } else { "s" },
                    usage.input_tokens,
                    usage.output_tokens
                )));
            }
            AgentEvent::Error { message } => {
                self.note(&style.red(&format!("oy: error: {}", terminal_safe(message))));
            }
            _ => {}
        }
    }
}

impl AgentEventSink for Renderer {
    fn emit(&self, event: &AgentEvent) {
        match self.output {
            Output::Human => self.human(event),
            Output::Json => {
                if let Ok(line) = crate::json_text::json_text(event, false) {
                    let mut stdout = std::io::stdout().lock();
                    let _ = writeln!(stdout, "{line}");
                    let _ = stdout.flush();
                }
            }
            Output::Quiet => {
                if let AgentEvent::Error { message } = event {
                    let mut stderr = std::io::stderr().lock();
                    let _ = writeln!(stderr, "oy: error: {}", terminal_safe(message));
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

/// Text from the model, a tool or a server made safe for a terminal:
/// control characters other than newline and tab, and characters that
/// change layout invisibly (bidi overrides, zero-width), become U+FFFD, so
/// no escape sequence or hidden reordering reaches the screen.
pub(crate) fn terminal_safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if (c.is_control() && c != '\n' && c != '\t') || crate::approver::is_invisible(c) {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect()
}

/// [`terminal_safe`], and on one line: a newline in a file name must not
/// forge lines of a listing.
pub(crate) fn terminal_line(text: &str) -> String {
    terminal_safe(text)
        .chars()
        .map(|c| {
            if c == '\n' || c == '\t' {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect()
}

/// `text` on one line, cut to `max` characters, made terminal-safe.
fn one_line(text: &str, max: usize) -> String {
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
    use super::terminal_safe;

    #[test]
    fn escape_sequences_and_invisible_characters_never_reach_the_terminal() {
        let hostile = "a\x1b[31mred\x1b]0;title\x07\u{202e}rev\u{200b}\u{9b}2J\tok\nnext";
        let safe = terminal_safe(hostile);
        assert!(
            !safe
                .chars()
                .any(|c| c == '\x1b' || c == '\x07' || c == '\u{9b}')
        );
        assert!(!safe.contains('\u{202e}') && !safe.contains('\u{200b}'));
        assert!(safe.contains("\tok\nnext"), "{safe:?}");
    }
}
