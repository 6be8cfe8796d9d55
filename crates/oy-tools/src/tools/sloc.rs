//! `sloc`: lines of code per language (tokei's counters over files read
//! through the boundary).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use oy_boundary::{FileKind, WalkControl, WalkOptions};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tokei::{Config, LanguageType};

use crate::args::{dot, parse_args};
use crate::context::Invocation;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::registry::Tool;
use crate::spec::{Effect, ToolSpec};

/// Files above this size are skipped (generated or data, not source).
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

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

/// The `sloc` tool.
pub struct SlocTool {
    spec: ToolSpec,
}

impl SlocTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: ToolSpec::new::<SlocArgs>(
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

impl Tool for SlocTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn example(&self) -> &'static str {
        r#"{"path":"src"}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: SlocArgs = parse_args("sloc", args, self.example())?;
        let ws = call.workspace();
        let start = ws.path(&args.path)?;
        let config = Config::default();
        let tallies: Mutex<BTreeMap<&'static str, Tally>> = Mutex::new(BTreeMap::new());
        let skipped = Mutex::new(0u64);
        ws.walk_parallel(&WalkOptions::new(start), |entry| {
            if entry.kind != FileKind::File {
                return WalkControl::Continue;
            }
            let Some(language) = language_of(entry.path.as_path()) else {
                return WalkControl::Continue;
            };
            let Ok(bytes) = ws.read_bytes(&entry.path, MAX_FILE_BYTES) else {
                if let Ok(mut skipped) = skipped.lock() {
                    *skipped += 1;
                }
                return WalkControl::Continue;
            };
            let stats = language.parse_from_slice(&bytes, &config);
            if let Ok(mut tallies) = tallies.lock() {
                let tally = tallies.entry(language.name()).or_default();
                tally.files += 1;
                tally.code += stats.code as u64;
                tally.comments += stats.comments as u64;
                tally.blanks += stats.blanks as u64;
            }
            WalkControl::Continue
        })?;
        let tallies = tallies.into_inner().unwrap_or_default();
        let skipped = skipped.into_inner().unwrap_or_default();
        Ok(ToolOutput::ok(render(&tallies, skipped)))
    }
}

/// The language of a file from its name alone. tokei's `from_path` would
/// read an extensionless file by ambient path to sniff a shebang, so those
/// are only recognised by well-known names.
fn language_of(path: &Path) -> Option<LanguageType> {
    let name = path.file_name()?.to_str()?;
    if path.extension().is_some() {
        return LanguageType::from_path(path, &Config::default());
    }
    let language = match name {
        "Makefile" | "makefile" | "GNUmakefile" => "Makefile",
        "Dockerfile" | "Containerfile" => "Dockerfile",
        "Rakefile" | "Gemfile" | "Vagrantfile" => "Ruby",
        "Justfile" | "justfile" => "Just",
        _ => return None,
    };
    LanguageType::from_name(language)
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
        total.files += tally.files;
        total.code += tally.code;
        total.comments += tally.comments;
        total.blanks += tally.blanks;
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
