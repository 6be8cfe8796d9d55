//! The no-tools repository audit (contract: README "Auditing a repository", SECURITY.md).
//!
//! It owns the pipeline `oy audit` runs: [`collect`] reviewable text files
//! through `oy-boundary` (every skip counted by [`SkipReason`], likely-secret
//! files never read, secret-shaped lines [`redact`]ed before anything is
//! sent), build a [`manifest`] and a [`security_index`] of sinks, [`plan`]
//! chunks from the model's budget (a file too large for a chunk fails
//! closed, never truncated), [`review`] them with no tools offered (map
//! prompts in parallel, a reduce step, evidence verified against the
//! collected text), and render the report ([`render_markdown`],
//! [`render_sarif`]).
//!
//! Frontends drive it through [`prepare`] (check the scope, collect, index,
//! plan: the dry run's values) and [`PreparedAudit::review`] (send the
//! plan, cancellable by a token, and build the [`Report`]); the report
//! path is checked first by [`ReportTarget::check`].
//!
//! It must never: offer the model a tool, send a file the collector
//! skipped or a line it redacted, truncate review input to fit, write a
//! file (the frontend writes the report through `oy-boundary`), read
//! environment variables, or print.

mod chunk;
mod collect;
mod driver;
mod error;
mod index;
mod redact;
mod report;
mod review;
mod scope;

pub use chunk::{Chunk, Plan, PlanOptions, Stop, plan};
pub use collect::{
    ABSOLUTE_MAX_BYTES, ChunkFit, CollectOptions, CollectProgress, CollectedFile, Collection,
    OversizedFile, SkipReason, collect, collect_reporting,
};
pub use driver::{
    AuditOptions, AuditOutcome, ContextWindow, Inclusion, PreparedAudit, ReportFormat,
    ReportTarget, WindowSource, prepare,
};
pub use error::AuditError;
pub use index::{Category, Manifest, ManifestEntry, SecurityHit, manifest, security_index};
pub use redact::{Redaction, redact};
pub use report::{Report, Transparency, carried_forward, render_markdown, render_sarif};
pub use review::{Finding, Review, ReviewOptions, ReviewProgress, Severity, review, verify};
pub use scope::check_scope;
