//! Runs the built `oy` binary against a temp workspace with a controlled
//! environment (non-interactive, private data dir).

use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

pub struct Oy {
    pub _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub data: PathBuf,
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Oy {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("ws");
        let data = base.join("data");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        fs::write(base.join("outside/secret.txt"), "OUTSIDE-SECRET\n").unwrap();
        Self {
            _tmp: tmp,
            root,
            data,
        }
    }

    pub fn file(&self, rel: &str, contents: &str) -> &Self {
        let path = self.root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, contents).unwrap();
        self
    }

    pub fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.root.join(rel)).unwrap()
    }

    pub fn command(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_oy"));
        cmd.current_dir(&self.root)
            .env_remove("OY_ROOT")
            .env_remove("OY_MODE")
            .env("OY_NON_INTERACTIVE", "1")
            .env("XDG_DATA_HOME", &self.data)
            .env("XDG_CONFIG_HOME", self.data.with_file_name("config"))
            .env("NO_COLOR", "1");
        cmd
    }

    pub fn run(&self, args: &[&str]) -> Run {
        self.run_with_stdin(args, None)
    }

    pub fn run_with_stdin(&self, args: &[&str], stdin: Option<&str>) -> Run {
        let mut cmd = self.command();
        cmd.args(args);
        finish(output_with_stdin(&mut cmd, stdin))
    }
}

/// Runs `cmd` with `stdin` piped in (closed when `None`), capturing output.
pub fn output_with_stdin(cmd: &mut Command, stdin: Option<&str>) -> Output {
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    }
    child.wait_with_output().unwrap()
}

fn finish(output: Output) -> Run {
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

// ---- config, doctor and model tests: an environment with no real provider ----

/// Provider-related variables a developer's shell may carry; tests that
/// choose a provider start from none of them.
const PROVIDER_VARS: &[&str] = &[
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OY_MODEL",
    "OY_PROVIDER",
    "OY_WIRE_API",
    "OY_MODE",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
];

impl Oy {
    /// `$XDG_CONFIG_HOME/oy` as the binary sees it.
    pub fn config_dir(&self) -> PathBuf {
        self.data.with_file_name("config").join("oy")
    }

    /// Writes the global config.toml.
    pub fn global_config(&self, text: &str) -> &Self {
        fs::create_dir_all(self.config_dir()).unwrap();
        fs::write(self.config_dir().join("config.toml"), text).unwrap();
        self
    }

    /// Like `command`, with no provider settings, no AWS settings, and a
    /// fake HOME, so nothing real can be found.
    pub fn clean_command(&self) -> Command {
        let mut cmd = self.command();
        for name in PROVIDER_VARS {
            cmd.env_remove(name);
        }
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("AWS_") {
                cmd.env_remove(name);
            }
        }
        let home = self.data.with_file_name("home");
        fs::create_dir_all(&home).unwrap();
        cmd.env("HOME", home);
        cmd
    }

    /// Runs `oy ARGS` from `clean_command` with `envs` added.
    pub fn run_clean(&self, args: &[&str], envs: &[(&str, &str)]) -> Run {
        let mut cmd = self.clean_command();
        cmd.args(args)
            .envs(envs.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        finish(cmd.output().unwrap())
    }
}

/// A local OpenAI-compatible server answering `GET /v1/models` with `ids`.
/// Keep the returned runtime alive as long as the server is used.
pub struct ModelsServer {
    pub runtime: tokio::runtime::Runtime,
    pub server: wiremock::MockServer,
}

impl ModelsServer {
    pub fn start(ids: &[&str]) -> Self {
        use wiremock::matchers::{method, path};
        use wiremock::{Mock, ResponseTemplate};
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let data: Vec<serde_json::Value> = ids
            .iter()
            .map(|id| serde_json::json!({"id": id, "object": "model", "owned_by": "test"}))
            .collect();
        let server = runtime.block_on(async {
            let server = crate::openai_spec::guarded_server().await;
            Mock::given(method("GET"))
                .and(path("/v1/models"))
                .respond_with(
                    ResponseTemplate::new(200)
                        .set_body_json(serde_json::json!({"object": "list", "data": data})),
                )
                .mount(&server)
                .await;
            server
        });
        Self { runtime, server }
    }

    /// The API root to put in OPENAI_BASE_URL or a provider's base_url.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.uri())
    }

    /// How many requests reached the server.
    pub fn requests(&self) -> usize {
        self.runtime
            .block_on(self.server.received_requests())
            .map_or(0, |requests| requests.len())
    }
}

/// Two local servers standing in for AWS Bedrock: the runtime (answers
/// `ListAsyncInvokes`, the call `oy doctor` checks it with, and 404 to
/// anything else, as a runtime endpoint does to the control plane's
/// paths) and the control plane (`ListFoundationModels` with `ids`).
pub struct BedrockServers {
    pub runtime_handle: tokio::runtime::Runtime,
    pub runtime: wiremock::MockServer,
    pub control: wiremock::MockServer,
}

/// Static AWS credentials for the credential chain's environment step (and
/// no instance metadata lookups), so nothing real is asked.
pub const AWS_TEST_ENV: &[(&str, &str)] = &[
    ("AWS_ACCESS_KEY_ID", "AKIDTEST"),
    ("AWS_SECRET_ACCESS_KEY", "test-secret"),
    ("AWS_EC2_METADATA_DISABLED", "true"),
];

impl BedrockServers {
    pub fn start(ids: &[&str]) -> Self {
        use wiremock::matchers::{method, path};
        use wiremock::{Mock, ResponseTemplate};
        let runtime_handle = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let summaries: Vec<serde_json::Value> = ids
            .iter()
            .map(|id| {
                serde_json::json!({
                    "modelArn": format!("arn:aws:bedrock:us-east-1::foundation-model/{id}"),
                    "modelId": id,
                    "providerName": "Test",
                    "outputModalities": ["TEXT"]
                })
            })
            .collect();
        let (runtime, control) = runtime_handle.block_on(async {
            let runtime = wiremock::MockServer::start().await;
            Mock::given(method("GET"))
                .and(path("/async-invoke"))
                .respond_with(
                    ResponseTemplate::new(200)
                        .set_body_json(serde_json::json!({"asyncInvokeSummaries": []})),
                )
                .mount(&runtime)
                .await;
            let control = wiremock::MockServer::start().await;
            Mock::given(method("GET"))
                .and(path("/foundation-models"))
                .respond_with(
                    ResponseTemplate::new(200)
                        .set_body_json(serde_json::json!({"modelSummaries": summaries})),
                )
                .mount(&control)
                .await;
            (runtime, control)
        });
        Self {
            runtime_handle,
            runtime,
            control,
        }
    }

    /// A `[providers.aws]` table with the runtime as `endpoint_url` and,
    /// when given, `control` as `control_endpoint_url`.
    pub fn config(&self, control: Option<&str>) -> String {
        let mut table = format!(
            "[providers.aws]\nkind = \"bedrock\"\nregion = \"us-east-1\"\nendpoint_url = \"{}\"\n",
            self.runtime.uri()
        );
        if let Some(control) = control {
            table.push_str(&format!("control_endpoint_url = \"{control}\"\n"));
        }
        table
    }

    /// The paths the runtime and the control plane were asked for.
    pub fn paths(&self) -> (Vec<String>, Vec<String>) {
        let paths = |server: &wiremock::MockServer| {
            self.runtime_handle
                .block_on(server.received_requests())
                .unwrap_or_default()
                .iter()
                .map(|request| request.url.path().to_owned())
                .collect::<Vec<_>>()
        };
        (paths(&self.runtime), paths(&self.control))
    }
}

/// A URL on 127.0.0.1 where nothing listens.
pub fn closed_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{address}")
}

// ---- terminal safety: names that try to take over the terminal ----

/// A file name that tries every trick on a terminal: an OSC window title
/// ended by BEL, a screen clear, a one-character CSI (U+009B), a
/// right-to-left override, and a newline that would forge a line.
pub const HOSTILE_NAME: &str = "evil\x1b]0;pwned\x07\x1b[2J\u{9b}31m\u{202e}gnp.exe\nforged line";

impl Oy {
    /// The same sandbox, with the workspace root moved into a directory
    /// named [`HOSTILE_NAME`].
    pub fn with_hostile_root(mut self) -> Self {
        self.root = self.root.join(HOSTILE_NAME);
        fs::create_dir_all(&self.root).unwrap();
        self
    }
}

/// Fails when `text` (what `what` printed) holds anything a terminal
/// would act on, or a line forged by a newline in a name.
pub fn assert_terminal_safe(what: &str, text: &str) {
    for bad in ['\x1b', '\x07', '\u{9b}', '\u{202e}'] {
        assert!(!text.contains(bad), "{what} printed {bad:?}: {text:?}");
    }
    assert!(
        !text.lines().any(|line| line.starts_with("forged line")),
        "{what} printed a forged line: {text:?}"
    );
}

// ---- oy's data and config directories are private ----

/// Fails unless every directory under `top` (and `top` itself) is mode
/// 0700 and every file 0600.
pub fn assert_private_tree(top: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut loose = Vec::new();
    let mut pending = vec![top.to_path_buf()];
    while let Some(path) = pending.pop() {
        let meta = fs::symlink_metadata(&path).unwrap();
        let mode = meta.permissions().mode() & 0o7777;
        let want = if meta.is_dir() { 0o700 } else { 0o600 };
        if mode != want {
            loose.push(format!("{} {mode:o}", path.display()));
        }
        if meta.is_dir() {
            for entry in fs::read_dir(&path).unwrap() {
                pending.push(entry.unwrap().path());
            }
        }
    }
    assert!(loose.is_empty(), "not private: {loose:#?}");
}

/// Runs `oy tool TOOL ARGS FLAGS… --root ROOT` as uid/gid 65534 through
/// `setpriv` (the tree is handed to that user first), when this test runs
/// as root and `setpriv` exists; `None`, with the reason printed,
/// otherwise.
pub fn tool_as_nobody(oy: &Oy, tool: &str, args: &str, flags: &[&str]) -> Option<Run> {
    tool_as_nobody_with(oy, tool, args, flags, &[])
}

/// [`tool_as_nobody`] with `envs` added to oy's environment.
#[expect(
    clippy::print_stdout,
    reason = "a test skipped for the machine says why"
)]
pub fn tool_as_nobody_with(
    oy: &Oy,
    tool: &str,
    args: &str,
    flags: &[&str],
    envs: &[(&str, &str)],
) -> Option<Run> {
    use std::os::unix::fs::PermissionsExt;
    let root_user = Command::new("id").arg("-u").output().unwrap();
    if String::from_utf8_lossy(&root_user.stdout).trim() != "0"
        || Command::new("setpriv").arg("--version").output().is_err()
    {
        println!("skipped: needs root and setpriv to run oy as another user");
        return None;
    }
    let base = oy.root.parent().unwrap();
    let status = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(base)
        .status()
        .unwrap();
    assert!(status.success());
    fs::set_permissions(base, fs::Permissions::from_mode(0o755)).unwrap();
    let output = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(env!("CARGO_BIN_EXE_oy"))
        .args(["tool", tool, args])
        .args(flags)
        .arg("--root")
        .arg(&oy.root)
        .env("HOME", base.join("home"))
        .env("XDG_DATA_HOME", &oy.data)
        .env("XDG_CONFIG_HOME", base.join("config"))
        .env("OY_NON_INTERACTIVE", "1")
        .envs(envs.iter().copied())
        .output()
        .unwrap();
    Some(Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}

/// Fails when `stderr` shows a panic, a debug dump or a broken pipe.
pub fn assert_clean(what: &str, stderr: &str) {
    for bad in [
        "panicked",
        "RUST_BACKTRACE",
        "Broken pipe",
        "Os {",
        "Attempted:",
    ] {
        assert!(!stderr.contains(bad), "{what}: {bad:?} in\n{stderr}");
    }
}
