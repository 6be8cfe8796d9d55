//! `cargo xtask bench audit`: a whole-process benchmark of `oy audit
//! --dry-run` (collect, redact, index and plan; nothing is sent) on a
//! generated repository of 24,000 source files, and of code2prompt and
//! repomix on the same tree when they are installed.
//!
//! The tree is made once under the temp dir and reused, like the search
//! benchmark's; a marker written last says it is complete. It is shaped
//! like a monorepo so that every rule of the collector has work: six
//! languages with a few security-relevant and secret-shaped lines, some big
//! files, images, lockfiles, dot-files, planted `.env` files and keys, a
//! `vendor/` directory, and `.gitignore`d `node_modules/`, `target/` and
//! `dist/`. Wall and user+sys CPU come from bash's `time` and peak RSS from
//! GNU time, medians of [`RUNS`] runs after a warm-up (so the page cache is
//! warm: what is measured is the tool, not the disk). The goal of issue 7,
//! oy at least as fast as code2prompt, is reported, never enforced.
#![expect(
    clippy::disallowed_methods,
    reason = "xtask builds its own scratch tree in the temp dir, not a workspace of oy's"
)]

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use crate::bench_support::{Scratch, build_release_oy, median, parse_times, peak_rss_kib, read};

/// Timed runs per tool (after one warm-up); each metric's median is reported.
const RUNS: usize = 5;
/// GNU time, for the peak RSS of a child without unsafe code.
const GNU_TIME: &str = "/usr/bin/time";
/// Bump when the generator changes, so a stale tree is not reused.
const TREE_VERSION: u32 = 1;
/// Written last, holding `FILES BYTES`: present once the tree is complete.
const MARKER: &str = ".oy-bench-complete";
/// Packages × directories per package × files per directory = source files.
const PACKAGES: usize = 40;
const DIRS: usize = 25;
const FILES: usize = 24;
/// The tree holds ~100 MB of reviewable text, ~250 chunks for gpt-4.1
/// (chunks are capped at 120k tokens whatever the window); the default cap
/// of 64 chunks would stop the plan, and the cap is not what this benchmark
/// is about.
const MAX_CHUNKS: &str = "100000";

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

/// The medians of a tool's runs.
struct Summary {
    wall_s: f64,
    cpu_s: f64,
    peak_rss_mib: Option<f64>,
}

/// Builds the release `oy`, makes (or reuses) the tree, times `oy audit
/// --dry-run` and the installed competitors on it, and prints the figures.
pub(crate) fn bench_audit() -> Result<()> {
    let oy = build_release_oy()?;

    let gnu_time = Command::new(GNU_TIME)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !gnu_time {
        eprintln!(
            "xtask: {GNU_TIME} (GNU time) is missing: peak RSS is not measured \
             (hint: apt-get install time)"
        );
    }

    let (root, tree_files, tree_bytes) = ensure_tree()?;
    let scratch = Scratch::new("audit")?;
    eprintln!(
        "xtask: audit dry-run on {} ({tree_files} files, {:.1} MB), 1 warm-up + {RUNS} runs",
        root.display(),
        tree_bytes as f64 / 1e6
    );
    let oy_args = [
        "audit",
        "--dry-run",
        "--model",
        "gpt-4.1",
        "--max-chunks",
        MAX_CHUNKS,
    ];
    let (oy_summary, plan) = match measure(&scratch.0, gnu_time, oy.as_os_str(), &oy_args, &root) {
        Ok(measured) => measured,
        Err(error) => bail!("oy audit --dry-run failed: {error}"),
    };

    println!(
        "audit dry-run: `oy audit --dry-run --model gpt-4.1` on a generated repository of \
         {tree_files} files ({:.1} MB), median of {RUNS} runs, warm cache",
        tree_bytes as f64 / 1e6
    );
    print_plan(&plan);
    println!(
        "  {:<12} {:>11} {:>15} {:>11}",
        "tool", "wall", "CPU user+sys", "peak RSS"
    );
    print_row("oy", &oy_summary);

    let mut code2prompt_wall = None;
    for (tool, hint) in [
        ("code2prompt", "cargo install code2prompt"),
        ("repomix", "npm install -g repomix"),
    ] {
        let Some(help) = help_text(tool) else {
            println!("  {tool:<12} not installed (hint: {hint})");
            continue;
        };
        let args = competitor_args(tool, &help, &root);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        match measure(&scratch.0, gnu_time, OsStr::new(tool), &args, &root) {
            Ok((summary, _)) => {
                print_row(tool, &summary);
                if tool == "code2prompt" {
                    code2prompt_wall = Some(summary.wall_s);
                }
            }
            // Someone else's tool failing is a note, not a failed benchmark.
            Err(error) => println!("  {tool:<12} failed: {error}"),
        }
    }
    match code2prompt_wall {
        Some(theirs) => {
            let verdict = if oy_summary.wall_s <= theirs {
                "PASS"
            } else {
                "over"
            };
            println!(
                "  goal: oy at least as fast as code2prompt (wall): ratio {:.2}  {verdict}",
                oy_summary.wall_s / theirs.max(1e-9)
            );
        }
        None => println!("  goal: oy at least as fast as code2prompt (wall): not measured"),
    }
    Ok(())
}

/// `--help` of an installed tool, or `None` when it is not on PATH.
fn help_text(tool: &str) -> Option<String> {
    let out = Command::new(tool)
        .arg("--help")
        .stdin(Stdio::null())
        .output()
        .ok()
        .filter(|out| out.status.success())?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The non-interactive invocation of a competitor, writing its whole
/// prompt to /dev/null. Flags are read from `--help` because they changed
/// across versions (code2prompt 1 had `--output`, 2 and later
/// `--output-file` and a clipboard copy to turn off).
fn competitor_args(tool: &str, help: &str, root: &Path) -> Vec<String> {
    let root = root.display().to_string();
    if tool == "repomix" {
        return vec![root, "--quiet".into(), "-o".into(), "/dev/null".into()];
    }
    let output = if help.contains("--output-file") {
        "--output-file"
    } else {
        "--output"
    };
    let mut args = vec![root, output.into(), "/dev/null".into()];
    if help.contains("--no-clipboard") {
        args.push("--no-clipboard".into());
    }
    args
}

/// One warm-up and [`RUNS`] timed runs of `program args…` in `cwd` with a
/// clean environment; the medians and the last run's stdout. A failed run
/// is an error carrying its stderr.
fn measure(
    scratch: &Path,
    gnu_time: bool,
    program: &OsStr,
    args: &[&str],
    cwd: &Path,
) -> Result<(Summary, String)> {
    let mut samples = Vec::with_capacity(RUNS);
    let mut stdout = String::new();
    for round in 0..=RUNS {
        let (sample, out) =
            timed(scratch, gnu_time, program, args, cwd).with_context(|| format!("run {round}"))?;
        if round > 0 {
            samples.push(sample);
        }
        stdout = out;
    }
    let summary = Summary {
        wall_s: median(samples.iter().map(|s| s.wall_s).collect()).unwrap_or(f64::NAN),
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

fn timed(
    scratch: &Path,
    gnu_time: bool,
    program: &OsStr,
    args: &[&str],
    cwd: &Path,
) -> Result<(Sample, String)> {
    let home = scratch.join("home");
    // A fresh home each run: no config, cache or session state carries over.
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).with_context(|| format!("creating {}", home.display()))?;
    let times_path = scratch.join("times.txt");
    let rss_path = scratch.join("rss.txt");
    let stdout_path = scratch.join("stdout.txt");
    let stderr_path = scratch.join("stderr.txt");
    // GNU time outside bash gives the peak RSS of the whole tree, which is
    // the tool's (bash is smaller).
    let mut cmd = if gnu_time {
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
        // A clean environment: no real keys, proxies or user config leak in.
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("OY_NON_INTERACTIVE", "1")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
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
    let peak_rss_kib = peak_rss_kib(&rss_path, gnu_time)?;
    let sample = Sample {
        wall_s,
        cpu_s: user_s + sys_s,
        peak_rss_kib,
    };
    Ok((sample, read(&stdout_path)?))
}

/// The dry-run's own account: its first line (files, bytes, redactions),
/// the skip counts by reason, and the chunk line.
fn print_plan(plan: &str) {
    let mut lines = plan.lines();
    if let Some(first) = lines.next() {
        println!("  oy {first}");
    }
    let mut skipped = None;
    let mut reasons = Vec::new();
    let mut chunks = None;
    for line in lines {
        if let Some(rest) = line.strip_prefix("skipped ") {
            skipped = Some(rest.trim_end_matches(':'));
        } else if skipped.is_some() && chunks.is_none() && line.starts_with("  ") {
            // `  REASON  COUNT  EXAMPLES`: the examples are left out.
            let mut fields = line.split_whitespace();
            if let (Some(reason), Some(count)) = (fields.next(), fields.next()) {
                reasons.push(format!("{reason} {count}"));
            }
        } else if line.contains(" chunk") && line.contains("model call") {
            chunks = Some(line);
        }
    }
    if let Some(skipped) = skipped {
        println!("  oy skipped {skipped}: {}", reasons.join(", "));
    }
    if let Some(chunks) = chunks {
        println!("  oy plan: {chunks}");
    }
}

fn print_row(tool: &str, summary: &Summary) {
    let rss = summary
        .peak_rss_mib
        .map_or_else(|| "n/a".to_owned(), |mib| format!("{mib:.1} MiB"));
    println!(
        "  {tool:<12} {:>11} {:>15} {rss:>11}",
        format!("{:.1} ms", summary.wall_s * 1000.0),
        format!("{:.3} s", summary.cpu_s),
    );
}

/// The tree's root and its file and byte counts, generating it first when
/// it is missing or incomplete.
fn ensure_tree() -> Result<(PathBuf, u64, u64)> {
    let root = std::env::temp_dir().join(format!("oy-bench-audit-tree-v{TREE_VERSION}"));
    let marker = root.join(MARKER);
    if let Ok(text) = std::fs::read_to_string(&marker)
        && let [files, bytes] = text.split_whitespace().collect::<Vec<_>>()[..]
        && let (Ok(files), Ok(bytes)) = (files.parse(), bytes.parse())
    {
        return Ok((root, files, bytes));
    }
    if root.exists() {
        std::fs::remove_dir_all(&root).with_context(|| format!("removing {}", root.display()))?;
    }
    eprintln!(
        "xtask: generating the audit benchmark tree in {}",
        root.display()
    );
    let mut tree = Tree {
        root: root.clone(),
        rng: Rng(0x6f79_2d61_7564_6974),
        files: 0,
        bytes: 0,
    };
    let started = std::time::Instant::now();
    tree.generate()?;
    eprintln!(
        "xtask: generated {} files ({:.1} MB) in {:.1} s",
        tree.files,
        tree.bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    std::fs::write(&marker, format!("{} {}\n", tree.files, tree.bytes))
        .with_context(|| format!("writing {}", marker.display()))?;
    Ok((root, tree.files, tree.bytes))
}

/// A tiny deterministic PRNG (splitmix64): same seed, same tree.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// `n` characters from `alphabet`, for token-shaped strings.
    fn chars(&mut self, n: usize, alphabet: &str) -> String {
        let alphabet = alphabet.as_bytes();
        (0..n)
            .map(|_| char::from(alphabet[self.below(alphabet.len())]))
            .collect()
    }
}

const WORDS: &[&str] = &[
    "account", "buffer", "cache", "client", "config", "cursor", "event", "handler", "index",
    "invoice", "ledger", "order", "parser", "payload", "queue", "record", "request", "response",
    "session", "state", "token", "user", "value", "worker",
];

/// How one language's files look. In the templates each `@` is replaced
/// by a word: cheap to fill, and varied enough for the index and the
/// redaction prefilter to do real work.
struct Language {
    dir: &'static str,
    extensions: &'static [&'static str],
    open: &'static str,
    lines: &'static [&'static str],
    close: &'static str,
    /// Lines the security index reports (process, shell, SQL, network…).
    risky: &'static [&'static str],
}

const LANGUAGES: &[Language] = &[
    Language {
        dir: "src",
        extensions: &["rs"],
        open: "pub fn @_@(@: &str) -> Result<(), Error> {",
        lines: &[
            "    let @_@ = @.@(&@)?;",
            "    // the @ is checked before the @",
        ],
        close: "}",
        risky: &[
            "    let out = Command::new(\"sh\").arg(\"-c\").arg(&@).output()?;",
            "    let rows = conn.query(&format!(\"SELECT * FROM @ WHERE id = {}\", @))?;",
            "    let body = reqwest::get(&@).await?.text().await?;",
        ],
    },
    Language {
        dir: "app",
        extensions: &["py"],
        open: "def @_@(@, @):",
        lines: &["    @_@ = @.@(@)", "    # the @ is checked before the @"],
        close: "    return @",
        risky: &[
            "    subprocess.run(@, shell=True)",
            "    cursor.execute(\"SELECT * FROM @ WHERE name = '%s'\" % @)",
            "    requests.get(@, verify=False)",
        ],
    },
    Language {
        dir: "internal",
        extensions: &["go"],
        open: "func @@(@ string) error {",
        lines: &["\t@@ := @.@(@)", "\t// the @ is checked before the @"],
        close: "}",
        risky: &[
            "\tcmd := exec.Command(\"sh\", \"-c\", @)",
            "\trows, err := db.Query(\"SELECT * FROM @ WHERE id = \" + @)",
            "\tresp, err := http.Get(@)",
        ],
    },
    Language {
        dir: "web/src",
        extensions: &["ts", "tsx", "js"],
        open: "export async function @@(@: string): Promise<void> {",
        lines: &[
            "  const @@ = await @.@(@);",
            "  // the @ is checked before the @",
        ],
        close: "}",
        risky: &[
            "  child_process.exec(`git ${@}`);",
            "  const res = await fetch(@);",
            "  el.innerHTML = @;",
        ],
    },
    Language {
        dir: "src/main/java",
        extensions: &["java"],
        open: "    public void @@(String @) {",
        lines: &[
            "        var @@ = @.@(@);",
            "        // the @ is checked before the @",
        ],
        close: "    }",
        risky: &[
            "        Runtime.getRuntime().exec(@);",
            "        stmt.executeQuery(\"SELECT * FROM @ WHERE id = \" + @);",
        ],
    },
    Language {
        dir: "lib",
        extensions: &["c", "h"],
        open: "static int @_@(const char *@) {",
        lines: &[
            "    int @_@ = @_@(@);",
            "    /* the @ is checked before the @ */",
        ],
        close: "}",
        risky: &[
            "    system(@);",
            "    strcpy(@, @);",
            "    popen(@, \"r\");",
        ],
    },
];

/// The generator's state: where it writes, and what it wrote.
struct Tree {
    root: PathBuf,
    rng: Rng,
    files: u64,
    bytes: u64,
}

impl Tree {
    fn write(&mut self, path: &str, body: &[u8]) -> Result<()> {
        let path = self.root.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&path, body).with_context(|| format!("writing {}", path.display()))?;
        self.files += 1;
        self.bytes += body.len() as u64;
        Ok(())
    }

    fn generate(&mut self) -> Result<()> {
        // `.git/` makes the root a repository for the tools that ask.
        self.write(".git/HEAD", b"ref: refs/heads/main\n")?;
        self.write(".gitignore", b"target/\nnode_modules/\ndist/\n*.log\n")?;
        self.write(".github/workflows/ci.yml", b"on: [push]\njobs: {}\n")?;
        self.write(".editorconfig", b"root = true\n")?;
        self.write("README.md", b"# monorepo\n\nA generated benchmark tree.\n")?;
        // Lockfiles: skipped by name, and big, as real ones are.
        let lock = self.text(&LANGUAGES[0], 60_000);
        self.write("Cargo.lock", lock.as_bytes())?;
        let lock = self.text(&LANGUAGES[3], 200_000);
        self.write("package-lock.json", lock.as_bytes())?;
        // Planted secrets by name: never opened by oy.
        let env = self.secret_lines();
        for path in [".env", "web/.env.local", "pkg07/.env.production"] {
            self.write(path, env.as_bytes())?;
        }
        self.write("deploy/.env.staging", env.as_bytes())?;
        self.write("deploy/tls/server.key", env.as_bytes())?;
        for serial in 0..PACKAGES * DIRS * FILES {
            let package = serial / (DIRS * FILES);
            let dir = serial / FILES % DIRS;
            let language = &LANGUAGES[package % LANGUAGES.len()];
            if serial % (DIRS * FILES) == 0 {
                let readme = self.text(language, 3000);
                self.write(&format!("pkg{package:02}/README.md"), readme.as_bytes())?;
            }
            let extension = self.rng.pick(language.extensions);
            let size = self.file_size(serial);
            let body = self.text(language, size);
            let path = format!(
                "pkg{package:02}/{}/mod{dir:02}/file{:02}.{extension}",
                language.dir,
                serial % FILES
            );
            self.write(&path, body.as_bytes())?;
        }
        // Images: binary, skipped after the first read.
        for index in 0..200 {
            let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
            png.extend((0..4000).map(|_| (self.rng.next() & 0xff) as u8));
            self.write(&format!("web/assets/img{index:03}.png"), &png)?;
        }
        // Over the 256 KiB cap: skipped by size, never read.
        for index in 0..6 {
            let body = self.text(&LANGUAGES[3], 300_000 + index * 150_000);
            self.write(&format!("data/fixtures/big{index}.json"), body.as_bytes())?;
        }
        // Vendored code: walked, skipped by place.
        for index in 0..300 {
            let body = self.text(&LANGUAGES[2], 2000);
            self.write(
                &format!("vendor/mod{:02}/f{index:03}.go", index / 30),
                body.as_bytes(),
            )?;
        }
        // Ignored trees: never entered by the walker, but they must be cheap.
        for (top, count) in [
            ("node_modules", 3000),
            ("target/debug", 1000),
            ("dist", 200),
        ] {
            for index in 0..count {
                let body = self.text(&LANGUAGES[3], 1500);
                let path = format!("{top}/pkg{:02}/f{index:04}.js", index / 50);
                self.write(&path, body.as_bytes())?;
            }
        }
        for package in 0..PACKAGES {
            let log = self.text(&LANGUAGES[1], 4000);
            self.write(&format!("pkg{package:02}/debug.log"), log.as_bytes())?;
        }
        Ok(())
    }

    /// Mostly small files, some medium, a few large; every 1,500th file is
    /// generated code of ~200 KiB (under the cap, so it is collected).
    fn file_size(&mut self, serial: usize) -> usize {
        if serial % 1500 == 700 {
            return 180_000 + self.rng.below(60_000);
        }
        match self.rng.below(100) {
            0..75 => 300 + self.rng.below(2700),
            75..97 => 3000 + self.rng.below(9000),
            _ => 12_000 + self.rng.below(40_000),
        }
    }

    /// About `size` bytes of code in `language`; one file in 300 carries
    /// secret-shaped lines for the redactor.
    fn text(&mut self, language: &Language, size: usize) -> String {
        let mut text = String::with_capacity(size + 256);
        if self.rng.below(300) == 0 {
            text.push_str(&self.secret_lines());
        }
        while text.len() < size {
            self.fill(&mut text, language.open);
            for _ in 0..2 + self.rng.below(10) {
                let line = if self.rng.below(60) == 0 {
                    self.rng.pick(language.risky)
                } else {
                    self.rng.pick(language.lines)
                };
                self.fill(&mut text, line);
            }
            text.push_str(language.close);
            text.push_str("\n\n");
        }
        text
    }

    /// Appends `template` with each `@` replaced by a word, and a newline.
    fn fill(&mut self, text: &mut String, template: &str) {
        for (index, part) in template.split('@').enumerate() {
            if index > 0 {
                text.push_str(self.rng.pick(WORDS));
            }
            text.push_str(part);
        }
        text.push('\n');
    }

    /// Fake credentials in the shapes the redactor knows. The prefixes are
    /// assembled at run time so that this source file holds no
    /// secret-shaped string for scanners (oy's own audit included) to flag.
    fn secret_lines(&mut self) -> String {
        const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
        const ALNUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        let mut text = String::new();
        let _ = writeln!(
            text,
            "AWS_ACCESS_KEY_ID={}{}",
            ["AK", "IA"].concat(),
            self.rng.chars(16, UPPER)
        );
        let _ = writeln!(
            text,
            "GITHUB_TOKEN={}_{}",
            ["gh", "p"].concat(),
            self.rng.chars(36, ALNUM)
        );
        let _ = writeln!(
            text,
            "STRIPE_KEY={}_{}",
            ["sk", "live"].join("_"),
            self.rng.chars(24, ALNUM)
        );
        text
    }
}
