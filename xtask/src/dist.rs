//! `cargo xtask dist`: builds the release `oy` and packs it with README.md,
//! SECURITY.md and the LICENSE files into
//! `target/dist/oy-VERSION-TARGET.tar.gz`, plus a `.sha256` beside it in
//! `sha256sum` format (so `sha256sum -c` checks it).
//!
//! The tar writer is a small ustar one here rather than the `tar` crate or
//! the `tar` program: it is not in the lock file, and writing every header
//! ourselves makes the archive reproducible (fixed owner, modes and mtime,
//! entries in a fixed order) on any machine. gzip is flate2 and SHA-256 is
//! sha2, both already in the workspace.
#![expect(
    clippy::disallowed_methods,
    reason = "xtask reads the repository's own files and writes under target/"
)]

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail, ensure};
use sha2::{Digest, Sha256};

use crate::{cargo, release, run, workspace_root};

/// One file in the archive, under its top-level directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The name inside the archive's directory (no slashes).
    pub(crate) name: String,
    /// Unix permission bits.
    pub(crate) mode: u32,
    pub(crate) contents: Vec<u8>,
}

/// Builds, packs and checksums; prints the two paths it wrote.
pub(crate) fn dist() -> Result<()> {
    let root = workspace_root();
    let manifest = read_text(&root.join("Cargo.toml"))?;
    let version = release::workspace_version(&manifest)?;
    let target = host_target()?;
    let target_dir = target_dir()?;

    let mut build = cargo();
    build.args([
        "build",
        "--release",
        "--locked",
        "-p",
        "oy-cli",
        "--bin",
        "oy",
    ]);
    run("cargo build --release -p oy-cli --bin oy", build)?;
    let binary = target_dir.join("release/oy");
    check_version(&binary, &version.to_string())?;

    let mut entries = vec![Entry {
        name: "oy".to_owned(),
        mode: 0o755,
        contents: read_bytes(&binary)?,
    }];
    for name in documents(&root)? {
        entries.push(Entry {
            contents: read_bytes(&root.join(&name))?,
            name,
            mode: 0o644,
        });
    }
    if !entries.iter().any(|entry| is_licence(&entry.name)) {
        eprintln!(
            "xtask: warning: no LICENSE file at the workspace root; the archive states the \
             licence only in README.md (hint: add LICENSE-MIT and LICENSE-APACHE)"
        );
    }

    let stem = format!("oy-{version}-{target}");
    let (archive, checksum) = write_dist(
        &target_dir.join("dist"),
        &stem,
        &entries,
        source_date(&root),
    )?;
    println!("{}", archive.display());
    println!("{}", checksum.display());
    Ok(())
}

/// Writes `DIR/STEM.tar.gz` (entries under `STEM/`) and `DIR/STEM.tar.gz.sha256`;
/// returns both paths.
pub(crate) fn write_dist(
    dir: &Path,
    stem: &str,
    entries: &[Entry],
    mtime: u64,
) -> Result<(PathBuf, PathBuf)> {
    let bytes = pack(stem, entries, mtime)?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let file_name = format!("{stem}.tar.gz");
    let archive = dir.join(&file_name);
    std::fs::write(&archive, &bytes).with_context(|| format!("writing {}", archive.display()))?;
    let checksum = dir.join(format!("{file_name}.sha256"));
    std::fs::write(&checksum, format!("{}  {file_name}\n", sha256_hex(&bytes)))
        .with_context(|| format!("writing {}", checksum.display()))?;
    Ok((archive, checksum))
}

/// The gzipped ustar archive: the directory `stem/`, then each entry in it.
pub(crate) fn pack(stem: &str, entries: &[Entry], mtime: u64) -> Result<Vec<u8>> {
    let mut tar = Vec::new();
    tar.extend(header(&format!("{stem}/"), 0o755, 0, mtime, b'5')?);
    for entry in entries {
        ensure!(
            !entry.name.is_empty() && !entry.name.contains('/'),
            "archive entry name {:?} must be a plain file name",
            entry.name
        );
        let size = u64::try_from(entry.contents.len())?;
        let name = format!("{stem}/{}", entry.name);
        tar.extend(header(&name, entry.mode, size, mtime, b'0')?);
        tar.extend(&entry.contents);
        tar.resize(tar.len().next_multiple_of(BLOCK), 0);
    }
    // The end of the archive: two zero blocks.
    tar.resize(tar.len() + 2 * BLOCK, 0);

    // GzBuilder leaves the gzip header's mtime at zero, and names no file.
    let mut gz = flate2::GzBuilder::new().write(Vec::new(), flate2::Compression::best());
    gz.write_all(&tar)?;
    Ok(gz.finish()?)
}

/// The lowercase hex SHA-256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

const BLOCK: usize = 512;

/// One 512-byte ustar header. Owner and group are 0 with no names, so an
/// extracting user owns the files.
fn header(name: &str, mode: u32, size: u64, mtime: u64, kind: u8) -> Result<[u8; BLOCK]> {
    ensure!(
        name.len() < 100,
        "archive path {name:?} is too long for ustar"
    );
    let mut block = [0u8; BLOCK];
    put(&mut block, 0, name.as_bytes());
    put(&mut block, 100, octal(u64::from(mode), 7)?.as_bytes());
    put(&mut block, 108, octal(0, 7)?.as_bytes());
    put(&mut block, 116, octal(0, 7)?.as_bytes());
    put(&mut block, 124, octal(size, 11)?.as_bytes());
    put(&mut block, 136, octal(mtime, 11)?.as_bytes());
    block[156] = kind;
    put(&mut block, 257, b"ustar\0");
    put(&mut block, 263, b"00");
    // The checksum is computed with its own field as eight spaces.
    put(&mut block, 148, b"        ");
    let sum: u32 = block.iter().map(|&byte| u32::from(byte)).sum();
    put(&mut block, 148, format!("{sum:06o}\0 ").as_bytes());
    Ok(block)
}

fn put(block: &mut [u8; BLOCK], at: usize, bytes: &[u8]) {
    if let Some(slot) = block.get_mut(at..at + bytes.len()) {
        slot.copy_from_slice(bytes);
    }
}

/// `value` as `width` zero-padded octal digits and a NUL.
fn octal(value: u64, width: usize) -> Result<String> {
    let digits = format!("{value:0width$o}");
    ensure!(digits.len() == width, "{value} does not fit a ustar field");
    Ok(format!("{digits}\0"))
}

/// README.md, SECURITY.md and every LICENSE*/COPYING* file at the root,
/// in a fixed order; README.md and SECURITY.md must exist.
fn documents(root: &Path) -> Result<Vec<String>> {
    let mut licences = Vec::new();
    for entry in std::fs::read_dir(root).with_context(|| format!("listing {}", root.display()))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_licence(&name) && entry.file_type()?.is_file() {
            licences.push(name);
        }
    }
    licences.sort();
    let mut names = vec!["README.md".to_owned(), "SECURITY.md".to_owned()];
    for name in &names {
        ensure!(
            root.join(name).is_file(),
            "{name} is missing at the workspace root"
        );
    }
    names.extend(licences);
    Ok(names)
}

fn is_licence(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.starts_with("LICENSE") || upper.starts_with("LICENCE") || upper.starts_with("COPYING")
}

/// A fresh build must say the version it is packed as.
fn check_version(binary: &Path, version: &str) -> Result<()> {
    let output = std::process::Command::new(binary)
        .arg("--version")
        .output()
        .with_context(|| format!("running {} --version", binary.display()))?;
    let shown = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() || !shown.split_whitespace().any(|word| word == version) {
        bail!(
            "{} --version printed {shown:?}, not {version}",
            binary.display()
        );
    }
    Ok(())
}

/// The host's target triple, from `rustc -vV`.
fn host_target() -> Result<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = std::process::Command::new(rustc)
        .arg("-vV")
        .output()
        .context("running rustc -vV")?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(str::to_owned)
        .context("rustc -vV named no host")
}

/// cargo's target directory (it honours CARGO_TARGET_DIR and config).
fn target_dir() -> Result<PathBuf> {
    let output = cargo()
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .output()
        .context("running cargo metadata")?;
    ensure!(output.status.success(), "cargo metadata failed");
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    metadata["target_directory"]
        .as_str()
        .map(PathBuf::from)
        .context("cargo metadata named no target directory")
}

/// The time stamp of every archive entry: SOURCE_DATE_EPOCH when set (the
/// reproducible-builds convention), else HEAD's commit time, else zero.
fn source_date(root: &Path) -> u64 {
    if let Some(epoch) = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|value| value.trim().parse().ok())
    {
        return epoch;
    }
    std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["log", "-1", "--format=%ct"])
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(0)
}

fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("reading {}", path.display()))
}

fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

#[cfg(test)]
mod tests;
