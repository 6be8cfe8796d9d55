//! What a person adds to a turn besides their words: files their `@path`
//! mentions attach (`Agent::prepare`) and context notes queued since the
//! last turn (`Agent::add_context_note`) — both in the turn's one user
//! message, the person's words alone in the title and `turn_started`.

use oy_agent::{AgentEvent, ContextNote, MentionError, ShellStatus};
use oy_provider::{Message, Request};
use oy_tools::Mode;

use crate::support::{Ws, builder, scripted, text};

/// The user messages of `request`, in order.
fn user_texts(request: &Request) -> Vec<String> {
    request
        .messages
        .iter()
        .filter_map(|message| match message {
            Message::User { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// True when two user messages follow each other anywhere in `request`.
fn has_user_pair(request: &Request) -> bool {
    request
        .messages
        .windows(2)
        .any(|pair| matches!(pair, [Message::User { .. }, Message::User { .. }]))
}

#[tokio::test]
async fn a_prepared_prompt_sends_the_file_and_keeps_the_words_as_typed() {
    let ws = Ws::new();
    ws.file("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n");
    let provider = scripted([text("It returns 42.")]);
    let (builder, events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();
    let prompt = agent.prepare("explain @src/lib.rs").await.unwrap();
    assert_eq!(prompt.attachments()[0].lines, 3);
    agent.turn(prompt).await.unwrap();

    let request = &provider.requests()[0];
    assert_eq!(
        user_texts(request),
        [
            "explain @src/lib.rs\n\n<file path=\"src/lib.rs\">\n1\tpub fn answer() -> u32 {\n2\t    42\n3\t}\n</file>"
        ]
    );
    assert_eq!(agent.snapshot().header.title, "explain @src/lib.rs");
    let started = events
        .events()
        .into_iter()
        .find(|event| matches!(event, AgentEvent::TurnStarted { .. }))
        .unwrap();
    let json = serde_json::to_value(&started).unwrap();
    assert_eq!(json["prompt"], "explain @src/lib.rs");
    assert_eq!(
        json["attachments"],
        serde_json::json!([{"path": "src/lib.rs", "kind": "file", "lines": 3, "truncated": false}])
    );
}

#[tokio::test]
async fn a_mention_that_names_nothing_sends_nothing() {
    let ws = Ws::new();
    ws.file("src/lib.rs", "");
    let provider = scripted([]);
    let (builder, events) = builder(provider.clone(), &ws, Mode::Plan);
    let agent = builder.build().unwrap();
    let error = agent.prepare("fix @src/lib.r").await.unwrap_err();
    assert!(
        matches!(&error, MentionError::NotFound { close, .. } if close == &["src/lib.rs"]),
        "{error:?}"
    );
    assert!(provider.requests().is_empty());
    assert!(
        !events
            .events()
            .iter()
            .any(|event| matches!(event, AgentEvent::TurnStarted { .. }))
    );
}

#[tokio::test]
async fn a_note_goes_in_front_of_the_next_turn_once() {
    let ws = Ws::new();
    let provider = scripted([text("first"), text("I see hi."), text("third")]);
    let (builder, _) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();
    agent.turn("hello").await.unwrap();
    agent.add_context_note(ContextNote::shell(
        "echo hi",
        ShellStatus::Exited(0),
        "hi\n",
    ));
    assert_eq!(agent.context_notes().len(), 1);
    agent.turn("what did it print?").await.unwrap();
    assert!(agent.context_notes().is_empty());
    agent.turn("and now?").await.unwrap();

    let requests = provider.requests();
    let second = user_texts(&requests[1]);
    let last = second.last().unwrap();
    assert!(last.starts_with("<note kind=\"shell\">\n"), "{last}");
    assert!(
        last.contains("$ echo hi\nhi\n[exit status 0]\n</note>"),
        "{last}"
    );
    assert!(last.ends_with("</note>\n\nwhat did it print?"), "{last}");
    // Sent once, and never as a user message of its own.
    let third = user_texts(&requests[2]);
    assert_eq!(third.last().unwrap(), "and now?");
    assert_eq!(third.iter().filter(|t| t.contains("echo hi")).count(), 1);
    assert!(requests.iter().all(|request| !has_user_pair(request)));
}

#[tokio::test]
async fn clear_drops_queued_notes() {
    let ws = Ws::new();
    let provider = scripted([text("fresh")]);
    let (builder, _) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();
    agent.add_context_note(ContextNote::new("undo", "The person undid turn 1."));
    agent.clear();
    agent.turn("start over").await.unwrap();
    assert_eq!(user_texts(&provider.requests()[0]), ["start over"]);
}

#[tokio::test]
async fn a_note_queued_before_a_compaction_follows_the_summary() {
    let ws = Ws::new();
    // Answers long enough that the summary is lighter than what it replaces.
    let long = "a long answer that a summary can stand for. ".repeat(20);
    let provider = scripted([
        text(&long),
        text(&long),
        text(&long),
        text("SUMMARY: greeted three times."),
        text("after"),
    ]);
    let (builder, events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();
    for prompt in ["first", "second", "third"] {
        agent.turn(prompt).await.unwrap();
    }
    agent.add_context_note(ContextNote::new("undo", "The person undid turn 3."));
    agent.compact().await.unwrap();
    assert!(
        events.events().iter().any(|event| matches!(
            event,
            AgentEvent::Compaction {
                summary_by: "model",
                ..
            }
        )),
        "the compaction asked for a summary"
    );
    assert_eq!(
        agent.context_notes().len(),
        1,
        "a compaction keeps the notes"
    );
    agent.turn("go on").await.unwrap();

    let requests = provider.requests();
    let summary_request = &requests[3];
    assert!(
        !format!("{:?}", summary_request.messages).contains("undid"),
        "the note is not summarised"
    );
    let last = requests.last().unwrap();
    let users = user_texts(last);
    assert_eq!(
        users.last().unwrap(),
        "<note kind=\"undo\">\nThe person undid turn 3.\n</note>\n\ngo on"
    );
    let summary_at = users
        .iter()
        .position(|text| text.contains("SUMMARY: greeted"))
        .expect("the summary is sent");
    assert!(summary_at < users.len() - 1);
}

#[tokio::test]
async fn ask_takes_a_prepared_prompt_too() {
    let ws = Ws::new();
    ws.file("notes.md", "todo: ship\n");
    let provider = scripted([text("Ship it.")]);
    let (builder, _) = builder(provider.clone(), &ws, Mode::Default);
    let mut agent = builder.build().unwrap();
    let prompt = agent.prepare("what is left in @notes.md?").await.unwrap();
    agent.ask(prompt).await.unwrap();
    let users = user_texts(&provider.requests()[0]);
    assert!(users[0].ends_with("<file path=\"notes.md\">\n1\ttodo: ship\n</file>"));
}
