//! Paths the person excluded: gitignore-style globs, relative to the
//! workspace root.
//!
//! - `./` in front is dropped; a leading `/` anchors a pattern to the root.
//! - A pattern with no `/` but a trailing one names an entry at any depth
//!   (`*.json`, `fixtures`, `snapshots/`); one with a `/` inside is
//!   matched from the root (`docs/api/*.json`, `crates/x/big.rs`).
//! - `*` and `?` stay within one path component, `**` crosses them.
//! - A trailing `/` matches directories only.
//! - An excluded directory excludes everything below it: the walk never
//!   enters it.

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

use crate::error::AuditError;

/// The compiled patterns.
#[derive(Debug, Clone)]
pub(super) struct Excludes {
    /// Patterns for any entry.
    any: GlobSet,
    /// Patterns written with a trailing `/`: directories only.
    dirs: GlobSet,
    empty: bool,
}

impl Excludes {
    /// Compiles `patterns`; a malformed one is an error naming it.
    pub(super) fn new(patterns: &[String]) -> Result<Self, AuditError> {
        let mut any = GlobSetBuilder::new();
        let mut dirs = GlobSetBuilder::new();
        for pattern in patterns {
            // Not trimmed: a name may end in a space, and the exact
            // pattern of such a file must still match it.
            let trimmed = pattern.strip_prefix("./").unwrap_or(pattern);
            let dir_only = trimmed.ends_with('/');
            let body = trimmed.trim_end_matches('/');
            let anchored = body.starts_with('/') || body.contains('/');
            let body = body.trim_start_matches('/');
            if body.is_empty() {
                return Err(bad(pattern, "it names no path"));
            }
            let full = if anchored {
                body.to_owned()
            } else {
                format!("**/{body}")
            };
            let glob = compile(&full).map_err(|error| bad(pattern, &error.kind().to_string()))?;
            if dir_only {
                dirs.add(glob);
            } else {
                any.add(glob);
            }
        }
        let build = |builder: GlobSetBuilder, pattern: &str| {
            builder
                .build()
                .map_err(|error| bad(pattern, &error.kind().to_string()))
        };
        let joined = patterns.join(" ");
        Ok(Self {
            any: build(any, &joined)?,
            dirs: build(dirs, &joined)?,
            empty: patterns.is_empty(),
        })
    }

    /// True when `path` (root-relative, `/`-separated), or a directory
    /// above it, is excluded; `is_dir` says whether `path` itself is a
    /// directory.
    pub(super) fn excludes(&self, path: &str, is_dir: bool) -> bool {
        if self.empty {
            return false;
        }
        let path = path.trim_start_matches("./");
        let mut ancestors = path
            .match_indices('/')
            .map(|(at, _)| path.get(..at).unwrap_or_default());
        ancestors.any(|dir| self.any.is_match(dir) || self.dirs.is_match(dir))
            || self.any.is_match(path)
            || (is_dir && self.dirs.is_match(path))
    }
}

/// The pattern that excludes exactly `path` (root-relative): anchored, with
/// glob characters in the name escaped.
pub(crate) fn exact_pattern(path: &str) -> String {
    // With backslash escapes on, a `\` in a name is written `\\`.
    let escaped = globset::escape(&path.replace('\\', "\\\\"));
    if escaped.contains('/') {
        escaped
    } else {
        format!("/{escaped}")
    }
}

fn compile(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
}

fn bad(pattern: &str, why: &str) -> AuditError {
    AuditError::BadExclude {
        pattern: pattern.to_owned(),
        why: why.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn excludes(patterns: &[&str]) -> Excludes {
        let patterns: Vec<String> = patterns.iter().map(|p| (*p).to_owned()).collect();
        Excludes::new(&patterns).unwrap()
    }

    #[test]
    fn names_match_at_any_depth_and_paths_from_the_root() {
        let set = excludes(&["*.json", "fixtures", "docs/api/*.yaml"]);
        assert!(set.excludes("a.json", false));
        assert!(set.excludes("deep/er/a.json", false));
        assert!(set.excludes("tests/fixtures", true));
        assert!(set.excludes("tests/fixtures/x/y.rs", false));
        assert!(set.excludes("docs/api/v1.yaml", false));
        assert!(!set.excludes("other/docs/api/v1.yaml", false));
        assert!(!set.excludes("docs/api/v1/deeper.yaml", false));
        assert!(!set.excludes("src/main.rs", false));
    }

    #[test]
    fn a_trailing_slash_matches_directories_only() {
        let set = excludes(&["build/"]);
        assert!(set.excludes("build", true));
        assert!(set.excludes("build/out.js", false));
        assert!(!set.excludes("tools/build", false));
        assert!(set.excludes("tools/build/x", false));
    }

    #[test]
    fn anchors_and_double_stars() {
        let set = excludes(&["/top.rs", "./gen/**/*.rs"]);
        assert!(set.excludes("top.rs", false));
        assert!(!set.excludes("src/top.rs", false));
        assert!(set.excludes("gen/a/b/c.rs", false));
        assert!(set.excludes("gen/c.rs", false));
    }

    #[test]
    fn the_exact_pattern_excludes_that_path_and_no_other() {
        for path in [
            "big.rs",
            "src/we[ir]d*name?.rs",
            "a/{b}.rs",
            "back\\slash\\*.rs",
            " spaced .rs",
            "-dash.rs",
        ] {
            let set = excludes(&[&exact_pattern(path)]);
            assert!(set.excludes(path, false), "{path}");
            assert!(!set.excludes(&format!("x/{path}"), false), "{path}");
        }
        let set = excludes(&[&exact_pattern("src/we[ir]d*name?.rs")]);
        assert!(!set.excludes("src/weid-name-.rs", false));
    }

    #[test]
    fn a_malformed_or_empty_pattern_is_an_error_naming_it() {
        for pattern in ["a[", "/", ""] {
            let error = Excludes::new(&[pattern.to_owned()]).unwrap_err();
            assert!(
                matches!(&error, AuditError::BadExclude { pattern: p, .. } if p == pattern),
                "{error:?}"
            );
        }
    }
}
