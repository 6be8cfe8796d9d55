//! `sloc` against tokei itself: the same numbers, per language and in
//! total, on a generated tree full of doc comments and embedded languages,
//! on this repository, and what it does with names tokei reads a shebang
//! for.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use oy_boundary::Workspace;
use oy_tools::{Mode, Policy, ToolContext, default_registry};
use serde_json::json;
use tokei::{Config, Languages};

use crate::support::Env;

/// `language → [files, code, comments, blanks]`, plus `total`.
type Counts = BTreeMap<String, [u64; 4]>;

fn oy_counts(root: &Path) -> Counts {
    let ws = Arc::new(Workspace::open(root).unwrap());
    let ctx = ToolContext::new(ws, Policy::new(Mode::Plan, false));
    let out = default_registry().invoke(&ctx, "sloc-1", "sloc", &json!({}));
    assert!(out.ok, "{}", out.text);
    let text = out.full_text.unwrap_or(out.text);
    let mut counts = Counts::new();
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 5, "unexpected row {line:?} in\n{text}");
        let numbers = [1, 2, 3, 4].map(|i| fields[i].parse::<u64>().unwrap());
        counts.insert(fields[0].to_owned(), numbers);
    }
    counts
}

/// What tokei's own walk reports: each language's `(Total)` row and `Total`.
fn tokei_counts(root: &Path) -> Counts {
    let mut languages = Languages::new();
    languages.get_statistics(&[root], &[], &Config::default());
    let mut counts = Counts::new();
    let mut total = [0u64; 4];
    for (language_type, language) in &languages {
        if language.reports.is_empty() {
            continue;
        }
        let summary = language.summarise();
        let row = [
            language.reports.len() as u64,
            summary.code as u64,
            summary.comments as u64,
            summary.blanks as u64,
        ];
        for (sum, value) in total.iter_mut().zip(row) {
            *sum += value;
        }
        counts.insert(language_type.name().to_owned(), row);
    }
    let whole = languages.total();
    assert_eq!(
        [whole.code, whole.comments, whole.blanks].map(|n| n as u64),
        [total[1], total[2], total[3]]
    );
    counts.insert("total".to_owned(), total);
    counts
}

const RUST: &str = r#"//! A crate whose docs hold code:
//!
//! ```
//! let answer = 42;
//! assert_eq!(answer, 42);
//! ```

/// Adds one.
///
/// # Examples
///
/// ```rust
/// assert_eq!(add_one(1), 2);
/// ```
pub fn add_one(x: u32) -> u32 {
    // a plain comment
    x + 1 /* trailing */
}

/* a block
   comment */
fn main() {
    let s = "// not a comment";
    println!("{s}");
}
"#;

const MARKDOWN: &str = r#"# Title

Some prose.

```rust
fn main() {
    // inside a fence
}
```

```toml
[package]
name = "x"
```

```python
def f():
    return 1
```

More prose.
"#;

const HTML: &str = r#"<!doctype html>
<html>
<head>
<style>
  body { color: red; }
  /* css comment */
</style>
<script>
  // js comment
  let x = 1;

  console.log(x);
</script>
</head>
<!-- an html comment -->
<body><p>hi</p></body>
</html>
"#;

fn generate(root: &Path) {
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    };
    // A repository, so that tokei honours .gitignore as oy does.
    fs::create_dir_all(root.join(".git")).unwrap();
    write(".gitignore", "target/\n");
    for krate in 0..4 {
        for module in 0..6 {
            let mut text = RUST.repeat(module + 1);
            text.push_str(&format!(
                "/// crate {krate} module {module}\nconst N: u8 = {module};\n"
            ));
            write(&format!("crate{krate}/src/mod{module}.rs"), &text);
        }
        write(
            &format!("crate{krate}/README.md"),
            &MARKDOWN.repeat(krate + 1),
        );
        write(&format!("crate{krate}/page.html"), HTML);
    }
    write(
        "scripts/deploy",
        "#!/usr/bin/env python3\n# deploy it\nprint('hi')\n\n",
    );
    write("scripts/run", "#!/bin/bash\n# run it\necho hi\n");
    write("scripts/notes", "no shebang here\n");
    write("Makefile", "all:\n\t# make comment\n\techo hi\n");
    write("Dockerfile", "FROM scratch\n# comment\n");
    // tokei knows `BUILD` (any case) by name: Bazel, not a shebang.
    write("scripts/build", "#!/usr/bin/env python3\nprint(1)\n");
    write("docs/guide.md", MARKDOWN);
    write("target/ignored.rs", RUST);
}

#[test]
fn sloc_matches_tokei_with_doc_comments_and_embedded_languages() {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    generate(&root);
    let oy = oy_counts(&root);
    let tokei = tokei_counts(&root);
    assert_eq!(oy, tokei);
    // Doc comments count: Rust's comments include the Markdown inside them.
    let rust = oy["Rust"];
    assert!(rust[2] > 24 * 10, "{oy:?}");
    // The shebang scripts were recognised, the ignored tree was not walked.
    assert_eq!(oy.get("Python").map(|row| row[0]), Some(1), "{oy:?}");
    assert_eq!(oy.get("BASH").map(|row| row[0]), Some(1), "{oy:?}");
    assert_eq!(rust[0], 24, "{oy:?}");
}

#[test]
fn sloc_matches_tokei_on_this_repository() {
    let root = fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap();
    assert_eq!(oy_counts(&root), tokei_counts(&root));
}

#[test]
fn sloc_counts_a_shebang_script_only_when_its_first_line_says_so() {
    let env = Env::new(Mode::Plan);
    env.file("tool", "#!/usr/bin/env python3\nprint(1)\n")
        .file("data", "plain words\n");
    let out = env.call("sloc", json!({}));
    assert!(out.ok, "{}", out.text);
    assert!(out.text.contains("Python\t1\t1\t1\t0"), "{}", out.text);
    assert!(out.text.contains("total\t1\t1\t1\t0"), "{}", out.text);
}
