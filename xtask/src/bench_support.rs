//! Helpers the whole-process benches share: a scratch directory removed
//! on drop, the median of samples, and reading a measurement file.
#![expect(
    clippy::disallowed_methods,
    reason = "xtask works on scratch directories, not a workspace"
)]

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// A scratch directory under the temp dir, removed when dropped.
pub(crate) struct Scratch(pub(crate) PathBuf);

impl Scratch {
    /// `$TMPDIR/oy-bench-NAME-PID`, created.
    pub(crate) fn new(name: &str) -> Result<Self> {
        let path = std::env::temp_dir().join(format!("oy-bench-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&path).with_context(|| format!("creating {}", path.display()))?;
        Ok(Self(path))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The median sample (the upper one of an even count); `None` when empty.
pub(crate) fn median(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied()
}

/// A file's text, with its path in the error.
pub(crate) fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}
