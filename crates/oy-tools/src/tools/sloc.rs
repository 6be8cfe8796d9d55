//! `sloc`: lines of code per language — tokei's counters and tokei's
//! totals over files read through the boundary.
//!
//! The numbers are tokei's own: a language's row is what tokei's
//! `(Total)` line for it says — the file's own lines plus the lines of the
//! languages embedded in it (Rust doc comments are Markdown, counted as
//! comments; code blocks in Markdown are their language's code) — and the
//! total row is tokei's `Total`. Which file is which language is decided
//! as tokei decides it: by name and extension, else by the first line's
//! shebang (read from the handle the boundary opened).
//!
//! Speed: files are opened relative to the walker's directory handle (one
//! `openat`), and each file is parsed on one of rayon's workers, because
//! tokei's parser splits its own work with `rayon::join`, which from any
//! other thread is a cross-thread hand-off per file.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use oy_boundary::{FileKind, WalkControl, WalkEntry, WalkOptions, Workspace};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tokei::{CodeStats, Config, LanguageType};

use crate::args::{dot, parse_args};
use crate::context::Invocation;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::registry::Tool;
use crate::spec::{Effect, LazySpec, ToolSpec};

/// Files above this size are skipped (generated or data, not source).
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Files handed to rayon and not yet counted, at most: each holds its
/// directory's handle open, so a walk far ahead of the counting would hold
/// the whole tree open. Past this the walker counts a file itself.
const MAX_PENDING: usize = 256;

/// Arguments of `sloc`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SlocArgs {
    #[serde(default = "dot")]
    path: String,
}

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    files: u64,
    code: u64,
    comments: u64,
    blanks: u64,
}

impl Tally {
    fn add(&mut self, other: &Self) {
        self.files += other.files;
        self.code += other.code;
        self.comments += other.comments;
        self.blanks += other.blanks;
    }
}

/// The `sloc` tool.
pub struct SlocTool {
    spec: LazySpec,
}

impl SlocTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: LazySpec::new::<SlocArgs>(
                "sloc",
                "Count lines of code, comments and blanks per language (tokei).",
                Effect::Read,
            ),
        }
    }
}

impl Default for SlocTool {
    fn default() -> Self {
        Self::new()
    }
}

/// What the counting threads share.
struct Counter<'w> {
    ws: &'w Workspace,
    config: Config,
    tallies: Mutex<BTreeMap<&'static str, Tally>>,
    skipped: AtomicUsize,
    pending: AtomicUsize,
}

impl Counter<'_> {
    fn count(&self, entry: &WalkEntry) {
        match count_file(self.ws, entry, &self.config) {
            Some(Some((language, stats))) => {
                let tally = Tally {
                    files: 1,
                    code: stats.code as u64,
                    comments: stats.comments as u64,
                    blanks: stats.blanks as u64,
                };
                if let Ok(mut tallies) = self.tallies.lock() {
                    tallies.entry(language.name()).or_default().add(&tally);
                }
            }
            Some(None) => {}
            None => {
                self.skipped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

impl Tool for SlocTool {
    fn spec(&self) -> &ToolSpec {
        self.spec.get()
    }

    fn name(&self) -> &str {
        self.spec.name()
    }

    fn effect(&self) -> Effect {
        self.spec.effect()
    }

    fn example(&self) -> &'static str {
        r#"{"path":"src"}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: SlocArgs = parse_args("sloc", args, self.example())?;
        let ws = call.workspace();
        let start = ws.path(&args.path)?;
        let counter = Counter {
            ws,
            config: Config::default(),
            tallies: Mutex::new(BTreeMap::new()),
            skipped: AtomicUsize::new(0),
            pending: AtomicUsize::new(0),
        };
        let counter = &counter;
        rayon::scope(|scope| {
            ws.walk_parallel(&WalkOptions::new(start), |entry| {
                if entry.kind != FileKind::File {
                    return WalkControl::Continue;
                }
                if counter.pending.fetch_add(1, Ordering::Relaxed) >= MAX_PENDING {
                    counter.pending.fetch_sub(1, Ordering::Relaxed);
                    counter.count(&entry);
                } else {
                    scope.spawn(move |_| {
                        counter.count(&entry);
                        counter.pending.fetch_sub(1, Ordering::Relaxed);
                    });
                }
                WalkControl::Continue
            })
        })?;
        let tallies = counter
            .tallies
            .lock()
            .map(|t| t.clone())
            .unwrap_or_default();
        let skipped = counter.skipped.load(Ordering::Relaxed) as u64;
        Ok(ToolOutput::ok(render(&tallies, skipped)))
    }
}

/// A file's language and tokei's summarised stats for it; `Some(None)`
/// for a file of no known language, `None` for one that could not be read.
fn count_file(
    ws: &Workspace,
    entry: &WalkEntry,
    config: &Config,
) -> Option<Option<(LanguageType, CodeStats)>> {
    let language = match language_by_name(entry.path.as_path()) {
        Some(None) => return Some(None),
        Some(Some(language)) => language,
        // Only the first line can tell: open, ask, then read the same handle.
        None => {
            let file = ws.open_walked(entry).ok()?;
            let Some(language) = language_by_shebang(&file) else {
                return Some(None);
            };
            let mut bytes = Vec::new();
            let read = (&file)
                .take(MAX_FILE_BYTES + 1)
                .read_to_end(&mut bytes)
                .ok()?;
            if read as u64 > MAX_FILE_BYTES {
                return None;
            }
            return Some(Some((language, parse(language, &bytes, config))));
        }
    };
    let bytes = ws.read_walked(entry, MAX_FILE_BYTES).ok()?;
    Some(Some((language, parse(language, &bytes, config))))
}

/// tokei's stats for one file, with the embedded languages' lines folded
/// in as tokei's totals fold them.
fn parse(language: LanguageType, bytes: &[u8], config: &Config) -> CodeStats {
    language.parse_from_slice(bytes, config).summarise()
}

/// The language tokei gives a file by its name: `Some(Some(_))` known,
/// `Some(None)` none, `None` when only the first line can tell (a name
/// without an extension that tokei does not know).
fn language_by_name(path: &Path) -> Option<Option<LanguageType>> {
    let name = path.file_name()?;
    if Path::new(name).extension().is_some() {
        return Some(LanguageType::from_path(path, &Config::default()));
    }
    // tokei reads a file it does not know by name to look for a shebang,
    // by path. A path under `/dev/null` can never be opened, so this asks
    // tokei's name tables only; the shebang is read from the boundary's
    // handle instead (see `language_by_shebang`).
    LanguageType::from_path(Path::new("/dev/null").join(name), &Config::default()).map(Some)
}

/// tokei's reading of the shebang of an opened file. tokei only reads by
/// path, so it is given `/proc/self/fd/N`, the kernel's name for the
/// handle the boundary opened: the same file, with no workspace path
/// resolved again (and nothing on systems without procfs).
fn language_by_shebang(file: &std::fs::File) -> Option<LanguageType> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        LanguageType::from_shebang(format!("/proc/self/fd/{}", file.as_raw_fd()))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        None
    }
}

fn render(tallies: &BTreeMap<&'static str, Tally>, skipped: u64) -> String {
    if tallies.is_empty() {
        return "(no source files recognised)\n".to_owned();
    }
    let mut rows: Vec<(&&str, &Tally)> = tallies.iter().collect();
    rows.sort_by(|a, b| b.1.code.cmp(&a.1.code).then_with(|| a.0.cmp(b.0)));
    let mut total = Tally::default();
    let mut out = String::from("language\tfiles\tcode\tcomments\tblanks\n");
    for (language, tally) in rows {
        out.push_str(&format!(
            "{language}\t{}\t{}\t{}\t{}\n",
            tally.files, tally.code, tally.comments, tally.blanks
        ));
        total.add(tally);
    }
    out.push_str(&format!(
        "total\t{}\t{}\t{}\t{}\n",
        total.files, total.code, total.comments, total.blanks
    ));
    if skipped > 0 {
        out.push_str(&format!(
            "[{skipped} files skipped: unreadable, binary or over {} MiB]\n",
            MAX_FILE_BYTES / (1024 * 1024)
        ));
    }
    out
}
