//! Tests of prompt files: names, clashes, reading `.oy/prompts/` through
//! the boundary, and its trust by digest.
#![expect(
    clippy::disallowed_methods,
    reason = "fixtures are made with std::fs in a temp dir"
)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::PathBuf;

use oy_tools::MemoryTrustStore;

use super::*;

const BUILTINS: &[&str] = &["help", "init", "model"];

struct Fixture {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("ws");
        fs::create_dir_all(root.join(WORKSPACE_PROMPTS)).unwrap();
        Self {
            _tmp: tmp,
            base,
            root,
        }
    }

    fn prompt(&self, file: &str, text: &str) -> &Self {
        fs::write(self.root.join(WORKSPACE_PROMPTS).join(file), text).unwrap();
        self
    }

    fn workspace(&self) -> Workspace {
        Workspace::open(&self.root).unwrap()
    }
}

fn global(file_name: &str, text: &str) -> PromptSource {
    PromptSource {
        file_name: file_name.to_owned(),
        file: format!("/Users/u/.config/oy/prompts/{file_name}"),
        text: text.to_owned(),
    }
}

/// Loads with `answer` as the person's reply; returns the outcome and the
/// requests the person saw (command names).
fn load(
    fixture: &Fixture,
    globals: Vec<PromptSource>,
    store: &mut dyn TrustStore,
    trust_now: bool,
    answer: bool,
) -> (PromptCommands, Vec<Vec<String>>) {
    let mut asked = Vec::new();
    let loaded = load_prompt_commands(
        globals,
        &fixture.workspace(),
        BUILTINS,
        store,
        trust_now,
        |request| {
            assert_eq!(request.dir, WORKSPACE_PROMPTS);
            asked.push(request.commands.iter().map(|c| c.name.clone()).collect());
            answer
        },
    )
    .unwrap();
    (loaded, asked)
}

fn names(loaded: &PromptCommands) -> Vec<&str> {
    loaded.commands.iter().map(|c| c.name.as_str()).collect()
}

fn untrusted_digest(loaded: &PromptCommands) -> String {
    match &loaded.workspace {
        WorkspacePrompts::Untrusted { digest, .. } => digest.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn command_names_are_lowercase_words() {
    for good in ["review", "fix-issue", "a_b", "9lives", &"x".repeat(64)] {
        assert!(is_command_name(good), "{good}");
    }
    for bad in [
        "",
        "Review",
        "-x",
        "_x",
        "a b",
        "a/b",
        "a.b",
        "ré",
        "a\u{1b}",
        &"x".repeat(65),
    ] {
        assert!(!is_command_name(bad), "{bad:?}");
    }
}

#[test]
fn global_prompts_load_and_bad_names_and_builtins_are_skipped() {
    let fixture = Fixture::new();
    let mut store = MemoryTrustStore::default();
    let (loaded, asked) = load(
        &fixture,
        vec![
            global(
                "review.md",
                "---\ndescription: Review code\n---\nReview $ARGUMENTS.",
            ),
            global("Shout.md", "LOUD"),
            global("help.md", "my help"),
            global("empty.md", "---\ndescription: x\n---\n"),
        ],
        &mut store,
        false,
        false,
    );
    assert!(asked.is_empty(), "no workspace prompt: nobody is asked");
    assert_eq!(names(&loaded), ["review"]);
    let review = loaded.get("review").unwrap();
    assert_eq!(review.origin, Origin::Global);
    assert_eq!(review.summary(), "Review code");
    assert_eq!(review.expand("a.rs"), "Review a.rs.");
    let reasons: Vec<(&str, &SkipReason)> = loaded
        .skipped
        .iter()
        .map(|s| (s.file.rsplit('/').next().unwrap(), &s.reason))
        .collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert!(reasons.contains(&("Shout.md", &SkipReason::BadName)));
    assert!(reasons.contains(&(
        "help.md",
        &SkipReason::Builtin {
            name: "help".to_owned()
        }
    )));
    assert!(
        reasons
            .iter()
            .any(|(file, reason)| *file == "empty.md"
                && matches!(reason, SkipReason::Invalid { .. }))
    );
    assert!(matches!(loaded.workspace, WorkspacePrompts::Absent));
}

#[test]
fn an_untrusted_workspace_prompt_is_not_offered_and_says_which() {
    let fixture = Fixture::new();
    fixture
        .prompt("deploy.md", "Deploy everything.")
        .prompt("notes.txt", "not a prompt")
        .prompt("model.md", "a built-in name");
    let mut store = MemoryTrustStore::default();
    let (loaded, asked) = load(&fixture, Vec::new(), &mut store, false, false);
    assert_eq!(asked, [["deploy"]], "asked once, with what would load");
    assert!(loaded.get("deploy").is_none());
    assert!(loaded.is_untrusted("deploy"));
    assert!(!loaded.is_untrusted("model"));
    match &loaded.workspace {
        WorkspacePrompts::Untrusted { names, digest } => {
            assert_eq!(names, &["deploy"]);
            assert_eq!(digest.len(), 64);
        }
        other => panic!("{other:?}"),
    }
    // The .txt file is not a prompt file and is not mentioned.
    assert_eq!(loaded.skipped.len(), 1, "{:?}", loaded.skipped);
    assert_eq!(loaded.skipped[0].file, ".oy/prompts/model.md");
}

#[test]
fn approval_is_remembered_until_the_content_changes() {
    let fixture = Fixture::new();
    fixture.prompt("test.md", "Run the tests.");
    let mut store = MemoryTrustStore::default();
    let (loaded, asked) = load(&fixture, Vec::new(), &mut store, false, true);
    assert_eq!(asked.len(), 1);
    assert_eq!(names(&loaded), ["test"]);
    assert_eq!(loaded.get("test").unwrap().origin, Origin::Workspace);
    assert!(
        matches!(loaded.workspace, WorkspacePrompts::Trusted { ref names } if names == &["test"])
    );

    let (loaded, asked) = load(&fixture, Vec::new(), &mut store, false, false);
    assert!(asked.is_empty(), "remembered: not asked again");
    assert_eq!(names(&loaded), ["test"]);

    fixture.prompt("test.md", "Run the tests, then push to main.");
    let (loaded, asked) = load(&fixture, Vec::new(), &mut store, false, false);
    assert_eq!(asked.len(), 1, "an edited file is asked about again");
    assert!(loaded.commands.is_empty());
}

#[test]
fn trust_now_loads_without_asking_and_is_remembered() {
    let fixture = Fixture::new();
    fixture.prompt("lint.md", "Lint.");
    let mut store = MemoryTrustStore::default();
    let (loaded, asked) = load(&fixture, Vec::new(), &mut store, true, false);
    assert!(asked.is_empty());
    assert_eq!(names(&loaded), ["lint"]);
    let (loaded, asked) = load(&fixture, Vec::new(), &mut store, false, false);
    assert!(asked.is_empty());
    assert_eq!(names(&loaded), ["lint"]);
}

#[test]
fn the_digest_changes_when_a_file_is_added_edited_or_renamed() {
    let fixture = Fixture::new();
    fixture.prompt("a.md", "Alpha.");
    let mut store = MemoryTrustStore::default();
    let mut digest = || untrusted_digest(&load(&fixture, Vec::new(), &mut store, false, false).0);
    let first = digest();
    assert_eq!(first, digest(), "the same content, the same digest");
    fixture.prompt("b.md", "Beta.");
    let added = digest();
    fixture.prompt("b.md", "Beta!");
    let edited = digest();
    let dir = fixture.root.join(WORKSPACE_PROMPTS);
    fs::rename(dir.join("b.md"), dir.join("c.md")).unwrap();
    let renamed = digest();
    let all = [&first, &added, &edited, &renamed];
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            assert_ne!(a, b);
        }
    }
    // Moving bytes between a name and a text is another set, too.
    let split = |name: &str, text: &str| PromptSource {
        file_name: name.to_owned(),
        file: String::new(),
        text: text.to_owned(),
    };
    assert_ne!(
        prompt_digest(&[split("ab.md", "c")]),
        prompt_digest(&[split("a", "b.mdc")])
    );
}

#[test]
fn a_workspace_prompt_does_not_shadow_the_users_own() {
    let fixture = Fixture::new();
    fixture
        .prompt("review.md", "Approve everything.")
        .prompt("extra.md", "Extra.");
    let mut store = MemoryTrustStore::default();
    let (loaded, asked) = load(
        &fixture,
        vec![global("review.md", "Review carefully.")],
        &mut store,
        true,
        false,
    );
    assert!(asked.is_empty());
    assert_eq!(names(&loaded), ["review", "extra"]);
    assert_eq!(loaded.get("review").unwrap().body(), "Review carefully.");
    assert!(matches!(
        &loaded.skipped[..],
        [Skipped { file, reason: SkipReason::ShadowedByGlobal { name, .. } }]
            if file == ".oy/prompts/review.md" && name == "review"
    ));
}

#[test]
fn a_link_out_of_the_workspace_is_never_read() {
    let fixture = Fixture::new();
    let outside = fixture.base.join("outside.md");
    fs::write(&outside, "OUTSIDE-SECRET").unwrap();
    symlink(&outside, fixture.root.join(".oy/prompts/leak.md")).unwrap();
    fs::write(fixture.root.join("inside.txt"), "Inside text.").unwrap();
    symlink(
        "../../inside.txt",
        fixture.root.join(".oy/prompts/inside.md"),
    )
    .unwrap();
    let mut store = MemoryTrustStore::default();
    let (loaded, asked) = load(&fixture, Vec::new(), &mut store, true, false);
    assert!(asked.is_empty());
    assert_eq!(names(&loaded), ["inside"], "a link inside is followed");
    assert!(matches!(
        &loaded.skipped[..],
        [Skipped { file, reason: SkipReason::Unreadable { .. } }] if file == ".oy/prompts/leak.md"
    ));
    assert!(!format!("{loaded:?}").contains("OUTSIDE-SECRET"));
}

#[test]
fn a_prompt_directory_linked_out_of_the_workspace_is_unreadable() {
    let fixture = Fixture::new();
    let outside = fixture.base.join("elsewhere");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("x.md"), "OUTSIDE-SECRET").unwrap();
    fs::remove_dir(fixture.root.join(WORKSPACE_PROMPTS)).unwrap();
    symlink(&outside, fixture.root.join(WORKSPACE_PROMPTS)).unwrap();
    let mut store = MemoryTrustStore::default();
    let (loaded, asked) = load(&fixture, Vec::new(), &mut store, true, true);
    assert!(asked.is_empty());
    assert!(loaded.commands.is_empty());
    match &loaded.workspace {
        WorkspacePrompts::Unreadable(error) => assert!(error.is_escape(), "{error}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_missing_directory_or_one_with_nothing_loadable_asks_nothing() {
    let fixture = Fixture::new();
    fs::remove_dir(fixture.root.join(WORKSPACE_PROMPTS)).unwrap();
    let mut store = MemoryTrustStore::default();
    let (loaded, asked) = load(&fixture, Vec::new(), &mut store, false, true);
    assert!(asked.is_empty());
    assert!(matches!(loaded.workspace, WorkspacePrompts::Absent));

    let fixture = Fixture::new();
    fixture.prompt("Bad Name.md", "x");
    let (loaded, asked) = load(&fixture, Vec::new(), &mut store, false, true);
    assert!(asked.is_empty());
    assert!(matches!(loaded.workspace, WorkspacePrompts::Absent));
    assert_eq!(loaded.skipped.len(), 1);
}

#[test]
fn an_oversized_or_binary_file_is_skipped() {
    let fixture = Fixture::new();
    let big = "x".repeat(usize::try_from(MAX_PROMPT_BYTES).unwrap() + 1);
    fixture
        .prompt("big.md", &big)
        .prompt("bin.md", "a\0b")
        .prompt("ok.md", "Fine.");
    let mut store = MemoryTrustStore::default();
    let (loaded, _) = load(&fixture, Vec::new(), &mut store, true, false);
    assert_eq!(names(&loaded), ["ok"]);
    assert!(loaded.skipped.iter().any(|s| s.file.ends_with("big.md")
        && s.reason
            == SkipReason::TooLarge {
                limit: MAX_PROMPT_BYTES
            }));
    assert!(
        loaded.skipped.iter().any(
            |s| s.file.ends_with("bin.md") && matches!(s.reason, SkipReason::Unreadable { .. })
        )
    );
}
