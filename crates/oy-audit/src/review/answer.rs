//! Reading the model's answers (a JSON findings object, tolerating code
//! fences and prose around it), the deterministic merge, and the ranking.

use std::collections::HashMap;

use serde_json::Value;

use super::{Finding, Severity};

/// How many `{` positions are tried before giving up: an answer with that
/// much prose before its JSON is not worth searching further.
const MAX_STARTS: usize = 64;

/// The findings in `answer`: the first JSON object in it with a
/// `findings` array. Code fences and prose before or after are ignored;
/// an item that is not an object or lacks a title is skipped. The model's
/// own `verified` is ignored (verification is ours).
pub(super) fn parse_findings(answer: &str) -> Result<Vec<Finding>, String> {
    for (start, _) in answer.match_indices('{').take(MAX_STARTS) {
        let rest = answer.get(start..).unwrap_or_default();
        // A stream deserializer reads one value and stops, so text after
        // the object (a closing fence, a remark) does not matter.
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        if let Some(Ok(Value::Object(object))) = values.next()
            && let Some(Value::Array(items)) = object.get("findings")
        {
            return Ok(items.iter().filter_map(finding).collect());
        }
    }
    Err("the answer held no JSON object with a \"findings\" list".to_owned())
}

/// One finding from its JSON, leniently: severity names in any case (an
/// unknown one becomes `info`), a line given as a number or a numeric
/// string (0 or anything else means none).
fn finding(item: &Value) -> Option<Finding> {
    let object = item.as_object()?;
    let text = |key: &str| {
        object
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or_default()
            .to_owned()
    };
    let title = text("title");
    if title.is_empty() {
        return None;
    }
    let line = match object.get("line") {
        Some(Value::Number(number)) => number.as_u64(),
        Some(Value::String(line)) => line.trim().parse().ok(),
        _ => None,
    }
    .and_then(|line| usize::try_from(line).ok())
    .filter(|&line| line > 0);
    Some(Finding {
        severity: severity(&text("severity")),
        title,
        file: text("file").trim_start_matches("./").to_owned(),
        line,
        evidence: object
            .get("evidence")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        explanation: text("explanation"),
        fix: text("fix"),
        verified: false,
    })
}

/// A severity name, in any case.
fn severity(name: &str) -> Severity {
    match name.to_ascii_lowercase().as_str() {
        "critical" => Severity::Critical,
        "high" => Severity::High,
        "medium" | "moderate" => Severity::Medium,
        "low" => Severity::Low,
        _ => Severity::Info,
    }
}

/// `first` then `second`, de-duplicated by (file, line, normalised title):
/// the first occurrence's text is kept (unless only a later one is
/// verified), with the highest severity of its duplicates, in order of
/// first occurrence.
pub(super) fn merge(first: Vec<Finding>, second: Vec<Finding>) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::with_capacity(first.len() + second.len());
    let mut seen: HashMap<(String, Option<usize>, String), usize> = HashMap::new();
    for finding in first.into_iter().chain(second) {
        let key = (
            finding.file.clone(),
            finding.line,
            normalised_title(&finding.title),
        );
        match seen.get(&key) {
            Some(&at) => {
                if let Some(kept) = out.get_mut(at) {
                    let severity = kept.severity.min(finding.severity);
                    // A verified duplicate is worth more than an unverified
                    // first one: its evidence was found.
                    if finding.verified && !kept.verified {
                        *kept = finding;
                    }
                    kept.severity = severity;
                }
            }
            None => {
                seen.insert(key, out.len());
                out.push(finding);
            }
        }
    }
    out
}

/// Lowercase words of letters and digits, one space apart: titles that
/// differ only in case or punctuation are the same finding.
pub(super) fn normalised_title(title: &str) -> String {
    title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Severity (critical first), then file, then line (findings without a
/// line first), then title: a stable, deterministic order.
pub(super) fn rank(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        (a.severity, &a.file, a.line, &a.title).cmp(&(b.severity, &b.file, b.line, &b.title))
    });
}
