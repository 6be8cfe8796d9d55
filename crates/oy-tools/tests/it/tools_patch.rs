//! `patch`: both formats, the workspace boundary through every header kind,
//! all-or-nothing commits, line endings, error text, approval, and the
//! apply-then-reverse property.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use oy_tools::{Answer, Mode, Preview, ToolOutput, unified_diff};
use proptest::prelude::*;
use serde_json::json;

use crate::support::{Env, assert_tool_error, symlink};

fn patch(env: &Env, text: &str) -> ToolOutput {
    env.call("patch", json!({ "patch": text }))
}

fn assert_ok(out: &ToolOutput) {
    assert!(out.ok, "expected success, got: {}", out.text);
}

/// The sibling of the workspace holds exactly its one untouched file.
fn assert_outside_untouched(env: &Env) {
    assert_eq!(env.outside_secret(), "OUTSIDE-SECRET\n");
    let names: Vec<_> = fs::read_dir(&env.outside)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(names, ["secret.txt"], "something was created outside");
    let base = env.outside.parent().unwrap();
    let mut siblings: Vec<_> = fs::read_dir(base)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    siblings.sort();
    assert_eq!(
        siblings,
        ["outside", "ws"],
        "something was created beside the root"
    );
}

const LIB: &str = "fn one() {\n    1\n}\nfn two() {\n    2\n}\nfn three() {\n    3\n}\n";

// ---- the envelope -------------------------------------------------------

#[test]
fn envelope_adds_updates_deletes_and_moves_in_one_call() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("src/lib.rs", LIB)
        .file("old.txt", "bye\n")
        .file("src/a.rs", "a\nkeep\n");
    let out = patch(
        &env,
        "*** Begin Patch\n\
         *** Add File: src/new.rs\n\
         +pub fn new() {}\n\
         +\n\
         +// end\n\
         *** Update File: src/lib.rs\n\
         @@ fn two() {\n\
         -    2\n\
         +    22\n\
         @@\n \
         fn three() {\n\
         -    3\n\
         +    33\n\
         +    333\n \
         }\n\
         *** Delete File: old.txt\n\
         *** Update File: src/a.rs\n\
         *** Move to: src/moved/b.rs\n\
         @@\n\
         -a\n\
         +b\n \
         keep\n\
         *** End Patch\n",
    );
    assert_ok(&out);
    assert_eq!(env.read("src/new.rs"), "pub fn new() {}\n\n// end\n");
    assert_eq!(
        env.read("src/lib.rs"),
        "fn one() {\n    1\n}\nfn two() {\n    22\n}\nfn three() {\n    33\n    333\n}\n"
    );
    assert!(!env.exists("old.txt"));
    assert!(!env.exists("src/a.rs"));
    assert_eq!(env.read("src/moved/b.rs"), "b\nkeep\n");
    for line in [
        "src/new.rs: +3 -0 (created)",
        "src/lib.rs: +3 -2",
        "old.txt: +0 -1 (deleted)",
        "src/moved/b.rs: +1 -1 (moved from src/a.rs)",
    ] {
        assert!(out.text.contains(line), "missing {line:?} in {}", out.text);
    }
    let changes = out.changes.unwrap();
    assert_eq!(
        changes.files,
        [
            "src/new.rs",
            "src/lib.rs",
            "old.txt",
            "src/a.rs",
            "src/moved/b.rs"
        ]
    );
    assert!(changes.bytes_written > 0);
}

#[test]
fn envelope_pure_move_and_end_of_file_marker() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("a.txt", "x\ny\nx\n").file("m.txt", "same\n");
    let out = patch(
        &env,
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+z\n*** End of File\n\
         *** Update File: m.txt\n*** Move to: n.txt\n*** End Patch",
    );
    assert_ok(&out);
    assert_eq!(
        env.read("a.txt"),
        "x\ny\nz\n",
        "End of File pins the last x"
    );
    assert_eq!(env.read("n.txt"), "same\n");
    assert!(!env.exists("m.txt"));
}

#[test]
fn patched_files_count_as_read_for_replace() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("a.txt", "one\n");
    assert_ok(&patch(
        &env,
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch\n",
    ));
    let out = env.call(
        "replace",
        json!({"path": "a.txt", "old": "two", "new": "three"}),
    );
    assert_ok(&out);
    assert_eq!(env.read("a.txt"), "three\n");
}

// ---- unified diffs ----------------------------------------------------------

#[test]
fn unified_git_diff_updates_creates_deletes_and_renames() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("x.txt", "a\nb\nc\n")
        .file("d.txt", "1\n2\n")
        .file("r1.txt", "moved\n");
    let out = patch(
        &env,
        "diff --git a/x.txt b/x.txt\n\
         index 1234567..89abcde 100644\n\
         --- a/x.txt\n\
         +++ b/x.txt\n\
         @@ -1,3 +1,3 @@ heading text\n \
         a\n\
         -b\n\
         +B\n \
         c\n\
         diff --git a/n/new.txt b/n/new.txt\n\
         new file mode 100644\n\
         index 0000000..1111111\n\
         --- /dev/null\n\
         +++ b/n/new.txt\n\
         @@ -0,0 +1,2 @@\n\
         +x\n\
         +y\n\
         diff --git a/d.txt b/d.txt\n\
         deleted file mode 100644\n\
         --- a/d.txt\n\
         +++ /dev/null\n\
         @@ -1,2 +0,0 @@\n\
         -1\n\
         -2\n\
         diff --git a/r1.txt b/r2.txt\n\
         similarity index 100%\n\
         rename from r1.txt\n\
         rename to r2.txt\n",
    );
    assert_ok(&out);
    assert_eq!(env.read("x.txt"), "a\nB\nc\n");
    assert_eq!(env.read("n/new.txt"), "x\ny\n");
    assert!(!env.exists("d.txt"));
    assert!(!env.exists("r1.txt"));
    assert_eq!(env.read("r2.txt"), "moved\n");
}

#[test]
fn unified_diff_without_prefixes_keeps_paths_as_written() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("x.txt", "old\n").file("a/y.txt", "old\n");
    let out = patch(
        &env,
        "--- x.txt\t2024-01-01 00:00:00\n+++ x.txt\t2024-01-02 00:00:00\n@@ -1 +1 @@\n-old\n+new\n\
         --- a/y.txt\n+++ a/y.txt\n@@ -1 +1 @@\n-old\n+new\n",
    );
    assert_ok(&out);
    assert_eq!(env.read("x.txt"), "new\n");
    assert_eq!(
        env.read("a/y.txt"),
        "new\n",
        "`a/` is kept when `+++` has no `b/`"
    );
}

#[test]
fn unified_multi_hunk_uses_line_numbers_to_pick_among_repeats() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("r.txt", "x\ny\nx\ny\nx\ny\nend\n");
    let out = patch(
        &env,
        "--- a/r.txt\n+++ b/r.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+first\n@@ -5,2 +5,2 @@\n x\n-y\n+third\n",
    );
    assert_ok(&out);
    assert_eq!(env.read("r.txt"), "x\nfirst\nx\ny\nx\nthird\nend\n");
}

#[test]
fn unified_hunk_counts_may_be_wrong_and_blank_context_may_lose_its_space() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("w.txt", "a\n\nb\nc\n");
    // Header says 2 lines; the body has 4, and the blank context line is bare.
    let out = patch(
        &env,
        "--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n a\n\n-b\n+B\n c\n",
    );
    assert_ok(&out);
    assert_eq!(env.read("w.txt"), "a\n\nB\nc\n");
}

#[test]
fn unified_removed_and_added_lines_that_look_like_headers() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("h.txt", "keep\n-- x\nend\n");
    let out = patch(
        &env,
        "--- a/h.txt\n+++ b/h.txt\n@@ -1,2 +1,2 @@\n keep\n--- x\n+++ y\n@@ -3 +3 @@\n-end\n+END\n",
    );
    assert_ok(&out);
    assert_eq!(env.read("h.txt"), "keep\n++ y\nEND\n");
}

// ---- the boundary -------------------------------------------------------------

#[test]
fn escapes_through_every_header_kind_are_refused_and_change_nothing() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("a.txt", "a\n");
    symlink(&env.outside, env.root.join("link"));
    let attempts = [
        "*** Begin Patch\n*** Add File: ../x.txt\n+x\n*** End Patch",
        "*** Begin Patch\n*** Add File: ../outside/new.txt\n+x\n*** End Patch",
        "*** Begin Patch\n*** Update File: ../outside/secret.txt\n@@\n-OUTSIDE-SECRET\n+owned\n*** End Patch",
        "*** Begin Patch\n*** Delete File: ../outside/secret.txt\n*** End Patch",
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../outside/moved.txt\n@@\n-a\n+b\n*** End Patch",
        "*** Begin Patch\n*** Add File: link/new.txt\n+x\n*** End Patch",
        "*** Begin Patch\n*** Update File: link/secret.txt\n@@\n-OUTSIDE-SECRET\n+owned\n*** End Patch",
        "*** Begin Patch\n*** Delete File: link/secret.txt\n*** End Patch",
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: link/moved.txt\n*** End Patch",
        "--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-root\n+owned\n",
        "--- a/../../x\n+++ b/../../x\n@@ -1 +1 @@\n-x\n+y\n",
        "--- /dev/null\n+++ b/../outside/new.txt\n@@ -0,0 +1 @@\n+x\n",
        "--- a/../outside/secret.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-OUTSIDE-SECRET\n",
        "--- a/a.txt\n+++ b/../outside/a.txt\n@@ -1 +1 @@\n-a\n+b\n",
        "diff --git a/a.txt b/../outside/r.txt\nrename from a.txt\nrename to ../outside/r.txt\n",
    ];
    for attempt in attempts {
        let out = patch(&env, attempt);
        assert_tool_error(&out, "outside the workspace");
        assert!(out.text.contains("nothing was changed"), "{}", out.text);
        assert_outside_untouched(&env);
        assert_eq!(env.read("a.txt"), "a\n", "after {attempt:?}");
    }
}

// ---- all or nothing ---------------------------------------------------------------

#[test]
fn a_failing_last_hunk_leaves_every_file_untouched() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("a.txt", "a\n")
        .file("b.txt", "1\n2\n3\n")
        .file("gone.txt", "g\n");
    let out = patch(
        &env,
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: new.txt\n+n\n\
         *** Delete File: gone.txt\n*** Update File: b.txt\n@@\n-1\n+one\n@@\n-4\n+four\n*** End Patch",
    );
    assert_tool_error(&out, "hunk 2");
    assert_eq!(env.read("a.txt"), "a\n");
    assert_eq!(env.read("b.txt"), "1\n2\n3\n");
    assert_eq!(env.read("gone.txt"), "g\n");
    assert!(!env.exists("new.txt"));
}

#[test]
fn a_failure_during_commit_restores_the_files_already_changed() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("a.txt", "a\n")
        .file("c.txt", "c\n")
        .file("d.txt", "d\n")
        .file("blocker", "i am a file\n");
    let out = patch(
        &env,
        "*** Begin Patch\n\
         *** Update File: a.txt\n@@\n-a\n+A\n\
         *** Update File: c.txt\n*** Move to: sub/dir/c2.txt\n@@\n-c\n+C\n\
         *** Delete File: d.txt\n\
         *** Add File: fresh/deep/x.txt\n+x\n\
         *** Add File: blocker/new.txt\n+n\n\
         *** End Patch",
    );
    assert_tool_error(&out, "blocker");
    assert!(out.text.contains("not applied"), "{}", out.text);
    assert_eq!(env.read("a.txt"), "a\n");
    assert_eq!(env.read("c.txt"), "c\n");
    assert_eq!(env.read("d.txt"), "d\n");
    assert_eq!(env.read("blocker"), "i am a file\n");
    for gone in ["sub", "fresh", "blocker/new.txt"] {
        assert!(!env.exists(gone), "{gone} was left behind");
    }
}

#[test]
fn a_path_in_two_sections_is_refused() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("a.txt", "a\nb\n");
    let out = patch(
        &env,
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n--- a/a.txt\n+++ b/a.txt\n@@ -2 +2 @@\n-b\n+B\n",
    );
    assert_tool_error(&out, "more than one file section");
    assert_eq!(env.read("a.txt"), "a\nb\n");
}

#[test]
fn add_existing_update_missing_and_delete_missing_are_clear_errors() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("here.txt", "h\n");
    let add = patch(
        &env,
        "*** Begin Patch\n*** Add File: here.txt\n+x\n*** End Patch",
    );
    assert_tool_error(&add, "already exists");
    let update = patch(
        &env,
        "*** Begin Patch\n*** Update File: nope.txt\n@@\n-a\n+b\n*** End Patch",
    );
    assert_tool_error(&update, "cannot update nope.txt: it does not exist");
    let delete = patch(
        &env,
        "*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch",
    );
    assert_tool_error(&delete, "cannot delete nope.txt: it does not exist");
    let move_over = patch(
        &env,
        "*** Begin Patch\n*** Add File: other.txt\n+o\n*** End Patch",
    );
    assert_ok(&move_over);
    let move_over = patch(
        &env,
        "*** Begin Patch\n*** Update File: other.txt\n*** Move to: here.txt\n*** End Patch",
    );
    assert_tool_error(&move_over, "already exists");
    assert_eq!(env.read("here.txt"), "h\n");
    assert_eq!(env.read("other.txt"), "o\n");
}

#[test]
fn malformed_patches_are_explained() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("a.txt", "a\n");
    let cut = patch(
        &env,
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n",
    );
    assert_tool_error(&cut, "no `*** End Patch`");
    let prose = patch(&env, "please change a to b");
    assert_tool_error(&prose, "no file changes");
    let bare = patch(
        &env,
        "*** Begin Patch\n*** Update File: a.txt\n@@\na\n*** End Patch",
    );
    assert_tool_error(&bare, "leading space");
    assert_eq!(env.read("a.txt"), "a\n");
}

#[test]
fn hunks_out_of_order_are_refused_with_the_reason() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("o.txt", "1\n2\n3\n4\n");
    let out = patch(
        &env,
        "*** Begin Patch\n*** Update File: o.txt\n@@\n-4\n+four\n@@\n-1\n+one\n*** End Patch",
    );
    assert_tool_error(&out, "file order");
    assert_eq!(env.read("o.txt"), "1\n2\n3\n4\n");
}

// ---- text fidelity -------------------------------------------------------------

#[test]
fn crlf_files_stay_crlf() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("w.txt", "a\r\nb\r\nc\r\n");
    let out = patch(
        &env,
        "*** Begin Patch\n*** Update File: w.txt\n@@\n a\n-b\n+B\n+B2\n c\n*** End Patch\n",
    );
    assert_ok(&out);
    assert_eq!(env.read("w.txt"), "a\r\nB\r\nB2\r\nc\r\n");
    // A diff made from the CRLF text itself (lines end in \r\n) applies too.
    let diff = unified_diff("w.txt", Some("a\r\nB\r\nB2\r\nc\r\n"), Some("a\r\nc\r\n"));
    assert_ok(&patch(&env, &diff));
    assert_eq!(env.read("w.txt"), "a\r\nc\r\n");
}

#[test]
fn a_bom_is_kept() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("bom.txt", "\u{feff}first\nsecond\n");
    let out = patch(
        &env,
        "*** Begin Patch\n*** Update File: bom.txt\n@@\n first\n-second\n+2nd\n*** End Patch",
    );
    assert_ok(&out);
    assert_eq!(env.read("bom.txt"), "\u{feff}first\n2nd\n");
    let diff = unified_diff(
        "bom.txt",
        Some("\u{feff}first\n2nd\n"),
        Some("\u{feff}1st\n2nd\n"),
    );
    assert_ok(&patch(&env, &diff));
    assert_eq!(env.read("bom.txt"), "\u{feff}1st\n2nd\n");
}

#[test]
fn a_missing_final_newline_stays_missing() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("n.txt", "a\nb");
    let out = patch(
        &env,
        "*** Begin Patch\n*** Update File: n.txt\n@@\n a\n-b\n+B\n+c\n*** End Patch",
    );
    assert_ok(&out);
    assert_eq!(env.read("n.txt"), "a\nB\nc");
}

#[test]
fn no_newline_markers_add_or_drop_the_final_newline() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("n.txt", "a\nb");
    let add =
        "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n";
    assert_ok(&patch(&env, add));
    assert_eq!(env.read("n.txt"), "a\nb\n");
    let drop =
        "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n";
    assert_ok(&patch(&env, drop));
    assert_eq!(env.read("n.txt"), "a\nb");
}

#[test]
fn trailing_whitespace_tier_is_used_only_when_needed_and_reported() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("t.rs", "fn x() {   \n    body\n}\n")
        .file("u.rs", "exact\n");
    let out = patch(
        &env,
        "*** Begin Patch\n*** Update File: t.rs\n@@\n fn x() {\n-    body\n+    new_body\n }\n\
         *** Update File: u.rs\n@@\n-exact\n+still exact\n*** End Patch",
    );
    assert_ok(&out);
    assert_eq!(
        env.read("t.rs"),
        "fn x() {   \n    new_body\n}\n",
        "context keeps its own whitespace"
    );
    assert!(
        out.text
            .contains("t.rs: +1 -1 (hunk 1 matched only when ignoring trailing whitespace)"),
        "{}",
        out.text
    );
    assert!(out.text.contains("u.rs: +1 -1\n"), "{}", out.text);
}

#[test]
fn updates_and_moves_keep_permission_bits() {
    // Moving an executable needs the command approval: auto-approve.
    let env = Env::new(Mode::AutoApprove);
    env.file("run.sh", "echo hi\n").file("tool.sh", "echo a\n");
    for name in ["run.sh", "tool.sh"] {
        fs::set_permissions(env.root.join(name), fs::Permissions::from_mode(0o750)).unwrap();
    }
    let out = patch(
        &env,
        "*** Begin Patch\n*** Update File: run.sh\n@@\n-echo hi\n+echo bye\n\
         *** Update File: tool.sh\n*** Move to: bin/tool.sh\n@@\n-echo a\n+echo b\n*** End Patch",
    );
    assert_ok(&out);
    for name in ["run.sh", "bin/tool.sh"] {
        let mode = fs::metadata(env.root.join(name))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o750, "{name}");
    }
}

// ---- failure text ------------------------------------------------------------------

#[test]
fn a_failed_hunk_names_the_file_the_hunk_and_the_nearest_lines() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("src/lib.rs", LIB);
    let out = patch(
        &env,
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -4,3 +4,3 @@\n fn two() {\n-    20\n+    22\n }\n",
    );
    assert_tool_error(
        &out,
        "hunk 1 (`@@ -4,3 +4,3 @@`) of src/lib.rs does not match",
    );
    assert!(
        out.text.contains("nearest lines in src/lib.rs"),
        "{}",
        out.text
    );
    assert!(out.text.contains("! 5 |     2"), "{}", out.text);
    assert!(
        out.text
            .contains("first difference: line 5 is `    2`, the hunk expects `    20`"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("RECOVERY: read src/lib.rs again"),
        "{}",
        out.text
    );
    assert_eq!(env.read("src/lib.rs"), LIB);
}

#[test]
fn a_missing_anchor_is_named() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("src/lib.rs", LIB);
    let out = patch(
        &env,
        "*** Begin Patch\n*** Update File: src/lib.rs\n@@ fn four() {\n-    4\n+    44\n*** End Patch",
    );
    assert_tool_error(&out, "`@@ fn four() {` line was not found in src/lib.rs");
}

#[test]
fn snapshot_patch_success_text() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("src/lib.rs", LIB)
        .file("old.txt", "x\n")
        .file("t.txt", "a  \nb\n");
    let out = patch(
        &env,
        "*** Begin Patch\n*** Add File: src/new.rs\n+pub fn new() {}\n\
         *** Update File: src/lib.rs\n@@ fn two() {\n-    2\n+    22\n\
         *** Update File: t.txt\n*** Move to: docs/t.txt\n@@\n a\n-b\n+B\n\
         *** Delete File: old.txt\n*** End Patch",
    );
    insta::assert_snapshot!(out.text);
}

#[test]
fn snapshot_patch_failed_hunk() {
    let env = Env::new(Mode::AcceptEdits);
    env.file("src/lib.rs", LIB);
    let out = patch(
        &env,
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -6,4 +6,4 @@\n }\n  fn three() {\n-    30\n+    33\n }\n",
    );
    insta::assert_snapshot!(out.text);
}

// ---- policy and approval -------------------------------------------------------

const SIMPLE: &str =
    "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** Add File: b.txt\n+new\n*** End Patch";

#[test]
fn plan_mode_does_not_offer_patch() {
    let env = Env::new(Mode::Plan);
    env.file("a.txt", "a\n");
    assert_tool_error(&patch(&env, SIMPLE), "not available");
    assert_eq!(env.read("a.txt"), "a\n");
    assert!(!env.exists("b.txt"));
}

#[test]
fn default_mode_without_a_person_is_denied_with_a_hint() {
    let env = Env::new(Mode::Default);
    env.file("a.txt", "a\n");
    let out = patch(&env, SIMPLE);
    assert_tool_error(&out, "mode to allow");
    assert!(out.text.contains("denied"), "{}", out.text);
    assert_eq!(env.read("a.txt"), "a\n");
    assert!(!env.exists("b.txt"));
}

#[test]
fn an_approver_sees_one_diff_of_all_files_and_a_denial_changes_nothing() {
    let env = Env::interactive(Mode::Default, Answer::Deny);
    env.file("a.txt", "a\n");
    let out = patch(&env, SIMPLE);
    assert_tool_error(&out, "declined");
    assert_eq!(env.read("a.txt"), "a\n");
    assert!(!env.exists("b.txt"));
    let requests = env.events.requests.lock().unwrap();
    assert_eq!(requests.len(), 1, "one approval for the whole patch");
    assert_eq!(requests[0].tool, "patch");
    assert!(
        requests[0].summary.contains("update a.txt"),
        "{}",
        requests[0].summary
    );
    let Preview::Diff(diff) = &requests[0].preview else {
        panic!("expected a diff preview, got {:?}", requests[0].preview);
    };
    for needle in [
        "--- a/a.txt",
        "+++ b/a.txt",
        "-a\n",
        "+b\n",
        "--- /dev/null",
        "+++ b/b.txt",
        "+new\n",
    ] {
        assert!(diff.contains(needle), "missing {needle:?} in {diff}");
    }
}

#[test]
fn an_approver_that_approves_lets_the_patch_land() {
    let env = Env::interactive(Mode::Default, Answer::Approve);
    env.file("a.txt", "a\n");
    assert_ok(&patch(&env, SIMPLE));
    assert_eq!(env.read("a.txt"), "b\n");
    assert_eq!(env.read("b.txt"), "new\n");
}

/// The diff an applied patch reports is made from where its hunks
/// landed, and is the same text as the whole files' diff: hunks far
/// apart, close enough to share context, touching, at both ends, and one
/// that leaves the file without its final newline.
#[test]
fn the_reported_diff_is_the_whole_files_diff() {
    let env = Env::new(Mode::AcceptEdits);
    let old: String = (0..300).map(|i| format!("line {i}\n")).collect();
    env.file("long.txt", &old);
    let patch_text = "--- a/long.txt\n+++ b/long.txt\n\
        @@ -1,2 +1,2 @@\n-line 0\n+first\n line 1\n\
        @@ -100,3 +100,4 @@\n line 99\n-line 100\n+hundred\n+more\n line 101\n\
        @@ -105,2 +106,2 @@\n line 104\n-line 105\n+near\n\
        @@ -107,2 +108,1 @@\n-line 106\n line 107\n\
        @@ -299,2 +299,2 @@\n line 298\n-line 299\n+last\n\\ No newline at end of file\n";
    let out = patch(&env, patch_text);
    assert_ok(&out);
    let new = env.read("long.txt");
    assert!(new.ends_with("line 298\nlast"), "{new:?}");
    assert_eq!(
        out.diff.as_deref(),
        Some(unified_diff("long.txt", Some(&old), Some(&new)).as_str())
    );
}

// ---- apply then reverse is identity ------------------------------------------------

fn text_of(lines: &[String], eol: &str, final_newline: bool) -> String {
    let mut text = lines.join(eol);
    if final_newline && !lines.is_empty() {
        text.push_str(eol);
    }
    text
}

/// Inserts, removes and replaces lines at random positions.
fn edited(mut lines: Vec<String>, edits: Vec<(usize, usize, String)>) -> Vec<String> {
    for (at, kind, line) in edits {
        let at = at.min(lines.len());
        match kind {
            0 => lines.insert(at, line),
            1 if at < lines.len() => {
                lines.remove(at);
            }
            _ if at < lines.len() => lines[at] = line,
            _ => lines.push(line),
        }
    }
    lines
}

/// Lines that look like diff syntax when prefixed, to stress the parser.
const LINE: &str = "[ab +@-]{0,4}";

/// Fragments of both formats, for patches that are almost right.
const FRAGMENTS: &[&str] = &[
    "*** Begin Patch",
    "*** End Patch",
    "*** Update File: f.txt",
    "*** Add File: g.txt",
    "*** Delete File: f.txt",
    "*** Move to: h.txt",
    "*** End of File",
    "*** Add File: ../x",
    "--- a/f.txt",
    "+++ b/f.txt",
    "--- /dev/null",
    "+++ /dev/null",
    "diff --git a/f.txt b/f.txt",
    "@@ -1,2 +1,2 @@",
    "@@ -0,0 +1 @@",
    "@@ -9 +9,0 @@",
    "@@",
    "@@ a",
    " a",
    "-a",
    "+b",
    "",
    "\\ No newline at end of file",
    "rename from f.txt",
    "rename to ../y",
    "new file mode 100644",
    "--- \"a/f.txt\"",
    "-- ",
    "+++ b/../../z",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn applying_a_diff_gives_new_and_its_reverse_gives_old(
        (old_lines, old_newline) in (prop::collection::vec(LINE, 0..12), any::<bool>()),
        edits in prop::collection::vec((0usize..14, 0usize..3, LINE), 1..5),
        new_newline in any::<bool>(),
        crlf in any::<bool>(),
    ) {
        let new_lines = edited(old_lines.clone(), edits);
        // A CRLF file needs line endings to show its convention.
        let eol = if crlf { "\r\n" } else { "\n" };
        if crlf {
            prop_assume!(!old_lines.is_empty() && !new_lines.is_empty());
        }
        let old = text_of(&old_lines, eol, old_newline || crlf);
        let new = text_of(&new_lines, eol, new_newline || crlf);
        prop_assume!(old != new);
        let env = Env::new(Mode::AcceptEdits);
        env.file("f.txt", &old);
        let forward = patch(&env, &unified_diff("f.txt", Some(&old), Some(&new)));
        prop_assert!(forward.ok, "forward failed: {}", forward.text);
        prop_assert_eq!(env.read("f.txt"), new.clone());
        let back = patch(&env, &unified_diff("f.txt", Some(&new), Some(&old)));
        prop_assert!(back.ok, "reverse failed: {}", back.text);
        prop_assert_eq!(env.read("f.txt"), old);
    }

    #[test]
    fn any_patch_text_gives_a_result_or_a_tool_error_and_stays_inside(
        picks in prop::collection::vec(
            prop_oneof![
                4 => prop::sample::select(FRAGMENTS).prop_map(str::to_owned),
                1 => "\\PC{0,12}",
            ],
            0..24,
        ),
    ) {
        let env = Env::new(Mode::AcceptEdits);
        env.file("f.txt", "a\nb\n");
        let out = patch(&env, &picks.join("\n"));
        prop_assert!(out.ok || out.text.starts_with("TOOL_ERROR: "), "{}", out.text);
        prop_assert!(out.ok || out.text.contains("\nRECOVERY: "), "{}", out.text);
        assert_outside_untouched(&env);
    }
}
