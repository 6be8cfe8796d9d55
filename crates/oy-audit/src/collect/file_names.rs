//! Name rules besides secrets: lockfiles, earlier SARIF reports (the
//! audit's own output), and the language a file name implies.

use std::path::Path;

const LOCKFILES: &[&str] = &[
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "go.sum",
    "packages.lock.json",
    "gradle.lockfile",
    "bun.lockb",
];

/// Lockfiles: every `*.lock` (`Cargo.lock`, `yarn.lock`, `poetry.lock`,
/// `Gemfile.lock`, `composer.lock`, `Pipfile.lock`, `flake.lock`…) and
/// the few that are named otherwise.
pub(super) fn is_lockfile(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".lock") || LOCKFILES.contains(&lower.as_str())
}

pub(super) fn is_sarif(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".sarif") || lower.ends_with(".sarif.json")
}

/// The language tokei would give the file, by name only.
///
/// `LanguageType::from_path` reads the file for a shebang when the name
/// has no extension, so it is only called for names with one (where it
/// looks at names alone); the few extension-less names tokei knows are
/// matched here.
pub(super) fn language(name: &str) -> Option<String> {
    use tokei::LanguageType;
    let lower = name.to_ascii_lowercase();
    let has_extension = Path::new(&lower).extension().is_some();
    let language = if has_extension {
        LanguageType::from_path(Path::new(&lower), &tokei::Config::default())
    } else {
        match lower.as_str() {
            "makefile" | "gnumakefile" => Some(LanguageType::Makefile),
            "dockerfile" => Some(LanguageType::Dockerfile),
            "justfile" => Some(LanguageType::Just),
            "rakefile" => Some(LanguageType::Rakefile),
            "snakefile" => Some(LanguageType::Snakemake),
            "pkgbuild" => Some(LanguageType::PacmanMakepkg),
            "build" | "workspace" | "module" => Some(LanguageType::Bazel),
            _ => None,
        }
    };
    language.map(|language| language.name().to_owned())
}
