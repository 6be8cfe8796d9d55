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
const VERSION: u32 = 1;
/// Present once a tree is complete.
const MARKER: &str = ".oy-bench-complete";

/// Crate-like top directories × modules × files per module = searched files.
const CRATES: usize = 30;
const MODULES: usize = 10;
const FILES: usize = 100;

/// A literal that occurs in about 0.5% of the searched files.
pub(crate) const LITERAL: &str = "OY_BENCH_NEEDLE";
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
