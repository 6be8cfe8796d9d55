//! Skips by place: version-control internals (everywhere) and build,
//! cache and dependency directories (below the scope only).

use std::path::{Component, Path};

/// Directory names of version-control internals. The walker never lists
/// `.git` itself; the others are skipped here.
const VCS_DIRS: &[&str] = &[".git", ".hg", ".svn", ".bzr", "_darcs", "CVS"];

pub(super) fn is_vcs_path(path: &Path) -> bool {
    path.components().any(|c| match c {
        Component::Normal(name) => name.to_str().is_some_and(|n| VCS_DIRS.contains(&n)),
        _ => false,
    })
}

/// Directory names that hold build outputs, caches and installed
/// dependencies. `out`, `bin`, `lib` and `env` are left out on purpose:
/// too many repositories keep source there. `build` and `dist` are in:
/// real source under those names is rare, and `--path build` still
/// audits it.
const BUILD_DIRS: &[&str] = &[
    "target",
    "node_modules",
    "bower_components",
    "jspm_packages",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".nox",
    ".eggs",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "site-packages",
    "dist",
    "build",
    "_build",
    ".build",
    "vendor",
    "third_party",
    ".gradle",
    ".next",
    ".nuxt",
    ".svelte-kit",
    ".angular",
    ".parcel-cache",
    ".dart_tool",
    ".terraform",
    ".cache",
    "Pods",
    "DerivedData",
];

pub(super) fn is_build_dir(name: &str) -> bool {
    BUILD_DIRS.contains(&name) || name.ends_with(".egg-info")
}
