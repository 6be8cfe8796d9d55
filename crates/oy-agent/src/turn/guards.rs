//! `Guards`: what the tool loop of one turn counts to stop a model that
//! goes in circles — the same failing call again and again, and tool-only
//! answers that make no progress.

use std::collections::HashSet;

/// A call as the guards compare it: the tool and its canonical arguments.
pub(super) type CallKey = (String, String);

/// The key of a call: the same call, spelled with different whitespace or
/// key order, is still the same call.
pub(super) fn call_key(tool: &str, raw_arguments: &str) -> CallKey {
    let arguments = serde_json::from_str::<serde_json::Value>(raw_arguments)
        .map(|value| value.to_string())
        .unwrap_or_else(|_| raw_arguments.trim().to_owned());
    (tool.to_owned(), arguments)
}

/// Tracks the loop's guards within one turn.
#[derive(Default)]
pub(super) struct Guards {
    last_failure: Option<CallKey>,
    repeats: u32,
    /// Tool-only answers in a row that made no progress.
    tool_only: u32,
    /// Calls that succeeded in this turn: a successful call not seen
    /// before is progress.
    succeeded: HashSet<CallKey>,
}

impl Guards {
    /// Counts a failing call; returns how many times in a row this same
    /// call has now failed.
    pub(super) fn repeated(&mut self, key: CallKey) -> u32 {
        if self.last_failure.as_ref() == Some(&key) {
            self.repeats += 1;
        } else {
            self.last_failure = Some(key);
            self.repeats = 1;
        }
        self.repeats
    }

    /// Counts a successful call, which ends a failure streak; true when it
    /// is new in this turn (progress).
    pub(super) fn succeeded(&mut self, key: CallKey) -> bool {
        self.last_failure = None;
        self.repeats = 0;
        self.succeeded.insert(key)
    }

    /// Counts an answer whose calls all ran; returns how many tool-only
    /// answers in a row have now made no progress.
    pub(super) fn answered(&mut self, progressed: bool) -> u32 {
        self.tool_only = if progressed { 0 } else { self.tool_only + 1 };
        self.tool_only
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_call_spelled_differently_is_the_same_call() {
        assert_eq!(
            call_key("read", r#"{"path": "a", "limit": 2}"#),
            call_key("read", r#"{"limit":2,"path":"a"}"#)
        );
        assert_ne!(call_key("read", "{}"), call_key("list", "{}"));
    }

    #[test]
    fn a_success_ends_a_failure_streak() {
        let mut guards = Guards::default();
        let key = call_key("read", "{}");
        assert_eq!(guards.repeated(key.clone()), 1);
        assert_eq!(guards.repeated(key.clone()), 2);
        assert!(guards.succeeded(call_key("list", "{}")));
        assert!(!guards.succeeded(call_key("list", "{}")));
        assert_eq!(guards.repeated(key), 1);
        assert_eq!((guards.answered(false), guards.answered(false)), (1, 2));
        assert_eq!(guards.answered(true), 0);
    }
}
