//! The embedding example (`examples/like_oy.rs`), built by cargo alongside
//! this test binary and run with a temp home whose config file names a
//! `[providers.mock]` table at a local wiremock server speaking Chat
//! Completions SSE: the same configuration `oy run` would use.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};
use tempfile::TempDir;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// `target/<profile>/examples/like_oy`, built on demand if cargo did not
/// build examples for this run.
fn example_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/it-<hash> → target/<profile>
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let binary = profile_dir.join("examples").join("like_oy");
    if !binary.exists() {
        let status = Command::new(env!("CARGO"))
            .args(["build", "-p", "oy-config", "--example", "like_oy"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .unwrap();
        assert!(status.success(), "building the example failed");
    }
    assert!(binary.exists(), "no example binary at {}", binary.display());
    binary
}

/// A temp home with `config.toml` under `XDG_CONFIG_HOME`, and a workspace.
struct Setup {
    home: TempDir,
    workspace: TempDir,
}

impl Setup {
    fn new(config: &str) -> Self {
        let home = TempDir::new().unwrap();
        let dir = home.path().join("config").join("oy");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("config.toml"), config).unwrap();
        let workspace = TempDir::new().unwrap();
        std::fs::write(
            workspace.path().join("main.rs"),
            "fn main() {\n    println!(\"hi\");\n}\n",
        )
        .unwrap();
        std::fs::write(workspace.path().join("README.md"), "# demo\n").unwrap();
        Self { home, workspace }
    }

    /// The example, in a clean environment that holds only the temp home
    /// (and `PATH`): no developer key or `OY_*` variable leaks in.
    async fn run(&self, args: &[&str]) -> Output {
        let mut command = Command::new(example_binary());
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path().join("config"))
            .env("XDG_DATA_HOME", self.home.path().join("data"))
            .arg(self.workspace.path())
            .args(args);
        tokio::task::spawn_blocking(move || command.output())
            .await
            .unwrap()
            .unwrap()
    }

    fn workspace(&self) -> &Path {
        self.workspace.path()
    }
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_732_000_000,
        "model": "mock-model",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        "usage": null
    })
}

/// The model answers in two text chunks.
fn answer_body() -> String {
    let mut body = String::new();
    for chunk in [
        chunk(json!({"role": "assistant", "content": "A tiny "}), None),
        chunk(json!({"content": "Rust program."}), None),
        chunk(json!({}), Some("stop")),
    ] {
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    body
}

fn config_for(server: &str) -> String {
    format!(
        "provider = \"mock\"\nmode = \"edit\"\n\
         [providers.mock]\nbase_url = \"{server}/v1\"\nmodel = \"mock-model\"\n\
         wire_api = \"chat\"\ncontext_window = 32000\n"
    )
}

#[tokio::test]
async fn the_example_plans_an_audit_and_answers_from_the_configured_provider() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-type", "text/event-stream")
                .set_body_string(answer_body()),
        )
        .mount(&server)
        .await;
    let setup = Setup::new(&config_for(&server.uri()));

    let output = setup.run(&["What is this?"]).await;

    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(
        lines[0].starts_with("plan: 2 files, 1 chunks, ")
            && lines[0].ends_with(" tokens (window 32000, configured)"),
        "{stdout}"
    );
    assert!(lines[1].starts_with("provider: "), "{stdout}");
    assert!(
        lines[1].contains("mock") && lines[1].contains("model mock-model"),
        "{stdout}"
    );
    assert_eq!(lines[2], "A tiny Rust program.");

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1);
    let body: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(body["model"], "mock-model");
    assert!(requests[0].headers.get("authorization").is_none());
    // Plan mode whatever the config's mode: nothing that writes or runs
    // commands is offered.
    let offered: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert!(offered.contains(&"read"), "{offered:?}");
    assert!(
        !offered.contains(&"write") && !offered.contains(&"bash"),
        "{offered:?}"
    );
}

#[tokio::test]
async fn plan_only_reaches_no_provider() {
    // Port 9 (discard) on loopback: any connection attempt would fail.
    let setup = Setup::new(&config_for("http://127.0.0.1:9"));

    let output = setup.run(&["--plan-only"]).await;

    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stdout.starts_with("plan: 2 files, 1 chunks"), "{stdout}");
}

#[tokio::test]
async fn the_workspace_config_and_config_errors_apply_as_for_oy() {
    let setup = Setup::new("mode = \"yolo\"\n");
    let output = setup.run(&["--plan-only"]).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("invalid config file") && stderr.contains("at line 1"),
        "{stderr}"
    );

    let setup = Setup::new("context_window = 32000\n");
    std::fs::create_dir(setup.workspace().join(".oy")).unwrap();
    std::fs::write(
        setup.workspace().join(".oy/config.toml"),
        "model = \"evil\"\n",
    )
    .unwrap();
    let output = setup.run(&["--plan-only"]).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("a workspace config cannot set model"),
        "{stderr}"
    );
}
