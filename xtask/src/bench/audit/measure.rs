//! How the audit benchmark times a tool: whole runs under bash's `time`
//! (wall and user+sys CPU, exact to the millisecond) inside GNU time (the
//! peak RSS of the tree of processes), in a clean environment with a fresh
//! home each run; one warm-up, then the medians.
#![expect(
    clippy::disallowed_methods,
    reason = "xtask keeps its measurement files in its own scratch dir"
)]

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use super::super::report::{Figure, Unit};
use super::super::support::{GNU_TIME, figure, hermetic, median, parse_times, peak_rss_kib, read};

/// bash: `TIMED TIMES OUT ERR COMMAND…` runs COMMAND with its output in OUT
/// and ERR and writes its wall, user and system seconds to TIMES (bash's
/// `time` is exact to the millisecond; GNU time rounds CPU to 10 ms).
const TIMED: &str = r#"times=$1 out=$2 err=$3; shift 3
TIMEFORMAT='%3R %3U %3S'
{ time "$@" >"$out" 2>"$err"; } 2>"$times""#;

/// What one run cost.
struct Sample {
    wall_s: f64,
    /// User + system seconds, all threads and children.
    cpu_s: f64,
    peak_rss_kib: Option<u64>,
}

/// The medians of a tool's runs (and its fastest wall time).
pub(super) struct Summary {
    pub(super) wall: Figure,
    pub(super) cpu_s: f64,
    pub(super) peak_rss_mib: Option<f64>,
}

impl Summary {
    pub(super) fn cpu(&self) -> Figure {
        Figure::median(self.cpu_s, Unit::Seconds)
    }

    pub(super) fn rss(&self) -> Option<Figure> {
        self.peak_rss_mib.map(|mib| Figure::median(mib, Unit::MiB))
    }
}

/// One measuring setup: where runs keep their files, GNU time or not, and
/// how many timed runs.
pub(super) struct Bench<'a> {
    pub(super) scratch: &'a Path,
    pub(super) gnu_time: bool,
    pub(super) runs: usize,
}

impl Bench<'_> {
    /// One warm-up and the timed runs of `program args…` in `cwd`; the
    /// medians and the last run's stdout. A failed run is an error carrying
    /// its stderr.
    pub(super) fn measure(
        &self,
        program: &OsStr,
        args: &[&str],
        cwd: &Path,
    ) -> Result<(Summary, String)> {
        let mut samples = Vec::with_capacity(self.runs);
        let mut stdout = String::new();
        for round in 0..=self.runs {
            let (sample, out) = self
                .timed(program, args, cwd)
                .with_context(|| format!("run {round}"))?;
            if round > 0 {
                samples.push(sample);
            }
            stdout = out;
        }
        let walls: Vec<f64> = samples.iter().map(|s| s.wall_s * 1000.0).collect();
        let summary = Summary {
            wall: figure(&walls),
            cpu_s: median(samples.iter().map(|s| s.cpu_s).collect()).unwrap_or(f64::NAN),
            peak_rss_mib: median(
                samples
                    .iter()
                    .filter_map(|s| s.peak_rss_kib.map(|kib| kib as f64 / 1024.0))
                    .collect(),
            ),
        };
        Ok((summary, stdout))
    }

    fn timed(&self, program: &OsStr, args: &[&str], cwd: &Path) -> Result<(Sample, String)> {
        let home = self.scratch.join("home");
        // A fresh home each run: no config, cache or session state carries over.
        let _ = std::fs::remove_dir_all(&home);
        std::fs::create_dir_all(&home).with_context(|| format!("creating {}", home.display()))?;
        let times_path = self.scratch.join("times.txt");
        let rss_path = self.scratch.join("rss.txt");
        let stdout_path = self.scratch.join("stdout.txt");
        let stderr_path = self.scratch.join("stderr.txt");
        // GNU time outside bash gives the peak RSS of the whole tree, which
        // is the tool's (bash is smaller).
        let mut cmd = if self.gnu_time {
            let mut cmd = Command::new(GNU_TIME);
            cmd.args(["-f", "%M", "-o"]).arg(&rss_path).arg("bash");
            cmd
        } else {
            Command::new("bash")
        };
        cmd.args(["-c", TIMED, "bash"])
            .args([&times_path, &stdout_path, &stderr_path])
            .arg(program)
            .args(args)
            .current_dir(cwd)
            .stdin(Stdio::null());
        hermetic(&mut cmd, &home);
        let status = cmd
            .status()
            .with_context(|| format!("could not run {cmd:?}"))?;
        if !status.success() {
            let stderr = read(&stderr_path).unwrap_or_default();
            bail!(
                "{} exited with {status}:\n{}",
                Path::new(program).display(),
                stderr.trim_end()
            );
        }
        let times = read(&times_path)?;
        let (wall_s, user_s, sys_s) = parse_times(&times)?;
        let peak_rss_kib = peak_rss_kib(&rss_path, self.gnu_time)?;
        let sample = Sample {
            wall_s,
            cpu_s: user_s + sys_s,
            peak_rss_kib,
        };
        Ok((sample, read(&stdout_path)?))
    }
}
