//! `cargo xtask codegen [--check]`: regenerates docs/tools.md from the tool
//! registry by running `oy tools --format markdown` (xtask depends on no oy
//! crate, so it asks the binary). A test in oy-cli fails when the committed
//! file is stale, so CI holds it too.

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::{cargo, workspace_root};

pub(crate) fn codegen(check: bool) -> Result<()> {
    let output = cargo()
        .args([
            "run", "--quiet", "--locked", "-p", "oy-cli", "--bin", "oy", "--", "tools", "--format",
            "markdown",
        ])
        .output()
        .context("could not run `oy tools --format markdown`")?;
    if !output.status.success() {
        bail!(
            "`oy tools --format markdown` failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let generated = String::from_utf8(output.stdout).context("oy printed non-UTF-8")?;
    let path = workspace_root().join("docs/tools.md");
    let current = read(&path).unwrap_or_default();
    if current == generated {
        eprintln!("xtask: docs/tools.md is up to date");
        return Ok(());
    }
    if check {
        bail!("docs/tools.md is stale: run `cargo xtask codegen` and commit it");
    }
    #[expect(
        clippy::disallowed_methods,
        reason = "xtask writes the repository's own docs"
    )]
    std::fs::write(&path, generated).with_context(|| format!("writing {}", path.display()))?;
    eprintln!("xtask: wrote docs/tools.md");
    Ok(())
}

fn read(path: &Path) -> Option<String> {
    #[expect(
        clippy::disallowed_methods,
        reason = "xtask reads the repository's own docs"
    )]
    let text = std::fs::read_to_string(path).ok();
    text
}
