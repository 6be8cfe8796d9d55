//! Close-match suggestions for a path that does not exist, computed from
//! the names in the tree alone (no file is opened or read).

use crate::metadata::FileKind;
use crate::path::WorkspacePath;
use crate::walk::WalkOptions;
use crate::workspace::Workspace;

/// At most this many names are compared, so a huge tree stays cheap.
const MAX_CANDIDATES: usize = 50_000;
/// Scores below this are not worth showing.
const MIN_SCORE: f64 = 0.72;

impl Workspace {
    /// Up to `limit` existing files whose paths look like `missing`, best
    /// first. Honours ignore files and skips hidden paths unless `missing`
    /// itself names a hidden path.
    pub fn suggest(&self, missing: &WorkspacePath, limit: usize) -> Vec<WorkspacePath> {
        let wanted = missing.to_text();
        let wanted_name = missing
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut options = WalkOptions::new(self.root_path());
        options.max_entries = Some(MAX_CANDIDATES);
        options.include_hidden = wanted.split('/').any(|part| part.starts_with('.'));
        let Ok(walk) = self.walk(&options) else {
            return Vec::new();
        };
        let mut scored: Vec<(f64, WorkspacePath)> = walk
            .entries
            .into_iter()
            .filter(|entry| entry.kind == FileKind::File)
            .filter_map(|entry| {
                let score = similarity(&wanted, &wanted_name, &entry.path);
                (score >= MIN_SCORE).then_some((score, entry.path))
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        scored
            .into_iter()
            .take(limit)
            .map(|(_, path)| path)
            .collect()
    }
}

/// Blends file-name and whole-path similarity: the same name in another
/// directory ranks highest, a near-miss spelling of the name next.
fn similarity(wanted: &str, wanted_name: &str, candidate: &WorkspacePath) -> f64 {
    let text = candidate.to_text();
    let name = candidate
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name_score = if name == wanted_name {
        1.0
    } else if name.eq_ignore_ascii_case(wanted_name) {
        0.97
    } else {
        let stem_match = name
            .split('.')
            .next()
            .is_some_and(|stem| !stem.is_empty() && stem == wanted_name);
        if stem_match {
            0.9
        } else {
            strsim::jaro_winkler(wanted_name, &name)
        }
    };
    let path_score = strsim::normalized_levenshtein(wanted, &text);
    0.7 * name_score + 0.3 * path_score
}
