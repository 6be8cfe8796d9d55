//! Fuzz target `session`: session files as a crash, a disk error or a hand
//! edit could leave them — a real saved session's lines dropped, repeated
//! and reordered, and its bytes mutated — loaded through
//! `SessionStore::load` and `list`, then resumed into an agent. The
//! properties: no panic, and a context whose tool calls and results do
//! not pair is never resumed.

use std::sync::Arc;

use oy_agent::{Entry, SavedSession, SessionHeader, SessionStore, Transcript};
use oy_provider::ToolCall;
use oy_tools::{Mode, TodoItem, TodoStatus, ToolState};
use proptest::prelude::*;
use proptest::sample::Index;

use crate::fuzz::{Bytes, fuzz, mutated};
use crate::support::{Ws, builder, scripted, text};

const ID: &str = "fuzz";

/// A session with every kind of record, saved for real.
fn seed(store: &SessionStore, workspace: &str) {
    let call = ToolCall {
        id: "c1".to_owned(),
        name: "read".to_owned(),
        arguments: r#"{"path":"a.txt"}"#.to_owned(),
    };
    let entries = vec![
        Entry::User {
            text: "read a.txt".to_owned(),
        },
        Entry::Assistant {
            text: Some("Reading.".to_owned()),
            tool_calls: vec![call],
            reasoning: Some(serde_json::json!({"type": "reasoning", "id": "r1"})),
        },
        Entry::ToolResult {
            call_id: "c1".to_owned(),
            tool: "read".to_owned(),
            output: "alpha\n".to_owned(),
            is_error: false,
            full_text: None,
        },
        Entry::Summary {
            text: "earlier work".to_owned(),
            replaced: 3,
        },
        Entry::Assistant {
            text: Some("It says alpha.".to_owned()),
            tool_calls: Vec::new(),
            reasoning: None,
        },
    ];
    let mut tool_state = ToolState::default();
    tool_state.remember("a.txt", b"alpha\n");
    tool_state.todos.push(TodoItem {
        id: Some("1".to_owned()),
        text: "check".to_owned(),
        status: TodoStatus::Pending,
    });
    let mut header = SessionHeader::new(ID.to_owned(), workspace.to_owned());
    header.title = "task".to_owned();
    store
        .save(&SavedSession {
            header,
            history: entries.clone(),
            context: entries,
            tool_state,
        })
        .unwrap();
}

/// The seed's lines, some dropped, repeated or moved.
fn reshuffled(lines: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<Index>(), 0..12).prop_map(move |picks| {
        let mut out = Vec::new();
        for pick in picks {
            out.extend_from_slice(&lines[pick.index(lines.len())]);
            out.push(b'\n');
        }
        out
    })
}

const DICTIONARY: &[&str] = &[
    "\n",
    "{",
    "}",
    "\"",
    ",",
    ":",
    "null",
    "[]",
    "\"type\":\"header\"",
    "\"type\":\"history\"",
    "\"type\":\"context\"",
    "\"type\":\"tool_state\"",
    "\"version\":2",
    "\"version\":18446744073709551616",
    "\"call_id\":\"c2\"",
    "\"tool_calls\":[]",
    "\\ud800",
    "\u{ff}",
];

#[test]
fn fuzz_session_files() {
    let ws = Ws::new();
    let dir = tempfile::tempdir().unwrap();
    let path = std::fs::canonicalize(dir.path()).unwrap();
    let store = Arc::new(SessionStore::open(&path).unwrap());
    seed(&store, &ws.root_str());
    let file = path.join(format!("{ID}.jsonl"));
    let saved = std::fs::read(&file).unwrap();
    let lines: Vec<Vec<u8>> = saved
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    let header = lines[0].clone();
    let inputs = prop_oneof![
        2 => mutated(vec![saved], DICTIONARY, 6),
        // The header kept first, the rest reshuffled, then mutated a little.
        2 => reshuffled(lines[1..].to_vec())
            .prop_map(move |rest| [header.clone(), b"\n".to_vec(), rest].concat())
            .prop_flat_map(|text| mutated(vec![text], DICTIONARY, 2)),
        1 => reshuffled(lines),
    ];
    fuzz("session", 200, inputs.prop_map(Bytes), |Bytes(bytes)| {
        std::fs::write(&file, &bytes).unwrap();
        let _ = store.list();
        let Ok(loaded) = store.load(ID) else {
            return Ok(());
        };
        let paired = Transcript::from_entries(loaded.context.clone());
        if let Ok(transcript) = &paired {
            let _ = (
                transcript.to_messages(),
                transcript.units(),
                transcript.weight(),
            );
        }
        let (builder, _events) = builder(scripted([text("ok")]), &ws, Mode::Plan);
        let resumed = builder.resume(loaded).build();
        prop_assert!(
            resumed.is_err() || paired.is_ok(),
            "resumed a context that does not pair: {:?}",
            paired.err()
        );
        Ok(())
    });
}
