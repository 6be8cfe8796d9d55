//! `oy doctor`: a working local provider, and the problems that block a
//! run (each with a hint, exit 1).

use crate::support::{
    AWS_TEST_ENV, BedrockServers, HOSTILE_NAME, ModelsServer, Oy, assert_terminal_safe, closed_url,
};

#[test]
fn reports_a_working_provider_and_exits_zero() {
    let server = ModelsServer::start(&["alpha", "beta"]);
    let oy = Oy::new();
    oy.file("AGENTS.md", "be brief\n");
    let base = server.base_url();
    let run = oy.run_clean(
        &["doctor", "--model", "beta"],
        &[
            ("OPENAI_BASE_URL", &base),
            ("OPENAI_API_KEY", "sk-abcdefgh"),
        ],
    );
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    let out = &run.stdout;
    assert!(out.contains(env!("CARGO_PKG_VERSION")), "{out}");
    assert!(out.contains("config.toml (not present"), "{out}");
    assert!(out.contains(&oy.root.display().to_string()), "{out}");
    assert!(out.contains("default (network ask)"), "{out}");
    assert!(out.contains("openai (OPENAI_BASE_URL is set)"), "{out}");
    assert!(out.contains(&base), "{out}");
    assert!(out.contains("wire API          chat"), "{out}");
    assert!(out.contains("OPENAI_API_KEY: set (11 chars)"), "{out}");
    assert!(!out.contains("sk-abcdefgh"), "{out}");
    assert!(out.contains("yes (2 models listed)"), "{out}");
    assert!(out.contains("beta (--model/OY_MODEL)"), "{out}");
    assert!(out.contains("AGENTS.md         present"), "{out}");
    assert!(out.contains("interrupted       none"), "{out}");
    assert!(out.contains("bash"), "{out}");
    assert!(!out.contains("hint:"), "{out}");
    assert!(out.contains("result: ready"), "{out}");
}

#[test]
fn warns_when_the_model_is_not_listed() {
    let server = ModelsServer::start(&["alpha"]);
    let oy = Oy::new();
    let base = server.base_url();
    let run = oy.run_clean(
        &["doctor", "--model", "nope"],
        &[("OPENAI_BASE_URL", &base)],
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stdout.contains("does not list this model"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("hint: `oy model` lists"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_provider_that_does_not_answer_blocks_with_hints() {
    let oy = Oy::new();
    // Port 1 on loopback: nothing listens, the connection is refused.
    let run = oy.run_clean(&["doctor"], &[("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("answers           PROBLEM: no"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("model             PROBLEM: none chosen"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.matches("hint:").count() >= 3, "{}", run.stdout);
    assert!(
        run.stdout.contains("result: a run would fail"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_missing_key_for_openai_itself_blocks() {
    let oy = Oy::new();
    let run = oy.run_clean(&["doctor", "--provider", "openai", "--model", "gpt-x"], &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("OPENAI_API_KEY: not set"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("hint: export OPENAI_API_KEY"),
        "{}",
        run.stdout
    );
}

#[test]
fn an_unknown_provider_name_is_reported() {
    let oy = Oy::new();
    let run = oy.run_clean(&["doctor", "--provider", "nosuch"], &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("unknown provider `nosuch`"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("hint: add a [providers.nosuch] table"),
        "{}",
        run.stdout
    );
}

#[test]
fn hostile_paths_keys_and_model_ids_reach_the_terminal_inert() {
    let server = ModelsServer::start(&["alpha", "m\x1b]0;pwned\x07\u{9b}2J\u{202e}"]);
    let oy = Oy::new().with_hostile_root();
    // A workspace chooses its config's keys: the warning quotes one.
    oy.file(
        ".oy/config.toml",
        "\"k\\u001b]0;pwned\\u0007\\u009b2J\\u202e\\nforged line\" = 1\n",
    );
    let base = server.base_url();
    let data = oy.data.join(HOSTILE_NAME);
    let run = oy.run_clean(
        &["doctor", "--model", "x\x1b[2J\u{9b}31m\u{202e}"],
        &[
            ("OPENAI_BASE_URL", &base),
            ("XDG_DATA_HOME", data.to_str().unwrap()),
        ],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_terminal_safe("doctor", &run.stdout);
    assert_terminal_safe("doctor (stderr)", &run.stderr);
    let workspace = run
        .stdout
        .lines()
        .find(|line| line.starts_with("workspace "))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(
        workspace.contains("evil") && workspace.contains("gnp.exe"),
        "{workspace}"
    );
    assert!(run.stdout.contains("cannot set k"), "{}", run.stdout);
    assert!(run.stderr.contains("cannot set k"), "{}", run.stderr);
}

#[test]
fn a_missing_hostile_root_is_reported_inert() {
    let oy = Oy::new();
    let missing = oy.root.join(HOSTILE_NAME);
    let run = oy.run_clean(
        &["doctor", "--root", missing.to_str().unwrap()],
        &[("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")],
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_terminal_safe("doctor", &run.stdout);
    assert_terminal_safe("doctor (stderr)", &run.stderr);
    assert!(
        run.stdout.contains("workspace         PROBLEM:"),
        "{}",
        run.stdout
    );
}

#[test]
fn bedrock_checks_the_runtime_and_lists_from_the_control_plane() {
    let servers = BedrockServers::start(&["m1", "m2"]);
    let oy = Oy::new();
    oy.global_config(&servers.config(Some(&servers.control.uri())));
    let run = oy.run_clean(
        &["doctor", "--provider", "aws", "--model", "m1"],
        AWS_TEST_ENV,
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("yes (2 models listed)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("result: ready"), "{}", run.stdout);
    let (runtime, control) = servers.paths();
    assert_eq!(runtime, ["/async-invoke"]);
    assert_eq!(control, ["/foundation-models"]);
}

#[test]
fn bedrock_model_listing_that_fails_is_a_warning_when_the_runtime_answers() {
    let servers = BedrockServers::start(&[]);
    let oy = Oy::new();
    oy.global_config(&servers.config(Some(&closed_url())));
    let run = oy.run_clean(
        &["doctor", "--provider", "aws", "--model", "m1"],
        AWS_TEST_ENV,
    );
    let out = &run.stdout;
    assert_eq!(run.code, 0, "{out}\n{}", run.stderr);
    assert!(out.contains("answers           yes\n"), "{out}");
    assert!(
        out.contains(
            "models            warning: not listed: cannot reach the Bedrock control plane"
        ),
        "{out}"
    );
    assert!(
        out.contains("hint: ") && out.contains("control_endpoint_url"),
        "{out}"
    );
    assert!(out.contains("result: ready"), "{out}");
    assert!(!out.contains("a run would fail"), "{out}");
}

#[test]
fn bedrock_runtime_that_does_not_answer_blocks() {
    let servers = BedrockServers::start(&["m1"]);
    let oy = Oy::new();
    let runtime = closed_url();
    oy.global_config(&format!(
        "[providers.aws]\nkind = \"bedrock\"\nregion = \"us-east-1\"\nendpoint_url = \"{runtime}\"\ncontrol_endpoint_url = \"{}\"\n",
        servers.control.uri()
    ));
    let run = oy.run_clean(
        &["doctor", "--provider", "aws", "--model", "m1"],
        AWS_TEST_ENV,
    );
    let out = &run.stdout;
    assert_eq!(run.code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "answers           PROBLEM: no: cannot reach the Bedrock runtime at {runtime}: connection refused"
        )),
        "{out}"
    );
    assert!(out.contains("result: a run would fail"), "{out}");
}

/// A multi-file patch killed half way (its journal record left in oy's
/// data directory): `oy doctor` completes it as any start would, and says
/// so (docs/crash-safety.md).
#[test]
fn an_interrupted_patch_is_undone_and_reported() {
    let server = ModelsServer::start(&["alpha"]);
    let oy = Oy::new();
    oy.file("a.txt", "new a\n").file("b.txt", "old b\n");
    let digest = |text: &str| oy_tools::content_digest(text.as_bytes());
    let root = oy.root.to_string_lossy().into_owned();
    let journal = oy
        .data
        .join("oy")
        .join(oy_tools::JOURNAL_DIR)
        .join(&digest(&root)[..16]);
    std::fs::create_dir_all(&journal).unwrap();
    let replace = |path: &str, old: &str, new: &str| {
        serde_json::json!({
            "kind": "replace", "path": path, "new": digest(new), "old_len": old.len(),
            "undo": [{"at": 0, "len": new.len(), "old": old}],
        })
    };
    let record = serde_json::json!({
        "version": 1, "workspace": root, "tool": "patch", "call_id": "call_9",
        "pid": 4_194_400, "started_ms": 1,
        "changes": [replace("a.txt", "old a\n", "new a\n"), replace("b.txt", "old b\n", "new b\n")],
    });
    std::fs::write(journal.join("4194400-1.journal"), format!("{record}\n")).unwrap();
    let base = server.base_url();
    let run = oy.run_clean(
        &["doctor", "--model", "alpha"],
        &[
            ("OPENAI_BASE_URL", &base),
            ("OPENAI_API_KEY", "sk-abcdefgh"),
        ],
    );
    let out = &run.stdout;
    assert!(
        out.contains("interrupted       a `patch` change (call call_9)"),
        "{out}"
    );
    assert!(out.contains("restored: a.txt"), "{out}");
    assert_eq!(oy.read("a.txt"), "old a\n");
    assert_eq!(oy.read("b.txt"), "old b\n");
    let again = oy.run_clean(
        &["doctor", "--model", "alpha"],
        &[
            ("OPENAI_BASE_URL", &base),
            ("OPENAI_API_KEY", "sk-abcdefgh"),
        ],
    );
    assert!(
        again.stdout.contains("interrupted       none"),
        "{}",
        again.stdout
    );
}
