//! The redaction corpus (`tests/fixtures/redaction/`), measured both
//! sides: every secret-bearing line is redacted whole (none of its secret
//! bytes left), every ordinary line from real code passes byte for byte,
//! and every multi-line document loses exactly the lines it lists. The
//! recall and the false-positive rate are printed; the test holds both at
//! their best.

use oy_audit::redact;

#[path = "../fixtures/redaction/corpus.rs"]
mod corpus;

use corpus::Case;

/// True when `redacted` (the redaction of a one-line case) is a marker.
fn is_marker(redacted: &str) -> bool {
    let line = redacted.trim();
    line.starts_with("[redacted: ") && line.ends_with(']')
}

#[test]
fn the_corpus_is_redacted_with_full_recall_and_no_false_positive() {
    let secret = corpus::lines("secret");
    let ordinary = corpus::lines("ordinary");
    assert!(secret.len() >= 300, "{} secret lines", secret.len());
    assert!(ordinary.len() >= 300, "{} ordinary lines", ordinary.len());

    let mut missed = Vec::new();
    for case in &secret {
        assert!(
            !case.secrets.is_empty(),
            "{}: no «secret» marked",
            case.origin
        );
        let (redacted, _) = redact(&format!("{}\n", case.text));
        let leaked: Vec<&String> = case
            .secrets
            .iter()
            .filter(|secret| redacted.contains(secret.as_str()))
            .collect();
        if !is_marker(&redacted) || !leaked.is_empty() {
            missed.push(format!("{}: {}", case.origin, case.text));
        }
    }
    let mut changed = Vec::new();
    for case in &ordinary {
        let text = format!("{}\n", case.text);
        let (redacted, redactions) = redact(&text);
        if redacted != text || !redactions.is_empty() {
            changed.push(format!("{}: {}", case.origin, case.text));
        }
    }
    let recall = 1.0 - missed.len() as f64 / secret.len() as f64;
    let false_positives = changed.len() as f64 / ordinary.len() as f64;
    eprintln!(
        "redaction corpus: {} secret lines, recall {:.1}% ({} missed); \
         {} ordinary lines, false-positive rate {:.1}% ({} changed)",
        secret.len(),
        recall * 100.0,
        missed.len(),
        ordinary.len(),
        false_positives * 100.0,
        changed.len()
    );
    assert!(missed.is_empty(), "missed:\n{}", missed.join("\n"));
    assert!(changed.is_empty(), "changed:\n{}", changed.join("\n"));
}

/// The failures of one document, if any.
fn document_failures(case: &Case) -> Vec<String> {
    let (redacted, redactions) = redact(&case.text);
    let mut failures = Vec::new();
    let numbers: Vec<usize> = redactions.iter().map(|r| r.line).collect();
    if numbers != case.redacted_lines {
        failures.push(format!(
            "redacted lines {numbers:?}, want {:?}",
            case.redacted_lines
        ));
    }
    for (index, (got, want)) in redacted.lines().zip(case.text.lines()).enumerate() {
        let expected = case.redacted_lines.contains(&(index + 1));
        if expected && !got.trim_start().starts_with("[redacted: ") {
            failures.push(format!("line {} kept: {want}", index + 1));
        }
        if !expected && got != want {
            failures.push(format!("line {} changed: {want}", index + 1));
        }
    }
    for secret in &case.secrets {
        if redacted.contains(secret.as_str()) {
            failures.push(format!("secret left: {secret}"));
        }
    }
    if redacted.lines().count() != case.text.lines().count() {
        failures.push("line count changed".to_owned());
    }
    failures
}

#[test]
fn every_document_loses_exactly_its_secret_lines() {
    let documents = corpus::documents();
    assert!(documents.len() >= 20, "{} documents", documents.len());
    let failures: Vec<String> = documents
        .iter()
        .filter_map(|case| {
            let failures = document_failures(case);
            (!failures.is_empty()).then(|| format!("{}:\n  {}", case.origin, failures.join("\n  ")))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn redacting_the_corpus_twice_changes_nothing() {
    let mut text: String = corpus::lines("secret")
        .into_iter()
        .chain(corpus::lines("ordinary"))
        .map(|case| case.text + "\n")
        .collect();
    for document in corpus::documents() {
        text.push_str(&document.text);
    }
    let (once, _) = redact(&text);
    let (twice, again) = redact(&once);
    assert_eq!(once, twice);
    assert!(again.is_empty(), "{again:?}");
}

#[test]
fn the_corpus_files_hold_no_contiguous_token() {
    // The splices keep published token formats out of the files, so that
    // no scanner (nor push protection) takes the corpus for a leak: the
    // raw files, marks and splices left in, hold no shape of the table.
    let root = corpus::root();
    for dir in ["secret", "documents"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let raw = std::fs::read_to_string(&path).unwrap();
            let found: Vec<&str> = oy_secrets::find_secrets(&raw)
                .iter()
                .filter(|span| {
                    [
                        "github-token",
                        "slack-token",
                        "stripe-key",
                        "aws-access-key-id",
                    ]
                    .contains(&span.kind)
                })
                .map(|span| &raw[span.range.clone()])
                .collect();
            assert!(found.is_empty(), "{}: {found:?}", path.display());
        }
    }
}
