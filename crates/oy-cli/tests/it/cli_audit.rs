//! `oy audit` end to end: the real binary against the scripted mock model.
//! The central assertion is on the bytes the mock received: no planted
//! secret — in a secret file or inline in source — ever reaches it.

use std::process::Stdio;

use crate::mock_model::{self, MockModel, Ran, Wire, text};
use crate::support::Oy;

const NO_FINDINGS: &str = r#"{"findings": []}"#;

/// Secret values planted in the fixture; none may reach the model.
const PLANTED: &[&str] = &[
    "AKIAZZZZ7EXAMPLE1234",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzSECRETKEY",
    "ghp_0123456789abcdefghijABCDEFGHIJ0123456789",
    "sk-proj-Zq8vT2mK9pL4xR7nB3cW6yH1jF5dS0aE",
    "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx",
    "MIIEowIBAAKCAQEAplantedprivatekeybody",
    "DOTENV-SECRET-VALUE-91f2",
    "SSH-KEY-FILE-BODY-55ab",
    "PEM-FILE-BODY-77cd",
    "NPMRC-TOKEN-33ef",
    "TFSTATE-SECRET-19aa",
    "IGNORED-FILE-CONTENT-42",
];

fn fixture() -> Oy {
    let oy = Oy::new();
    oy.file(
        "src/main.py",
        "import subprocess\n\ndef run(cmd):\n    return subprocess.run(cmd, shell=True)\n",
    );
    oy.file(
        "src/config.py",
        "REGION = 'eu-west-1'\nAWS_ACCESS_KEY_ID = 'AKIAZZZZ7EXAMPLE1234'\n\
         aws_secret_access_key = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzSECRETKEY'\nDEBUG = False\n",
    );
    oy.file(
        "deploy/ci.yml",
        "steps:\n  - run: echo hi\n    env:\n      GH: ghp_0123456789abcdefghijABCDEFGHIJ0123456789\n",
    );
    oy.file(
        "src/llm.ts",
        "const key = \"sk-proj-Zq8vT2mK9pL4xR7nB3cW6yH1jF5dS0aE\";\nexport const slack = \"xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx\";\n",
    );
    oy.file(
        "src/keys.rs",
        "const KEY: &str = \"\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAplantedprivatekeybody\n-----END RSA PRIVATE KEY-----\n\";\nfn main() {}\n",
    );
    oy.file(".env", "API_TOKEN=DOTENV-SECRET-VALUE-91f2\n");
    oy.file("id_ed25519", "SSH-KEY-FILE-BODY-55ab\n");
    oy.file("certs/server.pem", "PEM-FILE-BODY-77cd\n");
    oy.file(".npmrc", "//registry/:_authToken=NPMRC-TOKEN-33ef\n");
    oy.file(
        "infra/terraform.tfstate",
        "{\"secret\": \"TFSTATE-SECRET-19aa\"}\n",
    );
    oy.file(".gitignore", "generated/\n");
    oy.file("generated/out.txt", "IGNORED-FILE-CONTENT-42\n");
    oy.file("Cargo.lock", "# lock\n");
    oy.file("node_modules/left-pad/index.js", "module.exports = 1;\n");
    oy
}

fn audit(oy: &Oy, mock: &MockModel, args: &[&str]) -> Ran {
    let mut cmd = mock_model::oy_command(oy, mock);
    cmd.args([
        "audit",
        "--model",
        "mock-model",
        "--wire-api",
        mock.wire.flag(),
    ])
    .args(args)
    .stdin(Stdio::null());
    let out = cmd.output().unwrap();
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn no_planted_secret_reaches_the_model_and_a_report_is_written() {
    for wire in Wire::BOTH {
        let oy = fixture();
        let mock = mock_model::start(wire, vec![text(NO_FINDINGS), text(NO_FINDINGS)]);
        let out = audit(&oy, &mock, &[]);
        assert_eq!(out.code, 0, "{wire:?}: {}", out.stderr);
        let sent: String = mock
            .requests()
            .iter()
            .map(|request| request.to_string())
            .collect();
        assert!(!sent.is_empty());
        for secret in PLANTED {
            assert!(!sent.contains(secret), "{wire:?}: {secret} was sent");
        }
        assert!(sent.contains("subprocess.run"), "source text was sent");
        assert!(
            sent.contains("[redacted: "),
            "inline secrets became markers"
        );
        for request in mock.requests() {
            assert!(
                mock_model::tool_names(&request).is_empty(),
                "the audit offers no tools"
            );
        }
        let report = oy.read("ISSUES.md");
        assert!(report.contains("mock-model"), "{report}");
        assert!(report.to_lowercase().contains("skipped"), "{report}");
    }
}

#[test]
fn dry_run_prints_the_plan_and_sends_nothing() {
    let oy = fixture();
    let mock = mock_model::start(Wire::Chat, vec![text(NO_FINDINGS)]);
    let out = audit(&oy, &mock, &["--dry-run"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(mock.requests().is_empty(), "dry run sent a request");
    assert!(out.stdout.contains("src/main.py"), "{}", out.stdout);
    assert!(!out.stdout.contains("id_ed25519  "), "{}", out.stdout);
    assert!(out.stdout.contains("nothing was sent"), "{}", out.stdout);
    for secret in PLANTED {
        assert!(!out.stdout.contains(secret), "{secret} printed");
    }
    assert!(!oy.root.join("ISSUES.md").exists());
}

#[test]
fn a_file_too_large_for_a_chunk_fails_closed_and_sends_nothing() {
    let oy = Oy::new();
    oy.file("small.rs", "fn main() {}\n");
    oy.file(
        "big.rs",
        &"// a long line of code that fills the chunk\n".repeat(4000),
    );
    let config = oy.data.with_file_name("config").join("oy");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "context_window = 16384\n").unwrap();
    let mock = mock_model::start(Wire::Chat, vec![text(NO_FINDINGS)]);
    let out = audit(&oy, &mock, &["--max-file-bytes", "10000000"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("big.rs"), "{}", out.stderr);
    assert!(out.stderr.contains("larger context"), "{}", out.stderr);
    assert!(mock.requests().is_empty());
    assert!(!oy.root.join("ISSUES.md").exists());
}

#[test]
fn out_outside_the_workspace_is_a_usage_error() {
    let oy = fixture();
    let mock = mock_model::start(Wire::Chat, vec![text(NO_FINDINGS)]);
    let out = audit(&oy, &mock, &["--out", "../outside/report.md"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(mock.requests().is_empty());
}

#[test]
fn sarif_output_is_written_where_asked() {
    let oy = fixture();
    let finding = r#"{"findings": [{"severity": "high", "title": "Shell injection", "file": "src/main.py", "line": 4, "evidence": "subprocess.run(cmd, shell=True)", "explanation": "cmd reaches a shell", "fix": "pass a list"}]}"#;
    let mock = mock_model::start(Wire::Chat, vec![text(finding), text(finding)]);
    let out = audit(
        &oy,
        &mock,
        &["--format", "sarif", "--out", "reports/audit.sarif"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let sarif: serde_json::Value = serde_json::from_str(&oy.read("reports/audit.sarif")).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{sarif}");
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "src/main.py"
    );
}

#[test]
fn a_report_path_that_is_a_symlink_or_in_git_internals_is_refused_before_any_work() {
    let oy = fixture();
    std::os::unix::fs::symlink(".env", oy.root.join("ISSUES.md")).unwrap();
    let mock = mock_model::start(Wire::Chat, vec![text(NO_FINDINGS)]);
    let out = audit(&oy, &mock, &[]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("symlink"), "{}", out.stderr);
    let out = audit(&oy, &mock, &["--out", ".git/hooks/pre-commit"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(mock.requests().is_empty());
    assert_eq!(oy.read(".env"), "API_TOKEN=DOTENV-SECRET-VALUE-91f2\n");
}

#[test]
fn a_scope_through_a_symlink_is_refused_and_its_target_never_sent() {
    let oy = fixture();
    std::fs::create_dir_all(oy.root.join("docs")).unwrap();
    std::os::unix::fs::symlink("../.env", oy.root.join("docs/NOTES.md")).unwrap();
    let mock = mock_model::start(Wire::Chat, vec![text(NO_FINDINGS)]);
    let out = audit(&oy, &mock, &["--path", "docs/NOTES.md"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("symlink"), "{}", out.stderr);
    assert!(mock.requests().is_empty());
}

/// Ctrl-C during the review goes through oy's one signal path: the review
/// stops, nothing is written, and the exit code is 130.
#[test]
fn ctrl_c_during_the_review_stops_it_and_writes_nothing() {
    use std::time::{Duration, Instant};

    let oy = fixture();
    // A server that accepts the request and never answers.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    let (accepted_tx, accepted) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            // Each request is held unanswered; the review's (not the
            // window probes') is the one the test waits for.
            let accepted_tx = accepted_tx.clone();
            std::thread::spawn(move || {
                use std::io::BufRead;
                let mut line = String::new();
                let mut reader = std::io::BufReader::new(&stream);
                let _ = reader.read_line(&mut line);
                if line.starts_with("POST /v1/chat/completions") {
                    let _ = accepted_tx.send(());
                }
                std::thread::sleep(Duration::from_secs(60));
                drop(stream);
            });
        }
    });
    let mut cmd = oy.command();
    mock_model::isolate(&mut cmd, &oy);
    let mut child = cmd
        .env("OPENAI_BASE_URL", &base_url)
        .args(["audit", "--model", "mock-model", "--wire-api", "chat"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    accepted
        .recv_timeout(Duration::from_secs(30))
        .expect("the review never reached the server");
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() >= deadline {
            child.kill().unwrap();
            panic!("oy audit did not stop after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("no report was written"), "{stderr}");
    assert!(!oy.root.join("ISSUES.md").exists());
}

/// A repository shaped like real ones, for a 32k window: a big schema, a
/// snapshot and a changelog (skipped for size), a big source file (stops
/// the audit), a small one.
fn real_shaped() -> Oy {
    let oy = Oy::new();
    oy.file("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n");
    let code: String = (0..3_000)
        .map(|i| format!("    let value_{i} = compute({i}) + 1;\n"))
        .collect();
    oy.file("src/engine.rs", &code);
    oy.file("tests/snapshots/big.snap", &code);
    oy.file("CHANGELOG.md", &"- fixed a parser bug\n".repeat(6_000));
    let schema: String = (0..6_000)
        .map(|i| format!("  \"f{i}\": {{\"type\": \"string\"}},\n"))
        .collect();
    oy.file("schema/api.schema.json", &format!("{{\n{schema}}}\n"));
    oy
}

#[test]
fn the_dry_run_shows_the_whole_plan_and_its_exit_code_says_whether_the_audit_would_run() {
    let oy = real_shaped();
    let mock = mock_model::start(Wire::Chat, vec![text(NO_FINDINGS)]);
    let out = audit(&oy, &mock, &["--dry-run"]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(mock.requests().is_empty(), "a dry run sends no prompt");
    let plan = &out.stdout;
    assert!(plan.contains("  src/main.rs  "), "{plan}");
    assert!(plan.contains("large-data-or-docs        3"), "{plan}");
    assert!(plan.contains("1 chunk of at most 20480 tokens"), "{plan}");
    assert!(plan.contains("the audit would stop"), "{plan}");
    assert!(plan.contains("\n    src/engine.rs  ~"), "{plan}");
    assert!(
        plan.contains("hint: to audit everything else: oy audit --exclude src/engine.rs\n"),
        "{plan}"
    );

    // The hint's command goes on: dry run 0, then the real audit.
    let out = audit(&oy, &mock, &["--exclude", "src/engine.rs", "--dry-run"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("the audit would run"), "{}", out.stdout);
    let out = audit(&oy, &mock, &["--exclude", "src/engine.rs"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = oy.read("ISSUES.md");
    assert!(report.contains("3 large-data-or-docs"), "{report}");
    assert!(report.contains("1 excluded"), "{report}");
    assert!(
        report.contains(
            "not reviewed: `CHANGELOG.md`, `schema/api.schema.json`, `tests/snapshots/big.snap`."
        ),
        "{report}"
    );
    assert!(report.contains("--exclude src/engine.rs"), "{report}");
    let sent: String = mock.requests().iter().map(|r| r.to_string()).collect();
    assert!(sent.contains("println!"), "the small file was sent");
    assert!(!sent.contains("value_2999"), "an excluded file was sent");

    // Without the exclude the real run stops the same way, naming the file.
    let out = audit(&oy, &mock, &[]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("src/engine.rs"), "{}", out.stderr);
    assert!(
        out.stderr.contains("--exclude src/engine.rs"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_plan_uses_the_window_llama_cpp_reports_and_says_so() {
    let oy = real_shaped();
    let mock = mock_model::start(Wire::Chat, vec![]).with_props(131_072);
    let out = audit(&oy, &mock, &["--dry-run"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("context window 131072 tokens (from the server: llama.cpp /props)"),
        "{}",
        out.stdout
    );
    assert!(mock.window_probes().contains(&"/props".to_owned()));
    assert!(mock.requests().is_empty());

    // The configuration still wins.
    let config = oy.data.with_file_name("config").join("oy");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "context_window = 16384\n").unwrap();
    let out = audit(&oy, &mock, &["--dry-run"]);
    assert!(
        out.stdout
            .contains("context window 16384 tokens (configured)"),
        "{}",
        out.stdout
    );
}

#[test]
fn the_home_directory_is_audited_only_when_named() {
    let oy = Oy::new();
    oy.file("notes.txt", "hello\n");
    let mock = mock_model::start(Wire::Chat, vec![]);
    let mut cmd = mock_model::oy_command(&oy, &mock);
    cmd.env("HOME", &oy.root).args([
        "audit",
        "--model",
        "mock-model",
        "--wire-api",
        "chat",
        "--dry-run",
    ]);
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is the home directory"), "{stderr}");
    assert!(stderr.contains("hint: "), "{stderr}");
    let mut cmd = mock_model::oy_command(&oy, &mock);
    cmd.env("HOME", &oy.root).args([
        "audit",
        "--model",
        "mock-model",
        "--wire-api",
        "chat",
        "--dry-run",
        "--path",
        ".",
    ]);
    assert_eq!(cmd.output().unwrap().status.code(), Some(0));
}

#[test]
fn an_issues_md_oy_did_not_write_is_kept_and_the_report_goes_beside_it() {
    let oy = Oy::new();
    oy.file("src/main.py", "print('hi')\n");
    oy.file("ISSUES.md", "# Our own issue list\n- slow login\n");
    let mock = mock_model::start(Wire::Chat, vec![text(NO_FINDINGS)]);
    let out = audit(&oy, &mock, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(oy.read("ISSUES.md"), "# Our own issue list\n- slow login\n");
    assert!(oy.read("ISSUES.oy.md").contains("# Audit findings"));
    assert!(
        out.stderr.contains("ISSUES.md was not written by oy"),
        "{}",
        out.stderr
    );
    let out = audit(&oy, &mock, &["--out", "ISSUES.md"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("hint: pass --out"), "{}", out.stderr);
}
