//! `search`: regex and literal matching, filters, limits, ignore files,
//! binary and non-UTF-8 content, escapes, special files and ordering.

use std::sync::mpsc;
use std::time::Duration;

use oy_tools::Mode;
use serde_json::json;

use crate::support::{Env, assert_tool_error, symlink};

fn search(env: &Env, args: serde_json::Value) -> String {
    let out = env.call("search", args);
    assert!(out.ok, "{}", out.text);
    out.text
}

#[test]
fn regex_matches_print_file_line_text() {
    let env = Env::new(Mode::Plan);
    env.file(
        "src/main.rs",
        "fn main() {\n    helper();\n}\nfn helper() {}\n",
    );
    env.file("README.md", "no functions here\n");
    let text = search(&env, json!({"pattern": r"fn \w+\("}));
    assert_eq!(
        text,
        "src/main.rs:1:fn main() {\nsrc/main.rs:4:fn helper() {}\n"
    );
}

#[test]
fn literal_mode_matches_regex_metacharacters() {
    let env = Env::new(Mode::Plan);
    env.file("a.rs", "fn main() {}\nfn mainly() {}\n");
    let text = search(&env, json!({"pattern": "fn main(", "literal": true}));
    assert_eq!(text, "a.rs:1:fn main() {}\n");
    let text = search(&env, json!({"pattern": "a.rs", "literal": true}));
    assert_eq!(text, "(no matches)\n");
}

#[test]
fn invalid_regex_is_a_tool_error_suggesting_literal() {
    let env = Env::new(Mode::Plan);
    env.file("a.rs", "fn main() {}\n");
    let out = env.call("search", json!({"pattern": "fn main("}));
    assert_tool_error(&out, "invalid pattern `fn main(`");
    assert!(out.text.contains("unclosed group"), "{}", out.text);
    assert!(out.text.contains("`literal: true`"), "{}", out.text);
}

#[test]
fn case_insensitive_matches_any_case() {
    let env = Env::new(Mode::Plan);
    env.file("notes.txt", "Hello\nHELLO\nhello\nhelp\n");
    let text = search(&env, json!({"pattern": "hello"}));
    assert_eq!(text, "notes.txt:3:hello\n");
    let text = search(&env, json!({"pattern": "hello", "case_sensitive": false}));
    assert_eq!(
        text,
        "notes.txt:1:Hello\nnotes.txt:2:HELLO\nnotes.txt:3:hello\n"
    );
    let text = search(
        &env,
        json!({"pattern": "HELLO", "literal": true, "case_sensitive": false}),
    );
    assert_eq!(text.lines().count(), 3, "{text}");
}

#[test]
fn include_globs_match_paths_below_the_search_path() {
    let env = Env::new(Mode::Plan);
    env.file("top.rs", "needle\n");
    env.file("src/deep/inner.rs", "needle\n");
    env.file("src/deep/inner.toml", "needle\n");
    env.file("src/Cargo.toml", "needle\n");
    env.file("docs/guide.md", "needle\n");
    let text = search(&env, json!({"pattern": "needle", "include": ["*.rs"]}));
    assert_eq!(text, "src/deep/inner.rs:1:needle\ntop.rs:1:needle\n");
    let text = search(
        &env,
        json!({"pattern": "needle", "include": ["*.md", "src/*.toml"]}),
    );
    assert_eq!(text, "docs/guide.md:1:needle\nsrc/Cargo.toml:1:needle\n");
    // Below `path`: "deep/*.toml" is relative to src/.
    let text = search(
        &env,
        json!({"pattern": "needle", "path": "src", "include": ["deep/*.toml"]}),
    );
    assert_eq!(text, "src/deep/inner.toml:1:needle\n");
    let out = env.call("search", json!({"pattern": "x", "include": ["a{b"]}));
    assert_tool_error(&out, "invalid include glob `a{b`");
}

#[test]
fn path_scopes_the_search_to_a_directory_or_file() {
    let env = Env::new(Mode::Plan);
    env.file("a/one.txt", "needle 1\n");
    env.file("b/two.txt", "needle 2\n");
    env.file("b/three.txt", "needle 3\n");
    let text = search(&env, json!({"pattern": "needle", "path": "b"}));
    assert_eq!(text, "b/three.txt:1:needle 3\nb/two.txt:1:needle 2\n");
    let text = search(&env, json!({"pattern": "needle", "path": "./a/one.txt"}));
    assert_eq!(text, "a/one.txt:1:needle 1\n");
    let text = search(
        &env,
        json!({"pattern": "needle", "path": "a/one.txt", "include": ["*.txt"]}),
    );
    assert_eq!(text, "a/one.txt:1:needle 1\n");
    let out = env.call("search", json!({"pattern": "needle", "path": "missing"}));
    assert_tool_error(&out, "missing");
}

#[test]
fn limit_reached_is_stated_only_when_more_matches_exist() {
    let env = Env::new(Mode::Plan);
    env.file("a.txt", "x1\nx2\nx3\n");
    env.file("b.txt", "x4\nx5\n");
    let out = env.call("search", json!({"pattern": "x", "limit": 3}));
    assert!(out.ok && out.truncated, "{}", out.text);
    assert_eq!(
        out.text,
        "a.txt:1:x1\na.txt:2:x2\na.txt:3:x3\n\
         [limit of 3 matches reached; narrow the pattern or path]\n"
    );
    let out = env.call("search", json!({"pattern": "x", "limit": 5}));
    assert!(out.ok && !out.truncated, "{}", out.text);
    assert_eq!(out.text.lines().count(), 5, "{}", out.text);
    let out = env.call("search", json!({"pattern": "x", "limit": 0}));
    assert_tool_error(&out, "`limit` must be at least 1");
}

#[test]
fn limited_results_are_the_first_matches_in_sorted_order() {
    let env = Env::new(Mode::Plan);
    for dir in 0..8 {
        for file in 0..25 {
            env.file(&format!("d{dir}/f{file:02}.txt"), "hit\nmiss\nhit\nhit\n");
        }
    }
    let full = search(&env, json!({"pattern": "hit", "limit": 10_000}));
    let full: Vec<&str> = full.lines().collect();
    assert_eq!(full.len(), 8 * 25 * 3);
    for _ in 0..5 {
        let text = search(&env, json!({"pattern": "hit", "limit": 37}));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[..37], full[..37]);
        assert_eq!(
            lines[37],
            "[limit of 37 matches reached; narrow the pattern or path]"
        );
    }
}

#[test]
fn output_is_sorted_by_path_then_line() {
    let env = Env::new(Mode::Plan);
    env.file("b.txt", "k\nk\n");
    env.file("a/z.txt", "k\n");
    env.file("a.txt", "k\n");
    env.file("a/b/c.txt", "x\nk\n");
    let expected = "a/b/c.txt:2:k\na/z.txt:1:k\na.txt:1:k\nb.txt:1:k\nb.txt:2:k\n";
    for _ in 0..5 {
        assert_eq!(search(&env, json!({"pattern": "k"})), expected);
    }
}

#[test]
fn ignore_files_and_hidden_paths_are_honoured() {
    let env = Env::new(Mode::Plan);
    env.file(".gitignore", "target/\n*.log\n");
    env.file("sub/.ignore", "generated.rs\n");
    env.file("target/debug/out.txt", "needle\n");
    env.file("build.log", "needle\n");
    env.file("sub/generated.rs", "needle\n");
    env.file("sub/kept.rs", "needle\n");
    env.file(".hidden/secret.txt", "needle\n");
    let text = search(&env, json!({"pattern": "needle"}));
    assert_eq!(text, "sub/kept.rs:1:needle\n");
}

#[test]
fn binary_files_are_skipped() {
    let env = Env::new(Mode::Plan);
    env.file("text.txt", "needle\n");
    env.file("early.bin", "needle\n\0\x01\x02");
    // A NUL far past the searcher's first buffer still marks the file binary,
    // and the match found before it is dropped.
    let mut late = String::from("needle\n");
    late.push_str(&"padding line\n".repeat(50_000));
    late.push('\0');
    env.file("late.bin", &late);
    let text = search(&env, json!({"pattern": "needle"}));
    assert_eq!(text, "text.txt:1:needle\n");
}

#[test]
fn count_mode_prints_matching_lines_per_file_as_rg_c_does() {
    let env = Env::new(Mode::Plan);
    // Two matches on one line count once, as `rg -c` counts lines.
    env.file(
        "b.txt", "k k
x
k
",
    );
    env.file(
        "a/z.txt", "k
",
    );
    env.file(
        "a.txt", "none
",
    );
    env.file("late.bin", &format!("k\n{}\0", "pad\n".repeat(20_000)));
    env.file("src/lib.rs", "k\nk\nk\n");
    let text = search(&env, json!({"pattern": "k", "count": true}));
    assert_eq!(text, "a/z.txt:1\nb.txt:2\nsrc/lib.rs:3\n");
    let text = search(
        &env,
        json!({"pattern": "k", "count": true, "include": ["*.rs"]}),
    );
    assert_eq!(text, "src/lib.rs:3\n");
    let text = search(&env, json!({"pattern": "absent", "count": true}));
    assert_eq!(text, "(no matches)\n");
}

#[test]
fn count_mode_limit_counts_files_and_says_when_more_exist() {
    let env = Env::new(Mode::Plan);
    for file in 0..30 {
        // Many matching lines per file: the count is never cut at the limit.
        env.file(&format!("f{file:02}.txt"), &"hit\n".repeat(50));
    }
    for _ in 0..3 {
        let out = env.call(
            "search",
            json!({"pattern": "hit", "count": true, "limit": 4}),
        );
        assert!(out.ok && out.truncated, "{}", out.text);
        assert_eq!(
            out.text,
            "f00.txt:50\nf01.txt:50\nf02.txt:50\nf03.txt:50\n\
             [limit of 4 files reached; narrow the pattern or path]\n"
        );
    }
    let out = env.call(
        "search",
        json!({"pattern": "hit", "count": true, "limit": 30}),
    );
    assert!(out.ok && !out.truncated, "{}", out.text);
    assert_eq!(out.text.lines().count(), 30, "{}", out.text);
}

#[test]
fn count_is_accepted_but_costs_the_model_no_schema_bytes() {
    let env = Env::new(Mode::Plan);
    let spec = env
        .registry
        .all_specs()
        .into_iter()
        .find(|spec| spec.name == "search")
        .expect("search is registered");
    let schema = spec.parameters.to_string();
    assert!(!schema.contains("count"), "{schema}");
    // Still strict about names it does not know.
    let out = env.call("search", json!({"pattern": "k", "counts": true}));
    assert_tool_error(&out, "counts");
}

#[test]
fn non_utf8_content_is_shown_lossily() {
    let env = Env::new(Mode::Plan);
    std::fs::write(env.root.join("latin1.txt"), b"caf\xe9 needle\r\nnext\n").unwrap();
    let text = search(&env, json!({"pattern": "needle"}));
    assert_eq!(text, "latin1.txt:1:caf\u{fffd} needle\n");
}

#[test]
fn long_lines_are_cut_around_the_match() {
    let env = Env::new(Mode::Plan);
    let early = format!("needle{}", "a".repeat(1000));
    let late = format!("{}NEEDLE{}", "b".repeat(1000), "c".repeat(1000));
    env.file("long.txt", &format!("{early}\n{late}\n"));
    let text = search(&env, json!({"pattern": "needle", "case_sensitive": false}));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("long.txt:1:needleaaa"), "{text}");
    assert!(
        lines[0].ends_with(" … [line truncated: 706 bytes omitted]"),
        "{text}"
    );
    let shown = format!("{}NEEDLE{}", "b".repeat(60), "c".repeat(234));
    assert_eq!(
        lines[1],
        format!("long.txt:2:… {shown} … [line truncated: 1706 bytes omitted]")
    );
}

#[test]
fn escape_attempts_never_show_outside_content() {
    let env = Env::new(Mode::Plan);
    env.file("inside.txt", "inside\n");
    symlink(&env.outside, env.root.join("out_dir"));
    symlink(
        env.outside.join("secret.txt"),
        env.root.join("out_file.txt"),
    );
    assert!(env.outside_secret().contains("OUTSIDE-SECRET"));
    let text = search(&env, json!({"pattern": "SECRET|inside"}));
    assert_eq!(text, "inside.txt:1:inside\n");
    let outside = env.outside.to_string_lossy().into_owned();
    let cases = [
        json!({"pattern": "SECRET", "path": ".."}),
        json!({"pattern": "SECRET", "path": "../outside"}),
        json!({"pattern": "SECRET", "path": outside}),
        json!({"pattern": "SECRET", "path": "out_dir"}),
        json!({"pattern": "SECRET", "path": "out_file.txt"}),
        json!({"pattern": "SECRET", "path": "out_dir/secret.txt"}),
    ];
    for args in cases {
        let out = env.call("search", args.clone());
        assert!(!out.text.contains("OUTSIDE-SECRET"), "{args}: {}", out.text);
        assert_tool_error(&out, "");
    }
}

#[test]
fn fifo_in_the_tree_does_not_hang_the_search() {
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let env = Env::new(Mode::Plan);
        env.file("a.txt", "needle\n");
        let status = std::process::Command::new("mkfifo")
            .arg(env.root.join("pipe.txt"))
            .status()
            .unwrap();
        assert!(status.success());
        let walked = env.call("search", json!({"pattern": "needle"}));
        let direct = env.call("search", json!({"pattern": "needle", "path": "pipe.txt"}));
        let _ = done.send((walked, direct));
    });
    let (walked, direct) = finished
        .recv_timeout(Duration::from_secs(20))
        .expect("search hung on a FIFO");
    assert!(walked.ok, "{}", walked.text);
    assert_eq!(walked.text, "a.txt:1:needle\n");
    assert_tool_error(&direct, "pipe.txt is a FIFO, not a regular file");
}

#[test]
fn search_output_snapshot() {
    let env = Env::new(Mode::Plan);
    env.file(
        "src/lib.rs",
        "//! Demo.\npub fn parse(input: &str) -> u32 {\n    input.len() as u32\n}\n",
    );
    env.file(
        "src/main.rs",
        "fn main() {\n    let n = demo::parse(\"x\");\n    println!(\"{n}\");\n}\n",
    );
    env.file("README.md", "Call `parse` to parse.\n");
    let out = env.call("search", json!({"pattern": "parse", "limit": 2}));
    insta::assert_snapshot!(out.text);
}
