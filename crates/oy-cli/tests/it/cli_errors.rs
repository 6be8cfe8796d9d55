//! Error cases and edge cases of the command line, each with the exit code
//! the README promises (2 for usage and configuration errors) and a clear
//! message: never a panic, a debug dump or a generic failure.

use std::io::Write as _;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::mock_model::{self, Wire, text};
use crate::support::{Oy, Run, assert_clean, closed_url};

/// `oy ARGS` with `stdin` bytes piped in.
fn run_with_bytes(oy: &Oy, args: &[&str], stdin: &[u8]) -> Run {
    let mut child = oy
        .command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

#[test]
fn max_turns_zero_is_a_usage_error_for_run_and_chat() {
    let oy = Oy::new();
    for args in [
        &["run", "--max-turns", "0", "hi"][..],
        &["--max-turns", "0", "hi"],
        &["chat", "--max-turns", "0"],
    ] {
        let run = oy.run_clean(args, &[]);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("--max-turns") && run.stderr.contains("at least 1"),
            "{args:?}: {}",
            run.stderr
        );
        assert_clean("max turns", &run.stderr);
    }
    // 1 is fine as far as the flags go (the run then fails for want of a
    // provider, which is not what this checks).
    let run = oy.run_clean(&["run", "--max-turns", "1", "--help"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn a_root_that_is_a_file_or_missing_is_a_usage_error() {
    let oy = Oy::new();
    oy.file("notes.txt", "a file\n");
    let file = oy.root.join("notes.txt");
    let missing = oy.root.join("no-such-dir");
    for root in [&file, &missing] {
        for command in [
            &["run", "hi", "--root"][..],
            &["sessions", "--root"],
            &["tool", "list", "--root"],
            &["tools", "--root"],
        ] {
            let mut args = command.to_vec();
            args.push(root.to_str().unwrap());
            let run = oy.run_clean(&args, &[]);
            assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
            let first = run.stderr.lines().next().unwrap_or_default();
            let expected = if root == &file {
                "is a file, not a directory"
            } else {
                "does not exist"
            };
            assert!(first.starts_with("oy: error: --root "), "{first}");
            assert!(first.ends_with(expected), "{first}");
            assert!(run.stderr.contains("\nhint: "), "{}", run.stderr);
        }
    }
    // OY_ROOT is the same setting.
    let run = oy.run_clean(&["sessions"], &[("OY_ROOT", file.to_str().unwrap())]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[test]
fn invalid_utf8_on_stdin_is_a_usage_error() {
    let oy = Oy::new();
    let bytes = b"fix \xff\xfe this";
    let run = run_with_bytes(&oy, &["run"], bytes);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("oy: error: the prompt on stdin is not valid UTF-8\nhint: "),
        "{}",
        run.stderr
    );
    let run = run_with_bytes(&oy, &["-"], bytes);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("not valid UTF-8"), "{}", run.stderr);
    let run = run_with_bytes(&oy, &["tool", "patch", "-", "--mode", "edit"], bytes);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .starts_with("oy: error: the arguments on stdin are not valid UTF-8"),
        "{}",
        run.stderr
    );
}

/// The AWS environment of a machine with no credentials at all: no
/// variables, shared files that do not exist, no instance metadata.
fn no_aws(oy: &Oy) -> Vec<(String, String)> {
    let nowhere = oy.root.parent().unwrap().join("no-aws");
    vec![
        ("AWS_EC2_METADATA_DISABLED".into(), "true".into()),
        (
            "AWS_SHARED_CREDENTIALS_FILE".into(),
            nowhere.join("credentials").display().to_string(),
        ),
        (
            "AWS_CONFIG_FILE".into(),
            nowhere.join("config").display().to_string(),
        ),
        ("AWS_REGION".into(), "us-east-1".into()),
    ]
}

#[test]
fn bedrock_without_credentials_is_one_line_a_hint_and_exit_2_without_retries() {
    let oy = Oy::new();
    let envs = no_aws(&oy);
    let envs: Vec<(&str, &str)> = envs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let started = Instant::now();
    let run = oy.run_clean(
        &["run", "--provider", "bedrock", "--model", "m", "hi"],
        &envs,
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "no retries: {:?}",
        started.elapsed()
    );
    let mut lines = run.stderr.lines();
    let first = lines.next().unwrap();
    assert!(
        first.starts_with("oy: error: no AWS credentials found: looked in "),
        "{}",
        run.stderr
    );
    assert!(first.contains("profile `default`"), "{first}");
    assert!(first.contains("no-aws/credentials (missing)"), "{first}");
    let rest: Vec<&str> = lines.collect();
    assert!(!rest.is_empty(), "{}", run.stderr);
    assert!(
        rest.iter().all(|line| line.starts_with("hint: ")),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("retrying"), "{}", run.stderr);
    assert_clean("bedrock", &run.stderr);
    // The same as a failed doctor check.
    let run = oy.run_clean(&["doctor", "--provider", "bedrock", "--model", "m"], &envs);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("PROBLEM: no AWS credentials found"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("  hint: export AWS_PROFILE"),
        "{}",
        run.stdout
    );
    assert_clean("doctor", &run.stderr);
}

#[test]
fn doctor_reports_a_malformed_global_config_and_goes_on() {
    let oy = Oy::new();
    oy.global_config("model = \"m\"\nmode = [\n");
    let url = closed_url();
    let run = oy.run_clean(&["doctor"], &[("OPENAI_BASE_URL", &url)]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let line = run
        .stdout
        .lines()
        .find(|line| line.starts_with("config file"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(line.contains("PROBLEM: invalid config file"), "{line}");
    assert!(line.contains("line 2"), "{line}");
    assert!(
        run.stdout.contains("  hint: fix the file"),
        "{}",
        run.stdout
    );
    // The other checks still ran.
    for label in ["workspace ", "data dir ", "provider ", "result: "] {
        assert!(run.stdout.contains(label), "{label}: {}", run.stdout);
    }
    // A run stops at it, as a usage error.
    let run = oy.run_clean(&["run", "hi"], &[("OPENAI_BASE_URL", &url)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("oy: error: invalid config file"),
        "{}",
        run.stderr
    );
}

#[test]
fn doctor_reports_an_unusable_global_value_and_goes_on() {
    let oy = Oy::new();
    oy.global_config("idle_timeout_secs = 0\n");
    let run = oy.run_clean(&["doctor"], &[("OPENAI_BASE_URL", &closed_url())]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("config file       PROBLEM: idle_timeout_secs"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("provider "), "{}", run.stdout);
}

#[test]
fn doctor_reports_a_malformed_workspace_config_and_goes_on() {
    let oy = Oy::new();
    oy.file(".oy/config.toml", "mode = \n");
    let run = oy.run_clean(&["doctor"], &[("OPENAI_BASE_URL", &closed_url())]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("workspace config  PROBLEM: invalid config file"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("  hint: fix .oy/config.toml"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("provider "), "{}", run.stdout);
    let run = oy.run_clean(&["tools"], &[]);
    assert_eq!(run.code, 2, "strict elsewhere: {}", run.stderr);
}

#[test]
fn doctor_checks_the_data_directory_is_writable() {
    let oy = Oy::new();
    let url = closed_url();
    let run = oy.run_clean(&["doctor"], &[("OPENAI_BASE_URL", &url)]);
    let line = run
        .stdout
        .lines()
        .find(|line| line.starts_with("data dir"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(line.contains("(writable;"), "{line}");
    let leftovers: Vec<_> = std::fs::read_dir(oy.data.join("oy"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .filter(|name| name.to_string_lossy().contains("probe"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // A data directory under a file cannot be made, whoever runs the test.
    let blocker = oy.root.parent().unwrap().join("a-file");
    std::fs::write(&blocker, "x").unwrap();
    let run = oy.run_clean(
        &["doctor"],
        &[
            ("OPENAI_BASE_URL", &url),
            ("XDG_DATA_HOME", blocker.to_str().unwrap()),
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    let line = run
        .stdout
        .lines()
        .find(|line| line.starts_with("data dir"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(line.contains("PROBLEM: "), "{line}");
    assert!(line.contains("a-file/oy is not writable"), "{line}");
    assert!(run.stdout.contains("XDG_DATA_HOME"), "{}", run.stdout);
}

#[test]
fn doctor_in_the_filesystem_root_warns_that_the_workspace_is_broad() {
    let oy = Oy::new();
    let mut cmd = oy.clean_command();
    let out = cmd
        .current_dir("/")
        .arg("doctor")
        .env("OPENAI_BASE_URL", closed_url())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("warning: the workspace / is the filesystem's root, which is very broad"),
        "{stdout}"
    );
    assert!(stdout.contains("hint: cd into a project"), "{stdout}");
}

#[test]
fn run_in_the_home_directory_warns_once_and_still_runs() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![text("Done."), text("Again.")]);
    let home = oy.root.parent().unwrap().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let out = mock_model::oy_command(&oy, &mock)
        .current_dir(&home)
        .args(["run", "--model", "mock-model", "-q", "hello"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("oy: warning: the workspace"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains("is the home directory, which is very broad"),
        "{stderr}"
    );
    assert!(
        stderr.contains("hint: cd into a project first, or pass --root DIR"),
        "{stderr}"
    );
    // Named on purpose: no warning.
    let out = mock_model::oy_command(&oy, &mock)
        .current_dir(&oy.root)
        .args(["run", "--model", "mock-model", "-q", "--root"])
        .arg(&home)
        .arg("hello")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("very broad"), "{stderr}");
}
