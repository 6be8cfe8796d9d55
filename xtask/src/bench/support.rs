//! Helpers the whole-process benches share: a scratch directory removed
//! on drop, the median of samples, interleaved wall-clock timing of
//! commands, a clean environment for oy, and reading and writing files.
#![expect(
    clippy::disallowed_methods,
    reason = "xtask works on scratch directories and writes its own report, not a workspace of oy's"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use super::report::Figure;

/// Builds the release `oy` binary and returns its path.
pub(crate) fn build_release_oy() -> Result<PathBuf> {
    let mut build = super::cargo();
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

/// "1 run", "5 runs".
pub(crate) fn runs_text(runs: usize) -> String {
    if runs == 1 {
        "1 run".to_owned()
    } else {
        format!("{runs} runs")
    }
}

/// The median and minimum of millisecond samples.
pub(crate) fn figure(samples: &[f64]) -> Figure {
    let min = samples.iter().copied().fold(f64::INFINITY, f64::min);
    let median = median(samples.to_vec()).unwrap_or(f64::NAN);
    Figure::ms(median, if min.is_finite() { min } else { f64::NAN })
}

/// What [`interleaved`] measured of one command.
pub(crate) struct Timed {
    /// Wall milliseconds of each timed run.
    pub(crate) ms: Vec<f64>,
    /// Lines the last run printed.
    pub(crate) lines: usize,
}

/// One warm-up and `runs` timed runs of each command, interleaved (the
/// order turns each round) so that a change in the machine's load hits
/// every side alike; `before_each` runs before every run of any of them,
/// untimed. Output is read, as a caller would (some tools shortcut
/// /dev/null). Exit 1 counts as success: rg says "no match" with it.
pub(crate) fn interleaved(
    commands: &mut [&mut Command],
    runs: usize,
    mut before_each: impl FnMut() -> Result<()>,
) -> Result<Vec<Timed>> {
    let mut timed: Vec<Timed> = commands
        .iter()
        .map(|_| Timed {
            ms: Vec::with_capacity(runs),
            lines: 0,
        })
        .collect();
    let count = commands.len();
    for round in 0..=runs {
        for turn in 0..count {
            let index = (turn + round) % count;
            before_each()?;
            let cmd = &mut *commands[index];
            cmd.stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            let started = Instant::now();
            let out = cmd
                .output()
                .with_context(|| format!("could not run {cmd:?}"))?;
            let elapsed = started.elapsed().as_secs_f64() * 1000.0;
            if !out.status.success() && out.status.code() != Some(1) {
                bail!(
                    "{cmd:?} failed ({}): {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim_end()
                );
            }
            let side = &mut timed[index];
            side.lines = out.stdout.iter().filter(|&&byte| byte == b'\n').count();
            if round > 0 {
                side.ms.push(elapsed);
            }
        }
    }
    Ok(timed)
}

/// `cmd` with a clean environment: PATH, and a fresh HOME and XDG
/// directories under `home`, so no real keys, proxies or user config leak
/// in and nothing carries over between tools.
pub(crate) fn hermetic<'a>(cmd: &'a mut Command, home: &Path) -> &'a mut Command {
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("OY_NON_INTERACTIVE", "1")
        .env("NO_COLOR", "1")
}

/// True when `program ARG` runs and succeeds (`--version` says installed).
pub(crate) fn installed(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// Writes `text` to `path`, creating its directory.
pub(crate) fn write(path: &Path, text: &str) -> Result<()> {
    if let Some(parent) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
    {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
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
