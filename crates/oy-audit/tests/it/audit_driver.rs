//! Tests of the driver: `ReportTarget::check` refusing report paths
//! before any work, `prepare` giving the dry run's values (a plan that
//! fails closed included), `PreparedAudit::review` against a scripted
//! model building the report, and cancellation by token mid-review.

use std::fs;
use std::os::unix::fs::symlink;
use std::sync::Mutex;
use std::time::Duration;

use oy_audit::{
    AuditError, AuditOptions, ContextWindow, Finding, Inclusion, PreparedAudit, Report,
    ReportFormat, ReportTarget, ReviewProgress, Severity, SkipReason, Stop, Transparency,
    WindowSource, prepare, render_markdown,
};
use oy_boundary::{BoundaryError, Workspace};
use oy_provider::{
    BoxFuture, Event, EventStream, ModelInfo, Provider, ProviderError, Request, ScriptedProvider,
    ScriptedReply, StopReason,
};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// A secret-shaped value an earlier report may hold.
const PLANTED: &str = "ghp_0123456789abcdefghijABCDEFGHIJ0123456789";

fn fixture() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in [
        (
            "src/main.py",
            "import subprocess\n\ndef run(cmd):\n    return subprocess.run(cmd, shell=True)\n",
        ),
        ("src/util.py", "def add(a, b):\n    return a + b\n"),
        (".env", "API_TOKEN=never-read\n"),
        ("Cargo.lock", "# lock\n"),
        (
            "reports/audit.md",
            "# Audit findings\n\n<!-- oy-audit-findings\n{\"version\":1,\"findings\":[]}\n-->\n",
        ),
    ] {
        let path = dir.path().join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    let workspace = Workspace::open(dir.path()).unwrap();
    (dir, workspace)
}

fn window(tokens: u64) -> ContextWindow {
    ContextWindow::choose(Some(tokens), None, None, |_| None, 0)
}

fn options(workspace: &Workspace, out: Option<&str>) -> AuditOptions {
    let target = ReportTarget::check(workspace, out, ReportFormat::Markdown).unwrap();
    AuditOptions::new(target, window(32_768))
}

fn text_reply(text: &str) -> ScriptedReply {
    ScriptedReply::Stream(vec![
        Ok(Event::TextDelta {
            text: text.to_owned(),
        }),
        Ok(Event::Finished {
            reason: StopReason::EndTurn,
        }),
    ])
}

const SHELL_FINDING: &str = r#"{"findings":[{"severity":"high","title":"Shell injection","file":"src/main.py","line":4,"evidence":"subprocess.run(cmd, shell=True)","explanation":"cmd reaches a shell","fix":"pass a list"}]}"#;

/// A provider whose answers never come; it says when it was asked.
#[derive(Default)]
struct Hanging {
    asked: Notify,
}

impl Provider for Hanging {
    fn name(&self) -> &str {
        "hanging"
    }

    fn stream<'a>(
        &'a self,
        _request: &'a Request,
    ) -> BoxFuture<'a, Result<EventStream, ProviderError>> {
        self.asked.notify_one();
        Box::pin(std::future::pending())
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, ProviderError>> {
        Box::pin(async { Ok(Vec::new()) })
    }
}

#[test]
fn report_paths_default_per_format_and_keep_their_directory() {
    let (_dir, workspace) = fixture();
    let markdown = ReportTarget::check(&workspace, None, ReportFormat::Markdown).unwrap();
    assert_eq!(markdown.name(), "ISSUES.md");
    assert_eq!(markdown.parent(), None);
    let sarif = ReportTarget::check(&workspace, None, ReportFormat::Sarif).unwrap();
    assert_eq!(sarif.name(), "oy-audit.sarif");
    assert_eq!(sarif.format(), ReportFormat::Sarif);
    let nested =
        ReportTarget::check(&workspace, Some("out/a/report.md"), ReportFormat::Markdown).unwrap();
    assert_eq!(nested.parent(), Some("out/a"));
    assert_eq!(nested.path(), &workspace.path("out/a/report.md").unwrap());
}

#[test]
fn report_paths_outside_in_vcs_through_links_or_on_directories_are_refused() {
    let (dir, workspace) = fixture();
    fs::create_dir_all(dir.path().join("adir")).unwrap();
    symlink(".env", dir.path().join("ISSUES.md")).unwrap();
    let check = |out: &str| ReportTarget::check(&workspace, Some(out), ReportFormat::Markdown);

    let error = check("../outside/report.md").unwrap_err();
    assert!(
        matches!(&error, AuditError::ReportOutside { path, source: BoundaryError::Escape { .. } } if path == "../outside/report.md"),
        "{error:?}"
    );
    assert!(
        error.to_string().starts_with("../outside/report.md: "),
        "{error}"
    );
    for out in [".git/hooks/pre-commit", "./.hg/store", "sub/.svn/x"] {
        assert!(
            matches!(check(out), Err(AuditError::ReportInVcs { .. })),
            "{out}"
        );
    }
    let error = check("ISSUES.md").unwrap_err();
    assert!(
        matches!(error, AuditError::ReportSymlink { .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "ISSUES.md is a symlink; oy will not write the report through it"
    );
    let error = check("adir").unwrap_err();
    assert!(
        matches!(error, AuditError::ReportNotFile { .. }),
        "{error:?}"
    );
    for error in [
        check("../x").unwrap_err(),
        check(".git/config").unwrap_err(),
        check("ISSUES.md").unwrap_err(),
        check("adir").unwrap_err(),
    ] {
        assert!(error.is_usage(), "{error:?}");
        assert!(!error.to_string().contains("--"), "no flags: {error}");
    }
}

#[test]
fn the_window_is_configured_then_known_for_the_model_then_the_fallback() {
    let known = |model: &str| (model == "big-model").then_some(200_000);
    let configured = ContextWindow::choose(Some(9_000), None, Some("big-model"), known, 32_768);
    assert_eq!(configured.tokens, 9_000);
    assert_eq!(configured.source, WindowSource::Configured);
    let by_model = ContextWindow::choose(None, None, Some("big-model"), known, 32_768);
    assert_eq!(by_model.tokens, 200_000);
    assert_eq!(by_model.source.to_string(), "known for big-model");
    let fallback = ContextWindow::choose(None, None, Some("other"), known, 32_768);
    assert_eq!(
        (fallback.tokens, fallback.source),
        (32_768, WindowSource::Fallback)
    );
}

#[test]
fn the_server_beats_the_model_table_and_an_upper_bound_only_caps_it() {
    use oy_provider::{ServerWindow, WindowSource as Said};
    let known = |model: &str| (model == "big-model").then_some(200_000);
    let choose = |configured, server| {
        ContextWindow::choose(configured, server, Some("big-model"), known, 32_768)
    };
    let exact = Some(ServerWindow::new(16_384, Said::LlamaCppProps));
    let window = choose(None, exact);
    assert_eq!(window.tokens, 16_384);
    assert_eq!(
        window.source.to_string(),
        "from the server: llama.cpp /props"
    );
    // The configuration still wins.
    assert_eq!(choose(Some(9_000), exact).tokens, 9_000);
    // An upper bound (a model not loaded) caps the estimate...
    let at_most = |tokens| Some(ServerWindow::new(tokens, Said::LmStudioMax));
    assert_eq!(choose(None, at_most(8_192)).tokens, 8_192);
    // ...and one above it changes nothing.
    let window = choose(None, at_most(1_000_000));
    assert_eq!(window.tokens, 200_000);
    assert_eq!(window.source.to_string(), "known for big-model");
    // A lower bound is taken as it is.
    let at_least = Some(ServerWindow::new(4_096, Said::OllamaDefault));
    assert_eq!(choose(None, at_least).tokens, 4_096);
}

#[test]
fn prepare_gives_what_the_dry_run_shows() {
    let (_dir, workspace) = fixture();
    let mut options = options(&workspace, Some("reports/audit.md"));
    options.collect.include_lockfiles = true;
    let prepared = prepare(&workspace, options, &|_| {}).unwrap();

    let paths: Vec<&str> = prepared
        .collection()
        .files
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(paths, ["Cargo.lock", "src/main.py", "src/util.py"]);
    let skipped = &prepared.collection().skipped;
    assert_eq!(skipped.get(&SkipReason::LikelySecret), Some(&1));
    // The report path is skipped as an earlier output, whatever its name.
    assert_eq!(skipped.get(&SkipReason::PreviousOutput), Some(&1));
    assert_eq!(
        prepared.collection().skipped_examples[&SkipReason::PreviousOutput],
        ["reports/audit.md"]
    );
    assert_eq!(prepared.window(), &window(32_768));
    let plan = prepared.plan();
    assert!(plan.stops.is_empty(), "{:?}", plan.stops);
    assert_eq!(plan.chunks.len(), 1);
    assert_eq!(plan.model_calls, 1);
    assert!(plan.estimated_tokens > 0);
    let bytes: u64 = prepared.collection().files.iter().map(|f| f.bytes).sum();
    assert_eq!(prepared.bytes(), bytes);
    assert_eq!(prepared.redacted_lines(), 0);
    assert!(prepared.previous().is_empty(), "not a report with findings");
}

#[tokio::test]
async fn a_plan_that_fails_closed_is_shown_and_review_sends_nothing() {
    let (_dir, workspace) = fixture();
    let mut options = options(&workspace, None);
    options.window = window(2_000);
    let prepared = prepare(&workspace, options, &|_| {}).unwrap();
    // Collected all the same (the earlier report elsewhere is just a file).
    assert_eq!(prepared.collection().files.len(), 3);
    let error = prepared.plan().check().unwrap_err();
    assert!(budget_too_small(&error), "{error:?}");

    let provider = ScriptedProvider::new([text_reply(SHELL_FINDING)]);
    let result = prepared
        .review(&provider, "m", CancellationToken::new(), &|_| {})
        .await;
    assert!(result.as_ref().is_err_and(budget_too_small), "{result:?}");
    assert!(provider.requests().is_empty());
}

#[test]
fn planning_errors_name_no_flags() {
    let (dir, workspace) = fixture();
    let plan_error = |tokens: u64, max_chunks: usize| {
        let mut options = options(&workspace, None);
        options.window = window(tokens);
        options.max_chunks = max_chunks;
        prepare(&workspace, options, &|_| {})
            .unwrap()
            .plan()
            .check()
            .unwrap_err()
            .to_string()
    };
    let too_small = plan_error(2_000, 64);
    // A 16k window leaves chunks of 4096 tokens; each file below needs
    // about 2 900, so two of them need two chunks.
    for i in 0..2 {
        let text = "y = 2\n".repeat(800);
        fs::write(dir.path().join(format!("src/m{i}.py")), text).unwrap();
    }
    let too_many = plan_error(16_384, 1);
    fs::write(dir.path().join("src/big.py"), "x = 1\n".repeat(2_000)).unwrap();
    let too_large = plan_error(16_384, 64);
    assert!(
        too_small.starts_with("a 2000-token context window"),
        "{too_small}"
    );
    assert!(
        too_many.starts_with("the audit needs 2 chunks"),
        "{too_many}"
    );
    assert!(
        too_large.starts_with("1 code or configuration file needs more than the 4096 tokens")
            && too_large.contains("(src/big.py ~"),
        "{too_large}"
    );
    for text in [too_small, too_many, too_large] {
        assert!(!text.contains("--") && !text.contains("oy audit"), "{text}");
        assert!(text.contains("larger context window"), "{text}");
    }
}

#[test]
fn a_scope_through_a_symlink_is_refused_as_usage() {
    let (dir, workspace) = fixture();
    fs::create_dir_all(dir.path().join("docs")).unwrap();
    symlink("../.env", dir.path().join("docs/NOTES.md")).unwrap();
    let mut linked = options(&workspace, None);
    linked.collect.scope = Some("docs/NOTES.md".to_owned());
    let error = prepare(&workspace, linked, &|_| {}).unwrap_err();
    let AuditError::Scope { scope, source } = &error else {
        panic!("expected Scope, got {error:?}");
    };
    assert_eq!(scope, "docs/NOTES.md");
    assert!(
        matches!(**source, AuditError::LinkedScope { .. }),
        "{source:?}"
    );
    assert!(error.is_usage());
    assert!(
        error
            .to_string()
            .starts_with("docs/NOTES.md: docs/NOTES.md is a symlink;"),
        "{error}"
    );

    let mut missing = options(&workspace, None);
    missing.collect.scope = Some("missing".to_owned());
    let error = prepare(&workspace, missing, &|_| {}).unwrap_err();
    assert!(
        matches!(&error, AuditError::Scope { source, .. } if matches!(**source, AuditError::Boundary(BoundaryError::NotFound { .. }))),
        "{error:?}"
    );
}

#[tokio::test]
async fn review_builds_the_report_and_carries_earlier_findings_redacted() {
    let (dir, workspace) = fixture();
    let earlier = Report {
        transparency: Transparency {
            command: "oy audit".to_owned(),
            provider: "p".to_owned(),
            model: "m".to_owned(),
            files_sent: 1,
            bytes_sent: 1,
            model_calls: 1,
            skipped: Default::default(),
            redacted_lines: 0,
            inclusions: Vec::new(),
            skipped_for_size: Vec::new(),
        },
        findings: vec![Finding {
            severity: Severity::Medium,
            title: "Token in source".to_owned(),
            file: "src/util.py".to_owned(),
            line: Some(1),
            evidence: format!("token = \"{PLANTED}\""),
            explanation: String::new(),
            fix: String::new(),
            verified: true,
        }],
        focus: None,
    };
    fs::write(dir.path().join("ISSUES.md"), render_markdown(&earlier)).unwrap();
    let mut options = options(&workspace, None);
    options.collect.include_hidden = true;
    options.focus = Some("focus on the shell".to_owned());
    options.command = "audit-embedder --hidden".to_owned();
    options.inclusion_option = |inclusion| (inclusion == Inclusion::Hidden).then_some("--hidden");
    let prepared = prepare(&workspace, options, &|_| {}).unwrap();
    assert_eq!(prepared.previous().len(), 1);
    assert!(!prepared.previous()[0].evidence.contains(PLANTED));
    assert!(!prepared.previous()[0].verified);

    let provider = ScriptedProvider::new([text_reply(SHELL_FINDING)]);
    let events = Mutex::new(Vec::new());
    let outcome = prepared
        .review(
            &provider,
            "test-model",
            CancellationToken::new(),
            &|event| events.lock().unwrap().push(event),
        )
        .await
        .unwrap();

    let requests = provider.requests();
    assert_eq!(requests.len(), 1);
    assert!(requests[0].tools.is_empty());
    assert_eq!(requests[0].model, "test-model");
    assert!(!serde_json::to_string(&requests).unwrap().contains(PLANTED));
    assert!(events.lock().unwrap().contains(&ReviewProgress::ChunkDone {
        index: 0,
        findings: 1
    }));

    let t = &outcome.report.transparency;
    assert_eq!(t.command, "audit-embedder --hidden");
    assert_eq!(
        (t.provider.as_str(), t.model.as_str()),
        ("scripted", "test-model")
    );
    assert_eq!(t.model_calls, 1);
    assert_eq!(t.inclusions, ["hidden files (--hidden)"]);
    assert_eq!(t.skipped.get(&SkipReason::PreviousOutput), Some(&1));
    assert_eq!(outcome.report.focus.as_deref(), Some("focus on the shell"));
    let titles: Vec<(&str, bool)> = outcome
        .report
        .findings
        .iter()
        .map(|f| (f.title.as_str(), f.verified))
        .collect();
    assert_eq!(
        titles,
        [("Shell injection", true), ("Token in source", false)]
    );
    assert_eq!(outcome.summary(), "2 findings (1 high, 1 medium)");
    let text = outcome.render();
    assert!(text.starts_with("# Audit findings\n"), "{text}");
    assert!(text.contains("Included on request: hidden files (--hidden)."));
    assert!(!text.contains(PLANTED));
}

#[tokio::test]
async fn inclusions_are_named_in_words_without_a_frontend_spelling() {
    let (_dir, workspace) = fixture();
    let mut options = options(&workspace, None);
    options.collect.include_lockfiles = true;
    options.collect.include_ignored = true;
    let prepared = prepare(&workspace, options, &|_| {}).unwrap();
    let provider = ScriptedProvider::new([text_reply(r#"{"findings":[]}"#)]);
    let outcome = prepared
        .review(&provider, "m", CancellationToken::new(), &|_| {})
        .await
        .unwrap();
    assert_eq!(
        outcome.report.transparency.inclusions,
        ["files ignore files exclude", "lockfiles"]
    );
    assert_eq!(outcome.summary(), "0 findings");
    assert_eq!(outcome.dropped_unverifiable, 0);
}

#[tokio::test]
async fn sarif_reports_render_as_sarif_and_carry_nothing() {
    let (dir, workspace) = fixture();
    fs::write(dir.path().join("oy-audit.sarif"), "{}").unwrap();
    let target = ReportTarget::check(&workspace, None, ReportFormat::Sarif).unwrap();
    let prepared = prepare(
        &workspace,
        AuditOptions::new(target, window(32_768)),
        &|_| {},
    )
    .unwrap();
    assert!(prepared.previous().is_empty());
    let provider = ScriptedProvider::new([text_reply(SHELL_FINDING)]);
    let outcome = prepared
        .review(&provider, "m", CancellationToken::new(), &|_| {})
        .await
        .unwrap();
    let sarif: serde_json::Value = serde_json::from_str(&outcome.render()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
}

#[tokio::test]
async fn cancelling_mid_review_returns_cancelled_and_nothing_to_render() {
    let (_dir, workspace) = fixture();
    let prepared = prepare(&workspace, options(&workspace, None), &|_| {}).unwrap();
    let provider = Hanging::default();
    let cancel = CancellationToken::new();
    let review = prepared.review(&provider, "m", cancel.clone(), &|_| {});
    let canceller = async {
        // Cancelled while the request is in flight, not before it.
        provider.asked.notified().await;
        cancel.cancel();
    };
    // A driver that ignored the token would wait for the answer forever.
    let both = async { tokio::join!(review, canceller) };
    let (result, ()) = tokio::time::timeout(Duration::from_secs(30), both)
        .await
        .expect("the review ends when the token is cancelled");
    assert!(matches!(result, Err(AuditError::Cancelled)), "{result:?}");
}

#[tokio::test]
async fn a_token_cancelled_before_the_review_sends_nothing() {
    let (_dir, workspace) = fixture();
    let prepared = prepare(&workspace, options(&workspace, None), &|_| {}).unwrap();
    let provider = ScriptedProvider::new([text_reply(SHELL_FINDING)]);
    let cancel = CancellationToken::new();
    cancel.cancel();
    let result = prepared.review(&provider, "m", cancel, &|_| {}).await;
    assert!(matches!(result, Err(AuditError::Cancelled)), "{result:?}");
    assert!(provider.requests().is_empty());
}

#[test]
fn the_review_future_can_be_spawned() {
    fn is_send<T: Send>(_: &T) {}
    let (_dir, workspace) = fixture();
    let prepared: PreparedAudit = prepare(&workspace, options(&workspace, None), &|_| {}).unwrap();
    let provider = ScriptedProvider::new([]);
    let progress = |_: ReviewProgress| {};
    let review = prepared.review(&provider, "m", CancellationToken::new(), &progress);
    is_send(&review);
}

fn budget_too_small(error: &AuditError) -> bool {
    matches!(error, AuditError::CannotReview { stops } if matches!(stops[..], [Stop::BudgetTooSmall { .. }]))
}
