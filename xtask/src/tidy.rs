//! Tidy checks: repository rules that rustc and clippy cannot see.
//!
//! Each check returns the problems it found as sentences; `check_workspace`
//! runs them all. They also run as `#[test]`s so the test suite enforces
//! them without `cargo xtask`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// Crate name → the workspace crates it may (or does) depend on.
pub(crate) type Edges = BTreeMap<String, BTreeSet<String>>;

/// Runs every tidy check on the workspace at `root`.
pub(crate) fn check_workspace(root: &Path) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    let sources = rust_sources(root)?;
    for path in &sources {
        let text = read(path)?;
        let shown = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        if !has_doc_header(&text) {
            problems.push(format!(
                "{shown}: first line must be a `//!` comment saying what the file holds"
            ));
        }
        if is_shipped(path, root) {
            problems.extend(
                placeholder_macros(&text)
                    .into_iter()
                    .map(|(line, name)| format!("{shown}:{line}: `{name}` must not ship")),
            );
        }
    }
    let architecture = read(&root.join("docs/architecture.md"))?;
    let allowed = parse_dependency_table(&architecture)
        .context("docs/architecture.md: no `| crate | may depend on |` table")?;
    let actual = workspace_edges(root)?;
    problems.extend(check_edges(&actual, &allowed));
    Ok(problems)
}

fn read(path: &Path) -> Result<String> {
    #[expect(
        clippy::disallowed_methods,
        reason = "xtask reads the repository, not a workspace"
    )]
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(text)
}

/// Every `.rs` file under `crates/` and `xtask/`, skipping build output.
fn rust_sources(root: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![root.join("crates"), root.join("xtask")];
    while let Some(dir) = stack.pop() {
        #[expect(
            clippy::disallowed_methods,
            reason = "xtask reads the repository, not a workspace"
        )]
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("listing {}", dir.display())),
        };
        for entry in entries {
            let entry = entry?;
            let path = entry.path();
            let name = entry.file_name();
            if entry.file_type()?.is_dir() {
                if name != "target" && name != "proptest-regressions" {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Shipped code is what sits under a crate's `src/`; tests, benches and
/// examples may use the debugging macros the check bans.
fn is_shipped(path: &Path, root: &Path) -> bool {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components().any(|c| c.as_os_str() == "src")
}

pub(crate) fn has_doc_header(text: &str) -> bool {
    text.lines()
        .next()
        .is_some_and(|line| line.starts_with("//!"))
}

/// `(line, macro)` for each banned macro call. The names are built at run
/// time so this file does not trip its own check.
pub(crate) fn placeholder_macros(text: &str) -> Vec<(usize, String)> {
    let banned: Vec<String> = ["todo", "unimplemented", "dbg"]
        .iter()
        .map(|name| format!("{name}!("))
        .collect();
    let mut hits = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for name in &banned {
            let found = code.match_indices(name.as_str()).any(|(at, _)| {
                // A longer name ending in `todo` is some other macro.
                !code[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_')
            });
            if found {
                hits.push((index + 1, name.trim_end_matches('(').to_owned()));
            }
        }
    }
    hits
}

/// Parses the markdown table whose header is `| crate | may depend on |`:
/// each row names a crate in backticks and lists the crates it may depend
/// on in backticks (a cell without any, such as "no oy crate", allows none).
pub(crate) fn parse_dependency_table(markdown: &str) -> Option<Edges> {
    let mut lines = markdown.lines().skip_while(|line| {
        let cells = cells(line);
        !(cells.len() == 2 && cells[0] == "crate" && cells[1] == "may depend on")
    });
    lines.next()?;
    let mut edges = Edges::new();
    for line in lines.skip(1) {
        let row = cells(line);
        if row.len() != 2 {
            break;
        }
        let Some(name) = backticked(&row[0]).into_iter().next() else {
            break;
        };
        edges.insert(name, backticked(&row[1]).into_iter().collect());
    }
    Some(edges)
}

fn cells(line: &str) -> Vec<String> {
    let line = line.trim();
    if !line.starts_with('|') {
        return Vec::new();
    }
    line.trim_matches('|')
        .split('|')
        .map(|cell| cell.trim().to_owned())
        .collect()
}

fn backticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The dependency edges between workspace members, from `cargo metadata`
/// (normal, dev and build dependencies alike).
fn workspace_edges(root: &Path) -> Result<Edges> {
    let output = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .context("running cargo metadata")?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).context("parsing cargo metadata")?;
    edges_from_metadata(&metadata)
}

pub(crate) fn edges_from_metadata(metadata: &serde_json::Value) -> Result<Edges> {
    let packages = metadata["packages"]
        .as_array()
        .context("metadata has no packages")?;
    let members: BTreeSet<String> = packages
        .iter()
        .filter_map(|package| package["name"].as_str().map(str::to_owned))
        .collect();
    let mut edges = Edges::new();
    for package in packages {
        let name = package["name"].as_str().context("package without a name")?;
        let deps = package["dependencies"]
            .as_array()
            .map(|deps| {
                // A crate that names itself (a dev-dependency turning on its
                // own test feature) adds no layer.
                deps.iter()
                    .filter_map(|dep| dep["name"].as_str())
                    .filter(|dep| members.contains(*dep) && *dep != name)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        edges.insert(name.to_owned(), deps);
    }
    Ok(edges)
}

/// Every actual edge must be allowed, and every crate must be in the table.
pub(crate) fn check_edges(actual: &Edges, allowed: &Edges) -> Vec<String> {
    let mut problems = Vec::new();
    for (krate, deps) in actual {
        let Some(may) = allowed.get(krate) else {
            problems.push(format!(
                "crate `{krate}` is not in the dependency table of docs/architecture.md"
            ));
            continue;
        };
        for dep in deps.difference(may) {
            problems.push(format!(
                "`{krate}` depends on `{dep}`, an edge the table in docs/architecture.md does not allow"
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap()
            .to_path_buf()
    }

    #[test]
    fn workspace_passes_every_tidy_check() {
        let problems = check_workspace(&root()).unwrap();
        assert!(
            problems.is_empty(),
            "tidy problems:\n{}",
            problems.join("\n")
        );
    }

    #[test]
    fn file_without_doc_header_is_flagged() {
        assert!(has_doc_header("//! Holds things.\nfn main() {}\n"));
        assert!(!has_doc_header("// plain comment\n//! late\n"));
        assert!(!has_doc_header("fn main() {}\n"));
        assert!(!has_doc_header(""));
    }

    #[test]
    fn placeholder_macros_are_found_outside_comments() {
        let text = format!(
            "fn a() {{ {}!() }}\n// {}!() in a comment\nfn b() {{ my_{}!() }}\nlet x = {}!(y);\n",
            "todo", "todo", "todo", "dbg"
        );
        let hits = placeholder_macros(&text);
        assert_eq!(hits, vec![(1, "todo!".to_owned()), (4, "dbg!".to_owned())]);
    }

    #[test]
    fn dependency_table_parses_names_and_empty_cells() {
        let md = "intro\n\n| crate | may depend on |\n| --- | --- |\n| `a` | no oy crate |\n| `b` | `a` |\n| `c` | `a`, `b` |\n\nafter\n";
        let table = parse_dependency_table(md).unwrap();
        assert_eq!(table["a"], BTreeSet::new());
        assert_eq!(
            table["c"],
            ["a", "b"].iter().map(|s| s.to_string()).collect()
        );
        assert_eq!(table.len(), 3);
        assert!(parse_dependency_table("no table here").is_none());
    }

    #[test]
    fn edge_missing_from_table_is_flagged() {
        let allowed = parse_dependency_table(
            "| crate | may depend on |\n| --- | --- |\n| `low` | none |\n| `high` | `low` |\n",
        )
        .unwrap();
        let metadata = serde_json::json!({"packages": [
            {"name": "low", "dependencies": [{"name": "high"}, {"name": "serde"}]},
            {"name": "high", "dependencies": [{"name": "low"}]},
            {"name": "stray", "dependencies": []},
        ]});
        let actual = edges_from_metadata(&metadata).unwrap();
        let problems = check_edges(&actual, &allowed);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems[0].contains("`low` depends on `high`"),
            "{problems:?}"
        );
        assert!(
            problems[1].contains("`stray` is not in the dependency table"),
            "{problems:?}"
        );
    }

    #[test]
    fn real_workspace_edges_match_the_table() {
        let allowed =
            parse_dependency_table(&read(&root().join("docs/architecture.md")).unwrap()).unwrap();
        let actual = workspace_edges(&root()).unwrap();
        assert!(actual.contains_key("oy-boundary"));
        assert_eq!(check_edges(&actual, &allowed), Vec::<String>::new());
    }
}
