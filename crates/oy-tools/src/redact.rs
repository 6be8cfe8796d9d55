//! Redacting a command's output before a model sees it, when the command
//! ran outside the sandbox with the person's whole environment (a chat's
//! `!command`): `env`, `cat ~/.aws/credentials` or a verbose `curl` print
//! credentials that the child-environment filter keeps from every command
//! a model runs.
//!
//! Two rules, both `oy-secrets`' judgement: every secret shape found in the
//! text ([`oy_secrets::find_secrets`]), and the value of every
//! `NAME=value` line (`env`, `export`, `declare -x`) that the
//! child-environment filter would drop ([`crate::is_credential_like`]).
//! Only the value goes — `OPENAI_API_KEY=[redacted: credential]` still
//! tells the model the variable is set.

use std::ffi::OsStr;
use std::ops::Range;

use crate::child_env::is_credential_like;

/// Text with its secret-shaped values replaced by `[redacted: KIND]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted {
    /// The text to show a model.
    pub text: String,
    /// How many values were replaced.
    pub count: usize,
}

/// The kind named for a value redacted by its variable's name.
const CREDENTIAL: &str = "credential";

/// Replaces every secret-shaped value in `text` (see the module doc).
pub fn redact_secrets(text: &str) -> Redacted {
    let assignments: Vec<Assignment> = assignments(text).collect();
    // A shape found on the line of an assignment whose value goes (its
    // pattern may take in the name, `AWS_SECRET_ACCESS_KEY=…`) is covered
    // by the value's redaction: the name stays.
    let on_assignment = |range: &Range<usize>| {
        assignments
            .iter()
            .any(|a| a.secret && a.line.start <= range.start && range.end <= a.line.end)
    };
    let mut spans: Vec<(Range<usize>, &'static str)> = oy_secrets::find_secrets(text)
        .into_iter()
        .filter(|span| !on_assignment(&span.range))
        .map(|span| {
            // A pattern that ends at a delimiter may take in the line's end.
            let kept = text.get(span.range.clone()).unwrap_or_default();
            let trimmed = kept.trim_end_matches(char::is_whitespace).len();
            (span.range.start..span.range.start + trimmed, span.kind)
        })
        .filter(|(range, _)| !range.is_empty())
        .collect();
    spans.extend(
        assignments
            .iter()
            .filter(|a| a.secret)
            .map(|a| (a.value.clone(), CREDENTIAL)),
    );
    spans.sort_by_key(|(range, _)| (range.start, std::cmp::Reverse(range.end)));
    let mut out = String::with_capacity(text.len());
    let mut count = 0;
    let mut done = 0;
    let mut spans = spans.into_iter().peekable();
    while let Some((mut range, kind)) = spans.next() {
        // Overlapping spans (a key inside a secret-named assignment) are
        // one redaction, named by the first.
        while let Some((next, _)) = spans.peek() {
            if next.start >= range.end {
                break;
            }
            range.end = range.end.max(next.end);
            spans.next();
        }
        let start = range.start.max(done);
        if start >= range.end {
            continue;
        }
        let (Some(before), Some(_)) = (text.get(done..start), text.get(start..range.end)) else {
            continue;
        };
        out.push_str(before);
        out.push_str(&format!("[redacted: {kind}]"));
        count += 1;
        done = range.end;
    }
    out.push_str(text.get(done..).unwrap_or_default());
    Redacted { text: out, count }
}

/// One `NAME=value` line.
struct Assignment {
    /// The whole line, its line ending included.
    line: Range<usize>,
    /// The value.
    value: Range<usize>,
    /// True when the child-environment filter would drop the variable.
    secret: bool,
}

/// The `NAME=value` lines of `text` (`env`, `export`, `declare -x`).
fn assignments(text: &str) -> impl Iterator<Item = Assignment> + '_ {
    let mut offset = 0;
    text.split_inclusive('\n').filter_map(move |line| {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let body = content.trim_start();
        let body = ["export ", "declare -x "]
            .iter()
            .find_map(|prefix| body.strip_prefix(prefix))
            .unwrap_or(body);
        let (name, value) = body.split_once('=')?;
        let is_name = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !is_name || value.is_empty() {
            return None;
        }
        let unquoted = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
            .unwrap_or(value);
        let value_start = start + (content.len() - value.len());
        Some(Assignment {
            line: start..offset,
            value: value_start..start + content.len(),
            secret: is_credential_like(OsStr::new(name), OsStr::new(unquoted)),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn openai_key() -> String {
        concat!("sk-", "proj-", "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z").to_owned()
    }

    fn aws_key_id() -> String {
        concat!("AKIA", "QZ3X7RT2MW9PLK4J").to_owned()
    }

    #[test]
    fn env_output_keeps_names_and_loses_credentials() {
        let aws_secret = concat!("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYq8r3Zt9uWv");
        let text = format!(
            "HOME=/Users/u\nOPENAI_API_KEY={}\nAWS_ACCESS_KEY_ID={}\nAWS_SECRET_ACCESS_KEY={aws_secret}\nMY_SERVICE_TOKEN=plain-but-named\nPATH=/usr/bin:/bin\n",
            openai_key(),
            aws_key_id()
        );
        let redacted = redact_secrets(&text);
        assert!(!redacted.text.contains(&openai_key()), "{}", redacted.text);
        assert!(!redacted.text.contains(&aws_key_id()), "{}", redacted.text);
        assert!(!redacted.text.contains(aws_secret), "{}", redacted.text);
        assert!(
            !redacted.text.contains("plain-but-named"),
            "{}",
            redacted.text
        );
        assert!(
            redacted.text.contains("HOME=/Users/u\n"),
            "{}",
            redacted.text
        );
        assert!(redacted.text.contains("PATH=/usr/bin:/bin\n"));
        assert!(redacted.text.contains("OPENAI_API_KEY=[redacted: "));
        assert!(
            redacted
                .text
                .contains("\nAWS_SECRET_ACCESS_KEY=[redacted: credential]\nMY_SERVICE_TOKEN="),
            "{}",
            redacted.text
        );
        assert!(
            redacted
                .text
                .contains("MY_SERVICE_TOKEN=[redacted: credential]")
        );
        assert_eq!(redacted.count, 4, "{}", redacted.text);
    }

    #[test]
    fn a_key_in_free_text_goes_and_the_text_around_it_stays() {
        let text = format!("using key {} for the call\ndone\n", openai_key());
        let redacted = redact_secrets(&text);
        assert_eq!(
            redacted.text,
            "using key [redacted: openai-key] for the call\ndone\n"
        );
        assert_eq!(redacted.count, 1);
    }

    #[test]
    fn export_and_quoted_values_are_read_as_assignments() {
        let text = "export GITHUB_TOKEN=\"abc\"\ndeclare -x DB_PASSWORD='hunter2'\r\n";
        let redacted = redact_secrets(text);
        assert_eq!(
            redacted.text,
            "export GITHUB_TOKEN=[redacted: credential]\ndeclare -x DB_PASSWORD=[redacted: credential]\r\n"
        );
    }

    #[test]
    fn clean_text_is_unchanged() {
        let text = "hi\nCARGO_TERM_COLOR=always\nwhat = 3\n=x\n";
        let redacted = redact_secrets(text);
        assert_eq!(redacted.text, text);
        assert_eq!(redacted.count, 0);
    }
}
