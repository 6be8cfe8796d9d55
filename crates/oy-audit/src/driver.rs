//! The audit driver: [`prepare`] collects, indexes and plans in one call
//! and returns a [`PreparedAudit`] a frontend can show (the dry run);
//! [`PreparedAudit::review`] sends the plan, cancellable, and returns an
//! [`AuditOutcome`] ready to render. A frontend passes options and shows
//! values; what is sent, what is carried forward and what the report says
//! are decided here.
//!
//! The driver writes nothing: the frontend writes the rendered report to
//! the checked [`ReportTarget`] through `oy-boundary`.

mod target;
mod window;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use oy_boundary::Workspace;
use oy_provider::Provider;
use tokio_util::sync::CancellationToken;

use crate::chunk::{MIN_CHUNK_BUDGET, Plan, PlanOptions, plan};
use crate::collect::{ChunkFit, CollectOptions, CollectProgress, Collection, collect_reporting};
use crate::error::AuditError;
use crate::index::{Manifest, SecurityHit, manifest, security_index};
use crate::redact::redact;
use crate::report::{Report, Transparency, carried_forward, severity_name};
use crate::review::{Finding, ReviewOptions, ReviewProgress, review};
use crate::scope::check_scope;

pub use target::{ReportFormat, ReportTarget};
pub use window::{ContextWindow, WindowSource};

/// The most of an earlier report read back for its findings.
const MAX_PREVIOUS_REPORT_BYTES: u64 = 8 * 1024 * 1024;

/// An option that widens what an audit sends beyond the defaults; the
/// report's transparency line names each one in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Inclusion {
    /// Dot-files.
    Hidden,
    /// Files ignore files exclude.
    Ignored,
    /// Lockfiles.
    Lockfiles,
}

impl Inclusion {
    /// In words, as the transparency line says it.
    pub fn what(self) -> &'static str {
        match self {
            Self::Hidden => "hidden files",
            Self::Ignored => "files ignore files exclude",
            Self::Lockfiles => "lockfiles",
        }
    }

    /// The inclusions `options` turn on, in report order.
    pub fn of(options: &CollectOptions) -> Vec<Self> {
        [
            (options.include_hidden, Self::Hidden),
            (options.include_ignored, Self::Ignored),
            (options.include_lockfiles, Self::Lockfiles),
        ]
        .into_iter()
        .filter_map(|(on, inclusion)| on.then_some(inclusion))
        .collect()
    }
}

/// What to audit, and how the frontend names it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AuditOptions {
    /// Where the report goes (checked before any work).
    pub report: ReportTarget,
    /// The window to plan with.
    pub window: ContextWindow,
    /// What to collect. The report path is always skipped as an earlier
    /// output, besides the ones listed here.
    pub collect: CollectOptions,
    /// What to focus on.
    pub focus: Option<String>,
    /// Most chunks (map calls) before the audit refuses; at least 1.
    pub max_chunks: usize,
    /// Chunk reviews in flight at once; at least 1.
    pub concurrency: usize,
    /// The command as the frontend names this run, shown in the report.
    pub command: String,
    /// How the frontend spells the option behind an inclusion (a flag),
    /// shown beside it in the report; `None` shows the words alone.
    pub inclusion_option: fn(Inclusion) -> Option<&'static str>,
    /// The person's home directory, if known: auditing it (or `/`) whole
    /// is refused unless [`AuditOptions::root_named`] says they asked.
    pub home: Option<PathBuf>,
    /// The person named the root or a scope themselves (rather than
    /// running where they stood).
    pub root_named: bool,
}

impl AuditOptions {
    /// Defaults: everything but hidden, ignored and lockfiles, no focus,
    /// at most 256 chunks, 3 in flight.
    pub fn new(report: ReportTarget, window: ContextWindow) -> Self {
        Self {
            report,
            window,
            collect: CollectOptions::default(),
            focus: None,
            max_chunks: PlanOptions::default().max_chunks,
            concurrency: ReviewOptions::new(String::new()).concurrency,
            command: "oy audit".to_owned(),
            inclusion_option: |_| None,
            home: None,
            root_named: false,
        }
    }
}

/// An audit collected and planned, not yet sent: everything a dry run
/// shows.
#[derive(Debug)]
pub struct PreparedAudit {
    collection: Collection,
    manifest: Manifest,
    index: Vec<SecurityHit>,
    plan: Plan,
    previous: Vec<Finding>,
    options: AuditOptions,
}

/// Collects the scope, builds the manifest and the security index, and
/// plans the chunks, calling `progress` while it collects. A refused root
/// or scope ([`AuditError::BroadRoot`], [`AuditError::Scope`]) or a failed
/// collection is an `Err`; a plan that fails closed (a file larger than a
/// chunk, too many chunks…) is kept in the result with every reason
/// ([`Plan::stops`]), so a frontend can show the whole plan and why it
/// cannot be reviewed.
///
/// Files are read no further than a chunk holds (see [`ChunkFit`]): the
/// window decides the size cap, which a person's own cap can only lower.
/// The findings of an earlier Markdown report at the report path are read
/// back to be carried forward.
pub fn prepare(
    workspace: &Workspace,
    options: AuditOptions,
    progress: &(dyn Fn(CollectProgress) + Sync),
) -> Result<PreparedAudit, AuditError> {
    if !options.root_named && options.collect.scope.is_none() {
        check_root(workspace.root(), options.home.as_deref())?;
    }
    if let Some(scope) = &options.collect.scope {
        check_scope(workspace, scope).map_err(|source| AuditError::Scope {
            scope: scope.clone(),
            source: Box::new(source),
        })?;
    }
    let plan_options = PlanOptions {
        context_window: options.window.tokens,
        max_chunks: options.max_chunks.max(1),
        ..PlanOptions::default()
    };
    let mut collect_options = options.collect.clone();
    // With a window too small for any chunk the plan stops anyway; fit is
    // not judged, so the dry run still shows what would be sent.
    collect_options.chunk =
        (plan_options.chunk_budget() >= MIN_CHUNK_BUDGET).then(|| ChunkFit::of(&plan_options));
    let name = options.report.name();
    if !collect_options.previous_outputs.iter().any(|p| p == name) {
        collect_options.previous_outputs.push(name.to_owned());
    }
    let collection = collect_reporting(workspace, &collect_options, progress)?;
    let manifest = manifest(&collection.files);
    let index = security_index(&collection.files);
    let plan = plan(&collection, &index, &plan_options);
    let previous = match options.report.format() {
        ReportFormat::Markdown => workspace
            .read_text(options.report.path(), MAX_PREVIOUS_REPORT_BYTES)
            .map(|text| carried(&text))
            .unwrap_or_default(),
        ReportFormat::Sarif => Vec::new(),
    };
    Ok(PreparedAudit {
        collection,
        manifest,
        index,
        plan,
        previous,
        options,
    })
}

impl PreparedAudit {
    /// What was collected and skipped.
    pub fn collection(&self) -> &Collection {
        &self.collection
    }

    /// The plan: the chunks of every file that fits, and why the audit
    /// fails closed, if it does ([`Plan::stops`]).
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The window planned with.
    pub fn window(&self) -> &ContextWindow {
        &self.options.window
    }

    /// Bytes of the collected files on disk.
    pub fn bytes(&self) -> u64 {
        self.collection.files.iter().map(|file| file.bytes).sum()
    }

    /// Lines redacted as secret-shaped over all collected files.
    pub fn redacted_lines(&self) -> usize {
        self.collection
            .files
            .iter()
            .map(|file| file.redactions.len())
            .sum()
    }

    /// Findings of an earlier report, to be verified again and merged.
    pub fn previous(&self) -> &[Finding] {
        &self.previous
    }

    /// Reviews the plan with `provider` and `model` (see [`review`]) and
    /// builds the report. Fails with [`AuditError::CannotReview`] when the
    /// plan has stops, and with [`AuditError::Cancelled`] as soon as `cancel`
    /// fires: the requests in flight are dropped and nothing is returned
    /// to render.
    pub async fn review(
        self,
        provider: &dyn Provider,
        model: &str,
        cancel: CancellationToken,
        progress: &(dyn Fn(ReviewProgress) + Sync),
    ) -> Result<AuditOutcome, AuditError> {
        let redacted_lines = self.redacted_lines();
        let plan = self.plan.ready()?;
        let mut options = ReviewOptions::new(model);
        options.concurrency = self.options.concurrency.max(1);
        options.focus.clone_from(&self.options.focus);
        options.previous = self.previous;
        let reviewing = review(
            provider,
            &self.collection,
            &self.manifest,
            &self.index,
            &plan,
            &options,
            progress,
        );
        let review = tokio::select! {
            // A token already cancelled sends nothing.
            biased;
            () = cancel.cancelled() => return Err(AuditError::Cancelled),
            review = reviewing => review?,
        };
        let label = self.options.inclusion_option;
        let inclusions = Inclusion::of(&self.options.collect)
            .into_iter()
            .map(|inclusion| match label(inclusion) {
                Some(option) => format!("{} ({option})", inclusion.what()),
                None => inclusion.what().to_owned(),
            })
            .collect();
        let report = Report {
            transparency: Transparency {
                command: self.options.command,
                provider: provider.name().to_owned(),
                model: model.to_owned(),
                files_sent: review.files_sent,
                bytes_sent: review.bytes_sent,
                model_calls: review.model_calls,
                skipped: self.collection.skipped,
                redacted_lines,
                inclusions,
                skipped_for_size: self.collection.skipped_for_size,
            },
            findings: review.findings,
            focus: self.options.focus,
        };
        Ok(AuditOutcome {
            report,
            dropped_unverifiable: review.dropped_unverifiable,
            format: self.options.report.format(),
        })
    }
}

/// A finished review: the report and what was left out of it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuditOutcome {
    /// What the report shows.
    pub report: Report,
    /// Findings dropped because their evidence named a file that was not
    /// reviewed.
    pub dropped_unverifiable: usize,
    /// The format to render in.
    pub format: ReportFormat,
}

impl AuditOutcome {
    /// The report as text in its format.
    pub fn render(&self) -> String {
        self.format.render(&self.report)
    }

    /// `2 findings (1 high, 1 low)`: the count, then the count per
    /// severity present, most severe first.
    pub fn summary(&self) -> String {
        let findings = &self.report.findings;
        let mut counts = BTreeMap::new();
        for finding in findings {
            *counts.entry(finding.severity).or_insert(0usize) += 1;
        }
        let mut out = format!(
            "{} finding{}",
            findings.len(),
            if findings.len() == 1 { "" } else { "s" }
        );
        if !counts.is_empty() {
            let parts: Vec<String> = counts
                .iter()
                .map(|(severity, count)| format!("{count} {}", severity_name(*severity)))
                .collect();
            let _ = write!(out, " ({})", parts.join(", "));
        }
        out
    }
}

/// Findings carried forward from an earlier report: the file is part of
/// the repository, so its text is untrusted — secret-shaped lines are
/// redacted like any file's, and every finding must be verified again.
fn carried(text: &str) -> Vec<Finding> {
    carried_forward(text)
        .into_iter()
        .map(|mut finding| {
            for field in [
                &mut finding.title,
                &mut finding.evidence,
                &mut finding.explanation,
                &mut finding.fix,
            ] {
                *field = redact(field).0;
            }
            finding.verified = false;
            finding
        })
        .collect()
}

/// Refuses a root that is the filesystem's or the home directory itself
/// ([`oy_boundary::BroadRoot`]): run there by accident, an audit would
/// walk (and could send) everything the person owns.
fn check_root(root: &Path, home: Option<&Path>) -> Result<(), AuditError> {
    match oy_boundary::BroadRoot::of(root, home) {
        Some(broad) => Err(AuditError::BroadRoot {
            root: root.to_path_buf(),
            what: broad.what(),
        }),
        None => Ok(()),
    }
}
