//! Fixtures: a temp workspace, a context in a chosen mode, and helpers to
//! call a tool the way the model would.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use oy_boundary::Workspace;
use oy_tools::{
    Answer, ApprovalRequest, Approver, EventSink, Mode, Policy, Registry, ToolContext, ToolEvent,
    ToolOutput, default_registry,
};
use serde_json::Value;

pub struct Env {
    pub _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub outside: PathBuf,
    pub ctx: ToolContext,
    pub registry: Registry,
    pub events: Arc<Recorder>,
    /// Numbers the calls `call-1`, `call-2`, … as a provider would id them.
    pub calls: std::sync::atomic::AtomicU64,
}

/// Records events and approval requests; answers approvals with `answer`.
#[derive(Default)]
pub struct Recorder {
    pub events: Mutex<Vec<ToolEvent>>,
    pub requests: Mutex<Vec<ApprovalRequest>>,
    pub answer: Mutex<Option<Answer>>,
}

impl EventSink for Recorder {
    fn emit(&self, event: &ToolEvent) {
        self.events.lock().unwrap().push(event.clone());
    }
}

impl Approver for Recorder {
    fn approve(&self, request: &ApprovalRequest) -> Answer {
        self.requests.lock().unwrap().push(request.clone());
        self.answer.lock().unwrap().unwrap_or(Answer::Deny)
    }
}

impl Env {
    /// A workspace in `mode`, non-interactive (no approver).
    pub fn new(mode: Mode) -> Self {
        Self::build(mode, None)
    }

    /// A workspace in `mode` whose approver answers `answer`.
    pub fn interactive(mode: Mode, answer: Answer) -> Self {
        Self::build(mode, Some(answer))
    }

    fn build(mode: Mode, answer: Option<Answer>) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("ws");
        let outside = base.join("outside");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret.txt"), "OUTSIDE-SECRET\n").unwrap();
        let events = Arc::new(Recorder::default());
        *events.answer.lock().unwrap() = answer;
        let ws = Arc::new(Workspace::open(&root).unwrap());
        let mut ctx =
            ToolContext::new(ws, Policy::new(mode, answer.is_some())).with_events(events.clone());
        if answer.is_some() {
            ctx = ctx.with_approver(events.clone());
        }
        Self {
            _tmp: tmp,
            root,
            outside,
            ctx,
            registry: default_registry(),
            events,
            calls: std::sync::atomic::AtomicU64::new(0),
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

    pub fn exists(&self, rel: &str) -> bool {
        self.root.join(rel).symlink_metadata().is_ok()
    }

    /// Calls `tool` with JSON `args` exactly as a model would.
    pub fn call(&self, tool: &str, args: Value) -> ToolOutput {
        let n = self
            .calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        self.registry
            .invoke(&self.ctx, &format!("call-{n}"), tool, &args)
    }

    pub fn outside_secret(&self) -> String {
        fs::read_to_string(self.outside.join("secret.txt")).unwrap()
    }
}

pub fn assert_tool_error(output: &ToolOutput, needle: &str) {
    assert!(!output.ok, "expected an error, got: {}", output.text);
    assert!(output.text.starts_with("TOOL_ERROR: "), "{}", output.text);
    assert!(output.text.contains("\nRECOVERY: "), "{}", output.text);
    assert!(
        output.text.contains(needle),
        "missing {needle:?} in: {}",
        output.text
    );
}

pub fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

impl Env {
    /// The same workspace with its context rebuilt by `change` (a child
    /// environment, a cancel token…).
    pub fn map_ctx(
        self,
        change: impl FnOnce(oy_tools::ToolContext) -> oy_tools::ToolContext,
    ) -> Self {
        let Self {
            _tmp,
            root,
            outside,
            ctx,
            registry,
            events,
            calls,
        } = self;
        Self {
            _tmp,
            root,
            outside,
            ctx: change(ctx),
            registry,
            events,
            calls,
        }
    }
}

/// True once `pid` is gone, or a zombie (dead; only its new parent's
/// `wait` is missing).
pub fn process_gone(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Polls [`process_gone`] for up to `within`.
pub fn wait_gone(pid: u32, within: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + within;
    loop {
        if process_gone(pid) {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The pid a test command wrote to `rel` (`echo $! > rel`).
pub fn read_pid(root: &Path, rel: &str) -> u32 {
    fs::read_to_string(root.join(rel))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}
