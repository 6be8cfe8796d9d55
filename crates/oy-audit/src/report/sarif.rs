//! SARIF 2.1.0 for GitHub code scanning: one rule per distinct finding
//! title (`oy/<slug>`, stable across runs while the title is), one result
//! per finding with a `%SRCROOT%`-relative location and a
//! `partialFingerprints` entry so re-uploads update alerts instead of
//! duplicating them.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Report, severity_name};
use crate::review::{Finding, Severity};

/// Where the schema named in `$schema` lives.
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The tool's home page, for `tool.driver.informationUri`.
const INFORMATION_URI: &str = "https://github.com/oy-cli/oy";

/// The `partialFingerprints` key; the `/v1` changes if the hash input does.
const FINGERPRINT_KEY: &str = "oyFindingHash/v1";

/// Longest slug in a rule id, so ids stay readable.
const MAX_SLUG: usize = 64;

/// The SARIF log for `report`, pretty-printed.
pub(super) fn render(report: &Report) -> String {
    // Rules keyed by id; a rule takes the highest severity of its results
    // (GitHub shows the rule's `security-severity`).
    let mut rules: BTreeMap<String, (String, Severity)> = BTreeMap::new();
    for finding in &report.findings {
        let id = rule_id(&finding.title);
        let entry = rules
            .entry(id)
            .or_insert_with(|| (finding.title.clone(), finding.severity));
        entry.1 = entry.1.min(finding.severity);
    }
    let index: BTreeMap<&str, usize> = rules
        .keys()
        .enumerate()
        .map(|(position, id)| (id.as_str(), position))
        .collect();
    let rule_values: Vec<Value> = rules
        .iter()
        .map(|(id, (title, severity))| rule(id, title, *severity))
        .collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|finding| {
            let id = rule_id(&finding.title);
            let position = index.get(id.as_str()).copied().unwrap_or(0);
            result(finding, &id, position)
        })
        .collect();
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "oy",
                    "informationUri": INFORMATION_URI,
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rule_values,
                }
            },
            "results": results,
        }]
    });
    let mut out = serde_json::to_string_pretty(&log).unwrap_or_else(|_| "{}".to_owned());
    out.push('\n');
    out
}

/// One `reportingDescriptor`.
fn rule(id: &str, title: &str, severity: Severity) -> Value {
    let mut properties = json!({ "tags": ["security"] });
    if let Some(score) = security_severity(severity) {
        properties["security-severity"] = json!(score);
    }
    json!({
        "id": id,
        "name": id,
        "shortDescription": { "text": title },
        "fullDescription": { "text": title },
        "defaultConfiguration": { "level": level(severity) },
        "properties": properties,
    })
}

/// One `result`.
fn result(finding: &Finding, rule_id: &str, rule_index: usize) -> Value {
    let mut text = String::new();
    if !finding.verified {
        text.push_str("(unverified) ");
    }
    text.push_str(finding.title.trim());
    for part in [&finding.explanation, &finding.fix] {
        if !part.trim().is_empty() {
            text.push_str("\n\n");
            text.push_str(part.trim());
        }
    }
    let mut physical = json!({
        "artifactLocation": {
            "uri": uri_path(&finding.file),
            "uriBaseId": "%SRCROOT%",
        }
    });
    if let Some(line) = finding.line.filter(|&line| line >= 1) {
        let mut region = json!({ "startLine": line });
        if !finding.evidence.trim().is_empty() {
            region["snippet"] = json!({ "text": finding.evidence });
        }
        physical["region"] = region;
    }
    json!({
        "ruleId": rule_id,
        "ruleIndex": rule_index,
        "level": level(finding.severity),
        "message": { "text": text },
        "locations": [{ "physicalLocation": physical }],
        "partialFingerprints": { FINGERPRINT_KEY: fingerprint(finding) },
        "properties": {
            "severity": severity_name(finding.severity),
            "verified": finding.verified,
        },
    })
}

/// SARIF levels: error for critical and high, warning for medium, note
/// for low and info.
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical | Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low | Severity::Info => "note",
    }
}

/// GitHub's `security-severity` score (critical > 9.0, high 7.0–8.9,
/// medium 4.0–6.9, low 0.1–3.9); info findings get none.
fn security_severity(severity: Severity) -> Option<&'static str> {
    match severity {
        Severity::Critical => Some("9.5"),
        Severity::High => Some("8.0"),
        Severity::Medium => Some("5.5"),
        Severity::Low => Some("2.0"),
        Severity::Info => None,
    }
}

/// `oy/` and the title's slug: lowercase ASCII letters and digits, words
/// joined by `-`, at most [`MAX_SLUG`] characters.
fn rule_id(title: &str) -> String {
    let mut slug = String::new();
    for word in title
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
    {
        let word = word.to_ascii_lowercase();
        let extra = usize::from(!slug.is_empty()) + word.len();
        if slug.len() + extra > MAX_SLUG {
            break;
        }
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.push_str(&word);
    }
    if slug.is_empty() {
        slug.push_str("finding");
    }
    format!("oy/{slug}")
}

/// A hash of the file, the normalised title and the normalised evidence:
/// not the line, so an alert survives edits that move it.
fn fingerprint(finding: &Finding) -> String {
    let evidence = finding.evidence.split_whitespace().collect::<Vec<_>>();
    let input = format!(
        "{}\u{0}{}\u{0}{}",
        finding.file,
        rule_id(&finding.title),
        evidence.join(" ")
    );
    format!("{:016x}", fnv1a(input.as_bytes()))
}

/// 64-bit FNV-1a: stable across platforms and Rust releases (unlike
/// `DefaultHasher`), which a fingerprint must be.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A root-relative path as a relative URI reference: unreserved bytes and
/// `/` kept, everything else percent-encoded.
fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
