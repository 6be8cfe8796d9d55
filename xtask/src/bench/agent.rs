//! `cargo xtask bench agent`: a whole-process benchmark of the agent loop.
//!
//! `oy run` does a scripted 10-step task (nine tool calls, then an answer)
//! against oy-cli's `mock_model` example, which streams Chat Completions with
//! no latency, so what is measured is oy itself: wall time and user+sys CPU
//! (from bash's `time`), peak RSS (from GNU time), how soon the first request arrives after the
//! spawn, and the bytes of each request. `oy --version` is timed too. The
//! numbers are compared with the goals of issue 6; a miss is reported, never
//! a failure.
#![expect(
    clippy::disallowed_methods,
    reason = "xtask builds its own scratch tree in the temp dir, not a workspace of oy's"
)]

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use super::cargo;
use super::report::{Figure, Goal, Row, Section, Unit};
use super::support::{
    GNU_TIME, Scratch, build_release_oy, figure, gnu_time_available, median, parse_times,
    peak_rss_kib, read, runs_text,
};
use super::target_dir;
use crate::run;

/// The section's title in the report.
pub(crate) const TITLE: &str = "Agent loop";

/// Timed agent runs (after one warm-up), and with `--quick`; each metric's
/// median is reported.
const RUNS: usize = 5;
const QUICK_RUNS: usize = 2;
/// Timed `oy --version` runs (after one warm-up), and with `--quick`.
const VERSION_RUNS: usize = 20;
const QUICK_VERSION_RUNS: usize = 5;
/// Model requests in the mock's script.
const STEPS: usize = 10;
/// GNU time, for the peak RSS of a child without unsafe code.
/// How long the mock may take to exit on its own after oy has.
const MOCK_EXIT: Duration = Duration::from_secs(2);

const GOAL_CPU_S: f64 = 0.35;
const GOAL_RSS_MIB: f64 = 40.0;
const GOAL_VERSION_MS: f64 = 10.0;
const GOAL_FIRST_REQUEST_MS: f64 = 50.0;

/// The scratch workspace oy works in: small, but with something to find.
const FILES: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        "[package]\nname = \"bench\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
    ),
    (
        "README.md",
        "# bench\n\nA scratch crate for `cargo xtask bench agent`.\n",
    ),
    (
        "src/main.rs",
        "//! The entry point.\n\nmod util;\n\nfn main() {\n    println!(\"{}\", util::greet(\"bench\"));\n}\n",
    ),
    (
        "src/util.rs",
        "//! Helpers.\n\n/// A greeting.\npub fn greet(name: &str) -> String {\n    format!(\"hello, {name}\")\n}\n",
    ),
    (
        "tests/smoke.rs",
        "//! A smoke test.\n\n#[test]\nfn greets() {\n    assert_eq!(1 + 1, 2);\n}\n",
    ),
    (
        "scripts/check.sh",
        "#!/bin/sh\n# Runs the checks.\nset -eu\ncargo test\n",
    ),
];

/// What one `oy run` cost.
struct Sample {
    wall: Duration,
    /// User + system seconds, oy and the commands it ran.
    cpu_s: f64,
    peak_rss_kib: Option<u64>,
    first_request_ms: f64,
    /// Request body bytes, by step.
    body_bytes: Vec<usize>,
    /// oy's time from the end of one answer to the next request, by step.
    between_ms: Vec<f64>,
    /// From the end of the final answer until oy had exited.
    exit_ms: f64,
    /// Tool calls that failed: the script and the workspace disagree.
    tool_errors: usize,
}

/// Builds the release binaries, runs the agent benchmark (and `oy
/// --version` when `with_version`: the whole run times it with start-up),
/// and prints the results against the goals.
pub(crate) fn bench_agent(quick: bool, with_version: bool) -> Result<Section> {
    let (runs, version_runs) = if quick {
        (QUICK_RUNS, QUICK_VERSION_RUNS)
    } else {
        (RUNS, VERSION_RUNS)
    };
    let oy = build_release_oy()?;
    // Apart: an example turns on oy-cli's dev-dependencies' features, so an
    // `oy` built beside it would not be the one `cargo xtask dist` ships.
    let mut build = cargo();
    build.args([
        "build",
        "--release",
        "--quiet",
        "-p",
        "oy-cli",
        "--example",
        "mock_model",
    ]);
    run(
        "cargo build --release -p oy-cli --example mock_model",
        build,
    )?;
    let release = target_dir()?.join("release");
    let mock = release.join("examples/mock_model");

    let gnu_time = gnu_time_available();

    let scratch = Scratch::new("agent")?;
    eprintln!(
        "xtask: agent loop: {STEPS}-step scripted task, 1 warm-up + {runs} runs in {}",
        scratch.0.display()
    );
    let mut samples = Vec::with_capacity(runs);
    for round in 0..=runs {
        let sample = agent_run(&oy, &mock, &scratch.0, gnu_time)
            .with_context(|| format!("agent run {round}"))?;
        if round > 0 {
            samples.push(sample);
        }
    }
    let timed = runs_text(runs);
    let mut section = Section::start(
        TITLE,
        format!(
            "`oy run` doing a scripted {STEPS}-step task (nine tool calls, then an answer) \
             against oy-cli's `mock_model` example, which streams Chat Completions with no \
             latency, so what is measured is oy itself; 1 warm-up and {timed}, medians. \
             Wall and CPU from bash's `time`, peak RSS from GNU time, the first request's \
             arrival from the mock. There is no anchor: the goals are issue 6's."
        ),
    );
    let version = if with_version {
        Some((time_version(&oy, version_runs)?, version_runs))
    } else {
        None
    };
    report(&mut section, &samples, version);
    let tool_errors: usize = samples.iter().map(|sample| sample.tool_errors).sum();
    if tool_errors > 0 {
        section.note(format!(
            "warning: {tool_errors} scripted tool call(s) failed, so less work was measured \
             than intended (keep mock_model's script and the files in xtask's agent bench in \
             step)"
        ));
    }
    Ok(section)
}

/// One `oy run` against a fresh mock, workspace, home and XDG directories.
fn agent_run(oy: &Path, mock: &Path, scratch: &Path, gnu_time: bool) -> Result<Sample> {
    let _ = std::fs::remove_dir_all(scratch);
    let workspace = scratch.join("workspace");
    for (path, text) in FILES {
        let path = workspace.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    let home = scratch.join("home");
    std::fs::create_dir_all(&home).with_context(|| format!("creating {}", home.display()))?;
    let report_path = scratch.join("mock-report.json");
    let start_path = scratch.join("start.txt");
    let times_path = scratch.join("times.txt");
    let rss_path = scratch.join("rss.txt");
    let stdout_path = scratch.join("oy.stdout");
    let stderr_path = scratch.join("oy.stderr");

    let mut mock = Mock::start(mock, &report_path)?;

    // bash's `time` gives wall and CPU to the millisecond (GNU time rounds
    // CPU down to 10 ms, as much as the whole run costs) and `$EPOCHREALTIME`
    // marks the moment before oy starts; GNU time outside it gives the peak
    // RSS of the whole tree, which is oy's (bash is smaller).
    let mut cmd = if gnu_time {
        let mut cmd = Command::new(GNU_TIME);
        cmd.args(["-f", "%M", "-o"]).arg(&rss_path).arg("bash");
        cmd
    } else {
        Command::new("bash")
    };
    cmd.args(["-c", TIMED, "bash"])
        .args([&start_path, &times_path, &stdout_path, &stderr_path])
        .arg(oy)
        .args([
            "run",
            "--mode",
            "auto",
            "--model",
            "mock",
            "--wire-api",
            "chat",
            "Do the scripted benchmark task.",
        ])
        .current_dir(&workspace)
        // A clean environment: no real keys, proxies or user config leak in.
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env(
            "OPENAI_BASE_URL",
            format!("http://127.0.0.1:{}/v1", mock.port),
        )
        .env("OY_NON_INTERACTIVE", "1")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());

    let status = cmd
        .status()
        .with_context(|| format!("could not run {cmd:?}"))?;
    if !status.success() {
        bail!(
            "oy run failed ({status}):\n{}",
            read(&stderr_path).unwrap_or_default()
        );
    }
    mock.finish()?;

    let report: serde_json::Value =
        serde_json::from_str(&read(&report_path)?).context("the mock's report is not JSON")?;
    let started_unix_ms = report["started_unix_ms"].as_f64().unwrap_or_default();
    let chats: Vec<&serde_json::Value> = report["requests"]
        .as_array()
        .map(|requests| {
            requests
                .iter()
                .filter(|request| !request["step"].is_null())
                .collect()
        })
        .unwrap_or_default();
    if chats.len() != STEPS {
        bail!(
            "the mock answered {} chat requests, expected {STEPS}; oy said:\n{}",
            chats.len(),
            read(&stderr_path).unwrap_or_default()
        );
    }
    let ms = |request: &serde_json::Value, key: &str| request[key].as_f64().unwrap_or_default();
    let between_ms = chats
        .windows(2)
        .map(|pair| ms(pair[1], "arrived_ms") - ms(pair[0], "answered_ms"))
        .collect();
    let last_answered_unix_ms = started_unix_ms + ms(chats[STEPS - 1], "answered_ms");
    let spawned_unix_ms = read_number(&start_path)? * 1000.0;
    let times = read(&times_path)?;
    let (wall_s, user_s, sys_s) = parse_times(&times)?;
    let wall = Duration::from_secs_f64(wall_s);
    let peak_rss_kib = peak_rss_kib(&rss_path, gnu_time)?;
    Ok(Sample {
        wall,
        cpu_s: user_s + sys_s,
        peak_rss_kib,
        first_request_ms: ms(chats[0], "arrived_unix_ms") - spawned_unix_ms,
        body_bytes: chats
            .iter()
            .map(|request| request["body_bytes"].as_u64().unwrap_or_default() as usize)
            .collect(),
        between_ms,
        exit_ms: spawned_unix_ms + millis(wall) - last_answered_unix_ms,
        tool_errors: chats
            .iter()
            .filter(|request| request["tool_error"] == true)
            .count(),
    })
}

/// bash: `TIMED START TIMES OUT ERR COMMAND…` runs COMMAND with its output
/// in OUT and ERR, after writing the unix time to START, and writes its wall,
/// user and system seconds to TIMES.
const TIMED: &str = r#"start=$1 times=$2 out=$3 err=$4; shift 4
TIMEFORMAT='%3R %3U %3S'
printf '%s\n' "$EPOCHREALTIME" >"$start"
{ time "$@" >"$out" 2>"$err"; } 2>"$times""#;

fn read_number(path: &Path) -> Result<f64> {
    let text = read(path)?;
    text.trim()
        .parse()
        .with_context(|| format!("{}: not a number: {text:?}", path.display()))
}

/// One warm-up, then the wall milliseconds of `runs` `oy --version`.
fn time_version(oy: &Path, runs: usize) -> Result<Vec<f64>> {
    let mut times = Vec::with_capacity(runs);
    for round in 0..=runs {
        let started = Instant::now();
        let out = Command::new(oy)
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("could not run {} --version", oy.display()))?;
        let elapsed = started.elapsed();
        if !out.status.success() {
            bail!("oy --version failed ({})", out.status);
        }
        if round > 0 {
            times.push(millis(elapsed));
        }
    }
    Ok(times)
}

fn report(section: &mut Section, samples: &[Sample], version: Option<(Vec<f64>, usize)>) {
    let median_of = |values: Vec<f64>| median(values).unwrap_or(f64::NAN);
    let wall = figure(&samples.iter().map(|s| millis(s.wall)).collect::<Vec<_>>());
    let cpu = median_of(samples.iter().map(|s| s.cpu_s).collect());
    let rss = median(
        samples
            .iter()
            .filter_map(|s| s.peak_rss_kib.map(|kib| kib as f64 / 1024.0))
            .collect(),
    );
    let first = figure(
        &samples
            .iter()
            .map(|s| s.first_request_ms)
            .collect::<Vec<_>>(),
    );
    let exit = median_of(samples.iter().map(|s| s.exit_ms).collect());
    let by_step = |value: &dyn Fn(&Sample, usize) -> f64, steps: usize| -> Vec<f64> {
        (0..steps)
            .map(|step| median_of(samples.iter().map(|s| value(s, step)).collect()))
            .collect()
    };
    let bytes = by_step(&|s, step| s.body_bytes[step] as f64, STEPS);
    let between = by_step(&|s, step| s.between_ms[step], STEPS - 1);

    section.push(Row::measured(
        format!("`oy run`, {STEPS} steps: wall"),
        wall,
    ));
    section.push(
        Row::measured(
            "CPU, user+sys (oy and its commands)",
            Figure::median(cpu, Unit::Seconds),
        )
        .goal(Goal::Below(GOAL_CPU_S)),
    );
    section.push(match rss {
        Some(rss) => Row::measured("peak RSS", Figure::median(rss, Unit::MiB))
            .goal(Goal::Below(GOAL_RSS_MIB)),
        None => Row::skipped(
            "peak RSS",
            format!("{GNU_TIME} (GNU time) is missing (hint: apt-get install time)"),
        ),
    });
    section.push(
        Row::measured("first request after spawn", first).goal(Goal::Below(GOAL_FIRST_REQUEST_MS)),
    );
    if let Some((version, runs)) = version {
        section.push(
            Row::measured(format!("`oy --version` ({runs} runs)"), figure(&version))
                .goal(Goal::Below(GOAL_VERSION_MS)),
        );
    }
    let total: f64 = bytes.iter().sum();
    section.push(Row::measured(
        "bytes sent per request, mean",
        Figure::median(total / STEPS as f64, Unit::Bytes),
    ));
    section.note(format!(
        "request bytes by step: {} (total {total:.0})",
        joined(&bytes, 0)
    ));
    section.note(format!(
        "oy between an answer and its next request, by step (ms): {}",
        joined(&between, 1)
    ));
    section.note(format!(
        "spawn to first request {} ms, in between {:.1} ms, last answer to exit {exit:.1} ms",
        super::report::ms_text(first.median),
        between.iter().sum::<f64>()
    ));
}

fn joined(values: &[f64], decimals: usize) -> String {
    values
        .iter()
        .map(|value| format!("{value:.decimals$}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// The running mock server; killed if still running when dropped.
struct Mock {
    child: Child,
    port: u16,
}

impl Mock {
    /// Starts the mock and reads its `listening on PORT` line.
    fn start(binary: &Path, report: &Path) -> Result<Self> {
        let mut child = Command::new(binary)
            .arg(report)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("could not start {}", binary.display()))?;
        let mut line = String::new();
        if let Some(stdout) = child.stdout.take() {
            BufReader::new(stdout).read_line(&mut line)?;
        }
        let port = line.trim().strip_prefix("listening on ").map(str::parse);
        match port {
            Some(Ok(port)) => Ok(Self { child, port }),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                bail!("mock_model printed {line:?}, not `listening on PORT`")
            }
        }
    }

    /// Waits for the mock to write its report and exit: on its own after
    /// the final answer, or when asked to after a short while.
    fn finish(&mut self) -> Result<()> {
        let deadline = Instant::now() + MOCK_EXIT;
        while self.child.try_wait()?.is_none() {
            if Instant::now() >= deadline {
                let mut stream = TcpStream::connect(("127.0.0.1", self.port))
                    .context("connecting to the mock to shut it down")?;
                stream.write_all(b"POST /shutdown HTTP/1.1\r\ncontent-length: 0\r\n\r\n")?;
                self.child.wait()?;
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(())
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
