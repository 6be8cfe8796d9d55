//! A request's token usage: as the server reported it, or estimated from
//! the bytes sent and received, added to the turn's.

use super::{Answer, TurnOutcome};
use crate::agent::Agent;
use crate::events::TokenUsage;

impl Agent {
    /// Adds one request's tokens to the turn's, and returns them: as the
    /// server reported them, else estimated from the bytes sent and
    /// received (which also teaches the budget the bytes-per-token ratio).
    pub(super) fn account(
        &mut self,
        outcome: &mut TurnOutcome,
        answer: &Answer,
        request_bytes: usize,
    ) -> TokenUsage {
        let usage = match answer.usage {
            Some(usage) if usage.input_tokens > 0 => {
                self.budget.calibrate(request_bytes, usage.input_tokens);
                TokenUsage {
                    input_tokens: usage.input_tokens,
                    output_tokens: usage.output_tokens,
                    cached_input_tokens: usage.cached_input_tokens,
                    estimated: false,
                }
            }
            _ => {
                let answer_bytes = answer.text.len()
                    + answer
                        .calls
                        .iter()
                        .map(|call| call.arguments.len())
                        .sum::<usize>();
                TokenUsage {
                    input_tokens: self.budget.estimate(request_bytes),
                    output_tokens: self.budget.estimate(answer_bytes),
                    cached_input_tokens: 0,
                    estimated: true,
                }
            }
        };
        outcome.usage.input_tokens += usage.input_tokens;
        outcome.usage.output_tokens += usage.output_tokens;
        outcome.usage.cached_input_tokens += usage.cached_input_tokens;
        outcome.usage.estimated |= usage.estimated;
        usage
    }
}
