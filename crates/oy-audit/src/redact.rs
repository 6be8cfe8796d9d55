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
//! What a secret looks like is `oy-secrets`' table (oy's own shapes and
//! the vendored gitleaks rules), shared with the child-process environment
//! filter; this module owns the line engine and the audit's own
//! heuristics:
//! - one line: `line_kind` (shapes by the keywords on the line, then the
//!   heuristics for secret-named assignments in `assignment`, judging
//!   values with `value`), also on the line read another way (`reading`:
//!   escaped quotes undone, concatenated literals joined);
//! - several lines: key blocks (`blocks`: PEM, OpenVPN, SSH2, PuTTY),
//!   values below a secret-named YAML key (`yaml`), multi-line strings
//!   given to a secret name (`multiline`), heredocs fed to a command that
//!   names a credential (`heredoc`), the data of Kubernetes Secrets
//!   (`manifest`), and statements split across lines (`statement`), whose
//!   joined text is judged as one line.

mod assignment;
mod blocks;
mod directive;
mod heredoc;
mod line_kind;
mod manifest;
mod multiline;
mod reading;
mod statement;
mod value;
mod yaml;

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use blocks::{Block, block_begun_by, block_end};
use heredoc::{Heredoc, secret_heredoc};
use line_kind::{Candidates, text_kind};
use multiline::{OpenString, secret_string};
use yaml::{Continuation, is_mapping_entry, yaml_secret_key};

/// One redacted line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redaction {
    /// 1-based line number.
    pub line: usize,
    /// What it looked like (`aws-access-key-id`, `private-key`, …).
    pub kind: &'static str,
}

/// What holds the lines below the current one.
enum Open {
    /// The value of a secret-named YAML key.
    Yaml(Continuation),
    /// A multi-line string given to a secret name.
    String(OpenString),
    /// A heredoc fed to a command that names a credential.
    Heredoc(Heredoc),
}

/// The kind every multi-line value (YAML, strings, heredocs) is named.
const VALUE_KIND: &str = "generic-secret";
/// The kind of a Kubernetes Secret's data values.
const MANIFEST_KIND: &str = "kubernetes-secret";

/// Returns `text` with every secret-shaped line replaced by
/// `[redacted: KIND]` (line count and numbering unchanged), and the list of
/// redactions.
pub fn redact(text: &str) -> (String, Vec<Redaction>) {
    // Most files hold nothing secret-shaped: one scan of the whole text
    // decides that without splitting it into lines.
    let candidates = Candidates::of(text);
    if candidates.is_empty() && !text.contains("Secret") {
        return (text.to_owned(), Vec::new());
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let manifest = manifest::secret_data_lines(text, &lines);
    if candidates.is_empty() && manifest.is_empty() {
        return (text.to_owned(), Vec::new());
    }
    let kinds = judge(&lines, &candidates, &manifest);
    let mut out = String::with_capacity(text.len());
    let mut redactions = Vec::new();
    for (index, (line, kind)) in lines.iter().zip(kinds).enumerate() {
        let (content, ending) = split_ending(line);
        match kind {
            Some(kind) => {
                push_marker(&mut out, content, kind, ending);
                redactions.push(Redaction {
                    line: index + 1,
                    kind,
                });
            }
            None => out.push_str(line),
        }
    }
    (out, redactions)
}

/// The kind of every line that goes (`None` for the lines that stay).
fn judge(lines: &[&str], candidates: &Candidates, manifest: &[usize]) -> Vec<Option<&'static str>> {
    let contents: Vec<&str> = lines.iter().map(|line| split_ending(line).0).collect();
    let mut kinds: Vec<Option<&'static str>> = vec![None; lines.len()];
    for &index in manifest {
        // A line redacted before stays as it is: redacting twice changes
        // nothing.
        if contents.get(index).is_some_and(|line| !is_marker(line)) {
            set(&mut kinds, index, Some(MANIFEST_KIND));
        }
    }
    // Where each line starts in the text: keyword hits are by offset.
    let mut starts = Vec::with_capacity(lines.len());
    let mut offset = 0;
    for line in lines {
        starts.push(offset);
        offset += line.len();
    }
    // Each block kind's END lines, found once: each BEGIN looks up the next.
    let mut end_lines: HashMap<&'static str, Vec<usize>> = HashMap::new();
    // The lines that can hold or open something; others are looked at only
    // while a value opened above goes on.
    let worth = candidates.lines(&starts);
    let wanted = &worth.wanted;
    let mut open: Option<Open> = None;
    let mut index = 0;
    loop {
        if open.is_none() {
            match wanted.get(wanted.partition_point(|&line| line < index)) {
                Some(&line) => index = line,
                None => break,
            }
        }
        let Some(&content) = contents.get(index) else {
            break;
        };
        if kinds.get(index).is_some_and(Option::is_some)
            || is_marker(content)
            || content.trim().is_empty()
        {
            index += 1;
            continue;
        }
        let entry = match below_open(&mut open, content) {
            Below::Decided(kind) => {
                set(&mut kinds, index, kind);
                index += 1;
                continue;
            }
            Below::Entry => true,
            Below::Outside => false,
        };
        if let Some(block) = block_begun_by(content) {
            let ends = end_lines
                .entry(block.kind)
                .or_insert_with(|| ends_of(block, &contents));
            let end = block_end(block, lines, index, ends);
            for at in index..=end {
                set(&mut kinds, at, Some(block.kind));
            }
            index = end + 1;
            continue;
        }
        let start = starts.get(index).copied().unwrap_or_default();
        let heuristic = worth.heuristic.binary_search(&index).is_ok();
        match candidates.line_kind(start..start + content.len(), content, heuristic) {
            Some(kind) => set(&mut kinds, index, Some(kind)),
            // Openers name a secret (a heuristic's trigger) or a heredoc.
            None if entry || !(heuristic || content.contains("<<")) => {}
            None => open = opened_by(content, &contents, index, &mut kinds),
        }
        index += 1;
    }
    for range in statement::statements(&contents) {
        let looked_at = range.clone().any(|at| wanted.binary_search(&at).is_ok());
        if !looked_at {
            continue;
        }
        let member = range
            .clone()
            .find_map(|at| kinds.get(at).copied().flatten());
        let kind = member.or_else(|| {
            let joined = statement::joined(&contents, range.clone());
            text_kind(&joined).or_else(|| reading::of_text(&joined).and_then(|r| text_kind(&r)))
        });
        if kind.is_some() {
            for at in range {
                let content = contents.get(at).copied().unwrap_or_default();
                if kinds.get(at).is_some_and(Option::is_none)
                    && !content.trim().is_empty()
                    && !is_marker(content)
                {
                    set(&mut kinds, at, kind);
                }
            }
        }
    }
    kinds
}

/// How a line relates to a value opened above it.
enum Below {
    /// Nothing is open (or the line ends a YAML value): judged as usual.
    Outside,
    /// Inside an opened value: it goes as `kind` (`None`: it stays).
    Decided(Option<&'static str>),
    /// Inside a string or heredoc, but structured (`key: value`, `{`):
    /// judged as usual, opening nothing.
    Entry,
}

/// How `content` relates to what `open` holds; closes it at its end.
fn below_open(open: &mut Option<Open>, content: &str) -> Below {
    let Some(current) = open.as_ref() else {
        return Below::Outside;
    };
    match current {
        Open::Yaml(value) => {
            if indent_of(content) > value.indent && (value.block || !is_mapping_entry(content)) {
                return Below::Decided(Some(VALUE_KIND));
            }
            *open = None;
            Below::Outside
        }
        Open::String(string) => {
            if !string.ends_at(content) {
                return opaque_or_entry(content);
            }
            // The closing line goes too when value precedes the delimiter.
            let rest = content
                .split(string.close.as_str())
                .next()
                .unwrap_or_default();
            let below = if is_opaque(rest) {
                Below::Decided(Some(VALUE_KIND))
            } else {
                Below::Decided(None)
            };
            *open = None;
            below
        }
        Open::Heredoc(heredoc) => {
            if !heredoc.ends_at(content) {
                return opaque_or_entry(content);
            }
            *open = None;
            Below::Decided(None)
        }
    }
}

fn opaque_or_entry(content: &str) -> Below {
    if is_opaque(content) {
        Below::Decided(Some(VALUE_KIND))
    } else {
        Below::Entry
    }
}

/// `key: value`, `key = value`, `"key": …`, `<tag>`, `[section]`, a
/// comment; the key a name (`db_host`, `LOG_LEVEL`, `apiUrl`), not a run
/// of random characters that holds an `=` (`Gqz43BTM=6` is a password).
static ENTRY: LazyLock<Regex> = LazyLock::new(|| {
    regex(concat!(
        r#"^(?:["']?(?:[a-z0-9_.$@-]+|[A-Z0-9_.-]+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+)["']?\s*"#,
        r#"(?::|=|=>)(?:\s|$|[^=])|<|\[[^\]]*\]$|#|//)"#
    ))
});

/// A line of a multi-line value with no structure of its own (a base64
/// run, a token, a password, words): the secret itself, where a structured
/// line (`key: value`, `{`, `[section]`, a comment) is judged as usual.
pub(super) fn is_opaque(content: &str) -> bool {
    let noise = |c: char| c.is_whitespace() || "\"'`,;+()\\".contains(c);
    let line = content.trim_matches(noise);
    let line = line.strip_suffix("\\n").unwrap_or(line).trim_matches(noise);
    !line.is_empty() && !line.chars().all(|c| "{}[]<>/=".contains(c)) && !ENTRY.is_match(line)
}

/// What `content` (a line that holds no secret itself) opens for the
/// lines below: a secret-named YAML key, a multi-line string given to a
/// secret name (the line goes too when the value starts on it), or a
/// heredoc fed to a command that names a credential.
fn opened_by(
    content: &str,
    contents: &[&str],
    index: usize,
    kinds: &mut [Option<&'static str>],
) -> Option<Open> {
    if let Some(value) = yaml_secret_key(content) {
        return Some(Open::Yaml(value));
    }
    if let Some((string, holds_value)) =
        secret_string(content).filter(|(string, _)| multiline::closes(string, contents, index))
    {
        if holds_value {
            set(kinds, index, Some(VALUE_KIND));
        }
        return Some(Open::String(string));
    }
    secret_heredoc(content)
        .filter(|heredoc| heredoc::closes(heredoc, contents, index))
        .map(Open::Heredoc)
}

/// The indices of the lines that end a block of this kind.
fn ends_of(block: &Block, contents: &[&str]) -> Vec<usize> {
    contents
        .iter()
        .enumerate()
        .filter(|(_, line)| block.end.is_match(line))
        .map(|(index, _)| index)
        .collect()
}

fn set(kinds: &mut [Option<&'static str>], index: usize, kind: Option<&'static str>) {
    if let Some(slot) = kinds.get_mut(index) {
        *slot = kind;
    }
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
                !kind.is_empty()
                    && kind
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
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
