//! Snapshots of what oy-term draws: a rich answer with colour on and off
//! at 80 columns, the structural and fence samples, a diff, and code in
//! several languages. Escape characters are shown as `␛` so the
//! snapshots read as text.

mod common;

use oy_term::{
    DiffOptions, HighlightState, Lang, MarkdownOptions, highlight_line, render_diff,
    render_markdown,
};

fn visible(out: &str) -> String {
    out.replace('\u{1b}', "␛")
}

fn markdown(text: &str, color: bool) -> String {
    visible(&render_markdown(text, MarkdownOptions { color, width: 80 }))
}

#[test]
fn answer_in_colour() {
    insta::assert_snapshot!(markdown(common::ANSWER, true));
}

#[test]
fn answer_plain() {
    insta::assert_snapshot!(markdown(common::ANSWER, false));
}

#[test]
fn structure_plain() {
    insta::assert_snapshot!(markdown(common::STRUCTURE, false));
}

#[test]
fn fences_in_colour() {
    insta::assert_snapshot!(markdown(common::FENCES, true));
}

#[test]
fn tables_narrow_plain() {
    insta::assert_snapshot!(visible(&render_markdown(
        common::TABLES,
        MarkdownOptions {
            color: false,
            width: 40
        }
    )));
}

const DIFF: &str = "\
diff --git a/src/decode.rs b/src/decode.rs
index 3f2a1c0..9b8e7d1 100644
--- a/src/decode.rs
+++ b/src/decode.rs
@@ -10,5 +10,6 @@ pub fn decode(input: &str) -> Result<Vec<u8>, Error> {
     let text = input;
-    let bytes = hex::decode(text)?;
+    let text = text.trim();
+    let bytes = hex::decode(text)?; // a very long comment that goes past the width of the screen
     Ok(bytes)
 }
-// --- old marker
+// +++ new marker
\\ No newline at end of file
";

#[test]
fn diff_in_colour_cut_to_width() {
    insta::assert_snapshot!(visible(&render_diff(
        DIFF,
        DiffOptions {
            color: true,
            width: 80,
            max_lines: None
        }
    )));
}

#[test]
fn diff_plain_capped() {
    insta::assert_snapshot!(render_diff(
        DIFF,
        DiffOptions {
            color: false,
            width: 60,
            max_lines: Some(8)
        }
    ));
}

const CODE: &[(&str, &str)] = &[
    (
        "rust",
        "/// Doc.\n#[derive(Debug)]\npub struct S<'a> { name: &'a str, n: u32 }\nfn main() {\n    let s = r#\"raw \"x\"\"#; /* multi\n       line */ let c = '\\n';\n    println!(\"{} {}\", s, 0x1F + 2.5e-3);\n}",
    ),
    (
        "python",
        "@cache\ndef f(x: int) -> str:\n    \"\"\"Doc\n    string.\"\"\"\n    return f'{x}' if x else None  # note",
    ),
    (
        "ts",
        "import { a } from './a';\nconst t = `line\n${a}`;\nexport async function g(n: number): Promise<void> { return null; } // done",
    ),
    (
        "go",
        "package main\n\nfunc main() {\n\ts := `raw\nstring`\n\tfmt.Println(s, 42, nil) // print\n}",
    ),
    (
        "cpp",
        "#include <vector>\n/* comment */\nint main() { std::vector<int> v{1, 2}; return v.size() > 0 ? 0 : 'x'; }",
    ),
    (
        "java",
        "@Override\npublic String toString() { return \"S\" + count; } // x",
    ),
    (
        "bash",
        "#!/bin/sh\nfor f in *.rs; do\n  echo \"$f\" ${HOME} 'single' # comment\ndone",
    ),
    (
        "json",
        "{\n  \"name\": \"oy\",\n  \"version\": 1.5,\n  \"tags\": [true, null]\n}",
    ),
    (
        "toml",
        "[package]\nname = \"oy\" # the name\nversion = \"0.1.0\"\n\n[dependencies]\nx = { version = \"1\", optional = true }",
    ),
    (
        "yaml",
        "---\nname: ci\non: [push]\njobs:\n  - run: cargo test # all\n    env: \"x\"",
    ),
    ("diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b"),
    ("klingon", "Qapla' 42 // no colour"),
];

#[test]
fn highlighted_code() {
    let mut out = String::new();
    for (lang, code) in CODE {
        out.push_str(&format!("── {lang}\n"));
        let mut state = HighlightState::default();
        for line in code.lines() {
            out.push_str(&highlight_line(
                Lang::from_name(lang),
                &mut state,
                line,
                true,
            ));
            out.push('\n');
        }
    }
    insta::assert_snapshot!(visible(&out));
}
