//! Helpers the whole-process benches share: a scratch directory removed
//! on drop, the median of samples, and reading a measurement file.
#![expect(
    clippy::disallowed_methods,
    reason = "xtask works on scratch directories, not a workspace"
)]

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// Builds the release `oy` binary and returns its path.
pub(crate) fn build_release_oy() -> Result<PathBuf> {
    let mut build = crate::cargo();
    build.args([
        "build",
        "--release",
        "--quiet",
        "-p",
        "oy-cli",
        "--bin",
        "oy",
    ]);
    crate::run("cargo build --release -p oy-cli --bin oy", build)?;
    Ok(crate::bench::target_dir()?.join("release/oy"))
}

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

/// Wall, user and system seconds from bash's `time` with
/// `TIMEFORMAT='%3R %3U %3S'`.
pub(crate) fn parse_times(times: &str) -> Result<(f64, f64, f64)> {
    let fields: Vec<f64> = times
        .split_whitespace()
        .filter_map(|field| field.parse().ok())
        .collect();
    let [wall_s, user_s, sys_s] = fields[..] else {
        anyhow::bail!("unexpected `time` output: {times:?}");
    };
    Ok((wall_s, user_s, sys_s))
}

/// Peak RSS in KiB that GNU time (`-f %M -o PATH`) wrote, when it ran.
pub(crate) fn peak_rss_kib(path: &Path, gnu_time: bool) -> Result<Option<u64>> {
    if !gnu_time {
        return Ok(None);
    }
    // GNU time puts "Command exited…" lines before the number.
    let text = read(path)?;
    let last = text.lines().last().unwrap_or_default().trim();
    Ok(Some(last.parse().with_context(|| {
        format!("unexpected GNU time output: {text:?}")
    })?))
}

/// GNU time, which reports a process's peak RSS.
pub(crate) const GNU_TIME: &str = "/usr/bin/time";

/// True when GNU time is installed; says once on stderr when it is not, so
/// the benchmark goes on without memory figures.
pub(crate) fn gnu_time_available() -> bool {
    let found = std::process::Command::new(GNU_TIME)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !found {
        eprintln!(
            "xtask: {GNU_TIME} (GNU time) is missing: peak RSS is not measured \
             (hint: apt-get install time)"
        );
    }
    found
}
