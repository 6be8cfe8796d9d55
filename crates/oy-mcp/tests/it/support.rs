//! Fixtures: a workspace, a context in a chosen mode, a registry with the
//! configured servers as its source, and a recorder for notices and
//! approvals.

use std::fs;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oy_boundary::Workspace;
use oy_mcp::{McpTools, Notice, Origin, ServerReport, ServerSpec, ServerStatus, parse_servers};
use oy_tools::{
    Answer, ApprovalRequest, Approver, Mode, Policy, Registry, Sandbox, ToolContext, ToolOutput,
    default_registry,
};
use serde_json::Value;

pub fn server_bin() -> String {
    env!("CARGO_BIN_EXE_oy-mcp-test-server").to_owned()
}

/// `[mcp_servers.NAME]` tables with `{bin}` standing for the test server.
pub fn specs(toml: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Vec<ServerSpec> {
    let text = toml.replace("{bin}", &server_bin());
    let (servers, warnings) = parse_servers("test.toml", &text, false).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    servers
        .into_iter()
        .map(|(name, config)| ServerSpec::resolve(&name, Origin::Global, config, lookup))
        .collect()
}

#[derive(Default)]
pub struct Recorder {
    pub requests: Mutex<Vec<ApprovalRequest>>,
    pub answer: Mutex<Option<Answer>>,
}

impl Approver for Recorder {
    fn approve(&self, request: &ApprovalRequest) -> Answer {
        self.requests.lock().unwrap().push(request.clone());
        self.answer.lock().unwrap().unwrap_or(Answer::Deny)
    }
}

pub struct Env {
    pub _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub outside: PathBuf,
    pub ctx: Arc<ToolContext>,
    pub registry: Arc<Registry>,
    pub mcp: Arc<McpTools>,
    pub notices: Arc<Mutex<Vec<Notice>>>,
    pub approvals: Arc<Recorder>,
}

pub struct Setup {
    pub mode: Mode,
    pub answer: Option<Answer>,
    pub sandbox: Option<Arc<Sandbox>>,
    pub child_env: Option<oy_tools::ChildEnv>,
    pub lookup: fn(&str) -> Option<String>,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            mode: Mode::AutoApprove,
            answer: None,
            sandbox: None,
            child_env: None,
            lookup: |_| None,
        }
    }
}

impl Env {
    /// `toml`'s servers in auto-approve mode, no sandbox.
    pub fn new(toml: &str) -> Self {
        Self::with(toml, Setup::default())
    }

    pub fn with(toml: &str, setup: Setup) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("ws");
        let outside = base.join("outside");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret.txt"), "OUTSIDE-SECRET\n").unwrap();
        let ws = Arc::new(Workspace::open(&root).unwrap());
        let approvals = Arc::new(Recorder::default());
        *approvals.answer.lock().unwrap() = setup.answer;
        let mut ctx = ToolContext::new(ws, Policy::new(setup.mode, setup.answer.is_some()));
        if setup.answer.is_some() {
            ctx = ctx.with_approver(approvals.clone());
        }
        if let Some(sandbox) = setup.sandbox {
            ctx = ctx.with_sandbox(sandbox);
        }
        if let Some(env) = setup.child_env {
            ctx = ctx.with_child_env(env);
        }
        let notices = Arc::new(Mutex::new(Vec::new()));
        let heard = Arc::clone(&notices);
        let mut registry = default_registry();
        let mcp = Arc::new(McpTools::new(
            specs(toml, &setup.lookup),
            registry.names(),
            Arc::new(move |notice: &Notice| heard.lock().unwrap().push(notice.clone())),
        ));
        registry.add_source(mcp.clone());
        Self {
            _tmp: tmp,
            root,
            outside,
            ctx: Arc::new(ctx),
            registry: Arc::new(registry),
            mcp,
            notices,
            approvals,
        }
    }

    pub async fn refresh(&self) {
        self.registry.refresh(&self.ctx).await;
    }

    /// Calls `name` as the agent does: on a blocking thread.
    pub async fn call(&self, name: &str, args: Value) -> ToolOutput {
        let registry = Arc::clone(&self.registry);
        let ctx = Arc::clone(&self.ctx);
        let name = name.to_owned();
        tokio::task::spawn_blocking(move || registry.invoke(&ctx, "call-1", &name, &args))
            .await
            .unwrap()
    }

    pub fn offered(&self) -> Vec<String> {
        self.registry
            .specs(&self.ctx)
            .into_iter()
            .map(|spec| spec.name.into_owned())
            .filter(|name| name.starts_with("mcp__"))
            .collect()
    }

    pub fn report(&self, server: &str) -> ServerReport {
        self.mcp
            .report()
            .into_iter()
            .find(|report| report.name == server)
            .unwrap()
    }

    pub fn notices(&self) -> Vec<Notice> {
        self.notices.lock().unwrap().clone()
    }

    /// Refreshes until `done` holds, or fails after a few seconds.
    pub async fn refresh_until(&self, what: &str, done: impl Fn(&Self) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            self.refresh().await;
            if done(self) {
                return;
            }
            assert!(Instant::now() < deadline, "never happened: {what}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

pub fn assert_ready(report: &ServerReport) {
    assert_eq!(report.status, ServerStatus::Ready, "{report:?}");
}

pub fn assert_tool_error(output: &ToolOutput, needle: &str) {
    assert!(!output.ok, "expected an error: {}", output.text);
    assert!(output.text.starts_with("TOOL_ERROR:"), "{}", output.text);
    assert!(output.text.contains("\nRECOVERY: "), "{}", output.text);
    assert!(
        output.text.contains(needle),
        "{needle:?} not in {}",
        output.text
    );
}

pub const BASIC: &str = "[mcp_servers.t]\ncommand = \"{bin}\"\n";
