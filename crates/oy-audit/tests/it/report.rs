//! Tests of the report: the rendered `ISSUES.md` (snapshot), its JSON
//! block read back by `carried_forward`, and SARIF validated against the
//! OASIS SARIF 2.1.0 schema kept in `tests/fixtures/sarif/`.

use std::collections::BTreeMap;

use oy_audit::{
    Finding, Report, Severity, SkipReason, Transparency, carried_forward, render_markdown,
    render_sarif,
};
use serde_json::Value;

/// The official schema (OASIS SARIF 2.1.0, errata 01), byte for byte.
const SARIF_SCHEMA: &str = include_str!("../fixtures/sarif/sarif-schema-2.1.0.json");

fn finding(severity: Severity, title: &str, file: &str, line: Option<usize>) -> Finding {
    Finding {
        severity,
        title: title.to_owned(),
        file: file.to_owned(),
        line,
        evidence: String::new(),
        explanation: String::new(),
        fix: String::new(),
        verified: true,
    }
}

fn findings() -> Vec<Finding> {
    vec![
        Finding {
            evidence: "let out = Command::new(\"sh\").arg(\"-c\").arg(&input);".to_owned(),
            explanation: "Request input reaches `sh -c`, so a caller can run any command."
                .to_owned(),
            fix: "Pass arguments to the program directly, without a shell.".to_owned(),
            ..finding(
                Severity::Critical,
                "Shell command built from request input",
                "src/server.rs",
                Some(42),
            )
        },
        Finding {
            evidence: "let q = format!(\"SELECT * FROM t WHERE id = {id}\");\n``` fence inside"
                .to_owned(),
            explanation: "SQL built with format!.".to_owned(),
            fix: "Use a bound parameter.".to_owned(),
            verified: false,
            ..finding(
                Severity::Medium,
                "SQL built from a string",
                "src/db dir/query.rs",
                Some(7),
            )
        },
        Finding {
            explanation: "A model wrote <!-- this to hide the rest -->\n# and a fake heading"
                .to_owned(),
            fix: "Nothing --> really.".to_owned(),
            ..finding(
                Severity::Low,
                "Comment <!-- oy-audit-findings spoof",
                "README.md",
                None,
            )
        },
    ]
}

fn report(findings: Vec<Finding>) -> Report {
    Report {
        transparency: Transparency {
            command: "oy audit \"focus on auth\"".to_owned(),
            provider: "openai-chat".to_owned(),
            model: "gpt-test".to_owned(),
            files_sent: 12,
            bytes_sent: 34_567,
            model_calls: 3,
            skipped: BTreeMap::from([
                (SkipReason::Ignored, 4),
                (SkipReason::LikelySecret, 2),
                (SkipReason::TooLarge, 1),
                (SkipReason::Binary, 0),
            ]),
            redacted_lines: 1,
            inclusions: vec!["hidden files (--include-hidden)".to_owned()],
            skipped_for_size: Vec::new(),
        },
        findings,
        focus: Some("focus on auth".to_owned()),
    }
}

#[test]
fn issues_md_renders_transparency_summary_findings_and_block() {
    insta::assert_snapshot!(render_markdown(&report(findings())));
}

#[test]
fn transparency_line_counts_in_words_and_says_when_nothing_was_skipped() {
    let mut report = report(Vec::new());
    report.transparency.skipped.clear();
    report.transparency.files_sent = 1;
    report.transparency.model_calls = 1;
    report.transparency.redacted_lines = 0;
    report.transparency.inclusions.clear();
    report.focus = None;
    let markdown = render_markdown(&report);
    let line = markdown.lines().nth(2).unwrap();
    assert_eq!(
        line,
        "> Sent 1 file (34567 bytes) to openai-chat model gpt-test in 1 call by `oy audit \"focus on auth\"`; skipped: none; redacted 0 secret-shaped lines."
    );
    assert!(markdown.contains("\nNo findings.\n"));
    assert!(!markdown.contains("Ignore files"));
    assert!(!markdown.contains("Focus:"));
}

#[test]
fn carried_forward_reads_back_exactly_what_was_rendered() {
    let findings = findings();
    let markdown = render_markdown(&report(findings.clone()));
    assert_eq!(carried_forward(&markdown), findings);
    // Text a model wrote cannot close the block or open a second one.
    let block = &markdown[markdown.rfind("<!-- oy-audit-findings").unwrap()..];
    assert_eq!(block.matches("-->").count(), 1);
    assert_eq!(markdown.matches("<!-- oy-audit-findings").count(), 1);
}

#[test]
fn carried_forward_ignores_reports_without_a_usable_block() {
    assert!(carried_forward("# Audit findings\n\nNo findings.\n").is_empty());
    assert!(
        carried_forward("<!-- oy-audit-findings\n{\"version\":2,\"findings\":[]}\n-->").is_empty()
    );
    assert!(carried_forward("<!-- oy-audit-findings\n{\"version\":1,").is_empty());
    assert!(carried_forward("<!-- oy-audit-findings\nnot json\n-->").is_empty());
}

fn sarif(findings: Vec<Finding>) -> Value {
    serde_json::from_str(&render_sarif(&report(findings))).unwrap()
}

#[test]
fn sarif_validates_against_the_2_1_0_schema() {
    let schema: Value = serde_json::from_str(SARIF_SCHEMA).unwrap();
    assert_eq!(
        schema["$schema"], "http://json-schema.org/draft-04/schema#",
        "the fixture is the OASIS draft-04 schema"
    );
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    for log in [sarif(findings()), sarif(Vec::new())] {
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| format!("{} at {}", e, e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{errors:#?}");
    }
    // The validator is not vacuous: a log without `runs` fails.
    let mut broken = sarif(findings());
    broken.as_object_mut().unwrap().remove("runs");
    assert!(!validator.is_valid(&broken));
    let mut broken = sarif(findings());
    broken["runs"][0]["results"][0]["level"] = Value::from("fatal");
    assert!(!validator.is_valid(&broken));
}

#[test]
fn sarif_carries_what_github_code_scanning_reads() {
    let log = sarif(findings());
    assert_eq!(
        log["$schema"],
        "https://json.schemastore.org/sarif-2.1.0.json"
    );
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "oy");
    assert!(
        driver["informationUri"]
            .as_str()
            .unwrap()
            .starts_with("https://")
    );
    let rules = driver["rules"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    assert_eq!(rules.len(), 3, "one rule per distinct title");

    let levels: Vec<&str> = results
        .iter()
        .map(|r| r["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["error", "warning", "note"]);
    for result in results {
        let id = result["ruleId"].as_str().unwrap();
        assert!(id.starts_with("oy/"), "{id}");
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], id);
        let artifact = &result["locations"][0]["physicalLocation"]["artifactLocation"];
        assert_eq!(artifact["uriBaseId"], "%SRCROOT%");
        assert!(!artifact["uri"].as_str().unwrap().starts_with('/'));
        let fingerprint = result["partialFingerprints"]["oyFindingHash/v1"]
            .as_str()
            .unwrap();
        assert_eq!(fingerprint.len(), 16);
    }
    assert_eq!(
        results[0]["ruleId"],
        "oy/shell-command-built-from-request-input"
    );
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        42
    );
    assert_eq!(
        results[1]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "src/db%20dir/query.rs"
    );
    assert!(
        results[1]["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with("(unverified) SQL built from a string")
    );
    assert!(
        results[2]["locations"][0]["physicalLocation"]
            .get("region")
            .is_none(),
        "no region when the line is unknown"
    );
    let critical = rules
        .iter()
        .find(|r| r["id"] == "oy/shell-command-built-from-request-input")
        .unwrap();
    assert_eq!(critical["properties"]["security-severity"], "9.5");
    assert_eq!(critical["defaultConfiguration"]["level"], "error");
}

#[test]
fn sarif_fingerprints_survive_a_moved_line_but_not_a_new_file() {
    let fingerprint = |file: &str, line: usize| {
        let log = sarif(vec![Finding {
            evidence: "exec(cmd)".to_owned(),
            ..finding(Severity::High, "Shell injection", file, Some(line))
        }]);
        log["runs"][0]["results"][0]["partialFingerprints"]["oyFindingHash/v1"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(fingerprint("src/a.rs", 3), fingerprint("src/a.rs", 30));
    assert_ne!(fingerprint("src/a.rs", 3), fingerprint("src/b.rs", 3));
}
