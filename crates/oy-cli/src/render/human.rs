//! Events rendered for a person: the answer on stdout (terminal Markdown
//! when stdout is a terminal, the text as it came otherwise), and on
//! stderr the session line, each tool call with a command's live output and
//! last lines, the diff of every file change the person did not already
//! approve on screen, how each call ended, and the tokens a turn used.

use std::collections::{HashMap, HashSet};
use std::io::{IsTerminal, Write};
use std::time::Instant;

use oy_agent::{AgentEvent, ApprovalStage, TokenUsage, ToolCallFinished, TurnStop};

use super::activity::{Activity, Doing};
use super::answer::Answer;
use super::calls::{self, DIFF_LINES, TAIL_LINES};
use super::{Style, terminal_safe};

/// A running command's output kept for its live lines: the most recent
/// bytes only.
const LIVE_KEPT: usize = 16 * 1024;

/// Bytes per token when counting a streamed answer (the usual estimate
/// for English and code).
const BYTES_PER_TOKEN: u64 = 4;

/// What the person sees of one session.
pub(crate) struct Human {
    style: Style,
    verbose: bool,
    width: usize,
    activity: Activity,
    answer: Answer,
    /// Answer bytes streamed in the current model request.
    streamed: u64,
    calls: HashMap<String, Call>,
    /// Calls a person was asked about: their diff was on screen already.
    asked: HashSet<String>,
    /// Calls whose refusal was already said by a "not approved" line.
    refused: HashSet<String>,
    turn_started: Option<Instant>,
    turns: u64,
    session: TokenUsage,
    /// The last thing shown was a note on stderr: the answer that follows
    /// gets a blank line to set it apart.
    after_note: bool,
    /// Why commands' changes could not be kept, each said once.
    commands_notes: HashSet<String>,
}

/// A call between its start and its end.
struct Call {
    label: String,
    output: String,
}

impl Human {
    pub(crate) fn new(verbose: bool) -> Self {
        let stderr_terminal = std::io::stderr().is_terminal();
        let width = crate::approver::screen_size().map_or(80, |(_, cols)| cols);
        Self {
            style: Style::detect(stderr_terminal),
            verbose,
            width,
            activity: Activity::new(stderr_terminal),
            answer: Answer::new(std::io::stdout().is_terminal(), width),
            streamed: 0,
            calls: HashMap::new(),
            asked: HashSet::new(),
            refused: HashSet::new(),
            turn_started: None,
            turns: 0,
            session: TokenUsage::default(),
            after_note: false,
            commands_notes: HashSet::new(),
        }
    }

    /// Prints what is left of the answer and removes the transient lines.
    pub(crate) fn settle(&mut self) {
        self.flush_answer();
        self.activity.clear();
    }

    pub(crate) fn event(&mut self, event: &AgentEvent) {
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
                    super::terminal_line(session_id),
                    super::terminal_line(provider),
                    super::terminal_line(model),
                );
                self.note(&style.dim(&format!(
                    "· {verb} {session_id} · {provider} {model} · mode {mode}"
                )));
            }
            AgentEvent::TurnStarted { .. } => {
                self.turn_started = Some(Instant::now());
                self.turns += 1;
            }
            AgentEvent::RequestStarted { .. } => {
                self.streamed = 0;
                self.activity.show(Doing::Thinking { tokens: 0 });
            }
            AgentEvent::TextDelta { text } => {
                self.streamed += text.len() as u64;
                let shown = self.answer.push(text);
                self.print_answer(&shown);
                self.activity.show(Doing::Thinking {
                    tokens: self.streamed.div_ceil(BYTES_PER_TOKEN),
                });
            }
            AgentEvent::RequestFinished { .. } => self.settle(),
            AgentEvent::ToolCallStarted(started) => {
                self.settle();
                let label = calls::label(&started.tool, &started.arguments);
                self.note(&style.dim(&format!("→ {label}")));
                self.activity.show(Doing::Running {
                    label: fit(&label, self.width),
                    tail: Vec::new(),
                });
                self.calls.insert(
                    started.call_id.clone(),
                    Call {
                        label,
                        output: String::new(),
                    },
                );
            }
            AgentEvent::ToolOutput(delta) => {
                let Some(call) = self.calls.get_mut(&delta.call_id) else {
                    return;
                };
                if delta.skipped_bytes > 0 {
                    call.output.push_str("…\n");
                }
                call.output.push_str(&delta.text);
                keep_last(&mut call.output, LIVE_KEPT);
                let tail = calls::tail(&call.output, TAIL_LINES, self.width, style);
                let label = fit(&call.label, self.width);
                self.activity.show(Doing::Running { label, tail });
            }
            AgentEvent::Approval(approval) => match approval.stage {
                // The approver draws its own prompt on this terminal.
                ApprovalStage::Asked => {
                    self.asked.insert(approval.call_id.clone());
                    self.activity.clear();
                }
                ApprovalStage::Given => {
                    if let Some(call) = self.calls.get(&approval.call_id) {
                        let label = fit(&call.label, self.width);
                        self.activity.show(Doing::Running {
                            label,
                            tail: Vec::new(),
                        });
                    }
                }
                ApprovalStage::Denied => {
                    self.refused.insert(approval.call_id.clone());
                    self.note(&style.yellow(&format!(
                        "  ✗ {} not approved: {}",
                        terminal_safe(&approval.tool),
                        super::one_line(&approval.summary, 300)
                    )));
                }
            },
            AgentEvent::ToolCallFinished(finished) => self.finished(finished),
            AgentEvent::Compaction {
                tokens_before,
                tokens_after,
                summary_by,
                ..
            } => self.note(&style.dim(&format!(
                "· compacted the context: ~{tokens_before} → ~{tokens_after} tokens (summary: {summary_by})"
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
                self.settle();
                self.calls.clear();
                self.asked.clear();
                self.refused.clear();
                if *stop != TurnStop::Done && *stop != TurnStop::ProviderError {
                    let reason = terminal_safe(reason.as_deref().unwrap_or("stopped"));
                    self.note(&style.yellow(&format!("oy: {reason}")));
                    if let Some(hint) = hint {
                        self.note(&format!("hint: {}", terminal_safe(hint)));
                    }
                }
                self.session.input_tokens += usage.input_tokens;
                self.session.output_tokens += usage.output_tokens;
                self.session.estimated |= usage.estimated;
                let took = self
                    .turn_started
                    .take()
                    .map(|started| calls::took(started.elapsed().as_millis() as u64));
                self.note(&style.dim(&usage_line(
                    *requests,
                    usage,
                    took.as_deref(),
                    (self.turns > 1).then_some(&self.session),
                )));
            }
            AgentEvent::Checkpoint {
                not_kept,
                commands,
                commands_note,
                ..
            } => {
                // A kept turn needs no words, and that commands outside git
                // cannot be undone is said by `oy undo` when it matters;
                // what went wrong with a turn's checkpoint, and a file too
                // large to keep, are said now, before anyone relies on undo
                // for them (each reason once).
                if commands == "not_undoable"
                    && let Some(why) = commands_note
                    && self.commands_notes.insert(why.clone())
                {
                    self.note(&style.yellow(&format!(
                        "note: what this turn's commands changed cannot be undone: {}",
                        terminal_safe(why)
                    )));
                }
                for item in not_kept {
                    self.note(&style.yellow(&format!(
                        "note: {} cannot be undone: {}",
                        terminal_safe(&item.path),
                        terminal_safe(&item.why)
                    )));
                }
            }
            AgentEvent::InterruptedTurn { effects } => {
                self.settle();
                self.note(&style.yellow(&format!(
                    "oy: warning: {}",
                    terminal_safe(&oy_agent::interrupted_turn_message(effects))
                )));
            }
            AgentEvent::InterruptedChange(change) => {
                self.settle();
                self.note(&style.yellow(&format!(
                    "oy: warning: {}",
                    terminal_safe(&change.message())
                )));
            }
            AgentEvent::Error { message } => {
                self.settle();
                self.note(&style.red(&format!("oy: error: {}", terminal_safe(message))));
            }
            _ => {}
        }
    }

    fn finished(&mut self, finished: &ToolCallFinished) {
        self.activity.clear();
        let call = self.calls.remove(&finished.call_id);
        let asked = self.asked.remove(&finished.call_id);
        let style = self.style;
        let mut lines = Vec::new();
        if finished.exit_code.is_some() {
            // What streamed is what the command printed, in order; a call
            // that did not stream shows the output the model got.
            let streamed = call.map(|call| call.output).filter(|text| !text.is_empty());
            let body = match streamed {
                Some(text) if !self.verbose => text,
                _ => calls::output_body(&finished.output),
            };
            let count = if self.verbose { usize::MAX } else { TAIL_LINES };
            lines.extend(calls::tail(&body, count, self.width, style));
        }
        let said = self.refused.remove(&finished.call_id);
        lines.extend(calls::ending(finished, style, said));
        if let Some(diff) = finished.diff.as_deref()
            && (!asked || self.verbose)
        {
            let max = (!self.verbose).then_some(DIFF_LINES);
            lines.push(super::answer::diff(diff, style, self.width, max));
        }
        if !lines.is_empty() {
            self.note(&lines.join("\n"));
        }
    }

    fn print_answer(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        // Only on a terminal, where the notes and the answer share a screen.
        let after_note = std::mem::take(&mut self.after_note);
        let gap = if after_note && self.answer.on_terminal() && !text.starts_with('\n') {
            "\n"
        } else {
            ""
        };
        self.activity.suspend(|| {
            let mut stdout = std::io::stdout().lock();
            let _ = write!(stdout, "{gap}{text}");
            let _ = stdout.flush();
        });
    }

    fn flush_answer(&mut self) {
        let rest = self.answer.finish();
        self.print_answer(&rest);
    }

    /// A permanent line (or lines) on stderr, above the transient ones.
    fn note(&mut self, text: &str) {
        self.flush_answer();
        self.activity.suspend(|| {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "{text}");
        });
        self.after_note = true;
    }
}

/// `label` cut to fit the first transient line of a `width`-column screen.
fn fit(label: &str, width: usize) -> String {
    super::one_line(label, width.saturating_sub(30).max(20))
}

/// Drops the oldest bytes of `text` beyond `max`, at a character boundary.
fn keep_last(text: &mut String, max: usize) {
    if text.len() <= max {
        return;
    }
    let mut cut = text.len() - max;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    text.drain(..cut);
}

/// `· 3 requests · 1234 in / 56 out tokens · 4.1 s`, and the session's
/// totals after its first turn.
fn usage_line(
    requests: u32,
    usage: &TokenUsage,
    took: Option<&str>,
    session: Option<&TokenUsage>,
) -> String {
    let approx = |usage: &TokenUsage| if usage.estimated { "~" } else { "" };
    let mut line = format!(
        "· {requests} request{} · {a}{} in / {a}{} out tokens",
        if requests == 1 { "" } else { "s" },
        usage.input_tokens,
        usage.output_tokens,
        a = approx(usage),
    );
    if let Some(took) = took {
        line.push_str(&format!(" · {took}"));
    }
    if let Some(session) = session {
        line.push_str(&format!(
            " · session {a}{} in / {a}{} out",
            session.input_tokens,
            session.output_tokens,
            a = approx(session),
        ));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_usage_line_adds_the_session_after_the_first_turn() {
        let usage = TokenUsage {
            input_tokens: 1200,
            output_tokens: 56,
            cached_input_tokens: 0,
            estimated: false,
        };
        assert_eq!(
            usage_line(1, &usage, Some("4.1 s"), None),
            "· 1 request · 1200 in / 56 out tokens · 4.1 s"
        );
        let session = TokenUsage {
            estimated: true,
            ..usage
        };
        assert_eq!(
            usage_line(3, &usage, None, Some(&session)),
            "· 3 requests · 1200 in / 56 out tokens · session ~1200 in / ~56 out"
        );
    }

    #[test]
    fn live_output_keeps_its_newest_bytes_whole() {
        let mut text = "é".repeat(10);
        keep_last(&mut text, 5);
        assert_eq!(text, "éé");
    }
}
