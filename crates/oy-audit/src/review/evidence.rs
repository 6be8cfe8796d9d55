//! Evidence verification: every finding's file, line and quoted evidence
//! are checked against the collected text (exactly what was sent), so a
//! finding the model made up is dropped or flagged, never reported as fact.

use std::collections::HashMap;

use super::Finding;
use crate::collect::Collection;

/// Quoted evidence shorter than this (after whitespace is collapsed)
/// leaves a finding unverified.
const MIN_EVIDENCE_CHARS: usize = 8;

/// Checks each finding's file, line and evidence against the collected
/// text; sets `verified`. Returns the findings kept and how many were
/// dropped (a file that was not collected at all).
///
/// - a file not in the collection: dropped (counted);
/// - a line of 0 or past the file's end: `line` cleared, unverified;
/// - evidence (whitespace-normalised, `N| ` prefixes stripped, `...`
///   elisions split) not found in the file: unverified (near the line or
///   anywhere else both count, so there is no separate window check);
/// - evidence shorter than [`MIN_EVIDENCE_CHARS`] (or none): unverified;
/// - otherwise verified.
pub fn verify(findings: Vec<Finding>, collection: &Collection) -> (Vec<Finding>, usize) {
    let texts: HashMap<&str, &str> = collection
        .files
        .iter()
        .map(|file| (file.path.as_str(), file.text.as_str()))
        .collect();
    let mut indexed: HashMap<&str, Normalised> = HashMap::new();
    let mut kept = Vec::with_capacity(findings.len());
    let mut dropped = 0;
    for mut finding in findings {
        let Some((&path, &text)) = texts.get_key_value(finding.file.as_str()) else {
            dropped += 1;
            continue;
        };
        let normalised = indexed.entry(path).or_insert_with(|| Normalised::new(text));
        let mut verified = true;
        if let Some(line) = finding.line
            && (line == 0 || line > normalised.lines())
        {
            finding.line = None;
            verified = false;
        }
        let fragments = evidence_fragments(&finding.evidence);
        // Evidence too short to pin anything down (empty, `x`) proves
        // nothing: a forged or careless finding must not read as verified.
        let quoted: usize = fragments.iter().map(String::len).sum();
        if quoted < MIN_EVIDENCE_CHARS {
            verified = false;
        }
        if verified {
            verified = fragments
                .iter()
                .all(|fragment| normalised.contains(fragment));
        }
        finding.verified = verified;
        kept.push(finding);
    }
    (kept, dropped)
}

/// The evidence as fragments to look for: each line without a `N| `
/// prefix (models copy the numbered text), whitespace collapsed, split at
/// `...`/`…` elisions; empty fragments dropped.
fn evidence_fragments(evidence: &str) -> Vec<String> {
    let joined = evidence
        .lines()
        .map(strip_line_number)
        .collect::<Vec<_>>()
        .join(" ");
    joined
        .split("...")
        .flat_map(|part| part.split('…'))
        .map(collapse)
        .filter(|fragment| !fragment.is_empty())
        .collect()
}

/// `line` without a leading `12| ` or `12 | ` prefix.
fn strip_line_number(line: &str) -> &str {
    let trimmed = line.trim_start();
    let digits = trimmed.len()
        - trimmed
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    if digits == 0 {
        return line;
    }
    let rest = trimmed.get(digits..).unwrap_or_default().trim_start();
    match rest.strip_prefix('|') {
        Some(code) => code.strip_prefix(' ').unwrap_or(code),
        None => line,
    }
}

/// Words one space apart, trimmed.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A file's text with whitespace collapsed (lines joined by one space, so
/// evidence spanning lines is found), and its line count.
struct Normalised {
    text: String,
    lines: usize,
}

impl Normalised {
    fn new(text: &str) -> Self {
        let lines: Vec<String> = text.lines().map(collapse).collect();
        Self {
            lines: lines.len(),
            text: lines.join(" "),
        }
    }

    fn lines(&self) -> usize {
        self.lines
    }

    /// True when `fragment` occurs in the file. Near the cited line or
    /// elsewhere both count: a model often cites the line a construct
    /// starts on, and the quote itself is what matters.
    fn contains(&self, fragment: &str) -> bool {
        self.text.contains(fragment)
    }
}
