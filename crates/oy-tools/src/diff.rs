//! Unified diffs for approval previews (what a person sees before a file
//! changes), via the `similar` crate.

use std::time::Duration;

use similar::TextDiff;

/// Diffs of huge files stop refining after this long; the result is still
/// a correct (if coarser) diff.
const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// A git-style unified diff of `old` → `new` for `path` (`None` = no file).
pub fn unified_diff(path: &str, old: Option<&str>, new: Option<&str>) -> String {
    let before = old.unwrap_or("");
    let after = new.unwrap_or("");
    let mut diff = TextDiff::configure();
    diff.timeout(DIFF_DEADLINE);
    let diff = diff.diff_lines(before, after);
    let from = if old.is_some() {
        format!("a/{path}")
    } else {
        "/dev/null".to_owned()
    };
    let to = if new.is_some() {
        format!("b/{path}")
    } else {
        "/dev/null".to_owned()
    };
    let mut out = diff.unified_diff();
    out.context_radius(3).header(&from, &to);
    let text = out.to_string();
    if text.is_empty() {
        format!("--- {from}\n+++ {to}\n(no change)\n")
    } else {
        text
    }
}
