//! The tool loop of one turn: request → stream → run each tool call in
//! order (schema check, policy and approval, ledger, tool) → next request,
//! until the model answers without tools or a guard stops it.
//! Every tool call gets exactly one result, also when the turn is cut
//! short, so the transcript is always valid for the next request.

use std::sync::Arc;

use futures_util::StreamExt;
use oy_provider::{
    Attempts, Event, EventStream, ProviderError, Replay, Request, RetryNotice, StopReason,
    ToolCall, ToolSchema,
};
use oy_tools::{CancelToken, Mode, Policy, RefusedBy, ToolOutput};

mod guards;
mod usage;

use self::guards::Guards;
use crate::agent::Agent;
use crate::compaction::{self, Trigger};
use crate::error::AgentError;
use crate::events::{AgentEvent, TokenUsage, TurnStop};
use crate::prompt::Prompt;
use crate::transcript::Entry;

/// What a turn came to.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TurnOutcome {
    /// The turn's number in the session.
    pub turn: u64,
    /// Why it ended.
    pub stop: TurnStop,
    /// For a stop other than `done`: why, for people.
    pub reason: Option<String>,
    /// What the person can do about the stop (the flag or mode that would
    /// allow a refused call), for a `hint:` line.
    pub hint: Option<String>,
    /// The model's final answer text (empty when it ended otherwise).
    pub text: String,
    /// Model requests made.
    pub requests: u32,
    /// Tokens used.
    pub usage: TokenUsage,
}

/// One model answer, as collected from its stream.
#[derive(Default)]
struct Answer {
    text: String,
    calls: Vec<ToolCall>,
    reasoning: Option<serde_json::Value>,
    usage: Option<oy_provider::Usage>,
    finish: Option<StopReason>,
}

/// The `retry` event for a retry about to happen.
fn retry_event(notice: &RetryNotice) -> AgentEvent {
    AgentEvent::Retry {
        attempt: notice.attempt,
        delay_ms: u64::try_from(notice.delay.as_millis()).unwrap_or(u64::MAX),
        error: notice.error.to_string(),
    }
}

enum Streamed {
    Complete(Answer),
    Cancelled(Answer),
    /// The request failed (after the retry gate's own retries).
    Failed(Answer, ProviderError),
    /// The stream broke after it had started.
    Cut(Answer, ProviderError),
}

/// Why a cancelled turn stopped, for people.
const CANCELLED: &str = "cancelled by the user";

impl Agent {
    /// Runs one turn for `prompt` with the current policy: text (sent as
    /// it is) or a [`Prompt`] from [`Agent::prepare`] (with what its
    /// mentions attached). The [`ContextNote`](crate::ContextNote)s queued
    /// since the last turn go in front of it. A message that cannot fit
    /// the model's window with the instructions and tool definitions is
    /// refused with [`AgentError::PromptTooLarge`] before any request, and
    /// nothing of it is recorded (the notes stay queued).
    pub async fn turn(&mut self, prompt: impl Into<Prompt>) -> Result<TurnOutcome, AgentError> {
        self.run_turn(prompt.into()).await
    }

    /// A research-only turn (a chat's `/ask`): the tools of `plan` mode —
    /// no writes, no commands, no network (a fetch could carry workspace
    /// text out in its URL) — for this turn, the policy restored after.
    pub async fn ask(&mut self, prompt: impl Into<Prompt>) -> Result<TurnOutcome, AgentError> {
        let saved = self.policy();
        self.set_policy(Policy {
            mode: Mode::Plan,
            network: oy_tools::Network::Deny,
            ..saved
        });
        let outcome = self.run_turn(prompt.into()).await;
        self.set_policy(saved);
        outcome
    }

    /// Compacts the transcript now (a chat's `/compact`).
    pub async fn compact(&mut self) -> Result<(), AgentError> {
        self.compact_with(Trigger::Manual).await;
        self.save().await
    }

    async fn run_turn(&mut self, prompt: Prompt) -> Result<TurnOutcome, AgentError> {
        self.ask_window();
        // AGENTS.md as it is now: `/init` (or the person) may have written
        // it since the session began. Unchanged text keeps the
        // instructions, and a provider's prompt cache, as they were.
        if self.options.read_agents_md {
            self.agents_md = crate::instructions::read_agents_md(self.tools.workspace());
        }
        let message = prompt.message(&self.pending_notes);
        // A prompt too large for the window is refused before it counts
        // as a turn: no event, nothing recorded (docs/events.md).
        self.check_prompt_fits(&message).await?;
        self.pending_notes.clear();
        self.header.turns += 1;
        let turn = self.header.turns;
        if self.header.title.is_empty() {
            self.header.title = title(prompt.text());
        }
        self.tools.ledger().begin_turn();
        if let Some(checkpoints) = self.tools.checkpoints()
            && let Err(error) = checkpoints.begin_turn(turn)
        {
            self.emit(&AgentEvent::Error {
                message: format!("this turn's changes cannot be undone: {error}"),
            });
        }
        self.emit(&AgentEvent::TurnStarted {
            turn,
            prompt: prompt.text().to_owned(),
            attachments: prompt.attachments().to_vec(),
        });
        self.record(Entry::User { text: message });
        let mut outcome = TurnOutcome {
            turn,
            stop: TurnStop::Done,
            reason: None,
            hint: None,
            text: String::new(),
            requests: 0,
            usage: TokenUsage::default(),
        };
        let result = self.tool_loop(&mut outcome).await;
        self.usage_total.input_tokens += outcome.usage.input_tokens;
        self.usage_total.output_tokens += outcome.usage.output_tokens;
        self.usage_total.cached_input_tokens += outcome.usage.cached_input_tokens;
        self.usage_total.estimated |= outcome.usage.estimated;
        if let Err(error) = &result {
            outcome.stop = TurnStop::ProviderError;
            outcome.reason = Some(error.to_string());
            self.emit(&AgentEvent::Error {
                message: error.to_string(),
            });
        }
        self.end_checkpoint().await;
        self.emit(&AgentEvent::TurnFinished {
            turn,
            stop: outcome.stop,
            reason: outcome.reason.clone(),
            hint: outcome.hint.clone(),
            requests: outcome.requests,
            usage: outcome.usage,
        });
        if let Err(error) = self.save().await {
            self.emit(&AgentEvent::Error {
                message: format!("the session was not saved: {error}"),
            });
        }
        result.map(|()| outcome)
    }

    async fn tool_loop(&mut self, outcome: &mut TurnOutcome) -> Result<(), AgentError> {
        let cancel = self.tools.cancel_token().clone();
        let mut guards = Guards::default();
        // One request's attempts: opening failures and cut streams are
        // numbered and bounded together, and reset by a complete answer.
        let mut attempts = Attempts::new(self.options.retry);
        loop {
            if cancel.is_cancelled() {
                return stop(outcome, TurnStop::Cancelled, CANCELLED);
            }
            if outcome.requests >= self.options.max_turns {
                let limit = self.options.max_turns;
                return stop(
                    outcome,
                    TurnStop::MaxTurns,
                    &format!(
                        "stopped after {limit} model requests without a final answer (--max-turns {limit})"
                    ),
                );
            }
            // Tools that come and go (MCP servers): started on the first
            // request that would offer them, re-listed when they changed.
            if cancel
                .run_until_cancelled(self.registry.refresh(&self.tools))
                .await
                .is_none()
            {
                return stop(outcome, TurnStop::Cancelled, CANCELLED);
            }
            self.refresh_window();
            if self.budget.over(self.request_bytes()) && self.grew_since_compaction() {
                self.compact_with(Trigger::Auto).await;
            }
            let request = self.request();
            let request_bytes = self.request_bytes();
            outcome.requests += 1;
            let number = outcome.requests;
            self.emit(&AgentEvent::RequestStarted { request: number });
            let streamed = self.stream_answer(&request, &mut attempts, &cancel).await;
            let (answer, cancelled) = match streamed {
                Streamed::Complete(answer) => (answer, false),
                Streamed::Cancelled(answer) => (answer, true),
                Streamed::Failed(answer, error) => {
                    self.account(outcome, &answer, request_bytes);
                    return self.fail(answer, error);
                }
                Streamed::Cut(answer, error) => {
                    self.account(outcome, &answer, request_bytes);
                    match self.retry_cut(&answer, error, &mut attempts, &cancel).await {
                        Ok(true) => continue,
                        Ok(false) => return stop(outcome, TurnStop::Cancelled, CANCELLED),
                        Err(error) => return self.fail(answer, error),
                    }
                }
            };
            let usage = self.account(outcome, &answer, request_bytes);
            if !cancelled {
                self.emit(&AgentEvent::RequestFinished {
                    request: number,
                    usage,
                });
            }
            attempts = Attempts::new(self.options.retry);
            let calls = answer.calls.clone();
            let text = answer.text.clone();
            self.record_answer(answer.text, answer.calls, answer.reasoning);
            if cancelled {
                self.answer_unrun(&calls, "the turn was cancelled before this call ran");
                return stop(outcome, TurnStop::Cancelled, CANCELLED);
            }
            if answer.finish == Some(StopReason::MaxTokens) {
                // Calls in an answer cut at the token limit may have lost
                // the end of their arguments: none of them runs.
                self.answer_unrun(
                    &calls,
                    "not run: the answer was cut at the output-token limit, so its arguments may be incomplete",
                );
                outcome.text = text;
                return stop(
                    outcome,
                    TurnStop::MaxTokens,
                    "the model stopped at its output-token limit; ask it to continue",
                );
            }
            if calls.is_empty() {
                outcome.text = text;
                return Ok(());
            }
            let progressed = !text.trim().is_empty();
            if let Some(stopped) = self
                .run_calls(&calls, progressed, &mut guards, &cancel, outcome)
                .await
            {
                return stopped;
            }
        }
    }

    /// A stream cut mid-answer is transient too: the partial answer's tool
    /// calls never ran, so the request may be sent again — unless a side
    /// effect happened in this turn, or its text was already shown (a retry
    /// would print it twice; docs/events.md, "Retries"). `Ok(true)`: waited,
    /// send again; `Ok(false)`: cancelled while waiting; `Err`: give up.
    async fn retry_cut(
        &self,
        answer: &Answer,
        error: ProviderError,
        attempts: &mut Attempts,
        cancel: &CancelToken,
    ) -> Result<bool, ProviderError> {
        let replay = if !answer.text.is_empty() {
            Replay::AnswerShown
        } else if self.tools.ledger().side_effect_attempted() {
            Replay::AfterSideEffect
        } else {
            Replay::Allowed
        };
        let notice = attempts.after_failure(error, replay)?;
        self.emit(&retry_event(&notice));
        let waited = cancel
            .run_until_cancelled(tokio::time::sleep(notice.delay))
            .await;
        Ok(waited.is_some())
    }

    /// Ends the turn on a provider failure. What was shown is kept; calls
    /// that never completed are dropped (they never ran), so the
    /// transcript stays paired.
    fn fail(&mut self, answer: Answer, error: ProviderError) -> Result<(), AgentError> {
        self.record_answer(answer.text, Vec::new(), answer.reasoning);
        Err(error.into())
    }

    /// Runs one answer's calls in order, each answered exactly once, and
    /// applies the guards. `Some` ends the turn (the outcome says why);
    /// `None` asks the model again.
    async fn run_calls(
        &mut self,
        calls: &[ToolCall],
        mut progressed: bool,
        guards: &mut Guards,
        cancel: &CancelToken,
        outcome: &mut TurnOutcome,
    ) -> Option<Result<(), AgentError>> {
        for (index, call) in calls.iter().enumerate() {
            if cancel.is_cancelled() {
                self.answer_unrun(
                    &calls[index..],
                    "the turn was cancelled before this call ran",
                );
                return Some(stop(outcome, TurnStop::Cancelled, CANCELLED));
            }
            let output = self.run_call(call).await;
            let key = guards::call_key(&call.name, &call.arguments);
            let refused = output.refusal.clone();
            let failed = !output.ok;
            self.record_result(call, output);
            let rest = &calls[index + 1..];
            if cancel.is_cancelled() {
                self.answer_unrun(rest, "the turn was cancelled before this call ran");
                return Some(stop(outcome, TurnStop::Cancelled, CANCELLED));
            }
            if let Some(refusal) = refused {
                self.answer_unrun(
                    rest,
                    "not run: an earlier call in the same answer was refused",
                );
                let reason = match refusal.by {
                    RefusedBy::Person => format!("you declined `{}`", call.name),
                    RefusedBy::NoOneToAsk => format!(
                        "`{}` needs approval and there is no one to ask (not interactive)",
                        call.name
                    ),
                };
                outcome.hint = Some(refusal.hint).filter(|hint| !hint.is_empty());
                return Some(stop(outcome, TurnStop::ApprovalDenied, &reason));
            }
            if !failed {
                progressed |= guards.succeeded(key);
            } else if guards.repeated(key) >= self.options.repeat_limit {
                self.answer_unrun(rest, "not run: the turn stopped after a repeated failure");
                let limit = self.options.repeat_limit;
                return Some(stop(
                    outcome,
                    TurnStop::RepeatedFailure,
                    &format!(
                        "stopped: the model made the same failing `{}` call {limit} times in a row",
                        call.name
                    ),
                ));
            }
        }
        if guards.answered(progressed) >= self.options.churn_limit {
            let limit = self.options.churn_limit;
            return Some(stop(
                outcome,
                TurnStop::ToolChurn,
                &format!(
                    "stopped: {limit} tool-only answers in a row without progress (no new successful call); narrow the task"
                ),
            ));
        }
        None
    }

    fn request(&self) -> Request {
        let tools = self
            .registry
            .specs(&self.tools)
            .into_iter()
            .map(|spec| ToolSchema {
                name: spec.name.to_string(),
                description: spec.description.to_string(),
                parameters: spec.parameters.clone(),
            })
            .collect();
        Request {
            model: self.model.clone(),
            instructions: Some(self.instructions()),
            messages: self.transcript.to_messages(),
            tools,
            max_output_tokens: self.options.max_output_tokens,
            ..Request::default()
        }
    }

    async fn stream_answer(
        &self,
        request: &Request,
        attempts: &mut Attempts,
        cancel: &CancelToken,
    ) -> Streamed {
        let ledger = Arc::clone(self.tools.ledger());
        let may_retry = move || !ledger.side_effect_attempted();
        let events = Arc::clone(&self.events);
        let on_retry = move |notice: &RetryNotice| events.emit(&retry_event(notice));
        let opened = attempts.stream(self.provider.as_ref(), request, &may_retry, &on_retry);
        let mut answer = Answer::default();
        let stream: EventStream = match cancel.run_until_cancelled(opened).await {
            None => return Streamed::Cancelled(answer),
            Some(Err(error)) => return Streamed::Failed(answer, error),
            Some(Ok(stream)) => stream,
        };
        let mut stream = stream;
        loop {
            let item = match cancel.run_until_cancelled(stream.next()).await {
                None => return Streamed::Cancelled(answer),
                Some(None) => break,
                Some(Some(item)) => item,
            };
            match item {
                Err(error) => return Streamed::Cut(answer, error),
                Ok(Event::TextDelta { text }) => {
                    self.emit(&AgentEvent::TextDelta { text: text.clone() });
                    answer.text.push_str(&text);
                }
                Ok(Event::ToolCallDone { call, .. }) => answer.calls.push(call),
                Ok(Event::Reasoning { item }) => answer.reasoning = Some(item),
                Ok(Event::Usage { usage }) => answer.usage = Some(usage),
                Ok(Event::Finished { reason }) => answer.finish = Some(reason),
                Ok(_) => {}
            }
        }
        Streamed::Complete(answer)
    }

    /// Runs one call on a blocking thread. The registry reports it
    /// (`tool_call_started`, approvals, `tool_call_finished`) under the
    /// provider's call id; only a tool that panicked is reported here.
    async fn run_call(&self, call: &ToolCall) -> ToolOutput {
        let registry = Arc::clone(&self.registry);
        let tools = Arc::clone(&self.tools);
        let owned = call.clone();
        let ran = tokio::task::spawn_blocking(move || {
            registry.invoke_raw(&tools, &owned.id, &owned.name, &owned.arguments)
        })
        .await;
        ran.unwrap_or_else(|error| {
            let output = ToolOutput::error(&oy_tools::ToolError::failed(
                format!("the tool crashed: {error}"),
                "try a different approach; report this to the user if it repeats",
            ));
            self.emit(&AgentEvent::ToolCallFinished(oy_tools::ToolCallFinished {
                call_id: call.id.clone(),
                tool: call.name.clone(),
                ok: false,
                duration_ms: 0,
                output_bytes: output.text.len(),
                truncated: false,
                output: output.text.clone(),
                status: oy_tools::CallStatus::Failed,
                exit_code: None,
                diff: None,
            }));
            output
        })
    }

    /// Appends to both the working transcript and the full history.
    pub(crate) fn record(&mut self, entry: Entry) {
        self.history.push(entry.clone());
        self.transcript.push(entry);
    }

    fn record_answer(
        &mut self,
        text: String,
        tool_calls: Vec<ToolCall>,
        reasoning: Option<serde_json::Value>,
    ) {
        if text.is_empty() && tool_calls.is_empty() && reasoning.is_none() {
            return;
        }
        // Arguments that are not JSON are never sent back: servers reject
        // the whole next request for them (llama.cpp answers 500). The
        // call's result already quotes what was wrong.
        let tool_calls = tool_calls
            .into_iter()
            .map(|mut call| {
                if serde_json::from_str::<serde_json::Value>(&call.arguments).is_err() {
                    call.arguments = "{}".to_owned();
                }
                call
            })
            .collect();
        self.record(Entry::Assistant {
            text: (!text.is_empty()).then_some(text),
            tool_calls,
            reasoning,
        });
    }

    fn record_result(&mut self, call: &ToolCall, output: ToolOutput) {
        self.record(Entry::ToolResult {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            output: output.text,
            is_error: !output.ok,
            full_text: output.full_text,
        });
    }

    /// Answers calls that will not run, so each call keeps its one result.
    fn answer_unrun(&mut self, calls: &[ToolCall], why: &str) {
        for call in calls {
            self.record(Entry::ToolResult {
                call_id: call.id.clone(),
                tool: call.name.clone(),
                output: format!(
                    "TOOL_ERROR: {why}\nRECOVERY: wait for the user's next message before retrying it"
                ),
                is_error: true,
                full_text: None,
            });
        }
    }

    /// True unless the last compaction left the transcript about as heavy
    /// as it is now (a tenth of the window is "grown again").
    fn grew_since_compaction(&self) -> bool {
        self.compacted_weight.is_none_or(|weight| {
            self.transcript.weight() > weight + self.budget.bytes_for(self.budget.window() / 10)
        })
    }

    pub(crate) async fn compact_with(&mut self, trigger: Trigger) {
        let fixed = self.fixed_bytes();
        let report = compaction::compact(
            &mut self.transcript,
            &self.budget,
            fixed,
            self.provider.as_ref(),
            &self.model,
            trigger,
            self.tools.cancel_token(),
        )
        .await;
        self.compacted_weight = Some(self.transcript.weight());
        self.emit(&AgentEvent::Compaction {
            trigger: trigger.name(),
            tokens_before: report.tokens_before,
            tokens_after: report.tokens_after,
            outputs_shrunk: report.outputs_shrunk,
            entries_summarized: report.entries_summarized,
            summary_by: report.summary_by,
        });
    }
}

fn stop(outcome: &mut TurnOutcome, stop: TurnStop, reason: &str) -> Result<(), AgentError> {
    outcome.stop = stop;
    outcome.reason = Some(reason.to_owned());
    Ok(())
}

fn title(prompt: &str) -> String {
    let line = prompt.lines().next().unwrap_or("").trim();
    let mut title: String = line.chars().take(80).collect();
    if line.chars().count() > 80 {
        title.push('…');
    }
    title
}
