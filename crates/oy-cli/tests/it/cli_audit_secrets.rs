//! `oy audit` end to end against the redaction corpus: a repository holding
//! every secret form of oy-audit's corpus (`tests/fixtures/redaction/`) in
//! several file types, audited by the real binary against the scripted
//! mock model. The assertion is on the bytes the mock received: none of
//! the corpus' secrets, and no token-shaped file name, while an ordinary
//! control value is there.

use std::process::Stdio;

use serde_json::Value;

use crate::mock_model::{self, MockModel, Ran, Wire, text};
use crate::support::Oy;

#[path = "../../../oy-audit/tests/fixtures/redaction/corpus.rs"]
mod corpus;

const NO_FINDINGS: &str = r#"{"findings": []}"#;

/// Where each file of secret lines goes, and the file type it plays.
const LINE_FILES: &[(&str, &str)] = &[
    ("tokens.txt", "config/services.yaml"),
    ("commands.txt", "scripts/ops.sh"),
    ("configs.txt", "config/settings.ini"),
    ("json.txt", "web/config.js"),
    ("keys.txt", "src/wallet.py"),
    ("jwt.txt", "src/auth.ts"),
    ("headers.txt", "api/calls.http"),
    ("assignments.txt", "src/settings.rb"),
];

/// A value from the corpus' ordinary lines that must reach the model.
const CONTROL: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

/// A name that is a token (assembled so that this file holds none).
fn token_name() -> String {
    format!(
        "{}.txt",
        concat!("gh", "p_", "FAKE0name1token2for3oy4tests5x6y7z8")
    )
}

/// The repository, and every secret planted in it.
fn fixture() -> (Oy, Vec<String>) {
    let oy = Oy::new();
    let mut secrets = Vec::new();
    let lines = corpus::lines("secret");
    for (source, target) in LINE_FILES {
        let text: String = lines
            .iter()
            .filter(|case| case.origin.starts_with(&format!("{source}:")))
            .map(|case| {
                secrets.extend(case.secrets.iter().cloned());
                format!("{}\n", case.text)
            })
            .collect();
        assert!(!text.is_empty(), "{source}");
        assert!(text.len() < 20_000, "{target} stays small");
        oy.file(target, &text);
    }
    for document in corpus::documents() {
        secrets.extend(document.secrets.iter().cloned());
        oy.file(&document.path, &document.text);
    }
    let ordinary: String = corpus::lines("ordinary")
        .iter()
        .map(|case| format!("{}\n", case.text))
        .collect();
    assert!(ordinary.contains(CONTROL));
    oy.file("src/ordinary.rs", &ordinary);
    oy.file(&format!("uploads/{}", token_name()), "an upload\n");
    // Short values (a three-character password) could occur by chance.
    secrets.retain(|secret| secret.len() >= 8);
    secrets.sort();
    secrets.dedup();
    (oy, secrets)
}

fn audit(oy: &Oy, mock: &MockModel) -> Ran {
    let mut cmd = mock_model::oy_command(oy, mock);
    cmd.args([
        "audit",
        "--model",
        "mock-model",
        "--wire-api",
        mock.wire.flag(),
    ])
    .stdin(Stdio::null());
    let out = cmd.output().unwrap();
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Every string of a request body, as the server decoded it.
fn strings(value: &Value, out: &mut String) {
    match value {
        Value::String(text) => {
            out.push_str(text);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|item| strings(item, out)),
        Value::Object(fields) => fields.values().for_each(|item| strings(item, out)),
        _ => {}
    }
}

#[test]
fn no_secret_of_the_corpus_reaches_the_model() {
    let (oy, secrets) = fixture();
    assert!(secrets.len() >= 300, "{} secrets planted", secrets.len());
    let steps = (0..40).map(|_| text(NO_FINDINGS)).collect();
    let mock = mock_model::start(Wire::Chat, steps);
    let out = audit(&oy, &mock);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let requests = mock.requests();
    assert!(!requests.is_empty(), "nothing was sent");
    // The bytes as sent (JSON, escapes and all) and as decoded.
    let mut sent = String::new();
    for request in &requests {
        sent.push_str(&request.to_string());
        strings(request, &mut sent);
    }
    let leaked: Vec<&String> = secrets
        .iter()
        .filter(|secret| sent.contains(secret.as_str()))
        .collect();
    assert!(
        leaked.is_empty(),
        "{} secrets sent: {leaked:#?}",
        leaked.len()
    );
    assert!(
        !sent.contains(&token_name()),
        "a token-shaped name was sent"
    );
    assert!(
        sent.contains(CONTROL),
        "the ordinary control value was not sent"
    );
    assert!(sent.contains("[redacted: "), "secret lines became markers");
    for (_, target) in LINE_FILES {
        assert!(sent.contains(target), "{target} was not reviewed");
    }
}
