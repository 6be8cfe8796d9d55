//! Mentions against real temp workspaces: the parsing rules, what each
//! kind of path attaches or why it cannot, and Tab completion.

#![allow(
    clippy::unwrap_used,
    clippy::disallowed_methods,
    reason = "tests build fixtures with std::fs and fail loudly"
)]

use std::fs;
use std::path::PathBuf;
use std::sync::Arc;

use oy_boundary::Workspace;
use oy_tools::{Mode, Policy, Registry, ToolContext, default_registry};

use super::*;

struct Ws {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    registry: Registry,
    tools: ToolContext,
}

impl Ws {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("ws");
        let outside = base.join("outside");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret.txt"), "OUTSIDE\n").unwrap();
        let workspace = Arc::new(Workspace::open(&root).unwrap());
        let tools = ToolContext::new(workspace, Policy::new(Mode::Plan, false));
        Self {
            _tmp: tmp,
            root,
            outside,
            registry: default_registry(),
            tools,
        }
    }

    fn file(&self, rel: &str, bytes: impl AsRef<[u8]>) -> &Self {
        let path = self.root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
        self
    }

    fn attach(&self, text: &str) -> Result<Prompt, MentionError> {
        attach_mentions(&self.registry, &self.tools, text)
    }

    fn paths(&self, text: &str) -> Vec<String> {
        self.attach(text)
            .unwrap()
            .attachments()
            .iter()
            .map(|a| a.path.clone())
            .collect()
    }

    fn complete(&self, line: &str) -> Vec<String> {
        complete_mention(self.tools.workspace(), line, line.len())
            .map(|c| c.candidates.into_iter().map(|c| c.replacement).collect())
            .unwrap_or_default()
    }
}

fn paths_in(text: &str) -> Vec<String> {
    find_mentions(text)
        .unwrap()
        .into_iter()
        .map(|m| m.path)
        .collect()
}

#[test]
fn an_at_sign_starts_a_mention_only_at_the_start_or_after_whitespace() {
    assert_eq!(paths_in("@a.rs and\t@b/c.rs\n@d"), ["a.rs", "b/c.rs", "d"]);
    assert!(paths_in("mail me@example.com or x@y").is_empty());
    assert!(paths_in("(@a.rs) `@b.rs` \"@c.rs\"").is_empty());
}

#[test]
fn a_lone_at_sign_is_text() {
    assert!(paths_in("@").is_empty());
    assert!(paths_in("meet @ noon @\n").is_empty());
    let ws = Ws::new();
    assert_eq!(
        ws.attach("meet @ noon").unwrap().message(&[]),
        "meet @ noon"
    );
}

#[test]
fn a_double_at_sign_is_a_literal_at_sign() {
    assert!(paths_in("what does @@param do, and @@@x?").is_empty());
    let ws = Ws::new();
    let prompt = ws.attach("what does @@param do? mail a@@b").unwrap();
    assert!(prompt.attachments().is_empty());
    assert_eq!(prompt.message(&[]), "what does @param do? mail a@@b");
    assert_eq!(prompt.text(), "what does @@param do? mail a@@b");
}

#[test]
fn a_quoted_mention_holds_spaces() {
    let found = find_mentions("see @\"my notes/a b.txt\", then @x").unwrap();
    assert_eq!(found[0].path, "my notes/a b.txt");
    assert!(found[0].quoted);
    assert_eq!(found[0].range, 4..23);
    assert_eq!(found[1].path, "x");
    let ws = Ws::new();
    ws.file("my notes/a b.txt", "spaced\n");
    assert_eq!(
        ws.paths("see @\"my notes/a b.txt\", please"),
        ["my notes/a b.txt"]
    );
}

#[test]
fn a_broken_quote_is_an_error_before_anything_is_read() {
    for text in ["see @\"a b.txt", "see @\"a b.txt\nmore\"", "@\"\" x"] {
        let error = find_mentions(text).unwrap_err();
        assert!(
            matches!(error, MentionError::Malformed { .. }),
            "{text}: {error}"
        );
        assert!(error.to_string().starts_with("@\""), "{error}");
    }
}

#[test]
fn unicode_paths_run_to_whitespace() {
    assert_eq!(
        paths_in("lis @docs/résumé.md\u{3000}et @日本/語.txt"),
        ["docs/résumé.md", "日本/語.txt"]
    );
    let ws = Ws::new();
    ws.file("docs/résumé.md", "bonjour\n");
    let prompt = ws.attach("lis @docs/résumé.md, merci").unwrap();
    assert_eq!(prompt.attachments()[0].path, "docs/résumé.md");
    assert!(prompt.message(&[]).contains("1\tbonjour\n"));
}

#[test]
fn trailing_punctuation_is_dropped_only_when_the_path_without_it_exists() {
    let ws = Ws::new();
    ws.file("src/lib.rs", "fn a() {}\n").file("v1.", "dot\n");
    assert_eq!(ws.paths("look at @src/lib.rs."), ["src/lib.rs"]);
    assert_eq!(ws.paths("(see @src/lib.rs)."), ["src/lib.rs"]);
    assert_eq!(ws.paths("is it @src/lib.rs?!"), ["src/lib.rs"]);
    // The name with the dot exists: the dot is part of it.
    assert_eq!(ws.paths("open @v1."), ["v1."]);
    match ws.attach("see @src/lib.r.") {
        Err(MentionError::NotFound { mention, close }) => {
            assert_eq!(mention, "src/lib.r");
            assert_eq!(close, ["src/lib.rs"]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_file_attaches_its_numbered_lines_as_read_shows_them() {
    let ws = Ws::new();
    ws.file("src/lib.rs", "fn a() {}\nfn b() {}\n");
    let prompt = ws.attach("explain @src/lib.rs and @./src/lib.rs").unwrap();
    let [attachment] = prompt.attachments() else {
        panic!("one attachment: {:?}", prompt.attachments());
    };
    assert_eq!(attachment.kind, AttachmentKind::File);
    assert_eq!(attachment.lines, 2);
    assert!(!attachment.truncated);
    assert_eq!(
        prompt.message(&[]),
        "explain @src/lib.rs and @./src/lib.rs\n\n<file path=\"src/lib.rs\">\n1\tfn a() {}\n2\tfn b() {}\n</file>"
    );
    // Read as the read tool reads: `replace` takes it as seen.
    assert!(ws.tools.snapshot_state().seen("src/lib.rs").is_some());
}

#[test]
fn a_directory_attaches_a_listing() {
    let ws = Ws::new();
    ws.file("src/a.rs", "")
        .file("src/sub/b.rs", "")
        .file(".gitignore", "target/\n");
    ws.file("src/target/junk.o", "");
    let prompt = ws.attach("what is in @src").unwrap();
    let attachment = &prompt.attachments()[0];
    assert_eq!(attachment.path, "src/");
    assert_eq!(attachment.kind, AttachmentKind::Directory);
    assert_eq!(attachment.content, "src/a.rs\nsrc/sub/\nsrc/sub/b.rs\n");
    assert_eq!(attachment.lines, 3);
    assert!(
        prompt
            .message(&[])
            .ends_with("<directory path=\"src/\">\nsrc/a.rs\nsrc/sub/\nsrc/sub/b.rs\n</directory>")
    );
    assert_eq!(ws.paths("@."), ["./"]);
}

#[test]
fn a_path_that_climbs_out_is_refused() {
    let ws = Ws::new();
    for text in ["@../outside/secret.txt", "@src/../../outside/secret.txt"] {
        match ws.attach(text) {
            Err(MentionError::Unusable { reason, .. }) => {
                assert!(reason.contains("outside the workspace"), "{reason}");
            }
            other => panic!("{text}: {other:?}"),
        }
    }
    let absolute = format!("@{}", ws.outside.join("secret.txt").display());
    assert!(matches!(
        ws.attach(&absolute),
        Err(MentionError::Unusable { .. })
    ));
}

#[test]
fn a_symlink_out_of_the_workspace_is_refused() {
    let ws = Ws::new();
    std::os::unix::fs::symlink(ws.outside.join("secret.txt"), ws.root.join("link.txt")).unwrap();
    std::os::unix::fs::symlink(&ws.outside, ws.root.join("out")).unwrap();
    for text in ["@link.txt", "@out", "@out/secret.txt"] {
        let error = ws.attach(text).unwrap_err();
        assert!(
            matches!(error, MentionError::Unusable { .. }),
            "{text}: {error}"
        );
        assert!(
            error.to_string().contains("outside the workspace"),
            "{error}"
        );
    }
    // A link that stays inside is followed.
    ws.file("real.txt", "inside\n");
    std::os::unix::fs::symlink("real.txt", ws.root.join("alias.txt")).unwrap();
    assert_eq!(ws.paths("@alias.txt"), ["alias.txt"]);
}

#[test]
fn a_binary_file_or_a_fifo_is_refused_by_name() {
    let ws = Ws::new();
    ws.file("logo.png", b"\x89PNG\r\n\x1a\n\0\0\0");
    let error = ws.attach("@logo.png").unwrap_err();
    assert_eq!(
        error.to_string(),
        "@logo.png: logo.png looks like a binary file"
    );
    let made = std::process::Command::new("mkfifo")
        .arg(ws.root.join("pipe"))
        .status()
        .unwrap();
    assert!(made.success());
    let error = ws.attach("@pipe").unwrap_err();
    assert!(error.to_string().contains("pipe is a FIFO"), "{error}");
}

#[test]
fn a_huge_file_is_cut_at_the_read_tools_limit() {
    let ws = Ws::new();
    let text: String = (1..=5000).map(|i| format!("line {i}\n")).collect();
    ws.file("big.log", text);
    let prompt = ws.attach("@big.log").unwrap();
    let attachment = &prompt.attachments()[0];
    assert!(attachment.truncated);
    assert_eq!(attachment.lines, 2000);
    assert!(attachment.content.starts_with("1\tline 1\n"));
    assert!(
        attachment
            .content
            .ends_with("[line limit reached; more lines follow: continue with offset=2001]\n"),
        "{}",
        &attachment.content[attachment.content.len() - 200..]
    );
}

#[test]
fn a_missing_path_names_close_files() {
    let ws = Ws::new();
    ws.file("src/main.rs", "");
    match ws.attach("fix @src/mian.rs please") {
        Err(MentionError::NotFound { mention, close }) => {
            assert_eq!(mention, "src/mian.rs");
            assert_eq!(close, ["src/main.rs"]);
        }
        other => panic!("{other:?}"),
    }
    let error = ws.attach("@nothing-like-it").unwrap_err();
    assert_eq!(
        error.to_string(),
        "@nothing-like-it: no such file or directory in the workspace"
    );
}

#[test]
fn completion_lists_the_directory_of_the_partial_path() {
    let ws = Ws::new();
    ws.file("src/lib.rs", "")
        .file("src/main.rs", "")
        .file("scripts/x.sh", "")
        .file("README.md", "")
        .file(".env", "")
        .file(".gitignore", "target/\n")
        .file("target/out", "");
    assert_eq!(ws.complete("look at @sr"), ["src/"]);
    assert_eq!(ws.complete("@s"), ["scripts/", "src/"]);
    assert_eq!(ws.complete("@src/m"), ["src/main.rs"]);
    assert_eq!(ws.complete("x @src/"), ["src/lib.rs", "src/main.rs"]);
    // Hidden names only for a partial name starting with `.`; ignored ones never.
    assert_eq!(ws.complete("@"), ["README.md", "scripts/", "src/"]);
    assert_eq!(ws.complete("@.e"), [".env"]);
    assert!(ws.complete("@targ").is_empty());
    // Not in a mention: nothing.
    assert!(complete_mention(ws.tools.workspace(), "me@sr", 5).is_none());
    assert!(complete_mention(ws.tools.workspace(), "@@sr", 4).is_none());
    assert!(complete_mention(ws.tools.workspace(), "@src plain", 10).is_none());
}

#[test]
fn completion_quotes_names_with_spaces_and_never_leaves_the_workspace() {
    let ws = Ws::new();
    ws.file("my notes/a b.txt", "");
    std::os::unix::fs::symlink(&ws.outside, ws.root.join("mylink")).unwrap();
    assert_eq!(ws.complete("@my"), ["\"my notes/"]);
    assert_eq!(ws.complete("@\"my notes/a"), ["my notes/a b.txt\""]);
    let completion = complete_mention(ws.tools.workspace(), "@\"my notes/a", 12).unwrap();
    assert_eq!(completion.start, 2);
    assert_eq!(completion.candidates[0].display, "a b.txt");
    // What completion writes parses back to the file.
    let line = "@\"my notes/a b.txt\"";
    assert_eq!(ws.paths(line), ["my notes/a b.txt"]);
    assert!(ws.complete("@../").is_empty());
}
