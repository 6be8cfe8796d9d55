//! A large, deterministic source-like tree for the search and list
//! benchmarks, generated once under the system temp dir and reused.
//!
//! Shared by `benches/search.rs` and `examples/search_tree.rs` (through
//! `#[path]`) so that `cargo xtask bench` times oy and `rg` on the same tree.
//! About 30,000 searched files (~60 MB, mostly small, a few large, 1%
//! binary) plus ~5,000 files under `.gitignore`d directories. The root holds
//! an empty `.git/` so that `rg` honours `.gitignore` exactly as oy does.

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Bump when the generator changes, so stale trees are not reused.
const VERSION: u32 = 2;
/// Present once a tree is complete.
const MARKER: &str = ".oy-bench-complete";

/// Crate-like top directories × modules × files per module = searched files.
const CRATES: usize = 30;
const MODULES: usize = 10;
const FILES: usize = 100;

/// A literal that occurs in about 0.5% of the searched files.
pub(crate) const LITERAL: &str = "OY_BENCH_NEEDLE";
/// A 5,000-line source file the `read` comparison slices.
pub(crate) const READ_FILE: &str = "crate00/src/read_target.rs";
/// Lines of [`READ_FILE`].
const READ_LINES: usize = 5_000;

/// A regex with a few thousand matches (fewer than the tool's 10,000 cap,
/// so a full search does the same work as `rg`).
pub(crate) const REGEX: &str = r"fn \w+_handler\(";

const WORDS: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma",
    "buffer", "parser", "config", "request", "response", "session", "token", "cursor", "index",
    "value", "result", "error", "state", "event", "queue", "worker", "client", "server", "path",
];
const EXTENSIONS: &[&str] = &["rs", "rs", "rs", "py", "md", "txt", "json", "toml"];

/// Where the tree lives: `<temp>/oy-bench-tree-v<VERSION>`.
pub(crate) fn location() -> PathBuf {
    std::env::temp_dir().join(format!("oy-bench-tree-v{VERSION}"))
}

/// The tree's root, generating it first when it is missing or incomplete.
pub(crate) fn ensure() -> io::Result<PathBuf> {
    let root = location();
    if root.join(MARKER).is_file() {
        return Ok(root);
    }
    if root.exists() {
        fs::remove_dir_all(&root)?;
    }
    generate(&root)?;
    fs::write(root.join(MARKER), "complete\n")?;
    Ok(root)
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
        (self.next() % n as u64) as usize
    }

    fn word(&mut self) -> &'static str {
        WORDS[self.below(WORDS.len())]
    }
}

fn generate(root: &Path) -> io::Result<()> {
    let mut rng = Rng(0x6f79_2d62_656e_6368);
    fs::create_dir_all(root.join(".git"))?;
    fs::write(root.join(".gitignore"), "target/\nnode_modules/\n*.log\n")?;
    for krate in 0..CRATES {
        for module in 0..MODULES {
            let dir = root.join(format!("crate{krate:02}/src/mod{module}"));
            fs::create_dir_all(&dir)?;
            for file in 0..FILES {
                let binary = rng.below(100) == 0;
                let ext = if binary {
                    "bin"
                } else {
                    EXTENSIONS[rng.below(EXTENSIONS.len())]
                };
                let size = file_size(&mut rng, krate * MODULES * FILES + module * FILES + file);
                let body = contents(&mut rng, size, binary);
                fs::write(dir.join(format!("file{file:03}.{ext}")), body)?;
            }
            if module == 0 {
                fs::write(dir.join("debug.log"), contents(&mut rng, 4096, false))?;
            }
        }
    }
    let mut read = String::new();
    for no in 0..READ_LINES {
        let (a, b) = (rng.word(), rng.word());
        let _ = writeln!(read, "    let {a}_{b}_{no} = {}({a}, {no});", rng.word());
    }
    fs::write(root.join(READ_FILE), read)?;
    // Ignored trees: walked by neither tool, but they must be skipped fast.
    for (top, count) in [("target", 3000), ("node_modules", 2000)] {
        for index in 0..count {
            let dir = root.join(format!("{top}/pkg{:02}", index / 100));
            fs::create_dir_all(&dir)?;
            let body = contents(&mut rng, 2048, false);
            fs::write(dir.join(format!("f{index:04}.js")), body)?;
        }
    }
    Ok(())
}

/// Mostly small files, some medium, a few large; ten files of 512 KiB.
fn file_size(rng: &mut Rng, serial: usize) -> usize {
    if serial % 3000 == 1234 {
        return 512 * 1024;
    }
    match rng.below(100) {
        0..80 => 100 + rng.below(1400),
        80..98 => 1500 + rng.below(4500),
        _ => 6000 + rng.below(42_000),
    }
}

fn contents(rng: &mut Rng, size: usize, binary: bool) -> Vec<u8> {
    let mut text = String::with_capacity(size + 128);
    let needle_line = (rng.below(200) == 0).then(|| rng.below(20));
    let mut line = 0;
    while text.len() < size {
        if needle_line == Some(line) {
            let _ = writeln!(text, "    // {LITERAL}: keep in sync with the parser");
        }
        let (a, b, c) = (rng.word(), rng.word(), rng.word());
        let _ = match rng.below(400) {
            0 => writeln!(
                text,
                "pub fn {a}_handler({b}: &{c}) -> Result<(), Error> {{"
            ),
            1..40 => writeln!(text, "fn {a}_{b}({c}: u32) -> u32 {{"),
            40..80 => writeln!(text, "    // {a} {b} {c}: see the {a} module"),
            80..120 => writeln!(text, "}}"),
            _ => writeln!(text, "    let {a}_{b} = {c}({a}, {});", rng.below(1000)),
        };
        line += 1;
    }
    let mut bytes = text.into_bytes();
    if binary {
        let at = rng.below(bytes.len().max(1));
        bytes.insert(at, 0);
    }
    bytes
}

/// Files an update section of the patch case changes, in directories of
/// [`PATCH_PER_DIR`]; then [`PATCH_ADDED`] added files and one deletion.
const PATCH_UPDATED: usize = 196;
const PATCH_PER_DIR: usize = 14;
const PATCH_ADDED: usize = 2;
/// Hunks per updated file, each one changed line with three lines of context.
const PATCH_HUNKS: usize = 3;

/// A patch case like a real release-to-release diff: `DIR/pristine/` holds
/// the files before (source-like, 200 to 3,000 lines each), `DIR/forward.diff`
/// a `git diff`-style patch of 199 file sections (updates with three hunks,
/// two added files, one deleted file). Returns the number of sections.
pub(crate) fn patch_case(dir: &Path) -> io::Result<usize> {
    let pristine = dir.join("pristine");
    if pristine.exists() {
        fs::remove_dir_all(&pristine)?;
    }
    let mut rng = Rng(0x7061_7463_685f_6f79);
    let mut diff = String::new();
    for file in 0..=PATCH_UPDATED {
        let rel = format!("pkg{:02}/src/file{file:03}.rs", file / PATCH_PER_DIR);
        let count = 200 + rng.below(2800);
        let lines: Vec<String> = (0..count)
            .map(|no| {
                let (a, b) = (rng.word(), rng.word());
                format!("    let {a}_{b}_{no} = {}({a}, {no});", rng.word())
            })
            .collect();
        let path = pristine.join(&rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        let mut text = lines.join("\n");
        text.push('\n');
        fs::write(&path, &text)?;
        if file == PATCH_UPDATED {
            // The last file is deleted by the patch.
            let _ = writeln!(diff, "diff --git a/{rel} b/{rel}\ndeleted file mode 100644");
            let _ = writeln!(diff, "--- a/{rel}\n+++ /dev/null\n@@ -1,{count} +0,0 @@");
            for line in &lines {
                let _ = writeln!(diff, "-{line}");
            }
            continue;
        }
        let _ = writeln!(diff, "diff --git a/{rel} b/{rel}\n--- a/{rel}\n+++ b/{rel}");
        let stride = count / PATCH_HUNKS;
        for hunk in 0..PATCH_HUNKS {
            let changed = hunk * stride + stride / 2;
            let first = changed - 3;
            let _ = writeln!(diff, "@@ -{},7 +{},7 @@", first + 1, first + 1);
            for (no, line) in lines.iter().enumerate().skip(first).take(7) {
                if no == changed {
                    let _ = writeln!(diff, "-{line}\n+{line} // changed");
                } else {
                    let _ = writeln!(diff, " {line}");
                }
            }
        }
    }
    for added in 0..PATCH_ADDED {
        let rel = format!("added{added}/src/new{added}.rs");
        let _ = writeln!(diff, "diff --git a/{rel} b/{rel}\nnew file mode 100644");
        let _ = writeln!(diff, "--- /dev/null\n+++ b/{rel}\n@@ -0,0 +1,40 @@");
        for no in 0..40 {
            let _ = writeln!(diff, "+fn {}_{no}() {{}}", rng.word());
        }
    }
    fs::write(dir.join("forward.diff"), diff)?;
    Ok(PATCH_UPDATED + PATCH_ADDED + 1)
}
