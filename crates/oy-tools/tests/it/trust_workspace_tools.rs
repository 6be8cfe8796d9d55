//! Workspace tools and trust: an untrusted `.oy/tools.json` adds nothing;
//! approval is kept by root and content, so an edit or another root asks
//! again; the file-backed record is private.

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use oy_boundary::Workspace;
use oy_tools::{
    FileTrustStore, GlobalManifest, MemoryTrustStore, Registry, TrustError, TrustStore,
    WORKSPACE_MANIFEST, WorkspaceTools, content_digest, default_registry, load_user_tools,
    private_dir,
};
use serde_json::json;

fn manifest(name: &str, description: &str) -> String {
    json!({"tools": [{
        "name": name,
        "description": description,
        "command": ["cat"],
    }]})
    .to_string()
}

struct Fixture {
    _tmp: tempfile::TempDir,
    base: PathBuf,
}

impl Fixture {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        Self { _tmp: tmp, base }
    }

    /// A workspace named `name` holding `tools` as its manifest.
    fn workspace(&self, name: &str, tools: Option<&str>) -> Workspace {
        let root = self.base.join(name);
        fs::create_dir_all(root.join(".oy")).unwrap();
        if let Some(tools) = tools {
            fs::write(root.join(WORKSPACE_MANIFEST), tools).unwrap();
        }
        Workspace::open(&root).unwrap()
    }
}

/// Loads with `answer` as the person's reply; returns the outcome, the
/// registry, and how many times the person was asked.
fn load(
    workspace: &Workspace,
    store: &mut dyn TrustStore,
    trust_now: bool,
    answer: bool,
) -> (Result<WorkspaceTools, TrustError>, Registry, usize) {
    let mut registry = default_registry();
    let mut asked = 0;
    let outcome = load_user_tools(&mut registry, workspace, None, store, trust_now, |_| {
        asked += 1;
        answer
    });
    (outcome, registry, asked)
}

#[test]
fn an_untrusted_manifest_adds_no_tool() {
    let fixture = Fixture::new();
    let text = manifest("echo_json", "Echo.");
    let workspace = fixture.workspace("ws", Some(&text));
    let mut store = MemoryTrustStore::default();
    let (outcome, registry, asked) = load(&workspace, &mut store, false, false);
    match outcome.unwrap() {
        WorkspaceTools::Untrusted { digest } => {
            assert_eq!(digest, content_digest(text.as_bytes()));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(asked, 1);
    assert!(registry.get("echo_json").is_none());
    assert!(
        !store
            .is_trusted(workspace.root(), &content_digest(text.as_bytes()))
            .unwrap()
    );
}

#[test]
fn the_person_sees_the_tools_before_approving_and_is_asked_once() {
    let fixture = Fixture::new();
    let workspace = fixture.workspace("ws", Some(&manifest("echo_json", "Echo.")));
    let mut store = MemoryTrustStore::default();
    let mut registry = default_registry();
    let mut seen = Vec::new();
    let outcome = load_user_tools(
        &mut registry,
        &workspace,
        None,
        &mut store,
        false,
        |request| {
            seen.push((
                request.manifest.to_owned(),
                request.digest.len(),
                request.tools[0].name.clone(),
                request.tools[0].command.clone(),
            ));
            true
        },
    )
    .unwrap();
    assert!(
        matches!(&outcome, WorkspaceTools::Trusted { names } if names == &["echo_json"]),
        "{outcome:?}"
    );
    assert!(registry.get("echo_json").is_some());
    assert_eq!(
        seen,
        [(
            WORKSPACE_MANIFEST.to_owned(),
            64,
            "echo_json".to_owned(),
            vec!["cat".to_owned()]
        )]
    );
    // Remembered: the next load asks nobody.
    let (outcome, registry, asked) = load(&workspace, &mut store, false, false);
    assert!(matches!(outcome.unwrap(), WorkspaceTools::Trusted { .. }));
    assert_eq!(asked, 0);
    assert!(registry.get("echo_json").is_some());
}

#[test]
fn trust_now_loads_without_asking_and_is_remembered() {
    let fixture = Fixture::new();
    let workspace = fixture.workspace("ws", Some(&manifest("echo_json", "Echo.")));
    let mut store = MemoryTrustStore::default();
    let (outcome, _, asked) = load(&workspace, &mut store, true, false);
    assert!(matches!(outcome.unwrap(), WorkspaceTools::Trusted { .. }));
    assert_eq!(asked, 0);
    let (outcome, _, _) = load(&workspace, &mut store, false, false);
    assert!(matches!(outcome.unwrap(), WorkspaceTools::Trusted { .. }));
}

#[test]
fn an_edited_manifest_needs_trust_again() {
    let fixture = Fixture::new();
    let workspace = fixture.workspace("ws", Some(&manifest("echo_json", "Echo.")));
    let mut store = MemoryTrustStore::default();
    let (outcome, _, _) = load(&workspace, &mut store, true, false);
    assert!(matches!(outcome.unwrap(), WorkspaceTools::Trusted { .. }));
    fs::write(
        workspace.root().join(WORKSPACE_MANIFEST),
        manifest("echo_json", "Echo, changed."),
    )
    .unwrap();
    let (outcome, registry, asked) = load(&workspace, &mut store, false, false);
    assert!(matches!(outcome.unwrap(), WorkspaceTools::Untrusted { .. }));
    assert_eq!(asked, 1);
    assert!(registry.get("echo_json").is_none());
}

#[test]
fn the_same_content_in_another_root_needs_trust_again() {
    let fixture = Fixture::new();
    let text = manifest("echo_json", "Echo.");
    let first = fixture.workspace("first", Some(&text));
    let second = fixture.workspace("second", Some(&text));
    let mut store = MemoryTrustStore::default();
    let (outcome, _, _) = load(&first, &mut store, true, false);
    assert!(matches!(outcome.unwrap(), WorkspaceTools::Trusted { .. }));
    let (outcome, registry, asked) = load(&second, &mut store, false, false);
    assert!(matches!(outcome.unwrap(), WorkspaceTools::Untrusted { .. }));
    assert_eq!(asked, 1);
    assert!(registry.get("echo_json").is_none());
}

#[test]
fn an_invalid_manifest_is_an_error_before_anyone_is_asked_and_is_not_recorded() {
    let fixture = Fixture::new();
    let text = "{\"tools\": [{\"name\": \"x\"}]}";
    let workspace = fixture.workspace("ws", Some(text));
    let mut store = MemoryTrustStore::default();
    let (outcome, registry, asked) = load(&workspace, &mut store, true, true);
    assert!(
        matches!(outcome, Err(TrustError::Manifest(_))),
        "{outcome:?}"
    );
    assert_eq!(asked, 0);
    assert_eq!(registry.names(), default_registry().names());
    assert!(
        !store
            .is_trusted(workspace.root(), &content_digest(text.as_bytes()))
            .unwrap()
    );
}

#[test]
fn a_missing_or_unreadable_manifest_is_an_outcome() {
    let fixture = Fixture::new();
    let workspace = fixture.workspace("none", None);
    let mut store = MemoryTrustStore::default();
    let (outcome, _, asked) = load(&workspace, &mut store, false, true);
    assert!(matches!(outcome.unwrap(), WorkspaceTools::Absent));
    assert_eq!(asked, 0);

    let workspace = fixture.workspace("dir", None);
    fs::create_dir(workspace.root().join(WORKSPACE_MANIFEST)).unwrap();
    let (outcome, _, asked) = load(&workspace, &mut store, false, true);
    assert!(
        matches!(outcome.unwrap(), WorkspaceTools::Unreadable(_)),
        "a directory is not a manifest"
    );
    assert_eq!(asked, 0);
}

#[test]
fn a_manifest_linked_out_of_the_root_is_not_read() {
    let fixture = Fixture::new();
    let outside = fixture.base.join("outside.json");
    fs::write(&outside, manifest("echo_json", "Echo.")).unwrap();
    let workspace = fixture.workspace("ws", None);
    std::os::unix::fs::symlink(&outside, workspace.root().join(WORKSPACE_MANIFEST)).unwrap();
    let mut store = MemoryTrustStore::default();
    let (outcome, registry, asked) = load(&workspace, &mut store, true, true);
    let outcome = outcome.unwrap();
    assert!(
        matches!(&outcome, WorkspaceTools::Unreadable(error) if error.is_escape()),
        "{outcome:?}"
    );
    assert_eq!(asked, 0);
    assert!(registry.get("echo_json").is_none());
}

#[test]
fn the_global_manifest_is_trusted_and_a_workspace_cannot_shadow_it() {
    let fixture = Fixture::new();
    let workspace = fixture.workspace("ws", Some(&manifest("mine", "Theirs.")));
    let global = manifest("mine", "Mine.");
    let mut store = MemoryTrustStore::default();
    let mut registry = default_registry();
    let outcome = load_user_tools(
        &mut registry,
        &workspace,
        Some(GlobalManifest {
            source: "global tools.json",
            text: &global,
        }),
        &mut store,
        true,
        |_| true,
    );
    let Err(TrustError::Manifest(error)) = outcome else {
        panic!("{outcome:?}");
    };
    assert!(error.to_string().contains("already taken"), "{error}");
    assert_eq!(
        registry.get("mine").unwrap().spec().description,
        "Mine.",
        "the global tool stays"
    );
}

#[test]
fn the_file_store_keeps_approvals_privately_across_instances() {
    let fixture = Fixture::new();
    let workspace = fixture.workspace("ws", Some(&manifest("echo_json", "Echo.")));
    let state = fixture.base.join("state/oy");
    let mut store = FileTrustStore::new(&state);
    // Asking touches nothing until a manifest is there to decide on.
    let (outcome, _, _) = load(&fixture.workspace("bare", None), &mut store, true, true);
    assert!(matches!(outcome.unwrap(), WorkspaceTools::Absent));
    assert!(!state.exists());

    let (outcome, _, _) = load(&workspace, &mut store, true, false);
    assert!(matches!(outcome.unwrap(), WorkspaceTools::Trusted { .. }));
    let record = state.join(FileTrustStore::FILE_NAME);
    assert_eq!(mode_of(&record), 0o600);
    assert_eq!(mode_of(&state), 0o700);
    assert_eq!(mode_of(&fixture.base.join("state")), 0o700);
    let text = fs::read_to_string(&record).unwrap();
    let digest = content_digest(manifest("echo_json", "Echo.").as_bytes());
    let key = format!("{}:{digest}", workspace.root().display());
    let value = workspace.root().join(WORKSPACE_MANIFEST);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text).unwrap(),
        json!({ key: value.display().to_string() })
    );

    let mut fresh = FileTrustStore::new(&state);
    let (outcome, _, asked) = load(&workspace, &mut fresh, false, false);
    assert!(matches!(outcome.unwrap(), WorkspaceTools::Trusted { .. }));
    assert_eq!(asked, 0);
}

#[test]
fn a_store_for_another_subject_keeps_its_own_file() {
    let fixture = Fixture::new();
    let workspace = fixture.workspace("ws", None);
    let root = workspace.root();
    let state = fixture.base.join("state");
    let mut prompts = FileTrustStore::for_subject(&state, "trusted-prompts.json", ".oy/prompts");
    let digest = content_digest(b"some prompt files");
    prompts.trust(root, &digest).unwrap();
    assert!(prompts.is_trusted(root, &digest).unwrap());
    // The same root and digest mean nothing to the tools' record.
    assert!(
        !FileTrustStore::new(&state)
            .is_trusted(root, &digest)
            .unwrap()
    );
    assert!(!state.join(FileTrustStore::FILE_NAME).exists());
    let text = fs::read_to_string(state.join("trusted-prompts.json")).unwrap();
    let key = format!("{}:{digest}", root.display());
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text).unwrap(),
        json!({ key: root.join(".oy/prompts").display().to_string() })
    );
}

#[test]
fn a_damaged_file_record_trusts_nothing() {
    let fixture = Fixture::new();
    let workspace = fixture.workspace("ws", Some(&manifest("echo_json", "Echo.")));
    let state = fixture.base.join("state");
    fs::create_dir(&state).unwrap();
    fs::write(state.join(FileTrustStore::FILE_NAME), "{not json").unwrap();
    let mut store = FileTrustStore::new(&state);
    let (outcome, _, asked) = load(&workspace, &mut store, false, false);
    assert!(matches!(outcome.unwrap(), WorkspaceTools::Untrusted { .. }));
    assert_eq!(asked, 1);
    // Approving rewrites it whole.
    let (outcome, _, _) = load(&workspace, &mut store, true, false);
    assert!(matches!(outcome.unwrap(), WorkspaceTools::Trusted { .. }));
    assert!(
        store
            .is_trusted(
                workspace.root(),
                &content_digest(manifest("echo_json", "Echo.").as_bytes())
            )
            .unwrap()
    );
}

#[test]
fn private_dir_tightens_a_loose_directory_of_the_users_own() {
    let fixture = Fixture::new();
    let own = fixture.base.join("oy");
    fs::create_dir_all(own.join("sessions")).unwrap();
    for dir in [&own, &own.join("sessions")] {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let made = private_dir(&own, Some("sessions")).unwrap();
    assert_eq!(made, own.join("sessions"));
    assert_eq!(mode_of(&own), 0o700);
    assert_eq!(mode_of(&made), 0o700);
}

fn mode_of(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}
