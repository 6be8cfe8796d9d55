//! Statements that span lines, so that a secret split from its name is
//! judged whole: a backslash continuation (`mysql -u root \` then
//! `-pS3cret`), string literals concatenated across lines (`token =
//! "eyJ…" +` then `"eyJ…"`), a value on the line after its `=`, and a
//! parenthesised group of literals (`KEY = (` then `"part" "part"` then
//! `)`). The joined text is read as one line (`reading`), and judged.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::regex;

/// The most lines one statement is joined across.
const MAX_LINES: usize = 20;

/// A line that ends in a string literal and a concatenation operator.
static ENDS_CONCATENATING: LazyLock<Regex> =
    LazyLock::new(|| regex(r#"["'`]\s*(?:\+|\.\.?|&|\|\|)$"#));
/// A line that starts with a concatenation operator and a literal.
static STARTS_CONCATENATING: LazyLock<Regex> =
    LazyLock::new(|| regex(r#"^(?:\+|\.\.?|&|\|\|)\s*["'`]"#));
/// `NAME = (`: a group of literals follows.
static OPENS_GROUP: LazyLock<Regex> = LazyLock::new(|| regex(r"[^=!<>]=\s*\($"));

/// The ranges of line indices that one statement spans, two lines or
/// more each (`contents` are the lines without their endings).
pub(super) fn statements(contents: &[&str]) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    let mut index = 0;
    while index < contents.len() {
        let end = statement_end(contents, index);
        if end > index {
            found.push(index..end + 1);
        }
        index = end + 1;
    }
    found
}

/// The last line of the statement that starts on line `start`.
fn statement_end(contents: &[&str], start: usize) -> usize {
    let first = contents.get(start).map_or("", |line| line.trim_end());
    if first.ends_with('(') && OPENS_GROUP.is_match(first) {
        // Up to the line that closes the group.
        let close = contents
            .iter()
            .enumerate()
            .skip(start + 1)
            .take(MAX_LINES)
            .find(|(_, line)| {
                let line = line.trim();
                line.starts_with([')', ']']) || line.ends_with([')', ']']) || line.ends_with(");")
            });
        return close.map_or(start, |(index, _)| index);
    }
    let mut end = start;
    while end + 1 < contents.len() && end - start + 1 < MAX_LINES {
        let here = contents.get(end).map_or("", |line| line.trim_end());
        let next = contents.get(end + 1).map_or("", |line| line.trim());
        // Cheap tests first: most lines end and start otherwise.
        let last = here.bytes().last().unwrap_or_default();
        let first = next.bytes().next().unwrap_or_default();
        let continues = (last == b'\\' && !here.ends_with("\\\\"))
            || (b"+.&|".contains(&last) && ENDS_CONCATENATING.is_match(here))
            || (b"+.&|".contains(&first) && STARTS_CONCATENATING.is_match(next))
            || (last == b'=' && ends_with_assignment(here));
        if !continues || next.is_empty() {
            break;
        }
        end += 1;
    }
    end
}

/// `NAME =` with the value on the next line: a name, a space and the
/// operator (base64's `=` padding has no space before it; `==`, `!=`,
/// `<=`, `>=` compare).
fn ends_with_assignment(line: &str) -> bool {
    ENDS_WITH_ASSIGNMENT.is_match(line)
}

static ENDS_WITH_ASSIGNMENT: LazyLock<Regex> =
    LazyLock::new(|| regex(r#"[A-Za-z0-9_\]"'][ \t]+:?=$"#));

/// The lines of a statement as one line: continuation backslashes
/// dropped, lines joined by a space.
pub(super) fn joined(contents: &[&str], range: Range<usize>) -> String {
    contents
        .get(range)
        .unwrap_or_default()
        .iter()
        .map(|line| {
            let line = line.trim();
            line.strip_suffix('\\').unwrap_or(line).trim_end()
        })
        .collect::<Vec<_>>()
        .join(" ")
}
