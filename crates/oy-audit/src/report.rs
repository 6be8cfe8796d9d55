//! The report: `ISSUES.md` (a transparency line, a findings summary
//! table, the findings, and a machine-readable JSON block), SARIF 2.1.0
//! for code scanning, and reading an earlier report's findings back so
//! they are carried forward rather than duplicated.

mod clean;
mod sarif;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::collect::SkipReason;
use crate::review::{Finding, Severity};

/// What was sent where, and what was left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Transparency {
    /// The command as run (`oy audit "focus on auth"`).
    pub command: String,
    /// The provider's short name.
    pub provider: String,
    /// The model id.
    pub model: String,
    /// Files whose text was sent.
    pub files_sent: usize,
    /// Bytes of file text sent.
    pub bytes_sent: usize,
    /// Model calls made.
    pub model_calls: usize,
    /// Skips by reason.
    pub skipped: BTreeMap<SkipReason, usize>,
    /// Lines redacted as secret-shaped.
    pub redacted_lines: usize,
    /// Options that included more data than the defaults, in words.
    pub inclusions: Vec<String>,
    /// Files too large for a chunk skipped as data or documentation, by
    /// path.
    pub skipped_for_size: Vec<String>,
}

/// Everything a report shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The transparency line's data.
    pub transparency: Transparency,
    /// The ranked findings.
    pub findings: Vec<Finding>,
    /// The focus, if any.
    pub focus: Option<String>,
}

/// Opens the machine-readable block at the end of `ISSUES.md`. An HTML
/// comment, so people reading the rendered report do not see a wall of
/// JSON; tools find it by this marker.
const BLOCK_START: &str = "<!-- oy-audit-findings";

/// Closes it.
const BLOCK_END: &str = "-->";

/// The block's format version.
const BLOCK_VERSION: u32 = 1;

/// `ISSUES.md`: the title, the transparency line, the focus, a summary
/// table, each finding, and the machine-readable block (an HTML comment
/// holding `{"version":1,"findings":[…]}`, read back by
/// [`carried_forward`]).
pub fn render_markdown(report: &Report) -> String {
    let report = &cleaned(report);
    let mut out = String::from("# Audit findings\n\n");
    out.push_str(&transparency_line(&report.transparency));
    out.push_str("\n\n");
    if let Some(focus) = report
        .focus
        .as_deref()
        .map(str::trim)
        .filter(|f| !f.is_empty())
    {
        let _ = writeln!(out, "Focus: {}\n", one_line(focus));
    }
    out.push_str("| Severity | Findings |\n| --- | ---: |\n");
    for severity in SEVERITIES {
        let count = report
            .findings
            .iter()
            .filter(|finding| finding.severity == severity)
            .count();
        let _ = writeln!(out, "| {} | {count} |", severity_name(severity));
    }
    let _ = writeln!(out, "| total | {} |", report.findings.len());
    if report.findings.is_empty() {
        out.push_str("\nNo findings.\n");
    }
    for finding in &report.findings {
        out.push('\n');
        render_finding(&mut out, finding);
    }
    out.push('\n');
    out.push_str(&findings_block(&report.findings));
    out
}

/// SARIF 2.1.0 JSON accepted by GitHub code scanning.
pub fn render_sarif(report: &Report) -> String {
    sarif::render(&cleaned(report))
}

/// True when `text` is an `ISSUES.md` oy wrote: its title, and a findings
/// block that parses and ends the file, as every Markdown report does. A
/// note that merely quotes the marker is not one.
pub(crate) fn is_oy_markdown(text: &str) -> bool {
    let Some(start) = text.rfind(BLOCK_START) else {
        return false;
    };
    let block = text.get(start + BLOCK_START.len()..).unwrap_or_default();
    let ends_the_file = block
        .trim_end()
        .strip_suffix(BLOCK_END)
        .is_some_and(|json| serde_json::from_str::<Block>(json).is_ok());
    text.starts_with("# Audit findings\n") && ends_the_file
}

/// True when `text` is SARIF whose runs all come from oy.
pub(crate) fn is_oy_sarif(text: &str) -> bool {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        return false;
    };
    let runs = value.get("runs").and_then(serde_json::Value::as_array);
    runs.is_some_and(|runs| {
        !runs.is_empty()
            && runs.iter().all(|run| {
                run.pointer("/tool/driver/name")
                    .and_then(serde_json::Value::as_str)
                    == Some("oy")
            })
    })
}

/// `report` with terminal control sequences taken out of every string:
/// the model wrote some of them, the repository's file names others.
fn cleaned(report: &Report) -> Report {
    use clean::without_controls as clean;
    let mut report = report.clone();
    let t = &mut report.transparency;
    for field in [&mut t.command, &mut t.provider, &mut t.model] {
        *field = clean(field);
    }
    for text in t.inclusions.iter_mut().chain(&mut t.skipped_for_size) {
        *text = clean(text);
    }
    if let Some(focus) = &mut report.focus {
        *focus = clean(focus);
    }
    for finding in &mut report.findings {
        for field in [
            &mut finding.title,
            &mut finding.file,
            &mut finding.evidence,
            &mut finding.explanation,
            &mut finding.fix,
        ] {
            *field = clean(field);
        }
    }
    report
}

/// The findings in an earlier `ISSUES.md` (its JSON block), if any. The
/// last block counts: the report writes it after every finding, so text a
/// model wrote into a finding cannot stand in for it. A block of another
/// version, or one that does not parse, yields nothing.
pub fn carried_forward(markdown: &str) -> Vec<Finding> {
    let Some(start) = markdown.rfind(BLOCK_START) else {
        return Vec::new();
    };
    let body = markdown
        .get(start + BLOCK_START.len()..)
        .unwrap_or_default();
    let Some(end) = body.find(BLOCK_END) else {
        return Vec::new();
    };
    match serde_json::from_str::<Block>(body.get(..end).unwrap_or_default()) {
        Ok(block) if block.version == BLOCK_VERSION => block.findings,
        _ => Vec::new(),
    }
}

/// The machine-readable block's JSON.
#[derive(Serialize, Deserialize)]
struct Block {
    version: u32,
    findings: Vec<Finding>,
}

/// Severities in report order.
const SEVERITIES: [Severity; 5] = [
    Severity::Critical,
    Severity::High,
    Severity::Medium,
    Severity::Low,
    Severity::Info,
];

/// The lowercase name (`high`), as in the JSON.
pub(crate) fn severity_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical => "critical",
        Severity::High => "high",
        Severity::Medium => "medium",
        Severity::Low => "low",
        Severity::Info => "info",
    }
}

/// One paragraph: what was sent where and by which command, what was
/// skipped and redacted, what was included on request, and whether ignore
/// files hid anything.
fn transparency_line(t: &Transparency) -> String {
    let mut out = format!(
        "> Sent {} ({} bytes) to {} model {} in {} by {}; skipped: ",
        plural(t.files_sent, "file", "files"),
        t.bytes_sent,
        one_line(&t.provider),
        one_line(&t.model),
        plural(t.model_calls, "call", "calls"),
        code_span(&t.command),
    );
    let skipped: Vec<String> = t
        .skipped
        .iter()
        .filter(|(_, count)| **count > 0)
        .map(|(reason, count)| format!("{count} {}", reason.name()))
        .collect();
    if skipped.is_empty() {
        out.push_str("none");
    } else {
        out.push_str(&skipped.join(", "));
    }
    let _ = write!(
        out,
        "; redacted {}.",
        plural(
            t.redacted_lines,
            "secret-shaped line",
            "secret-shaped lines"
        )
    );
    if !t.inclusions.is_empty() {
        let inclusions: Vec<String> = t.inclusions.iter().map(|i| one_line(i)).collect();
        let _ = write!(out, " Included on request: {}.", inclusions.join(", "));
    }
    if !t.skipped_for_size.is_empty() {
        let paths: Vec<String> = t
            .skipped_for_size
            .iter()
            .map(|p| code_span(&one_line(p)))
            .collect();
        let _ = write!(
            out,
            " Too large for a chunk and taken for data or documentation, so not reviewed: {}.",
            paths.join(", ")
        );
    }
    let ignored = t.skipped.get(&SkipReason::Ignored).copied().unwrap_or(0);
    if ignored > 0 {
        let _ = write!(
            out,
            " Ignore files (.gitignore, .ignore, .git/info/exclude) kept {} out of this audit; a repository can hide files from review that way.",
            plural(ignored, "file", "files")
        );
    }
    out
}

/// One finding: a heading, the location (and the unverified marker), the
/// evidence in a fence, the explanation and the fix.
fn render_finding(out: &mut String, finding: &Finding) {
    let _ = writeln!(
        out,
        "## [{}] {}\n",
        severity_name(finding.severity).to_uppercase(),
        prose(&one_line(&finding.title))
    );
    // A path is data: a newline in a file name must not start a forged
    // heading in the report.
    let file = one_line(&finding.file);
    let location = match finding.line {
        Some(line) => format!("{file}:{line}"),
        None => file,
    };
    out.push_str(&code_span(&location));
    if !finding.verified {
        out.push_str(" (unverified)");
    }
    out.push('\n');
    if !finding.evidence.trim().is_empty() {
        let fence = fence_for(&finding.evidence);
        let _ = writeln!(
            out,
            "\n{fence}text\n{}\n{fence}",
            finding.evidence.trim_end()
        );
    }
    if !finding.explanation.trim().is_empty() {
        let _ = writeln!(out, "\n{}", prose(finding.explanation.trim()));
    }
    if !finding.fix.trim().is_empty() {
        let _ = writeln!(out, "\n**Fix:** {}", prose(finding.fix.trim()));
    }
}

/// The HTML comment holding the findings as JSON. `<` and `>` are
/// written as `\u003c`/`\u003e` (they can only occur inside JSON strings),
/// so no text in a finding can close the comment or open a fake block.
fn findings_block(findings: &[Finding]) -> String {
    let block = Block {
        version: BLOCK_VERSION,
        findings: findings.to_vec(),
    };
    let json = serde_json::to_string_pretty(&block)
        .unwrap_or_else(|_| format!("{{\"version\":{BLOCK_VERSION},\"findings\":[]}}"))
        .replace('<', "\\u003c")
        .replace('>', "\\u003e");
    format!("{BLOCK_START}\n{json}\n{BLOCK_END}\n")
}

/// `count` with the right noun.
fn plural(count: usize, one: &str, many: &str) -> String {
    if count == 1 {
        format!("{count} {one}")
    } else {
        format!("{count} {many}")
    }
}

/// Whitespace runs (newlines included) as one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` as an inline code span, with a delimiter longer than any
/// backtick run inside it.
fn code_span(text: &str) -> String {
    let ticks = "`".repeat(longest_backtick_run(text) + 1);
    if text.starts_with('`') || text.ends_with('`') {
        format!("{ticks} {text} {ticks}")
    } else {
        format!("{ticks}{text}{ticks}")
    }
}

/// A code fence longer than any backtick run in `text` (at least three).
fn fence_for(text: &str) -> String {
    "`".repeat((longest_backtick_run(text) + 1).max(3))
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Model-written prose made safe to embed: it cannot open an HTML comment
/// (which would hide the rest of the report), close one, or start a
/// heading that passes for a finding.
fn prose(text: &str) -> String {
    text.lines()
        .map(|line| {
            // No raw HTML from the model: a tag could hide the rest of the
            // report (`<details>`, a comment) or load a tracking image.
            let line = line.replace('<', "&lt;").replace('>', "&gt;");
            if line.trim_start().starts_with('#') {
                format!("\\{}", line.trim_start())
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
