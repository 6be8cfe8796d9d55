//! Content-level redaction: lines carrying well-known secret shapes are
//! replaced by a `[redacted: KIND]` marker before any text leaves the
//! machine.
//!
//! Whole lines go, not just the matched token: a line that held a secret
//! often holds its neighbours too (a key id next to its secret, a user next
//! to a password), and a line-granular rule is easy to state and to test.
//! The marker keeps the line's indentation and its line ending, so line
//! numbers (which findings cite as evidence) stay exact. Redacting twice
//! changes nothing: a marker line is never looked at again.
//!
//! What a secret looks like is `oy-secrets`' table, shared with the
//! child-process environment filter; this module owns the line engine
//! (`line_kind` for one line, `pem` for private-key blocks, `yaml` for
//! values below a secret-named key) and the audit's own heuristics for
//! secret-named assignments (`assignment`, judging values with `value`).

mod assignment;
mod line_kind;
mod pem;
mod value;
mod yaml;

use regex::Regex;
use serde::Serialize;

use line_kind::Candidates;
use pem::{BEGIN_PRIVATE_KEY, END_PRIVATE_KEY, private_key_block_end};
use yaml::{Continuation, is_mapping_entry, yaml_secret_key};

/// One redacted line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redaction {
    /// 1-based line number.
    pub line: usize,
    /// What it looked like (`aws-access-key-id`, `private-key`, …).
    pub kind: &'static str,
}

/// Returns `text` with every secret-shaped line replaced by
/// `[redacted: KIND]` (line count and numbering unchanged), and the list of
/// redactions.
pub fn redact(text: &str) -> (String, Vec<Redaction>) {
    // Most files hold nothing secret-shaped: one scan of the whole text
    // decides that without splitting it into lines.
    let candidates = Candidates::of(text);
    if candidates.is_empty() {
        return (text.to_owned(), Vec::new());
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len());
    let mut redactions = Vec::new();
    let mut redact_line = |out: &mut String, index: usize, content: &str, kind, ending: &str| {
        push_marker(out, content, kind, ending);
        redactions.push(Redaction {
            line: index + 1,
            kind,
        });
    };
    // The value of a secret-named YAML key that goes on below it.
    let mut continuation: Option<Continuation> = None;
    let mut end_lines: Option<Vec<usize>> = None;
    let mut index = 0;
    while let Some(&line) = lines.get(index) {
        let (content, ending) = split_ending(line);
        if is_marker(content) || content.trim().is_empty() {
            out.push_str(line);
            index += 1;
            continue;
        }
        if let Some(open) = continuation {
            if indent_of(content) > open.indent && (open.block || !is_mapping_entry(content)) {
                redact_line(&mut out, index, content, "generic-secret", ending);
                index += 1;
                continue;
            }
            continuation = None;
        }
        if BEGIN_PRIVATE_KEY.is_match(content) {
            // The whole block goes: the BEGIN line, every body line, the END line.
            // The END lines, found once: each BEGIN looks up the next.
            let ends = end_lines.get_or_insert_with(|| {
                lines
                    .iter()
                    .enumerate()
                    .filter(|(_, line)| END_PRIVATE_KEY.is_match(line))
                    .map(|(index, _)| index)
                    .collect()
            });
            let end = private_key_block_end(&lines, index, ends);
            for (offset, block_line) in lines
                .get(index..=end)
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                let (block_content, block_ending) = split_ending(block_line);
                redact_line(
                    &mut out,
                    index + offset,
                    block_content,
                    "private-key",
                    block_ending,
                );
            }
            index = end + 1;
            continue;
        }
        match candidates.line_kind(content) {
            Some(kind) => redact_line(&mut out, index, content, kind, ending),
            None => {
                continuation = yaml_secret_key(content);
                out.push_str(line);
            }
        }
        index += 1;
    }
    (out, redactions)
}

pub(super) fn indent_of(content: &str) -> usize {
    content.len() - content.trim_start().len()
}

/// Splits a line from `split_inclusive('\n')` into its content and its
/// ending (`\n`, `\r\n` or nothing), so the marker keeps the ending.
pub(super) fn split_ending(line: &str) -> (&str, &str) {
    let content = line
        .strip_suffix("\r\n")
        .or_else(|| line.strip_suffix('\n'))
        .unwrap_or(line);
    (content, line.get(content.len()..).unwrap_or_default())
}

fn push_marker(out: &mut String, content: &str, kind: &str, ending: &str) {
    let indent_len = indent_of(content);
    out.push_str(content.get(..indent_len).unwrap_or_default());
    out.push_str("[redacted: ");
    out.push_str(kind);
    out.push(']');
    out.push_str(ending);
}

fn is_marker(content: &str) -> bool {
    let trimmed = content.trim();
    trimmed.starts_with("[redacted: ")
        && trimmed.ends_with(']')
        && trimmed
            .get("[redacted: ".len()..trimmed.len() - 1)
            .is_some_and(|kind| {
                !kind.is_empty() && kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
            })
}

/// Compiles a pattern of this module. They are constants that every test
/// run compiles, so a failure is a programming error, not bad input; a
/// pattern silently matching nothing would fail open instead.
#[expect(
    clippy::expect_used,
    reason = "constant patterns, compiled by every test run"
)]
pub(super) fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).expect("redaction patterns are valid")
}
