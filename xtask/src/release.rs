//! `cargo xtask release [--dry-run] VERSION`: the version bump in the root
//! Cargo.toml (`[workspace.package]`) and Cargo.lock, a CHANGELOG.md
//! section from the commit subjects since the last `v*` tag (or the root
//! commit) grouped by scope, and the tag name to make.
//!
//! It never commits, tags or pushes: with `--dry-run` it only shows the
//! plan; without, it writes the three files and prints the commands left
//! for a person to run after reviewing them.
#![expect(
    clippy::disallowed_methods,
    reason = "xtask edits the repository's own manifest, lock file and changelog"
)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail, ensure};
use semver::Version;

use crate::workspace_root;

/// What a release changes, computed before anything is written.
#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) old: Version,
    pub(crate) new: Version,
    /// The tag a person makes after committing: `vVERSION`.
    pub(crate) tag: String,
    /// The tag the changelog starts after; `None` when there is none.
    pub(crate) since: Option<String>,
    pub(crate) manifest: String,
    pub(crate) lock: String,
    /// The new CHANGELOG.md section alone.
    pub(crate) section: String,
    /// The whole new CHANGELOG.md.
    pub(crate) changelog: String,
}

/// `cargo xtask release [--dry-run] VERSION`.
pub(crate) fn release(args: &[String]) -> Result<()> {
    let dry_run = args.iter().any(|arg| arg == "--dry-run");
    let versions: Vec<&String> = args.iter().filter(|arg| *arg != "--dry-run").collect();
    let [version] = versions.as_slice() else {
        bail!("usage: cargo xtask release [--dry-run] VERSION");
    };
    let root = workspace_root();
    let plan = plan(&root, version, &today())?;

    eprintln!(
        "xtask: version {} -> {} (Cargo.toml [workspace.package], and every workspace \
         package in Cargo.lock)",
        plan.old, plan.new
    );
    match &plan.since {
        Some(tag) => eprintln!("xtask: changelog from the commits since {tag}"),
        None => eprintln!("xtask: changelog from every commit (no v* tag yet)"),
    }
    eprintln!("xtask: tag to make after committing: {}", plan.tag);
    if dry_run {
        eprintln!("xtask: dry run: nothing written; the CHANGELOG.md section would be:\n");
        print!("{}", plan.section);
        return Ok(());
    }
    apply(&root, &plan)?;
    eprintln!(
        "xtask: wrote Cargo.toml, Cargo.lock and CHANGELOG.md; nothing is committed, \
         tagged or pushed.\nhint: review them, then\n  git commit -am \"release: {new}\"\n  \
         git tag -a {tag} -m \"oy {new}\"\n  git push origin HEAD {tag}",
        new = plan.new,
        tag = plan.tag
    );
    Ok(())
}

/// Validates `version` against the workspace at `root` and computes every
/// change; `date` (YYYY-MM-DD) heads the changelog section.
pub(crate) fn plan(root: &Path, version: &str, date: &str) -> Result<Plan> {
    let new = Version::parse(version).with_context(|| {
        format!("{version:?} is not a semantic version (expected MAJOR.MINOR.PATCH, like 0.2.0)")
    })?;
    let manifest = read(&root.join("Cargo.toml"))?;
    let lock = read(&root.join("Cargo.lock"))?;
    let old = workspace_version(&manifest)?;
    ensure!(new > old, "{new} is not above the current version {old}");
    let tag = format!("v{new}");
    ensure!(
        !git_ok(
            root,
            &[
                "rev-parse",
                "--quiet",
                "--verify",
                &format!("refs/tags/{tag}")
            ]
        ),
        "the tag {tag} already exists"
    );
    let since = last_tag(root)?;
    let section = changelog_section(&new, date, &subjects(root, since.as_deref())?);
    let existing = std::fs::read_to_string(root.join("CHANGELOG.md")).ok();
    Ok(Plan {
        manifest: bump_manifest(&manifest, &new)?,
        lock: bump_lock(&lock, &old, &new),
        changelog: insert_section(existing.as_deref(), &section),
        old,
        new,
        tag,
        since,
        section,
    })
}

/// Writes the plan's three files, refusing when any has uncommitted changes
/// (they would be mixed into the release commit).
pub(crate) fn apply(root: &Path, plan: &Plan) -> Result<()> {
    let dirty = git(
        root,
        &[
            "status",
            "--porcelain",
            "--",
            "Cargo.toml",
            "Cargo.lock",
            "CHANGELOG.md",
        ],
    )?;
    ensure!(
        dirty.trim().is_empty(),
        "Cargo.toml, Cargo.lock or CHANGELOG.md has uncommitted changes:\n{dirty}"
    );
    for (name, text) in [
        ("Cargo.toml", &plan.manifest),
        ("Cargo.lock", &plan.lock),
        ("CHANGELOG.md", &plan.changelog),
    ] {
        let path = root.join(name);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// The `version` of `[workspace.package]` in the root manifest.
pub(crate) fn workspace_version(manifest: &str) -> Result<Version> {
    let line = package_version_line(manifest)
        .context("Cargo.toml has no `version = \"…\"` in [workspace.package]")?;
    let (_, value) = manifest
        .lines()
        .nth(line)
        .and_then(|text| text.split_once('='))
        .context("Cargo.toml: unreadable version line")?;
    let value = value.trim().trim_matches('"');
    Version::parse(value).with_context(|| format!("Cargo.toml's version {value:?}"))
}

/// `manifest` with the `[workspace.package]` version set to `new`; every
/// other byte kept.
pub(crate) fn bump_manifest(manifest: &str, new: &Version) -> Result<String> {
    let line = package_version_line(manifest)
        .context("Cargo.toml has no `version = \"…\"` in [workspace.package]")?;
    Ok(manifest
        .split_inclusive('\n')
        .enumerate()
        .map(|(index, text)| {
            if index == line {
                let end = if text.ends_with('\n') { "\n" } else { "" };
                format!("version = \"{new}\"{end}")
            } else {
                text.to_owned()
            }
        })
        .collect())
}

/// The index of the `version = ` line inside `[workspace.package]`.
fn package_version_line(manifest: &str) -> Option<usize> {
    let mut in_package = false;
    for (index, line) in manifest.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            in_package = trimmed == "[workspace.package]";
        } else if in_package
            && trimmed
                .split_once('=')
                .is_some_and(|(key, _)| key.trim() == "version")
        {
            return Some(index);
        }
    }
    None
}

/// `lock` with the version of every workspace package (a `[[package]]`
/// without a `source`) at `old` set to `new`, as `cargo update -w` would.
pub(crate) fn bump_lock(lock: &str, old: &Version, new: &Version) -> String {
    let old_line = format!("version = \"{old}\"");
    let new_line = format!("version = \"{new}\"");
    lock.split("\n[[package]]\n")
        .map(|block| {
            let local = !block.lines().any(|line| line.starts_with("source = "));
            if block.starts_with("name = ") && local {
                block
                    .split_inclusive('\n')
                    .map(|line| {
                        if line.trim_end() == old_line {
                            line.replacen(&old_line, &new_line, 1)
                        } else {
                            line.to_owned()
                        }
                    })
                    .collect()
            } else {
                block.to_owned()
            }
        })
        .collect::<Vec<String>>()
        .join("\n[[package]]\n")
}

/// The newest `v*` tag reachable from HEAD.
fn last_tag(root: &Path) -> Result<Option<String>> {
    let output = git_command(root)
        .args([
            "describe",
            "--tags",
            "--abbrev=0",
            "--match",
            "v[0-9]*",
            "HEAD",
        ])
        .output()
        .context("running git describe")?;
    let tag = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    Ok((output.status.success() && !tag.is_empty()).then_some(tag))
}

/// The subjects of the non-merge commits after `since` (all when `None`),
/// newest first.
fn subjects(root: &Path, since: Option<&str>) -> Result<Vec<String>> {
    let range = since.map_or_else(|| "HEAD".to_owned(), |tag| format!("{tag}..HEAD"));
    let log = git(root, &["log", "--no-merges", "--format=%s", &range])?;
    Ok(log.lines().map(str::to_owned).collect())
}

/// `## VERSION — DATE`, then one `### scope` list per scope (alphabetical;
/// subjects keep their order). A subject `a, b: summary` goes under `a`
/// with `(also b)`; one without a scope goes under `other`.
pub(crate) fn changelog_section(version: &Version, date: &str, subjects: &[String]) -> String {
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for subject in subjects {
        let (scope, line) = match subject.split_once(": ") {
            Some((scopes, summary)) if is_scope_list(scopes) => {
                let mut names = scopes.split(',').map(str::trim);
                let first = names.next().unwrap_or("other").to_owned();
                let rest: Vec<&str> = names.collect();
                if rest.is_empty() {
                    (first, summary.to_owned())
                } else {
                    (first, format!("{summary} (also {})", rest.join(", ")))
                }
            }
            _ => ("other".to_owned(), subject.clone()),
        };
        groups.entry(scope).or_default().push(line);
    }
    let mut out = format!("## {version} — {date}\n");
    if groups.is_empty() {
        out.push_str("\nNo changes since the last release.\n");
    }
    for (scope, lines) in &groups {
        out.push_str(&format!("\n### {scope}\n\n"));
        for line in lines {
            out.push_str(&format!("- {line}\n"));
        }
    }
    out
}

/// `docs`, `tools, cli`: short lowercase names, not a sentence with a colon.
fn is_scope_list(text: &str) -> bool {
    text.split(',').map(str::trim).all(|name| {
        !name.is_empty()
            && name.len() <= 20
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    })
}

/// The changelog with `section` before the newest release section (after
/// the title and any preamble); a new changelog when there is none.
pub(crate) fn insert_section(existing: Option<&str>, section: &str) -> String {
    let Some(existing) = existing else {
        return format!("# Changelog\n\n{section}");
    };
    let at = if existing.starts_with("## ") {
        Some(0)
    } else {
        existing.find("\n## ").map(|index| index + 1)
    };
    match at {
        Some(at) => format!("{}{section}\n{}", &existing[..at], &existing[at..]),
        None => format!("{}\n\n{section}", existing.trim_end()),
    }
}

/// Today's date in UTC as YYYY-MM-DD.
fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    civil_date(secs / 86_400)
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's
/// days-to-civil algorithm).
pub(crate) fn civil_date(days: u64) -> String {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

fn git_command(root: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.arg("-C").arg(root);
    cmd
}

fn git(root: &Path, args: &[&str]) -> Result<String> {
    let output = git_command(root)
        .args(args)
        .output()
        .with_context(|| format!("running git {}", args.join(" ")))?;
    if !output.status.success() {
        bail!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    String::from_utf8(output.stdout).context("git printed non-UTF-8")
}

fn git_ok(root: &Path, args: &[&str]) -> bool {
    git_command(root)
        .args(args)
        .output()
        .is_ok_and(|out| out.status.success())
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

#[cfg(test)]
mod tests;
