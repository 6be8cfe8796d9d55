//! The file tools' contracts (docs/tools.md): happy paths, every error path,
//! and escape attempts routed through each tool.

use oy_tools::Mode;
use serde_json::json;

use crate::support::{Env, assert_tool_error, symlink};

// ---- read ----

#[test]
fn read_numbers_lines_from_the_offset_and_names_the_next_offset() {
    let env = Env::new(Mode::Plan);
    let text: String = (1..=10).map(|n| format!("line {n}\n")).collect();
    env.file("f.txt", &text);
    let out = env.call("read", json!({"path": "f.txt", "offset": 4, "limit": 3}));
    assert!(out.ok, "{}", out.text);
    assert_eq!(
        out.text,
        "4\tline 4\n5\tline 5\n6\tline 6\n[line limit reached; more lines follow: continue with offset=7]\n"
    );
}

#[test]
fn read_offset_past_the_end_is_an_error_with_the_line_count() {
    let env = Env::new(Mode::Plan);
    env.file("f.txt", "a\nb\n");
    let out = env.call("read", json!({"path": "f.txt", "offset": 9}));
    assert_tool_error(&out, "has 2 lines");
    assert!(out.text.contains("between 1 and 2"), "{}", out.text);
}

#[test]
fn read_cuts_long_lines_with_a_marker() {
    let env = Env::new(Mode::Plan);
    env.file("long.txt", &format!("{}\nshort\n", "x".repeat(1000)));
    let out = env.call("read", json!({"path": "long.txt"}));
    assert!(out.ok);
    let first = out.text.lines().next().unwrap();
    assert!(
        first.starts_with(&format!("1\t{}", "x".repeat(400))),
        "{first}"
    );
    assert!(
        first.ends_with("[line truncated: 600 bytes omitted]"),
        "{first}"
    );
    assert!(out.text.contains("2\tshort"));
}

#[test]
fn read_stops_at_the_output_cap_and_names_the_offset_to_continue() {
    let env = Env::new(Mode::Plan);
    let text: String = (1..=2000)
        .map(|n| format!("{n:04} {}\n", "y".repeat(90)))
        .collect();
    env.file("big.txt", &text);
    let out = env.call("read", json!({"path": "big.txt"}));
    assert!(out.ok);
    assert!(out.text.len() < 64 * 1024, "{}", out.text.len());
    let last = out.text.lines().last().unwrap();
    assert!(
        last.starts_with("[output cap reached; more lines follow: continue with offset="),
        "{last}"
    );
}

#[test]
fn read_refuses_binary_and_non_utf8_files() {
    let env = Env::new(Mode::Plan);
    std::fs::write(env.root.join("bin.dat"), b"\x00\x01\x02").unwrap();
    std::fs::write(env.root.join("latin1.txt"), b"caf\xe9\n").unwrap();
    assert_tool_error(&env.call("read", json!({"path": "bin.dat"})), "binary");
    assert_tool_error(
        &env.call("read", json!({"path": "latin1.txt"})),
        "not valid UTF-8",
    );
}

#[test]
fn read_of_a_missing_path_suggests_close_matches_without_reading_them() {
    let env = Env::new(Mode::Plan);
    env.file("src/main.rs", "fn main() {}\n");
    let out = env.call("read", json!({"path": "src/mian.rs"}));
    assert_tool_error(&out, "src/mian.rs does not exist");
    assert!(
        out.text.contains("did you mean: src/main.rs"),
        "{}",
        out.text
    );
    assert!(
        !out.text.contains("fn main"),
        "suggestion content leaked: {}",
        out.text
    );
}

#[test]
fn read_accepts_an_absolute_path_inside_the_root() {
    let env = Env::new(Mode::Plan);
    env.file("a.txt", "hi\n");
    let abs = env.root.join("a.txt");
    let out = env.call("read", json!({"path": abs}));
    assert!(out.ok, "{}", out.text);
    assert_eq!(out.text, "1\thi\n");
}

#[test]
fn read_indentation_mode_returns_the_enclosing_block() {
    let env = Env::new(Mode::Plan);
    env.file(
        "lib.rs",
        "fn a() {\n    one();\n}\n\nfn b() {\n    let x = 1;\n    if x > 0 {\n        two();\n    }\n}\n",
    );
    let out = env.call(
        "read",
        json!({"path": "lib.rs", "offset": 6, "mode": "indentation"}),
    );
    assert!(out.ok, "{}", out.text);
    assert_eq!(
        out.text,
        "5\tfn b() {\n6\t    let x = 1;\n7\t    if x > 0 {\n8\t        two();\n9\t    }\n10\t}\n"
    );
}

#[test]
fn read_records_the_digest_of_the_whole_file_it_sliced() {
    let env = Env::new(Mode::Plan);
    // Several of the reader's 64 KiB buffers, CRLF lines, no final newline.
    let text: String = (1..=6000)
        .map(|n| format!("line {n} {}\r\n", "z".repeat(n % 50)))
        .chain(["end".to_owned()])
        .collect();
    env.file("big.txt", &text);
    env.file("small.rs", "fn a() {\n    b();\n}\n");
    let want = oy_tools::content_digest(text.as_bytes());
    for (offset, limit) in [(1, 1), (3000, 200), (6001, 5)] {
        env.ctx.state().forget("big.txt");
        let out = env.call(
            "read",
            json!({"path": "big.txt", "offset": offset, "limit": limit}),
        );
        assert!(out.ok, "{}", out.text);
        assert_eq!(
            env.ctx.state().seen("big.txt"),
            Some(want.as_str()),
            "offset {offset}"
        );
    }
    let out = env.call(
        "read",
        json!({"path": "small.rs", "offset": 2, "mode": "indentation"}),
    );
    assert!(out.ok, "{}", out.text);
    assert_eq!(
        env.ctx.state().seen("small.rs"),
        Some(oy_tools::content_digest(b"fn a() {\n    b();\n}\n").as_str())
    );
    // A failed read records nothing.
    env.ctx.state().forget("big.txt");
    let out = env.call("read", json!({"path": "big.txt", "offset": 9999}));
    assert!(!out.ok);
    assert_eq!(env.ctx.state().seen("big.txt"), None);
}

#[test]
fn a_file_too_large_to_edit_is_read_in_slices_without_a_record() {
    let env = Env::new(Mode::AcceptEdits);
    let line = format!("{}\n", "q".repeat(1023));
    let text = line.repeat(8 * 1024 + 1);
    env.file("huge.txt", &text);
    let out = env.call("read", json!({"path": "huge.txt", "offset": 5, "limit": 2}));
    assert!(out.ok, "{}", out.text);
    assert!(out.text.starts_with("5\tqqq"), "{}", &out.text[..20]);
    assert_eq!(env.ctx.state().seen("huge.txt"), None);
}

#[test]
fn a_one_shot_state_reads_the_same_text_and_keeps_no_record() {
    let env = Env::new(Mode::AcceptEdits);
    let text: String = (1..=3000).map(|n| format!("row {n}\n")).collect();
    env.file("f.txt", &text);
    let args = json!({"path": "f.txt", "offset": 1000, "limit": 20});
    let recorded = env.call("read", args.clone());
    assert!(env.ctx.state().seen("f.txt").is_some());
    *env.ctx.state() = oy_tools::ToolState::one_shot();
    let one_shot = env.call("read", args);
    assert_eq!(one_shot, recorded);
    assert_eq!(env.ctx.state().seen("f.txt"), None);
    let block = env.call(
        "read",
        json!({"path": "f.txt", "offset": 5, "mode": "indentation"}),
    );
    assert!(block.ok, "{}", block.text);
    assert_eq!(env.ctx.state().seen("f.txt"), None);
    // Without a record the read lock holds: the edit is refused.
    let out = env.call(
        "replace",
        json!({"path": "f.txt", "old": "row 7\n", "new": "seven\n"}),
    );
    assert!(!out.ok, "{}", out.text);
    assert_eq!(env.read("f.txt"), text);
}

// ---- escapes through every tool ----

#[test]
fn every_path_tool_refuses_escapes_and_changes_nothing_outside() {
    let env = Env::new(Mode::AutoApprove);
    symlink(&env.outside, env.root.join("out_link"));
    symlink(env.outside.join("secret.txt"), env.root.join("secret_link"));
    let outside_abs = env.outside.join("secret.txt");
    let escapes = [
        "../outside/secret.txt".to_owned(),
        outside_abs.display().to_string(),
        "out_link/secret.txt".to_owned(),
        "a/../../outside/secret.txt".to_owned(),
        "/etc/passwd".to_owned(),
    ];
    for path in &escapes {
        let calls = [
            ("read", json!({"path": path})),
            ("list", json!({"path": path})),
            ("sloc", json!({"path": path})),
            ("write", json!({"path": path, "content": "pwned"})),
            (
                "replace",
                json!({"path": path, "old": "OUTSIDE", "new": "pwned"}),
            ),
            ("remove", json!({"path": path, "recursive": true})),
            ("move", json!({"from": path, "to": "moved.txt"})),
            (
                "move",
                json!({"from": "here.txt", "to": path, "overwrite": true}),
            ),
        ];
        env.file("here.txt", "inside\n");
        for (tool, args) in calls {
            let out = env.call(tool, args.clone());
            assert!(!out.ok, "{tool} {args} succeeded: {}", out.text);
            assert!(out.text.starts_with("TOOL_ERROR: "), "{}", out.text);
            assert!(
                !out.text.contains("OUTSIDE-SECRET"),
                "{tool} leaked: {}",
                out.text
            );
        }
        assert_eq!(env.outside_secret(), "OUTSIDE-SECRET\n", "after {path}");
    }
    assert!(env.outside.join("secret.txt").exists());
    assert!(!env.exists("moved.txt"));
    // A link to an outside file is never followed for content...
    for (tool, args) in [
        ("read", json!({"path": "secret_link"})),
        ("write", json!({"path": "secret_link", "content": "pwned"})),
        (
            "replace",
            json!({"path": "secret_link", "old": "O", "new": "p"}),
        ),
    ] {
        let out = env.call(tool, args);
        assert_tool_error(&out, "outside the workspace");
        assert!(!out.text.contains("OUTSIDE-SECRET"), "{}", out.text);
    }
    // ...while moving or removing it acts on the link itself, inside.
    assert!(
        env.call("move", json!({"from": "secret_link", "to": "moved_link"}))
            .ok
    );
    assert!(env.call("remove", json!({"path": "moved_link"})).ok);
    assert!(!env.exists("moved_link"));
    assert_eq!(env.outside_secret(), "OUTSIDE-SECRET\n");
}

#[test]
fn escape_errors_say_the_path_is_outside_the_workspace() {
    let env = Env::new(Mode::Plan);
    let out = env.call("read", json!({"path": "../x"}));
    assert_tool_error(&out, "outside the workspace");
    assert!(
        out.text
            .contains("RECOVERY: use a path inside the workspace"),
        "{}",
        out.text
    );
}

// ---- write ----

#[test]
fn write_creates_parents_overwrites_and_appends() {
    let env = Env::new(Mode::AcceptEdits);
    let out = env.call(
        "write",
        json!({"path": "new/dir/f.txt", "content": "one\n"}),
    );
    assert!(out.ok, "{}", out.text);
    assert_eq!(out.text, "created new/dir/f.txt (4 bytes written)");
    let changes = out.changes.unwrap();
    assert_eq!(changes.files, ["new/dir/f.txt"]);
    assert_eq!(changes.bytes_written, 4);
    let out = env.call(
        "write",
        json!({"path": "new/dir/f.txt", "content": "two\n", "append": true}),
    );
    assert!(out.ok, "{}", out.text);
    assert_eq!(env.read("new/dir/f.txt"), "one\ntwo\n");
    let out = env.call(
        "write",
        json!({"path": "new/dir/f.txt", "content": "three\n"}),
    );
    assert_eq!(out.text, "overwrote new/dir/f.txt (6 bytes written)");
    assert_eq!(env.read("new/dir/f.txt"), "three\n");
}

#[test]
fn write_onto_a_directory_is_a_clear_error() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("d/x.txt", "x");
    assert_tool_error(
        &env.call("write", json!({"path": "d", "content": "y"})),
        "directory",
    );
    assert_eq!(env.read("d/x.txt"), "x");
}

// ---- replace ----

fn read_first(env: &Env, path: &str) {
    let out = env.call("read", json!({"path": path}));
    assert!(out.ok, "{}", out.text);
}

#[test]
fn replace_with_several_matches_names_the_count_and_lines() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("f.rs", "let a = 1;\nlet b = 2;\nlet a = 3;\n");
    read_first(&env, "f.rs");
    let out = env.call(
        "replace",
        json!({"path": "f.rs", "old": "let a", "new": "let c"}),
    );
    assert_tool_error(&out, "occurs 2 times in f.rs (lines 1, 3)");
    assert_eq!(env.read("f.rs"), "let a = 1;\nlet b = 2;\nlet a = 3;\n");
    let out = env.call(
        "replace",
        json!({"path": "f.rs", "old": "let a", "new": "let c", "replace_all": true}),
    );
    assert!(out.ok, "{}", out.text);
    assert_eq!(env.read("f.rs"), "let c = 1;\nlet b = 2;\nlet c = 3;\n");
}

#[test]
fn replace_with_no_match_points_at_loosely_matching_lines() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("f.py", "def f():\n        return 1\n");
    read_first(&env, "f.py");
    let out = env.call(
        "replace",
        json!({"path": "f.py", "old": "  def f():\n    return 1", "new": "x"}),
    );
    assert_tool_error(&out, "0 matches");
    assert!(out.text.contains("line(s) 1"), "{}", out.text);
}

#[test]
fn replace_refuses_a_file_changed_since_it_was_read() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("f.txt", "alpha\n");
    read_first(&env, "f.txt");
    env.file("f.txt", "alpha beta\n");
    let out = env.call(
        "replace",
        json!({"path": "f.txt", "old": "alpha", "new": "gamma"}),
    );
    assert_tool_error(&out, "changed since it was last read");
    assert_eq!(env.read("f.txt"), "alpha beta\n");
}

#[test]
fn consecutive_replaces_work_without_rereading() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("f.txt", "a b c\n");
    read_first(&env, "f.txt");
    for (old, new) in [("a", "x"), ("b", "y"), ("c", "z")] {
        let out = env.call("replace", json!({"path": "f.txt", "old": old, "new": new}));
        assert!(out.ok, "{}", out.text);
    }
    assert_eq!(env.read("f.txt"), "x y z\n");
}

#[test]
fn replace_keeps_crlf_line_endings_and_a_bom() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("win.txt", "\u{feff}one\r\ntwo\r\nthree\r\n");
    read_first(&env, "win.txt");
    let out = env.call(
        "replace",
        json!({"path": "win.txt", "old": "one\ntwo", "new": "uno\ndos"}),
    );
    assert!(out.ok, "{}", out.text);
    assert_eq!(env.read("win.txt"), "\u{feff}uno\r\ndos\r\nthree\r\n");
}

// ---- move / remove ----

#[test]
fn move_renames_and_refuses_to_overwrite_unless_asked() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("a.txt", "a").file("b.txt", "b");
    assert_tool_error(
        &env.call("move", json!({"from": "a.txt", "to": "b.txt"})),
        "already exists",
    );
    assert_eq!(env.read("b.txt"), "b");
    let out = env.call(
        "move",
        json!({"from": "a.txt", "to": "b.txt", "overwrite": true}),
    );
    assert!(out.ok, "{}", out.text);
    assert_eq!(env.read("b.txt"), "a");
    assert!(!env.exists("a.txt"));
    let out = env.call("move", json!({"from": "b.txt", "to": "deep/er/c.txt"}));
    assert!(out.ok, "{}", out.text);
    assert_eq!(env.read("deep/er/c.txt"), "a");
}

#[test]
fn remove_needs_recursive_for_directories_and_never_removes_the_root() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("d/x.txt", "x");
    assert_tool_error(
        &env.call("remove", json!({"path": "d"})),
        "non-empty directory",
    );
    assert!(
        env.call("remove", json!({"path": "d", "recursive": true}))
            .ok
    );
    assert!(!env.exists("d"));
    for root in [".", "./", env.root.display().to_string().as_str()] {
        let out = env.call("remove", json!({"path": root, "recursive": true}));
        assert_tool_error(&out, "workspace root");
    }
    assert!(env.root.exists());
}

#[test]
fn remove_of_a_link_to_outside_removes_only_the_link() {
    let env = Env::new(Mode::AcceptEdits);
    symlink(&env.outside, env.root.join("out"));
    let out = env.call("remove", json!({"path": "out", "recursive": true}));
    assert!(out.ok, "{}", out.text);
    assert!(!env.exists("out"));
    assert_eq!(env.outside_secret(), "OUTSIDE-SECRET\n");
}

// ---- list ----

#[test]
fn list_is_breadth_first_sorted_with_type_markers() {
    let env = Env::new(Mode::Plan);
    env.file("b/inner.txt", "x")
        .file("a.txt", "x")
        .file("b/deep/z.txt", "x");
    std::fs::write(env.root.join("run.sh"), "#!/bin/sh\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        env.root.join("run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    symlink("a.txt", env.root.join("link"));
    let out = env.call("list", json!({}));
    assert!(out.ok, "{}", out.text);
    assert_eq!(
        out.text,
        "a.txt\nb/\nlink@\nrun.sh*\nb/deep/\nb/inner.txt\n"
    );
    // With a pattern, only matching files are checked, and marked alike.
    let out = env.call("list", json!({"pattern": "*.sh"}));
    assert_eq!(out.text, "run.sh*\n");
    let out = env.call("list", json!({"path": "b", "pattern": "deep/*"}));
    assert_eq!(out.text, "b/deep/z.txt\n");
}

#[test]
fn every_window_of_a_listing_is_that_slice_of_the_whole_with_its_markers() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new(Mode::Plan);
    for dir in ["a", "b", "b/c", "d-e", "d"] {
        for name in ["x.sh", "y.txt", "z-1.sh"] {
            env.file(&format!("{dir}/{name}"), "x");
        }
        std::fs::set_permissions(
            env.root.join(dir).join("x.sh"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
    }
    symlink("b", env.root.join("via"));
    for (path, pattern) in [(".", None), (".", Some("*.sh")), ("via", None)] {
        let args = |offset: usize, limit: usize| {
            let mut args = json!({"path": path, "depth": 5, "offset": offset, "limit": limit});
            if let Some(pattern) = pattern {
                args["pattern"] = json!(pattern);
            }
            args
        };
        let whole = env.call("list", args(0, 1000)).text;
        // A window that holds every row the walk can give finds the
        // markers during the walk instead: the same listing.
        assert_eq!(env.call("list", args(0, 1_000_000)).text, whole);
        assert!(whole.contains("x.sh*\n"), "{whole}");
        assert!(
            !whole.contains(".txt*") && !whole.contains("z-1.sh*"),
            "{whole}"
        );
        let rows: Vec<&str> = whole.lines().collect();
        for limit in [1, 2, 3, 7] {
            for offset in 0..rows.len() {
                let out = env.call("list", args(offset, limit)).text;
                let end = (offset + limit).min(rows.len());
                let shown: Vec<&str> = out.lines().take(end - offset).collect();
                assert_eq!(
                    shown,
                    rows[offset..end],
                    "{path} {pattern:?} {offset} {limit}"
                );
            }
        }
    }
}

#[test]
fn list_pattern_searches_at_any_depth_and_limit_offset_paginate() {
    let env = Env::new(Mode::Plan);
    for name in ["a.rs", "src/b.rs", "src/deep/c.rs", "src/d.txt"] {
        env.file(name, "x");
    }
    let out = env.call("list", json!({"pattern": "*.rs"}));
    assert_eq!(out.text, "a.rs\nsrc/b.rs\nsrc/deep/c.rs\n");
    let out = env.call("list", json!({"pattern": "*.rs", "limit": 2}));
    assert_eq!(
        out.text,
        "a.rs\nsrc/b.rs\n[limit reached: 1 more entries; continue with offset=2]\n"
    );
    assert!(out.truncated);
    let out = env.call("list", json!({"pattern": "*.rs", "offset": 2}));
    assert_eq!(out.text, "src/deep/c.rs\n");
    let out = env.call("list", json!({"path": "src", "pattern": "deep/*.rs"}));
    assert_eq!(out.text, "src/deep/c.rs\n");
    let out = env.call("list", json!({"path": "src/", "pattern": "deep/*.rs"}));
    assert_eq!(out.text, "src/deep/c.rs\n");
    let out = env.call("list", json!({"path": "src/", "depth": 1}));
    assert_eq!(out.text, "src/b.rs\nsrc/d.txt\nsrc/deep/\n");
}

#[test]
fn list_honours_gitignore() {
    let env = Env::new(Mode::Plan);
    env.file(".gitignore", "target/\n*.log\n")
        .file("target/x", "x")
        .file("app.log", "x")
        .file("keep.txt", "x");
    let out = env.call("list", json!({}));
    assert_eq!(out.text, "keep.txt\n");
}

// ---- sloc ----

#[test]
fn sloc_counts_code_comments_and_blanks_per_language() {
    let env = Env::new(Mode::Plan);
    env.file("src/main.rs", "// hi\nfn main() {}\n\nfn x() {}\n")
        .file("Makefile", "all:\n\techo hi\n")
        .file("notes.unknownext", "whatever\n");
    let out = env.call("sloc", json!({}));
    assert!(out.ok, "{}", out.text);
    let lines: Vec<&str> = out.text.lines().collect();
    assert_eq!(lines[0], "language\tfiles\tcode\tcomments\tblanks");
    assert!(lines.contains(&"Rust\t1\t2\t1\t1"), "{}", out.text);
    assert!(
        lines.iter().any(|line| line.starts_with("Makefile\t1\t")),
        "{}",
        out.text
    );
    assert_eq!(*lines.last().unwrap(), "total\t2\t4\t1\t1");
}

#[test]
fn hostile_file_names_are_quoted_in_list_and_search() {
    let env = Env::new(Mode::AutoApprove);
    env.file("a\nb.txt", "needle\n");
    env.file("\u{1b}[31mred\u{7}.txt", "needle\n");
    env.file("plain.txt", "needle\n");
    for out in [
        env.call("list", json!({})),
        env.call("search", json!({"pattern": "needle"})),
    ] {
        assert!(out.ok, "{}", out.text);
        assert!(
            !out.text.contains('\u{1b}') && !out.text.contains('\u{7}'),
            "{:?}",
            out.text
        );
        assert!(out.text.contains("\"a\\nb.txt\""), "{:?}", out.text);
        assert!(
            out.text.contains("\"\\033[31mred\\007.txt\""),
            "{:?}",
            out.text
        );
        assert!(out.text.contains("plain.txt"), "{:?}", out.text);
        // One entry per line: the newline in a name never splits it.
        assert!(
            !out.text.lines().any(|line| line.starts_with("b.txt")),
            "{:?}",
            out.text
        );
    }
}
