//! Collection: walks the scope through `oy-boundary` and keeps reviewable
//! text files, counting every skip by reason. Likely-secret files are
//! skipped by name before they are opened.
//!
//! How the rules apply:
//! - Skips by *name* (likely secrets, lockfiles, earlier reports, VCS
//!   directories) apply everywhere, also inside an explicit scope.
//! - Skips by *place* (hidden, build and dependency directories) apply
//!   only below the scope: `oy audit --path vendor/lib` means it.
//! - A scope naming one file collects it unless a by-name rule or its
//!   content (binary, size…) says no; ignore files do not apply to it.
//! - Counts are per file walked, except [`SkipReason::Ignored`], which
//!   counts each top-most excluded entry once (an ignored `target/` is one
//!   skip): the walker never enters an ignored directory, which is what
//!   keeps a repository with a large `node_modules/` cheap to audit.
//!   Ignored entries inside directories skipped for another reason
//!   (hidden, build, VCS) are not counted.
//! - Paths the person excluded (`exclude`) are skipped first of all; an
//!   excluded directory is never entered and counts once.
//! - A file too large for a chunk (see [`ChunkFit`]) is never truncated:
//!   data, documentation and generated files are skipped
//!   ([`SkipReason::LargeDataOrDocs`]), code and configuration are listed
//!   in [`Collection::oversized`], which stops the audit (`large`).
//! - When a file matches several reasons the first in this order names
//!   it: excluded, VCS, build/dependency, likely secret, hidden, not
//!   regular, lockfile, previous output, then the content checks (too
//!   large, binary, not UTF-8, too large for a chunk).

mod exclude;
mod file_names;
mod ignored;
mod large;
mod places;
mod read;
mod secret_names;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use oy_boundary::{FileKind, WalkControl, WalkEntry, WalkOptions, Workspace};
use serde::Serialize;

use self::exclude::Excludes;
use self::file_names::{is_lockfile, is_sarif, language};
use self::ignored::count_ignored;
use self::large::is_data_or_docs;
use self::places::{is_build_dir, is_vcs_path};
use self::read::{Content, read};
use self::secret_names::is_likely_secret;
use crate::chunk::{PlanOptions, file_tokens, tokens_for, usable_ratio};
use crate::error::AuditError;
use crate::redact::{Redaction, redact};

pub(crate) use self::exclude::exact_pattern;

/// How many example paths [`Collection::skipped_examples`] keeps per reason.
const EXAMPLES_PER_REASON: usize = 5;

/// Why a file was not collected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum SkipReason {
    /// Excluded by `.gitignore`, `.ignore` or `.git/info/exclude`.
    Ignored,
    /// Build outputs and dependencies (`target/`, `node_modules/`, …).
    BuildOrDependency,
    /// Version-control internals.
    Vcs,
    /// Lockfiles (`Cargo.lock`, `package-lock.json`, …).
    Lockfile,
    /// Dot-files and dot-directories.
    Hidden,
    /// Likely secrets by name (`.env*`, keys, `*.pem`, credentials…).
    LikelySecret,
    /// Binary content.
    Binary,
    /// Not valid UTF-8.
    NotUtf8,
    /// Larger than the size cap.
    TooLarge,
    /// The audit's own earlier output (`ISSUES.md`, SARIF).
    PreviousOutput,
    /// Symlinks, FIFOs, devices and unreadable entries.
    NotRegular,
    /// Excluded by the person (`exclude` patterns).
    Excluded,
    /// Too large for a chunk, and data, documentation or generated:
    /// skipped rather than stopping the audit.
    LargeDataOrDocs,
}

impl SkipReason {
    /// The name used in the transparency line and `--dry-run`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ignored => "ignored",
            Self::BuildOrDependency => "build-or-dependency",
            Self::Vcs => "vcs",
            Self::Lockfile => "lockfile",
            Self::Hidden => "hidden",
            Self::LikelySecret => "likely-secret",
            Self::Binary => "binary",
            Self::NotUtf8 => "not-utf8",
            Self::TooLarge => "too-large",
            Self::PreviousOutput => "previous-output",
            Self::NotRegular => "not-regular",
            Self::Excluded => "excluded",
            Self::LargeDataOrDocs => "large-data-or-docs",
        }
    }
}

/// What to collect.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CollectOptions {
    /// Only this path inside the workspace (a directory or file); `None` = all.
    pub scope: Option<String>,
    /// Files larger than this are skipped (`TooLarge`) whatever they hold;
    /// `None`: no cap besides [`CollectOptions::chunk`].
    pub max_file_bytes: Option<u64>,
    /// Also collect dot-files (never `.git`, never likely secrets).
    pub include_hidden: bool,
    /// Also collect files ignore files exclude.
    pub include_ignored: bool,
    /// Also collect lockfiles.
    pub include_lockfiles: bool,
    /// Paths of earlier reports to skip (`ISSUES.md`, the `--out` path).
    pub previous_outputs: Vec<String>,
    /// Gitignore-style globs of paths never to collect, relative to the
    /// workspace root (see `exclude.rs` for the syntax).
    pub exclude: Vec<String>,
    /// What one chunk holds: a file that does not fit is skipped or
    /// listed as oversized, never read past the chunk's size. `None`
    /// judges no fit (files are then capped at [`ABSOLUTE_MAX_BYTES`]).
    pub chunk: Option<ChunkFit>,
}

/// The most any file is read when no chunk size says less (a window too
/// small for any chunk, or a caller that judges no fit): four times the
/// default chunk, so a huge file never costs memory for nothing.
pub const ABSOLUTE_MAX_BYTES: u64 = 1024 * 1024;

/// The size of one chunk, for judging whether a file fits.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct ChunkFit {
    /// Tokens one chunk holds.
    pub max_tokens: u64,
    /// Bytes per token for the estimate (see [`PlanOptions`]).
    pub bytes_per_token: f64,
}

impl ChunkFit {
    /// The chunk of a plan made with `options`.
    pub fn of(options: &PlanOptions) -> Self {
        Self {
            max_tokens: options.chunk_budget(),
            bytes_per_token: options.bytes_per_token,
        }
    }

    /// Bytes above which a file cannot fit, whatever its lines: the
    /// estimate counts at least one token per `bytes_per_token` bytes of
    /// text, so no file is read far past what could be sent.
    fn max_bytes(&self) -> u64 {
        // `as` saturates: a huge budget stays huge.
        (self.max_tokens as f64 * usable_ratio(self.bytes_per_token)).ceil() as u64
    }
}

/// A code or configuration file too large for a chunk: it stops the
/// audit, since reviewing it would need truncation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OversizedFile {
    /// Root-relative path.
    pub path: String,
    /// Size on disk in bytes.
    pub bytes: u64,
    /// Estimated tokens (a lower bound when the file was not read).
    pub tokens: u64,
}

impl OversizedFile {
    /// The exclude pattern that skips exactly this file.
    pub fn exclude_pattern(&self) -> String {
        exact_pattern(&self.path)
    }
}

impl Default for CollectOptions {
    fn default() -> Self {
        Self {
            scope: None,
            max_file_bytes: None,
            include_hidden: false,
            include_ignored: false,
            include_lockfiles: false,
            previous_outputs: vec!["ISSUES.md".to_owned()],
            exclude: Vec::new(),
            chunk: Some(ChunkFit::of(&PlanOptions::default())),
        }
    }
}

/// One collected file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CollectedFile {
    /// Root-relative path.
    pub path: String,
    /// Its text, with secret-shaped lines redacted: exactly what may be sent.
    pub text: String,
    /// Size on disk in bytes.
    pub bytes: u64,
    /// Line count.
    pub lines: usize,
    /// Language by file name (tokei's name), if known.
    pub language: Option<String>,
    /// Lines replaced by a redaction marker.
    pub redactions: Vec<Redaction>,
}

/// The result of [`collect`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Collection {
    /// Collected files, sorted by path.
    pub files: Vec<CollectedFile>,
    /// Skips counted by reason.
    pub skipped: BTreeMap<SkipReason, usize>,
    /// Up to five example paths per reason (for `--dry-run`).
    pub skipped_examples: BTreeMap<SkipReason, Vec<String>>,
    /// Code and configuration files too large for a chunk, sorted by
    /// path: each stops the audit.
    pub oversized: Vec<OversizedFile>,
    /// Every file skipped as [`SkipReason::LargeDataOrDocs`], sorted: the
    /// report names them all, since a repository decides what looks like
    /// data.
    pub skipped_for_size: Vec<String>,
}

/// How far a collection has got, reported while it walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct CollectProgress {
    /// Entries walked so far.
    pub walked: usize,
    /// Files collected so far.
    pub collected: usize,
    /// Bytes of the files collected so far.
    pub bytes: u64,
}

/// Entries between two progress reports.
const PROGRESS_EVERY: usize = 256;

/// Collects reviewable files from `workspace` per `options`.
pub fn collect(workspace: &Workspace, options: &CollectOptions) -> Result<Collection, AuditError> {
    collect_reporting(workspace, options, &|_| {})
}

/// [`collect`], calling `progress` every few hundred entries from the
/// walker's threads (a long walk, say a home directory, shows signs of
/// life).
pub fn collect_reporting(
    workspace: &Workspace,
    options: &CollectOptions,
    progress: &(dyn Fn(CollectProgress) + Sync),
) -> Result<Collection, AuditError> {
    let excludes = Excludes::new(&options.exclude)?;
    let start = match &options.scope {
        Some(scope) => workspace.path(scope)?,
        None => workspace.root_path(),
    };
    let previous_outputs = options
        .previous_outputs
        .iter()
        // An earlier report outside the workspace cannot be walked anyway.
        .filter_map(|path| workspace.path(path).ok())
        .map(|path| path.to_text())
        .collect();
    let rules = Rules {
        options,
        // The root's own spelling is `.`, which no walked path starts with.
        start: PathBuf::from(start_text(start.as_path())),
        previous_outputs,
        excludes,
    };
    let walk_options = WalkOptions {
        start: start.clone(),
        max_depth: None,
        respect_ignore_files: !options.include_ignored,
        // Hidden files are walked so that they can be counted; the walker
        // never lists `.git` whatever this says.
        include_hidden: true,
        max_entries: None,
        detect_executables: false,
    };
    let state = Mutex::new(State::default());
    // Reading and redacting happen on the walker's threads, as entries are found.
    let walk = workspace.walk_parallel(&walk_options, |entry| {
        let outcome = rules.visit(workspace, &entry);
        let control = match outcome {
            Outcome::Skipped(SkipReason::Excluded) => WalkControl::SkipChildren,
            _ => WalkControl::Continue,
        };
        let report = {
            let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
            state.record(&entry, outcome);
            (state.seen.len() % PROGRESS_EVERY == 0).then(|| state.progress())
        };
        if let Some(report) = report {
            progress(report);
        }
        control
    })?;
    let mut state = state.into_inner().unwrap_or_else(PoisonError::into_inner);
    // A scope naming a directory is not an entry of its own walk.
    if !state.start_is_file && !is_vcs_path(&rules.start) {
        state.walked_dirs.insert(rules.start_text());
    }
    for _ in 0..walk.unreadable {
        // Directories the walker could not list have no name to show.
        state.skip(SkipReason::NotRegular, None);
    }
    if !options.include_ignored && !state.start_is_file {
        count_ignored(workspace, &rules, &mut state)?;
    }
    state.files.sort_by(|a, b| a.path.cmp(&b.path));
    state.oversized.sort_by(|a, b| a.path.cmp(&b.path));
    state.skipped_for_size.sort();
    progress(state.progress());
    Ok(Collection {
        oversized: state.oversized,
        skipped_for_size: state.skipped_for_size,
        files: state.files,
        skipped: state.skipped,
        skipped_examples: state
            .examples
            .into_iter()
            .map(|(reason, paths)| (reason, paths.into_iter().collect()))
            .collect(),
    })
}

/// What a walk found, gathered from the walker's threads.
#[derive(Default)]
struct State {
    files: Vec<CollectedFile>,
    oversized: Vec<OversizedFile>,
    skipped_for_size: Vec<String>,
    skipped: BTreeMap<SkipReason, usize>,
    /// The smallest paths per reason, so the examples are deterministic.
    examples: BTreeMap<SkipReason, BTreeSet<String>>,
    /// Every path the walk handed out (to tell what ignore files hid).
    seen: HashSet<String>,
    /// Directories whose files could be collected: only their listings
    /// are compared for ignored entries.
    walked_dirs: HashSet<String>,
    /// Directories holding a `.gitignore` or `.ignore`.
    ignore_file_dirs: HashSet<String>,
    /// The scope named a file (the walk's only entry, at depth 0).
    start_is_file: bool,
}

impl State {
    fn record(&mut self, entry: &WalkEntry, outcome: Outcome) {
        self.start_is_file |= entry.depth == 0;
        let path = entry.path.to_text();
        match outcome {
            Outcome::Collected(file) => self.files.push(*file),
            Outcome::Oversized(file) => self.oversized.push(file),
            Outcome::Skipped(reason) => {
                if reason == SkipReason::LargeDataOrDocs {
                    self.skipped_for_size.push(path.clone());
                }
                self.skip(reason, Some(&path));
            }
            Outcome::Directory { eligible } => {
                if eligible {
                    self.walked_dirs.insert(path.clone());
                }
            }
        }
        if let Some(name) = entry.path.file_name()
            && (name == ".gitignore" || name == ".ignore")
        {
            self.ignore_file_dirs.insert(parent_text(&path));
        }
        self.seen.insert(path);
    }

    fn progress(&self) -> CollectProgress {
        CollectProgress {
            walked: self.seen.len(),
            collected: self.files.len(),
            bytes: self.files.iter().map(|file| file.bytes).sum(),
        }
    }

    fn skip(&mut self, reason: SkipReason, path: Option<&str>) {
        *self.skipped.entry(reason).or_default() += 1;
        // A name that is itself a token is skipped for it, and never shown.
        let path = path.filter(|path| {
            reason != SkipReason::LikelySecret || oy_secrets::find_secrets(path).is_empty()
        });
        if let Some(path) = path {
            let examples = self.examples.entry(reason).or_default();
            examples.insert(path.to_owned());
            if examples.len() > EXAMPLES_PER_REASON {
                examples.pop_last();
            }
        }
    }
}

/// What became of one walked entry.
enum Outcome {
    Collected(Box<CollectedFile>),
    /// Code or configuration too large for a chunk.
    Oversized(OversizedFile),
    Skipped(SkipReason),
    /// A directory; `eligible` when files below it may be collected.
    Directory {
        eligible: bool,
    },
}

/// The classification rules for one collection.
struct Rules<'a> {
    options: &'a CollectOptions,
    /// The scope, `""` for the root.
    start: PathBuf,
    previous_outputs: HashSet<String>,
    excludes: Excludes,
}

impl Rules<'_> {
    /// The start as walked paths spell their directories (`""` for the root).
    fn start_text(&self) -> String {
        start_text(&self.start)
    }

    fn visit(&self, workspace: &Workspace, entry: &WalkEntry) -> Outcome {
        let path = entry.path.as_path();
        let Some(text) = path.to_str() else {
            // A name that is not UTF-8 could not be cited or reopened by it.
            return Outcome::Skipped(SkipReason::NotUtf8);
        };
        let below: Vec<&str> = path
            .strip_prefix(&self.start)
            .unwrap_or(Path::new(""))
            .components()
            .filter_map(|c| match c {
                Component::Normal(name) => name.to_str(),
                _ => None,
            })
            .collect();
        let name = path.file_name().and_then(OsStr::to_str).unwrap_or_default();
        if self
            .excludes
            .excludes(text, entry.kind == FileKind::Directory)
        {
            return Outcome::Skipped(SkipReason::Excluded);
        }
        if entry.kind == FileKind::Directory {
            let eligible = !is_vcs_path(path)
                && !below.iter().any(|c| is_build_dir(c))
                && (self.options.include_hidden || !below.iter().any(|c| c.starts_with('.')));
            return Outcome::Directory { eligible };
        }
        let ancestors_below = below.split_last().map_or(&[][..], |(_, dirs)| dirs);
        let reason = if is_vcs_path(path) {
            Some(SkipReason::Vcs)
        } else if ancestors_below.iter().any(|c| is_build_dir(c)) {
            Some(SkipReason::BuildOrDependency)
        } else if is_likely_secret(path, name) {
            Some(SkipReason::LikelySecret)
        } else if !self.options.include_hidden && below.iter().any(|c| c.starts_with('.')) {
            Some(SkipReason::Hidden)
        } else if entry.kind != FileKind::File {
            Some(SkipReason::NotRegular)
        } else if !self.options.include_lockfiles && is_lockfile(name) {
            Some(SkipReason::Lockfile)
        } else if self.previous_outputs.contains(text) || is_sarif(name) {
            Some(SkipReason::PreviousOutput)
        } else {
            None
        };
        if let Some(reason) = reason {
            return Outcome::Skipped(reason);
        }
        let fit = self.options.chunk;
        let cap = fit.map_or(ABSOLUTE_MAX_BYTES, |fit| fit.max_bytes());
        let (content, bytes) = match read(workspace, entry, self.options.max_file_bytes, cap) {
            Ok(Content::Whole(content, bytes)) => (content, bytes),
            Ok(Content::Head(head, bytes)) => {
                // Larger than any chunk: judged by name and first lines.
                let tokens = fit.map_or(0, |fit| tokens_for(bytes, fit.bytes_per_token));
                return self.too_large(path, name, &head, bytes, tokens);
            }
            Err(reason) => return Outcome::Skipped(reason),
        };
        let (redacted, redactions) = redact(&content);
        let file = CollectedFile {
            path: text.to_owned(),
            lines: redacted.lines().count(),
            text: redacted,
            bytes,
            language: language(name),
            redactions,
        };
        if let Some(fit) = fit {
            let tokens = file_tokens(&file, fit.bytes_per_token);
            if tokens > fit.max_tokens {
                return self.too_large(path, name, &content, bytes, tokens);
            }
        }
        Outcome::Collected(Box::new(file))
    }

    /// A file that does not fit a chunk: skipped when it is data or
    /// documentation, else listed to stop the audit.
    fn too_large(&self, path: &Path, name: &str, head: &str, bytes: u64, tokens: u64) -> Outcome {
        if is_data_or_docs(path, name, head) {
            return Outcome::Skipped(SkipReason::LargeDataOrDocs);
        }
        Outcome::Oversized(OversizedFile {
            path: path.to_string_lossy().into_owned(),
            bytes,
            tokens,
        })
    }
}

fn start_text(start: &Path) -> String {
    let text = start.to_string_lossy();
    let text = text.trim_end_matches('/');
    if text == "." || text.is_empty() {
        String::new()
    } else {
        text.to_owned()
    }
}

fn parent_text(path: &str) -> String {
    path.rsplit_once('/')
        .map_or(String::new(), |(parent, _)| parent.to_owned())
}
