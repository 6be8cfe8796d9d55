//! Saved sessions: the store's file format and permissions, listings,
//! resuming (same workspace only, today's policy), damaged files, and the
//! full history surviving compaction.

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

use oy_agent::{
    AgentBuilder, AgentEvent, AgentOptions, Entry, SESSION_VERSION, SavedSession, SessionHeader,
    SessionStore, TurnStop,
};
use oy_provider::Message;
use oy_tools::{Mode, Policy, Registry, ToolState};

use crate::compaction::{big_file, reading_script};
use crate::support::{RoutingProvider, Ws, answer, builder, call, scripted, text};

/// A session directory (the frontend's data dir) and its store.
struct Dir {
    _tmp: tempfile::TempDir,
    path: std::path::PathBuf,
    store: Arc<SessionStore>,
}

fn store() -> Dir {
    let tmp = tempfile::tempdir().unwrap();
    let path = std::fs::canonicalize(tmp.path()).unwrap();
    let store = Arc::new(SessionStore::open(&path).unwrap());
    Dir {
        _tmp: tmp,
        path,
        store,
    }
}

fn session(id: &str, workspace: &str, updated_at: &str) -> SavedSession {
    let mut header = SessionHeader::new(id.to_owned(), workspace.to_owned());
    header.updated_at = updated_at.to_owned();
    header.title = format!("task {id}");
    SavedSession {
        header,
        history: vec![Entry::User {
            text: "hello".to_owned(),
        }],
        context: vec![Entry::User {
            text: "hello".to_owned(),
        }],
        tool_state: ToolState::default(),
    }
}

/// Runs one turn that reads `a.txt` in `mode`, autosaving to `dir`.
async fn saved_turn(ws: &Ws, dir: &Dir, mode: Mode) -> SavedSession {
    ws.file("a.txt", "alpha\n");
    let provider = scripted([
        answer("Reading.", &[call("c1", "read", r#"{"path":"a.txt"}"#)]),
        text("It says alpha."),
    ]);
    let (builder, _events) = builder(provider, ws, mode);
    let mut agent = builder
        .session_store(Arc::clone(&dir.store))
        .build()
        .unwrap();
    let outcome = agent.turn("what is in a.txt?").await.unwrap();
    assert_eq!(outcome.stop, TurnStop::Done);
    agent.snapshot()
}

#[tokio::test]
async fn a_turn_autosaves_and_the_saved_session_loads_back_equal() {
    let ws = Ws::new();
    let dir = store();

    let snapshot = saved_turn(&ws, &dir, Mode::AutoApprove).await;
    let loaded = dir.store.load(&snapshot.header.id).unwrap();

    assert_eq!(loaded, snapshot);
    assert_eq!(loaded.header.version, SESSION_VERSION);
    assert_eq!(loaded.header.workspace, ws.root_str());
    assert_eq!(loaded.header.turns, 1);
    assert_eq!(loaded.header.title, "what is in a.txt?");
    assert_eq!(loaded.header.mode, "auto-approve");
    assert_eq!(loaded.header.provider, "scripted");
    assert_eq!(loaded.history.len(), 4);
    assert_eq!(loaded.context, loaded.history);
    assert!(loaded.tool_state.reads.contains_key("a.txt"));
}

#[tokio::test]
async fn saved_sessions_are_private_files() {
    let ws = Ws::new();
    let dir = store();

    let snapshot = saved_turn(&ws, &dir, Mode::Plan).await;

    let file = dir.path.join(format!("{}.jsonl", snapshot.header.id));
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    // Versioned JSONL: the header first, one record a line.
    let text = std::fs::read_to_string(&file).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["type"], "header");
    assert_eq!(first["version"], SESSION_VERSION);
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap();
    }
}

#[test]
fn saving_over_an_existing_session_replaces_it_and_stays_private() {
    let dir = store();
    let mut saved = session("s1", "/w", "2026-01-01T00:00:00Z");
    dir.store.save(&saved).unwrap();
    saved.history.push(Entry::User {
        text: "more".to_owned(),
    });

    dir.store.save(&saved).unwrap();

    assert_eq!(dir.store.load("s1").unwrap(), saved);
    // Written atomically: no temp file is left beside it.
    let names: Vec<String> = std::fs::read_dir(&dir.path)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["s1.jsonl"]);
    let mode = std::fs::metadata(dir.path.join("s1.jsonl"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn listing_is_newest_first_and_skips_files_that_are_not_sessions() {
    let dir = store();
    dir.store
        .save(&session("old", "/w/a", "2026-01-01T00:00:00Z"))
        .unwrap();
    dir.store
        .save(&session("newest", "/w/b", "2026-03-01T00:00:00Z"))
        .unwrap();
    dir.store
        .save(&session("middle", "/w/a", "2026-02-01T00:00:00Z"))
        .unwrap();
    std::fs::write(dir.path.join("garbage.jsonl"), "not json\n").unwrap();
    std::fs::write(dir.path.join("notes.txt"), "hello\n").unwrap();

    let ids: Vec<String> = dir
        .store
        .list()
        .unwrap()
        .into_iter()
        .map(|header| header.id)
        .collect();

    assert_eq!(ids, ["newest", "middle", "old"]);
}

#[test]
fn latest_for_picks_the_newest_session_of_that_workspace() {
    let dir = store();
    dir.store
        .save(&session("a-old", "/w/a", "2026-01-01T00:00:00Z"))
        .unwrap();
    dir.store
        .save(&session("a-new", "/w/a", "2026-02-01T00:00:00Z"))
        .unwrap();
    dir.store
        .save(&session("b-newest", "/w/b", "2026-03-01T00:00:00Z"))
        .unwrap();

    let latest = dir.store.latest_for("/w/a").unwrap().unwrap();

    assert_eq!(latest.id, "a-new");
    assert!(dir.store.latest_for("/w/none").unwrap().is_none());
}

#[tokio::test]
async fn resuming_a_session_of_another_workspace_is_refused() {
    let here = Ws::new();
    let elsewhere = Ws::new();
    let dir = store();
    let saved = saved_turn(&elsewhere, &dir, Mode::Plan).await;

    let (builder, _events) = builder(scripted([]), &here, Mode::Plan);
    let error = builder.resume(saved.clone()).build().unwrap_err();

    assert!(matches!(error, oy_agent::AgentError::ForeignSession { .. }));
    let message = error.to_string();
    assert!(message.contains(&saved.header.id), "{message}");
    assert!(message.contains(&elsewhere.root_str()), "{message}");
    assert!(message.contains(&here.root_str()), "{message}");
    // A library names the concept; the frontend adds its own flag.
    assert!(!message.contains("--"), "{message}");
}

#[tokio::test]
async fn resuming_keeps_the_builders_policy_and_the_conversation() {
    let ws = Ws::new();
    let dir = store();
    let saved = saved_turn(&ws, &dir, Mode::AutoApprove).await;
    assert_eq!(saved.header.mode, "auto-approve");
    let loaded = dir.store.load(&saved.header.id).unwrap();
    let provider = scripted([text("still alpha")]);

    let (builder, events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.resume(loaded).build().unwrap();

    assert_eq!(agent.policy().mode, Mode::Plan);
    assert_eq!(agent.session_id(), saved.header.id);
    assert!(matches!(
        &events.events()[0],
        AgentEvent::SessionStarted { resumed: true, mode, .. } if mode == "plan"
    ));
    assert!(
        agent
            .tool_context()
            .snapshot_state()
            .reads
            .contains_key("a.txt")
    );
    let outcome = agent.turn("and now?").await.unwrap();
    assert_eq!(outcome.turn, 2);
    let request = &provider.requests()[0];
    let offered: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
    assert!(!offered.contains(&"write") && !offered.contains(&"bash"));
    assert_eq!(request.messages.len(), 5);
    assert_eq!(
        request.messages[0],
        Message::User {
            text: "what is in a.txt?".to_owned()
        }
    );
    assert_eq!(agent.snapshot().header.mode, "plan");
}

#[test]
fn a_damaged_session_file_gives_a_clear_error() {
    let dir = store();
    std::fs::write(dir.path.join("broken.jsonl"), "{ not json\n").unwrap();
    let good = session("cut", "/w", "2026-01-01T00:00:00Z");
    dir.store.save(&good).unwrap();
    let text = std::fs::read_to_string(dir.path.join("cut.jsonl")).unwrap();
    let header = text.lines().next().unwrap();
    std::fs::write(
        dir.path.join("cut.jsonl"),
        format!("{header}\n{{\"type\":\"history\",\"entry\":{{\"kind\":\"us"),
    )
    .unwrap();

    let error = dir.store.load("broken").unwrap_err().to_string();
    assert!(error.contains("`broken` is damaged at line 1"), "{error}");
    assert!(error.contains("start a new session"), "{error}");
    let error = dir.store.load("cut").unwrap_err().to_string();
    assert!(error.contains("damaged at line 2"), "{error}");
}

#[test]
fn a_session_from_a_newer_oy_names_the_version() {
    let dir = store();
    let line = serde_json::json!({
        "type": "header", "version": SESSION_VERSION + 1, "id": "future",
        "workspace": "/w", "created_at": "x", "updated_at": "x", "shiny": true
    });
    std::fs::write(dir.path.join("future.jsonl"), format!("{line}\n")).unwrap();

    let error = dir.store.load("future").unwrap_err().to_string();

    assert!(error.contains("newer oy"), "{error}");
}

#[test]
fn missing_and_malformed_session_ids_are_clear_errors() {
    let dir = store();

    let missing = dir.store.load("nope").unwrap_err().to_string();
    let escape = dir.store.load("../etc/passwd").unwrap_err().to_string();
    let hidden = dir.store.load(".hidden").unwrap_err().to_string();

    assert!(missing.contains("no saved session `nope`"), "{missing}");
    assert!(escape.contains("not a session id"), "{escape}");
    assert!(hidden.contains("not a session id"), "{hidden}");
}

#[tokio::test]
async fn resuming_a_context_whose_calls_lost_their_results_is_refused() {
    let ws = Ws::new();
    let mut saved = session("torn", &ws.root_str(), "2026-01-01T00:00:00Z");
    saved.context.push(Entry::Assistant {
        text: None,
        tool_calls: vec![call("c1", "read", "{}")],
        reasoning: None,
    });

    let (builder, _events) = builder(scripted([]), &ws, Mode::Plan);
    let error = builder.resume(saved).build().unwrap_err().to_string();

    assert!(error.contains("session torn is damaged"), "{error}");
    assert!(error.contains("c1"), "{error}");
}

#[tokio::test]
async fn the_saved_history_keeps_full_text_after_compaction_shrank_the_context() {
    let ws = Ws::new();
    ws.file("big.txt", &big_file());
    let dir = store();
    let provider = RoutingProvider::new(reading_script(4), [text("SUMMARY: read big.txt.")]);
    let mut options = AgentOptions::default();
    options.context_window = Some(8192);
    let mut agent = AgentBuilder::new(provider, "test-model")
        .workspace(Arc::clone(&ws.workspace))
        .policy(Policy::new(Mode::Plan, false))
        .registry(Registry::new(vec![Box::new(
            oy_tools::tools::ReadTool::new(),
        )]))
        .options(options)
        .session_store(Arc::clone(&dir.store))
        .build()
        .unwrap();

    agent.turn("read big.txt").await.unwrap();
    let saved = dir.store.load(agent.session_id()).unwrap();

    let whole = |text: &str| {
        text.contains("line 0001") && text.contains("line 0075") && text.contains("line 0140")
    };
    let history_outputs: Vec<&String> = saved
        .history
        .iter()
        .filter_map(|entry| match entry {
            Entry::ToolResult { output, .. } => Some(output),
            _ => None,
        })
        .collect();
    assert_eq!(history_outputs.len(), 4);
    assert!(history_outputs.iter().all(|output| whole(output)));
    // The context was compacted: shortened outputs that still carry their
    // whole text.
    let weight = |entries: &[Entry]| entries.iter().map(Entry::weight).sum::<usize>();
    assert!(weight(&saved.context) < weight(&saved.history));
    let mut shrunk = 0;
    for entry in &saved.context {
        if let Entry::ToolResult {
            output, full_text, ..
        } = entry
            && !whole(output)
        {
            shrunk += 1;
            assert!(whole(full_text.as_deref().unwrap()), "{output}");
        }
    }
    assert!(shrunk > 0, "no shortened output in the saved context");
    // And it resumes to exactly the compacted context.
    let resumed = AgentBuilder::new(scripted([]), "test-model")
        .workspace(Arc::clone(&ws.workspace))
        .resume(saved.clone())
        .build()
        .unwrap();
    assert_eq!(resumed.transcript().entries(), saved.context.as_slice());
    assert_eq!(resumed.history(), saved.history.as_slice());
}

#[tokio::test]
async fn a_turns_side_effects_are_on_disk_until_the_turn_is_saved() {
    let ws = Ws::new();
    let dir = store();
    let provider = scripted([
        answer(
            "Writing.",
            &[call(
                "c1",
                "write",
                r#"{"path":"b.txt","content":"beta\n"}"#,
            )],
        ),
        text("Done."),
    ]);
    let (builder, _events) = builder(provider, &ws, Mode::AutoApprove);
    let mut agent = builder
        .session_store(Arc::clone(&dir.store))
        .build()
        .unwrap();
    let id = agent.session_id().to_owned();
    let outcome = agent.turn("write b").await.unwrap();
    assert_eq!(outcome.stop, TurnStop::Done);
    // Saved with the turn: nothing is left for a resume to report.
    assert!(!dir.path.join(format!("{id}.ledger")).exists());
    assert!(dir.store.unsaved_effects(&id).is_empty());
}

#[tokio::test]
async fn resuming_after_a_turn_that_was_cut_off_says_what_it_had_started() {
    let ws = Ws::new();
    let dir = store();
    let saved = saved_turn(&ws, &dir, Mode::AutoApprove).await;
    let id = saved.header.id.clone();
    // What the ledger holds when the process died mid-turn: a write that
    // finished, and a command that had started (attempt, then outcome).
    let line = |call: &str, tool: &str, succeeded: Option<bool>| {
        serde_json::json!({
            "call_id": call, "turn": 2, "tool": tool, "args_digest": "00",
            "attempted_at": 1_790_000_000_000u64, "succeeded": succeeded,
        })
        .to_string()
    };
    let ledger = [
        line("c7", "write", None),
        line("c7", "write", Some(true)),
        line("c8", "bash", None),
    ]
    .join("\n");
    let ledger_path = dir.path.join(format!("{id}.ledger"));
    std::fs::write(&ledger_path, ledger + "\n").unwrap();

    let provider = scripted([text("I will look first.")]);
    let (builder, events) = builder(provider.clone(), &ws, Mode::AutoApprove);
    let mut agent = builder
        .session_store(Arc::clone(&dir.store))
        .resume(dir.store.load(&id).unwrap())
        .build()
        .unwrap();
    let reported: Vec<Vec<(String, Option<bool>)>> = events
        .events()
        .iter()
        .filter_map(|event| match event {
            AgentEvent::InterruptedTurn { effects } => Some(
                effects
                    .iter()
                    .map(|entry| (entry.tool.clone(), entry.succeeded))
                    .collect(),
            ),
            _ => None,
        })
        .collect();
    assert_eq!(
        reported,
        [vec![
            ("write".to_owned(), Some(true)),
            ("bash".to_owned(), None)
        ]]
    );
    agent.turn("go on").await.unwrap();
    let request = &provider.requests()[0];
    let Some(Message::User { text }) = request.messages.last() else {
        panic!("{:?}", request.messages.last());
    };
    assert!(text.contains("<note kind=\"interrupted\">"), "{text}");
    assert!(text.contains("- bash (outcome unknown"), "{text}");
    assert!(text.contains("go on"), "{text}");
    // Told once: the turn is saved and the ledger gone.
    assert!(!ledger_path.exists());
}
