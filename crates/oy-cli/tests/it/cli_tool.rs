//! `oy tool`: one call through the same registry, policy and boundary the
//! model uses, with the exit codes and JSON shape the README documents.

use serde_json::Value;

use crate::support::{HOSTILE_NAME, Oy, assert_terminal_safe};

#[test]
fn read_prints_the_model_visible_text() {
    let oy = Oy::new();
    oy.file("README.md", "# Demo\n");
    let out = oy.run(&["tool", "read", r#"{"path":"README.md"}"#]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "1\t# Demo\n"),
        "{}",
        out.stderr
    );
}

#[test]
fn writes_are_denied_without_a_terminal_in_default_mode() {
    let oy = Oy::new();
    let out = oy.run(&["tool", "write", r#"{"path":"a.txt","content":"x"}"#]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.starts_with("TOOL_ERROR: write denied"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("accept-edits (or auto-approve) mode"),
        "{}",
        out.stdout
    );
    assert!(!oy.root.join("a.txt").exists());
}

#[test]
fn edit_mode_allows_writes_and_oy_root_selects_the_workspace() {
    let oy = Oy::new();
    let out = oy
        .command()
        .current_dir(oy.root.parent().unwrap())
        .env("OY_ROOT", &oy.root)
        .args([
            "tool",
            "write",
            r#"{"path":"a.txt","content":"hi\n"}"#,
            "--mode",
            "edit",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(oy.read("a.txt"), "hi\n");
}

#[test]
fn escapes_are_tool_errors_and_change_nothing() {
    let oy = Oy::new();
    for args in [
        r#"{"path":"../outside/secret.txt"}"#,
        r#"{"path":"/etc/passwd"}"#,
    ] {
        let out = oy.run(&["tool", "read", args]);
        assert_eq!(out.code, 1);
        assert!(out.stdout.starts_with("TOOL_ERROR: "), "{}", out.stdout);
        assert!(!out.stdout.contains("OUTSIDE-SECRET"));
    }
    let out = oy.run(&[
        "tool",
        "write",
        r#"{"path":"../outside/secret.txt","content":"pwned"}"#,
        "--mode",
        "auto",
    ]);
    assert_eq!(out.code, 1);
    let secret = std::fs::read_to_string(oy.root.parent().unwrap().join("outside/secret.txt"));
    assert_eq!(secret.unwrap(), "OUTSIDE-SECRET\n");
}

#[test]
fn only_a_tool_that_runs_commands_speaks_of_the_sandbox() {
    let oy = Oy::new();
    oy.file("f.txt", "one\ntwo\n");
    std::os::unix::fs::symlink("../outside/secret.txt", oy.root.join("link.txt")).unwrap();
    // A read runs no command: nothing to warn about, even with the
    // sandbox off, and a link out of the root is still refused.
    let out = oy.run(&["tool", "read", r#"{"path":"f.txt"}"#, "--sandbox", "off"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, "1\tone\n2\ttwo\n"));
    assert!(!out.stderr.contains("sandbox"), "{}", out.stderr);
    let out = oy.run(&["tool", "read", r#"{"path":"link.txt"}"#]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.starts_with("TOOL_ERROR: "), "{}", out.stdout);
    assert!(!out.stdout.contains("OUTSIDE-SECRET"), "{}", out.stdout);
    // A command still hears it, loudly in auto-approve.
    let out = oy.run(&[
        "tool",
        "bash",
        r#"{"command":"echo hi"}"#,
        "--mode",
        "auto",
        "--sandbox",
        "off",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("WARNING") && out.stderr.contains("sandbox level none"),
        "{}",
        out.stderr
    );
}

#[test]
fn usage_errors_exit_2_with_a_hint() {
    let oy = Oy::new();
    let out = oy.run(&["tool", "nope"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("unknown tool `nope`"), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("hint: call one of the available tools: list, read"),
        "{}",
        out.stderr
    );
    let out = oy.run(&["tool", "read", "{not json"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("not valid JSON"), "{}", out.stderr);
}

#[test]
fn json_flag_prints_ok_output_truncated_error() {
    let oy = Oy::new();
    oy.file("a.txt", "x\n");
    let ok: Value = serde_json::from_str(
        &oy.run(&["tool", "read", r#"{"path":"a.txt"}"#, "--json"])
            .stdout,
    )
    .unwrap();
    assert_eq!(
        ok,
        serde_json::json!({"ok": true, "output": "1\tx\n", "truncated": false, "error": null})
    );
    let out = oy.run(&["tool", "read", r#"{"path":"b.txt"}"#, "--json"]);
    assert_eq!(out.code, 1);
    let failed: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(failed["ok"], false);
    assert_eq!(failed["error"], "TOOL_ERROR: b.txt does not exist");
    let out = oy.run(&["tool", "nope", "--json"]);
    assert_eq!(out.code, 2);
    let usage: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(usage["ok"], false);
}

#[test]
fn arguments_can_come_from_stdin() {
    let oy = Oy::new();
    oy.file("a.txt", "x\n");
    let out = oy.run_with_stdin(&["tool", "read", "-"], Some(r#"{"path":"a.txt"}"#));
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "1\tx\n"),
        "{}",
        out.stderr
    );
}

#[test]
fn session_keeps_the_read_record_across_processes() {
    let oy = Oy::new();
    oy.file("f.txt", "alpha\n");
    let replace = r#"{"path":"f.txt","old":"alpha","new":"beta"}"#;
    // Without a session each call is fresh: the read is forgotten.
    oy.run(&["tool", "read", r#"{"path":"f.txt"}"#]);
    let out = oy.run(&["tool", "replace", replace, "--mode", "edit"]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("has not been read"), "{}", out.stdout);
    // With one, the record survives between processes...
    oy.run(&["tool", "read", r#"{"path":"f.txt"}"#, "--session", "s1"]);
    let out = oy.run(&[
        "tool",
        "replace",
        replace,
        "--mode",
        "edit",
        "--session",
        "s1",
    ]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(oy.read("f.txt"), "beta\n");
    // ...and a file changed behind its back is refused.
    oy.file("f.txt", "beta gamma\n");
    let out = oy.run(&[
        "tool",
        "replace",
        r#"{"path":"f.txt","old":"beta","new":"delta"}"#,
        "--mode",
        "edit",
        "--session",
        "s1",
    ]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("changed since it was last read"),
        "{}",
        out.stdout
    );
    use std::os::unix::fs::PermissionsExt;
    let session = oy.data.join("oy/tool-sessions/s1.json");
    let mode = std::fs::metadata(&session).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn session_todos_persist_and_bad_session_names_are_usage_errors() {
    let oy = Oy::new();
    let set = r#"{"items":[{"text":"ship it","status":"in_progress"}]}"#;
    assert_eq!(oy.run(&["tool", "todo", set, "--session", "t"]).code, 0);
    let out = oy.run(&["tool", "todo", "{}", "--session", "t"]);
    assert_eq!(out.stdout, "- [~] 1. ship it\n");
    let out = oy.run(&["tool", "todo", "{}", "--session", "../escape"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("invalid session name"),
        "{}",
        out.stderr
    );
}

#[test]
fn patch_reads_a_raw_envelope_from_stdin() {
    let oy = Oy::new();
    oy.file("main.rs", "fn main() {\n    println!(\"hi\");\n}\n");
    let envelope = "*** Begin Patch\n*** Update File: main.rs\n@@ fn main() {\n-    println!(\"hi\");\n+    println!(\"hello\");\n*** End Patch\n";
    // Default mode without a terminal: refused, nothing changes.
    let out = oy.run_with_stdin(&["tool", "patch", "-"], Some(envelope));
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains("accept-edits (or auto-approve) mode"),
        "{}",
        out.stdout
    );
    assert_eq!(
        oy.read("main.rs"),
        "fn main() {\n    println!(\"hi\");\n}\n"
    );
    let out = oy.run_with_stdin(&["tool", "patch", "-", "--mode", "edit"], Some(envelope));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(
        oy.read("main.rs"),
        "fn main() {\n    println!(\"hello\");\n}\n"
    );
    // An escaping envelope is a tool error and creates nothing.
    let evil = "*** Begin Patch\n*** Add File: ../outside/evil.txt\n+x\n*** End Patch\n";
    let out = oy.run_with_stdin(&["tool", "patch", "-", "--mode", "auto"], Some(evil));
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("outside the workspace"),
        "{}",
        out.stdout
    );
    assert!(!oy.root.parent().unwrap().join("outside/evil.txt").exists());
}

#[test]
fn search_finds_fn_main() {
    let oy = Oy::new();
    oy.file("src/main.rs", "fn main() {}\n")
        .file("src/lib.rs", "pub fn x() {}\n");
    let out = oy.run(&["tool", "search", r#"{"pattern":"fn main"}"#]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "src/main.rs:1:fn main() {}\n"),
        "{}",
        out.stderr
    );
}

#[test]
fn bash_runs_in_auto_mode_and_prints_the_result() {
    let oy = Oy::new();
    let out = oy.run(&["tool", "bash", r#"{"command":"echo hi"}"#, "--mode", "auto"]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "exit: 0\n[stdout]\nhi\n"),
        "{}",
        out.stderr
    );
    let out = oy.run(&[
        "tool",
        "exec",
        r#"{"cmd":"printf","args":["%s","a;b"]}"#,
        "--mode",
        "auto",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .starts_with(r#"{"exitCode":0,"stdout":"a;b","stderr":"","durationMs":"#),
        "{}",
        out.stdout
    );
}

#[test]
fn bash_is_refused_without_a_terminal_in_default_mode() {
    let oy = Oy::new();
    let out = oy.run(&["tool", "bash", r#"{"command":"touch ran.txt"}"#]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.starts_with("TOOL_ERROR: bash denied"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("the auto-approve mode"),
        "{}",
        out.stdout
    );
    assert!(!oy.root.join("ran.txt").exists());
}

#[test]
fn bash_children_see_credentials_only_when_allowed() {
    let oy = Oy::new();
    let args = r#"{"command":"echo \"t=${GITHUB_TOKEN:-unset} k=${OPENAI_API_KEY:-unset}\""}"#;
    let run = |extra: &[&str]| {
        let out = oy
            .command()
            .env("GITHUB_TOKEN", "ghp-planted")
            .env("OPENAI_API_KEY", "sk-planted")
            .args(["tool", "bash", args, "--mode", "auto"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(run(&[]), "exit: 0\n[stdout]\nt=unset k=unset\n");
    assert_eq!(
        run(&["--env-allow", "GITHUB_TOKEN"]),
        "exit: 0\n[stdout]\nt=ghp-planted k=unset\n"
    );
}

#[test]
fn ctrl_c_kills_the_running_command_and_exits_130() {
    use std::io::Read;
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let oy = Oy::new();
    let mut child = oy
        .command()
        .args([
            "tool",
            "bash",
            r#"{"command":"sleep 30 & echo $! > bg.pid; sleep 30"}"#,
            "--mode",
            "auto",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid_file = oy.root.join("bg.pid");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::fs::read_to_string(&pid_file).map_or(true, |text| text.trim().is_empty()) {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let grandchild: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= deadline {
            child.kill().unwrap();
            panic!("oy did not stop after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
    let gone = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
            stat.rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
        })
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while !gone(grandchild) {
        assert!(
            Instant::now() < deadline,
            "grandchild {grandchild} survived"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(
        stdout,
        "exit: 130\ncancelled; process group killed\n(no output)\n"
    );
    assert!(stderr.contains("oy: interrupted"), "{stderr}");
}

pub(crate) const ECHO_TOOL: &str = r#"{"tools":[{"name":"echo_json","description":"Echo the arguments.","parameters":{"type":"object","properties":{"msg":{"type":"string"}},"required":["msg"]},"command":["cat"]}]}"#;

#[test]
fn workspace_tools_json_needs_trust_once_per_content() {
    let oy = Oy::new();
    oy.file(".oy/tools.json", ECHO_TOOL);
    let call = ["tool", "echo_json", r#"{"msg":"hi"}"#, "--mode", "auto"];
    let out = oy.run(&call);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.stderr.contains("not trusted"), "{}", out.stderr);
    assert!(out.stderr.contains("--trust-tools"), "{}", out.stderr);
    let mut trusted = call.to_vec();
    trusted.push("--trust-tools");
    let out = oy.run(&trusted);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "{\"msg\":\"hi\"}\n"),
        "{}",
        out.stderr
    );
    // Remembered by content...
    let out = oy.run(&call);
    assert_eq!(out.code, 0, "{}", out.stderr);
    use std::os::unix::fs::PermissionsExt;
    let record = oy.data.join("oy/trusted-tools.json");
    assert_eq!(
        std::fs::metadata(&record).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // ...so an edited file is not trusted any more.
    oy.file(
        ".oy/tools.json",
        &ECHO_TOOL.replace("Echo the arguments.", "Echo, changed."),
    );
    let out = oy.run(&call);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("not trusted"), "{}", out.stderr);
}

#[test]
fn global_tools_json_is_trusted_and_listed() {
    let oy = Oy::new();
    let config = oy.data.with_file_name("config").join("oy");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("tools.json"), ECHO_TOOL).unwrap();
    let out = oy.run(&["tool", "echo_json", r#"{"msg":"x"}"#, "--mode", "auto"]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "{\"msg\":\"x\"}\n"),
        "{}",
        out.stderr
    );
    let listed = oy.run(&["tools", "--mode", "auto"]).stdout;
    assert!(listed.contains("\"echo_json\""), "{listed}");
    assert!(
        !oy.run(&["tools", "--mode", "plan"])
            .stdout
            .contains("echo_json")
    );
}

#[test]
fn an_unusable_workspace_manifest_is_ignored_and_other_tools_still_work() {
    let oy = Oy::new();
    oy.file("a.txt", "x\n");
    // A directory where the manifest should be.
    std::fs::create_dir_all(oy.root.join(".oy/tools.json")).unwrap();
    let out = oy.run(&["tool", "read", r#"{"path":"a.txt"}"#]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "1\tx\n"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("ignoring .oy/tools.json"),
        "{}",
        out.stderr
    );
}

#[test]
fn an_error_naming_a_hostile_missing_root_reaches_the_terminal_inert() {
    use std::os::unix::ffi::OsStrExt as _;
    let oy = Oy::new();
    // Errors are multi-line text (hints follow them), so a newline in the
    // name is out of scope here; a raw 0x9b byte (an 8-bit CSI, not UTF-8)
    // is in.
    let mut name = HOSTILE_NAME.split('\n').next().unwrap().as_bytes().to_vec();
    name.extend_from_slice(b"\x9b2J");
    let missing = oy.root.join(std::ffi::OsStr::from_bytes(&name));
    let out = oy
        .command()
        .args(["tool", "list", "--root"])
        .arg(&missing)
        .output()
        .unwrap();
    // A named root that does not exist is a usage error.
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8(out.stderr).expect("stderr is UTF-8: no raw 0x9b");
    assert_terminal_safe("the error", &stderr);
    assert!(stderr.starts_with("oy: error: --root "), "{stderr}");
    assert!(stderr.contains("does not exist"), "{stderr}");
    assert!(
        stderr.contains("evil") && stderr.contains("gnp.exe"),
        "{stderr}"
    );
}

#[test]
fn a_listing_shows_hostile_file_names_inert_and_json_keeps_them() {
    let oy = Oy::new();
    // Without the newline: the list tool's own lines are its business.
    let name = HOSTILE_NAME.split('\n').next().unwrap();
    oy.file(name, "x\n");
    let out = oy.run(&["tool", "list"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_terminal_safe("tool list", &out.stdout);
    assert!(out.stdout.contains("gnp.exe"), "{}", out.stdout);

    let out = oy.run(&["tool", "list", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_terminal_safe("tool list --json", &out.stdout);
    let value: Value = serde_json::from_str(&out.stdout).unwrap();
    let output = value["output"].as_str().unwrap();
    assert!(output.contains("\u{202e}gnp.exe"), "{output:?}");
}

#[test]
fn max_output_lifts_or_lowers_the_model_cap() {
    let oy = Oy::new();
    for n in 0..2_000 {
        oy.file(&format!("dir/file_with_a_rather_long_name_{n:05}.txt"), "");
    }
    let list = r#"{"pattern":"*.txt","limit":100000}"#;
    let run = |extra: &[&str]| {
        let mut args = vec!["tool", "list", list, "--json"];
        args.extend_from_slice(extra);
        let out = oy.run(&args);
        assert_eq!(out.code, 0, "{}", out.stderr);
        serde_json::from_str::<Value>(&out.stdout).unwrap()
    };
    let capped = run(&[]);
    assert_eq!(capped["truncated"], true, "{capped}");
    let whole = run(&["--max-output", "10000000"]);
    assert_eq!(whole["truncated"], false, "{whole}");
    let text = whole["output"].as_str().unwrap();
    assert_eq!(text.lines().count(), 2_000);
    assert!(text.len() > 64 * 1024);
    let small = run(&["--max-output", "200"]);
    assert_eq!(small["truncated"], true, "{small}");
    assert!(small["output"].as_str().unwrap().len() < 1_000, "{small}");
    let zero = oy.run(&["tool", "list", list, "--max-output", "0"]);
    assert_eq!(zero.code, 2, "{}", zero.stderr);
}
