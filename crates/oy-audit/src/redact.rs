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

use std::sync::LazyLock;

use regex::{Regex, RegexSet};
use serde::Serialize;

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
    if !PREFILTER.is_match(text) {
        return (text.to_owned(), Vec::new());
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len());
    let mut redactions = Vec::new();
    let mut index = 0;
    while let Some(&line) = lines.get(index) {
        let (content, ending) = split_ending(line);
        let kind = if is_marker(content) {
            None
        } else if BEGIN_PRIVATE_KEY.is_match(content) {
            // The whole block goes: the BEGIN line, every body line, the END line.
            let end = private_key_block_end(&lines, index);
            for (offset, block_line) in lines
                .get(index..=end)
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                let (block_content, block_ending) = split_ending(block_line);
                push_marker(&mut out, block_content, "private-key", block_ending);
                redactions.push(Redaction {
                    line: index + offset + 1,
                    kind: "private-key",
                });
            }
            index = end + 1;
            continue;
        } else {
            line_kind(content)
        };
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
        index += 1;
    }
    (out, redactions)
}

/// Splits a line from `split_inclusive('\n')` into its content and its
/// ending (`\n`, `\r\n` or nothing), so the marker keeps the ending.
fn split_ending(line: &str) -> (&str, &str) {
    let content = line
        .strip_suffix("\r\n")
        .or_else(|| line.strip_suffix('\n'))
        .unwrap_or(line);
    (content, line.get(content.len()..).unwrap_or_default())
}

fn push_marker(out: &mut String, content: &str, kind: &str, ending: &str) {
    let indent_len = content.len() - content.trim_start().len();
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

/// A `BEGIN … PRIVATE KEY` marker (PKCS#1/#8, EC, DSA, OpenSSH, encrypted,
/// and PGP's `PRIVATE KEY BLOCK`).
static BEGIN_PRIVATE_KEY: LazyLock<Regex> =
    LazyLock::new(|| regex(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"));
static END_PRIVATE_KEY: LazyLock<Regex> =
    LazyLock::new(|| regex(r"-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"));
/// A PEM armour header inside a block (`Proc-Type: 4,ENCRYPTED`, `DEK-Info: …`).
static PEM_HEADER: LazyLock<Regex> = LazyLock::new(|| regex(r"^[A-Za-z][A-Za-z-]*: \S"));

/// The index of the last line of the private-key block starting at
/// `begin`: its END line, or the last line that still looks like key body.
///
/// Body lines are followed only while they look like PEM body (base64,
/// armour headers, blank), after stripping the string-literal noise that
/// keys embedded in source carry (`"…\n" +`). Code that merely mentions a
/// BEGIN marker (a PEM parser) thus loses that one line, not the rest of
/// the file; a real key, in a file or in a literal, loses every line.
fn private_key_block_end(lines: &[&str], begin: usize) -> usize {
    let Some(first) = lines.get(begin) else {
        return begin;
    };
    let (first, _) = split_ending(first);
    // The whole key on one line (JSON with `\n` escapes, say).
    if BEGIN_PRIVATE_KEY
        .find(first)
        .is_some_and(|m| END_PRIVATE_KEY.is_match(first.get(m.end()..).unwrap_or_default()))
    {
        return begin;
    }
    let mut last = begin;
    for (index, line) in lines.iter().enumerate().skip(begin + 1) {
        let (content, _) = split_ending(line);
        if END_PRIVATE_KEY.is_match(content) {
            return index;
        }
        if !looks_like_pem_body(content) {
            break;
        }
        last = index;
    }
    last
}

fn looks_like_pem_body(content: &str) -> bool {
    let noise = |c: char| c.is_whitespace() || "\"'`,+;\\".contains(c);
    let mut body = content.trim_matches(noise);
    // A literal's escaped line break, possibly doubled as `\r\n`.
    while let Some(rest) = body
        .strip_suffix("\\n")
        .or_else(|| body.strip_suffix("\\r"))
    {
        body = rest.trim_matches(noise);
    }
    body.is_empty()
        || body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=')
        || PEM_HEADER.is_match(body)
}

/// One secret shape: a pattern (also used by the prefilter) and what else
/// must hold for shapes whose pattern alone would catch prose or code.
struct Shape {
    kind: &'static str,
    pattern: &'static str,
    check: Check,
}

#[derive(Clone, Copy)]
enum Check {
    /// The pattern is enough.
    None,
    /// Some match must also pass this.
    Match(fn(&str) -> bool),
    /// The whole line must pass this (the pattern only says "worth a look").
    Line(fn(&str) -> bool),
}

/// In priority order: the first shape a line matches names it, so the
/// specific prefixes (`sk-ant-`) come before the general ones (`sk-`), and
/// the generic assignment comes last.
const SHAPES: &[Shape] = &[
    Shape {
        kind: "private-key",
        pattern: r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----",
        check: Check::None,
    },
    Shape {
        kind: "aws-access-key-id",
        pattern: r"(?-u:\b)(?:AKIA|ASIA)[A-Z0-9]{16}(?-u:\b)",
        check: Check::None,
    },
    Shape {
        kind: "aws-secret-access-key",
        pattern: r#"(?i)aws_?secret_?access_?key["'`]?\s*(?::=|=>|=|:)\s*["'`]?[A-Za-z0-9/+=]{40}(?:[^A-Za-z0-9/+=]|$)"#,
        check: Check::None,
    },
    Shape {
        kind: "github-token",
        pattern: r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})",
        check: Check::None,
    },
    Shape {
        kind: "gitlab-token",
        pattern: r"(?-u:\b)glpat-[A-Za-z0-9_-]{20,}",
        check: Check::None,
    },
    Shape {
        kind: "anthropic-key",
        pattern: r"(?-u:\b)sk-ant-[A-Za-z0-9_-]{20,}",
        check: Check::None,
    },
    Shape {
        kind: "openai-key",
        pattern: r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
        check: Check::Match(openai_key_check),
    },
    Shape {
        kind: "slack-token",
        pattern: r"(?-u:\b)xox[abposr]-[A-Za-z0-9-]{10,}",
        check: Check::None,
    },
    Shape {
        kind: "slack-webhook",
        pattern: r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{8,}",
        check: Check::None,
    },
    Shape {
        kind: "google-api-key",
        pattern: r"(?-u:\b)AIza[0-9A-Za-z_-]{35}",
        check: Check::None,
    },
    Shape {
        kind: "stripe-key",
        pattern: r"(?-u:\b)(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}",
        check: Check::None,
    },
    Shape {
        kind: "npm-token",
        pattern: r"(?-u:\b)npm_[A-Za-z0-9]{36}",
        check: Check::None,
    },
    Shape {
        kind: "pypi-token",
        pattern: r"(?-u:\b)pypi-AgE[A-Za-z0-9_-]{50,}",
        check: Check::None,
    },
    Shape {
        kind: "jwt",
        pattern: r"(?-u:\b)eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
        check: Check::None,
    },
    Shape {
        kind: "url-credentials",
        pattern: r"(?i)(?-u:\b)[a-z][a-z0-9+.-]*://[^\s/:@]+:[^\s/@]{3,}@",
        check: Check::Match(url_credentials_check),
    },
    Shape {
        kind: "generic-secret",
        pattern: r#"(?i)(?:key|secret|token|passw(?:or)?d|pwd|passphrase)["'`\]]?\s*(?:[:=]|=>)"#,
        check: Check::Line(generic_assignment_check),
    },
];

#[expect(
    clippy::expect_used,
    reason = "constant patterns, compiled by every test run"
)]
static PREFILTER: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new(SHAPES.iter().map(|shape| shape.pattern)).expect("redaction patterns are valid")
});

/// Each shape's pattern, compiled alone to re-check a prefiltered line.
static SHAPE_REGEXES: LazyLock<Vec<Regex>> =
    LazyLock::new(|| SHAPES.iter().map(|shape| regex(shape.pattern)).collect());

/// Compiles a pattern from this file. They are constants that every test
/// run compiles, so a failure is a programming error, not bad input; a
/// pattern silently matching nothing would fail open instead.
#[expect(
    clippy::expect_used,
    reason = "constant patterns, compiled by every test run"
)]
fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).expect("redaction patterns are valid")
}

/// The kind of the first shape `content` matches, if any.
fn line_kind(content: &str) -> Option<&'static str> {
    let matched = PREFILTER.matches(content);
    if !matched.matched_any() {
        return None;
    }
    SHAPES
        .iter()
        .zip(SHAPE_REGEXES.iter())
        .enumerate()
        .filter(|(index, _)| matched.matched(*index))
        .find(|(_, (shape, regex))| match shape.check {
            Check::None => true,
            Check::Match(check) => regex.find_iter(content).any(|found| check(found.as_str())),
            Check::Line(check) => check(content),
        })
        .map(|(_, (shape, _))| shape.kind)
}

/// `sk-` is also the start of ordinary hyphenated words (`sk-learn-…`):
/// a key mixes digits with upper- and lowercase letters.
fn openai_key_check(found: &str) -> bool {
    let tail = found.trim_start_matches("sk-");
    tail.bytes().any(|b| b.is_ascii_digit())
        && tail.bytes().any(|b| b.is_ascii_uppercase())
        && tail.bytes().any(|b| b.is_ascii_lowercase())
}

fn url_credentials_check(found: &str) -> bool {
    let Some(password) = found
        .rsplit_once('@')
        .and_then(|(before, _)| before.rsplit_once(':'))
        .map(|(_, password)| password)
    else {
        return false;
    };
    !is_placeholder(password)
}

/// `NAME = value` where NAME ends in a secret-like word.
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    regex(concat!(
        r#"(?i)(?:^|[^A-Za-z0-9])(?:[A-Za-z0-9_-]*?)(key|secret|token|passw(?:or)?d|pwd|passphrase)"#,
        r#"["'`\]]?\s*"#,
        // A type annotation between the name and `=` (`const KEY: &str =`).
        r#"(?::\s*&?(?:'[a-z]+\s+)?[A-Za-z_][A-Za-z0-9_<>\[\]]*\s*)?"#,
        r#"(?:===?|!==?|:=|=>|=|:)\s*"#,
        // A quoted value (with a `b"…"`/`r"…"` prefix), or a bare one.
        r#"(?:[bBrRuf]{0,2}"([^"]*)"|[bBrRuf]{0,2}'([^']*)'|`([^`]*)`|([^\s,;'"`]+))"#,
    ))
});

/// True when some assignment on the line gives a secret-like name a
/// value that looks like a real secret rather than code or a placeholder.
fn generic_assignment_check(content: &str) -> bool {
    ASSIGNMENT.captures_iter(content).any(|captures| {
        let name = captures
            .get(1)
            .map_or("", |m| m.as_str())
            .to_ascii_lowercase();
        let password_like = name.starts_with("pass") || name == "pwd";
        let (value, bare) = match (captures.get(2), captures.get(3), captures.get(4)) {
            (Some(v), _, _) | (_, Some(v), _) | (_, _, Some(v)) => (v.as_str(), false),
            _ => match captures.get(5) {
                Some(v) => (v.as_str(), true),
                None => return false,
            },
        };
        looks_secret(value, bare, password_like)
    })
}

fn looks_secret(value: &str, bare: bool, password_like: bool) -> bool {
    let length = value.chars().count();
    let (min_length, min_entropy) = if password_like { (8, 2.5) } else { (12, 3.0) };
    if length < min_length || value.chars().any(char::is_whitespace) || is_placeholder(value) {
        return false;
    }
    if bare && is_code_reference(value) {
        return false;
    }
    shannon_entropy(value) >= min_entropy
}

/// A bare value that is code, not data: a call, an index, a field path,
/// a variable name, a literal keyword.
fn is_code_reference(value: &str) -> bool {
    let identifier = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    value.contains(['(', ')', '[', ']', '{', '}', '$', '<', '>'])
        || value.starts_with(['&', '*', '@', ':'])
        || (value.contains('.') && value.split('.').all(identifier))
        || (identifier(value) && !value.chars().any(|c| c.is_ascii_digit()))
}

/// Values that stand in for a secret: templates, environment lookups,
/// documentation fillers.
fn is_placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let filler = |c: char| matches!(c, 'x' | '*' | '.' | '-' | '_' | '0' | '#');
    lower.chars().all(filler)
        || (lower.starts_with('<') && lower.ends_with('>'))
        || lower.contains("${")
        || lower.contains("{{")
        || lower.contains("%(")
        || lower.starts_with('$')
        || lower.starts_with("your")
        || [
            "changeme",
            "change_me",
            "change-me",
            "placeholder",
            "example",
            "process.env",
            "os.environ",
            "getenv",
            "env!(",
            "env::var",
            "redacted",
        ]
        .iter()
        .any(|word| lower.contains(word))
}

/// Shannon entropy in bits per character.
fn shannon_entropy(value: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    let mut total = 0_u32;
    for c in value.chars() {
        *counts.entry(c).or_insert(0_u32) += 1;
        total += 1;
    }
    let total = f64::from(total);
    counts
        .values()
        .map(|&count| {
            let p = f64::from(count) / total;
            -p * p.log2()
        })
        .sum()
}
