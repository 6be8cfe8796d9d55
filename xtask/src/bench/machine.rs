//! The machine a benchmark ran on, for the head of `docs/benchmarks.md`:
//! CPU, cores, memory, kernel, the scratch directory's filesystem, the load
//! average at the start and the end, rustc, the commit, and the anchors'
//! versions. Read from `/proc` and a few `--version`s; the parsers are pure
//! functions of the text so they are tested on fixtures.
#![expect(
    clippy::disallowed_methods,
    reason = "xtask reads /proc to describe the machine, not a workspace"
)]

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

/// The programs the sections compare oy with, for their versions.
const ANCHORS: [&str; 6] = ["rg", "tokei", "git", "sed", "code2prompt", "repomix"];

/// Facts about the machine and the tree, as display text.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Machine {
    pub(crate) date: String,
    pub(crate) cpu: String,
    pub(crate) cores: String,
    pub(crate) memory: String,
    pub(crate) kernel: String,
    pub(crate) scratch: String,
    pub(crate) load_start: String,
    pub(crate) load_end: String,
    pub(crate) rustc: String,
    pub(crate) commit: String,
    pub(crate) anchors: String,
}

impl Machine {
    /// Everything but the final load average, read now. `root` is the
    /// repository, `scratch` the directory the benchmarks work in.
    pub(crate) fn collect(root: &Path, scratch: &Path) -> Self {
        let cpuinfo = proc_text("/proc/cpuinfo");
        let meminfo = proc_text("/proc/meminfo");
        let logical = logical_cpus(&cpuinfo);
        let available = std::thread::available_parallelism().map_or(0, usize::from);
        let mut cores = match physical_cores(&cpuinfo) {
            Some(physical) => format!("{logical} logical CPUs, {physical} cores"),
            None => format!("{logical} logical CPUs"),
        };
        if available != logical {
            cores.push_str(&format!(" ({available} available to this process)"));
        }
        let gib = |kib: u64| kib as f64 / (1024.0 * 1024.0);
        let memory = match (
            meminfo_kib(&meminfo, "MemTotal"),
            meminfo_kib(&meminfo, "MemAvailable"),
        ) {
            (Some(total), Some(free)) => {
                format!(
                    "{:.1} GiB ({:.1} GiB available at the start)",
                    gib(total),
                    gib(free)
                )
            }
            (Some(total), None) => format!("{:.1} GiB", gib(total)),
            _ => "unknown".to_owned(),
        };
        let release = proc_text("/proc/sys/kernel/osrelease");
        let kernel = if release.trim().is_empty() {
            first_line(Command::new("uname").arg("-sr"))
        } else {
            format!("Linux {} ({})", release.trim(), std::env::consts::ARCH)
        };
        let scratch = match mount_of(&proc_text("/proc/self/mounts"), scratch) {
            Some(mount) => format!(
                "{} on {} ({} mounted at {})",
                scratch.display(),
                mount.fstype,
                mount.source,
                mount.point
            ),
            None => format!("{} (filesystem unknown)", scratch.display()),
        };
        Self {
            date: civil_date(
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |since| since.as_secs()),
            ),
            cpu: cpu_model(&cpuinfo).unwrap_or_else(|| "unknown".to_owned()),
            cores,
            memory,
            kernel,
            scratch,
            load_start: load_now(),
            load_end: String::new(),
            rustc: first_line(Command::new("rustc").arg("--version").current_dir(root)),
            commit: commit(root),
            anchors: anchors(),
        }
    }

    /// Reads the load average again, at the end of the run.
    pub(crate) fn finish(&mut self) {
        self.load_end = load_now();
    }

    /// Name and value of each fact, in the order the report shows them.
    pub(crate) fn facts(&self) -> Vec<(&'static str, String)> {
        let load = if self.load_end.is_empty() {
            format!("{} (1, 5, 15 min) at the start", self.load_start)
        } else {
            format!(
                "{} (1, 5, 15 min) at the start, {} at the end",
                self.load_start, self.load_end
            )
        };
        vec![
            ("date (UTC)", self.date.clone()),
            ("CPU", self.cpu.clone()),
            ("cores", self.cores.clone()),
            ("memory", self.memory.clone()),
            ("kernel", self.kernel.clone()),
            ("scratch dir", self.scratch.clone()),
            ("load average", load),
            ("rustc", self.rustc.clone()),
            ("commit", self.commit.clone()),
            ("anchors", self.anchors.clone()),
        ]
    }
}

fn proc_text(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn load_now() -> String {
    load_average(&proc_text("/proc/loadavg")).unwrap_or_else(|| "unknown".to_owned())
}

/// The first line a command prints, or "unknown".
fn first_line(cmd: &mut Command) -> String {
    cmd.stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| {
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .next()
                .map(|line| line.trim().to_owned())
        })
        .filter(|line| !line.is_empty())
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The short commit of HEAD, and whether the tree differs from it (the
/// report itself aside, since it is what a run rewrites).
fn commit(root: &Path) -> String {
    let hash = first_line(
        Command::new("git")
            .args(["rev-parse", "--short=12", "HEAD"])
            .current_dir(root),
    );
    let dirty = Command::new("git")
        .args([
            "status",
            "--porcelain",
            "--untracked-files=no",
            "--",
            ".",
            ":(exclude)docs/benchmarks.md",
        ])
        .current_dir(root)
        .output()
        .is_ok_and(|out| out.status.success() && !out.stdout.is_empty());
    if dirty {
        format!("{hash} with uncommitted changes")
    } else {
        hash
    }
}

/// Each anchor's version, or that it is not installed.
fn anchors() -> String {
    ANCHORS
        .iter()
        .map(|program| {
            let version = first_line(Command::new(program).arg("--version"));
            if version == "unknown" {
                format!("{program}: not installed")
            } else {
                version
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The value of the first `KEY : value` line with one of `keys`, in the
/// order given (x86 names the model `model name`, others differ).
fn cpuinfo_value(cpuinfo: &str, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|wanted| {
        cpuinfo.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key.trim() == *wanted && !value.trim().is_empty())
                .then(|| value.split_whitespace().collect::<Vec<_>>().join(" "))
        })
    })
}

/// The CPU's model name from `/proc/cpuinfo`.
pub(crate) fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo_value(
        cpuinfo,
        &["model name", "Model", "Hardware", "cpu model", "cpu"],
    )
}

/// How many `processor` entries `/proc/cpuinfo` has.
pub(crate) fn logical_cpus(cpuinfo: &str) -> usize {
    cpuinfo
        .lines()
        .filter(|line| {
            line.split_once(':')
                .is_some_and(|(key, _)| key.trim() == "processor")
        })
        .count()
}

/// Distinct (physical id, core id) pairs, when `/proc/cpuinfo` says them.
pub(crate) fn physical_cores(cpuinfo: &str) -> Option<usize> {
    let mut cores = BTreeSet::new();
    for block in cpuinfo.split("\n\n") {
        let field = |name: &str| {
            block.lines().find_map(|line| {
                let (key, value) = line.split_once(':')?;
                (key.trim() == name).then(|| value.trim().to_owned())
            })
        };
        if let (Some(package), Some(core)) = (field("physical id"), field("core id")) {
            cores.insert((package, core));
        }
    }
    (!cores.is_empty()).then_some(cores.len())
}

/// A `KEY: N kB` line of `/proc/meminfo`, in KiB.
pub(crate) fn meminfo_kib(meminfo: &str, key: &str) -> Option<u64> {
    meminfo.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        if name.trim() != key {
            return None;
        }
        let mut fields = value.split_whitespace();
        let number: u64 = fields.next()?.parse().ok()?;
        match fields.next() {
            Some("kB") | None => Some(number),
            Some(_) => None,
        }
    })
}

/// The three load averages of `/proc/loadavg`.
pub(crate) fn load_average(loadavg: &str) -> Option<String> {
    let fields: Vec<&str> = loadavg.split_whitespace().take(3).collect();
    let all_numbers = fields.iter().all(|field| field.parse::<f64>().is_ok());
    (fields.len() == 3 && all_numbers).then(|| fields.join(" "))
}

/// The type of the filesystem that holds `path` ("ext4", "tmpfs"), when
/// `/proc/self/mounts` says.
pub(crate) fn filesystem_of(path: &Path) -> Option<String> {
    mount_of(&proc_text("/proc/self/mounts"), path).map(|mount| mount.fstype)
}

/// A mount from `/proc/self/mounts`.
#[derive(Debug, PartialEq)]
pub(crate) struct Mount {
    pub(crate) source: String,
    pub(crate) point: String,
    pub(crate) fstype: String,
}

/// The mount that holds `path`: the longest mount point above it, the last
/// one listed when a point is mounted over.
pub(crate) fn mount_of(mounts: &str, path: &Path) -> Option<Mount> {
    let mut best: Option<(usize, Mount)> = None;
    for line in mounts.lines() {
        let mut fields = line.split_whitespace();
        let (Some(source), Some(point), Some(fstype)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let point = unescape_mount(point);
        let point_path = PathBuf::from(&point);
        if !path.starts_with(&point_path) {
            continue;
        }
        let depth = point_path
            .components()
            .filter(|part| matches!(part, Component::Normal(_)))
            .count();
        if best
            .as_ref()
            .is_none_or(|(best_depth, _)| depth >= *best_depth)
        {
            let mount = Mount {
                source: unescape_mount(source),
                point,
                fstype: fstype.to_owned(),
            };
            best = Some((depth, mount));
        }
    }
    best.map(|(_, mount)| mount)
}

/// The kernel writes space, tab, newline and backslash in mount fields as
/// three-digit octal escapes (`\040`).
fn unescape_mount(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|digits| bytes[i] == b'\\' && digits.iter().all(|d| (b'0'..=b'7').contains(d)))
            .map(|digits| {
                digits
                    .iter()
                    .fold(0u32, |acc, d| acc * 8 + u32::from(d - b'0'))
            });
        match octal.and_then(|code| u8::try_from(code).ok()) {
            Some(byte) => {
                out.push(byte);
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `YYYY-MM-DD` (UTC) of a Unix time, by the civil-from-days calendar
/// arithmetic (the proleptic Gregorian calendar, eras of 400 years).
pub(crate) fn civil_date(unix_secs: u64) -> String {
    let days = (unix_secs / 86_400) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests;
