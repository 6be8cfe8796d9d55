//! The tool loop: a multi-step task against a real temp workspace, what
//! the model is sent back, tool failures as data, and the event order.

use oy_agent::{AgentEvent, TurnStop};
use oy_provider::Message;
use oy_tools::Mode;

use crate::support::{
    Ws, answer, assert_paired, builder, call, calls, kinds, result_for, scripted, text,
};

#[tokio::test]
async fn multi_step_task_changes_the_workspace_and_pairs_every_call_with_its_result() {
    let ws = Ws::new();
    ws.file("src/lib.rs", "pub fn old_name() -> u32 {\n    1\n}\n");
    ws.file("README.md", "# demo\n");
    let provider = scripted([
        answer(
            "Let me look around.",
            &[call("c1", "list", r#"{"path":"."}"#)],
        ),
        calls(&[call("c2", "read", r#"{"path":"src/lib.rs"}"#)]),
        calls(&[
            call(
                "c3",
                "replace",
                r#"{"path":"src/lib.rs","old":"old_name","new":"new_name"}"#,
            ),
            call(
                "c4",
                "write",
                r#"{"path":"notes/done.txt","content":"renamed\n"}"#,
            ),
        ]),
        text("Renamed `old_name` to `new_name` and left a note."),
    ]);
    let (builder, _events) = builder(provider.clone(), &ws, Mode::AutoApprove);
    let mut agent = builder.build().unwrap();

    let outcome = agent.turn("rename old_name to new_name").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::Done, "{:?}", outcome.reason);
    assert_eq!(
        outcome.text,
        "Renamed `old_name` to `new_name` and left a note."
    );
    assert_eq!(outcome.requests, 4);
    assert_eq!(
        ws.read("src/lib.rs"),
        "pub fn new_name() -> u32 {\n    1\n}\n"
    );
    assert_eq!(ws.read("notes/done.txt"), "renamed\n");

    let requests = provider.requests();
    assert_eq!(requests.len(), 4);
    for request in &requests {
        assert_paired(request);
    }
    // The first request is just the task; each later one adds the answer
    // and its results.
    assert_eq!(
        requests[0].messages,
        vec![Message::User {
            text: "rename old_name to new_name".to_owned()
        }]
    );
    let (listing, failed) = result_for(&requests[1], "c1");
    assert!(!failed);
    assert!(listing.contains("src/"), "{listing}");
    assert!(listing.contains("README.md"), "{listing}");
    let (read, failed) = result_for(&requests[2], "c2");
    assert!(!failed);
    assert!(read.contains("old_name"), "{read}");
    for id in ["c3", "c4"] {
        let (output, failed) = result_for(&requests[3], id);
        assert!(!failed, "{id}: {output}");
    }
    assert_eq!(requests[3].messages.len(), 1 + 2 + 2 + 3);
    // The write tools were offered in this mode.
    let offered: Vec<&str> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert!(offered.contains(&"write") && offered.contains(&"replace"));
    agent.transcript().check().unwrap();
}

#[tokio::test]
async fn unknown_tool_gets_a_tool_error_naming_the_available_tools() {
    let ws = Ws::new();
    let provider = scripted([
        calls(&[call("c1", "frobnicate", r#"{"x":1}"#)]),
        text("Sorry, no such tool."),
    ]);
    let (builder, events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();

    let outcome = agent.turn("do it").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::Done);
    let (output, is_error) = result_for(&provider.requests()[1], "c1");
    assert!(is_error);
    assert!(output.starts_with("TOOL_ERROR:"), "{output}");
    assert!(output.contains("frobnicate"), "{output}");
    let recovery = output
        .lines()
        .find(|line| line.starts_with("RECOVERY:"))
        .unwrap_or_else(|| panic!("no RECOVERY line in {output}"));
    for tool in ["list", "read", "search"] {
        assert!(recovery.contains(tool), "{recovery}");
    }
    // Plan mode does not offer writes, so they are not suggested.
    assert!(!recovery.contains("write"), "{recovery}");
    let finished = events
        .events()
        .into_iter()
        .find_map(|event| match event {
            AgentEvent::ToolCallFinished(finished) => Some((finished.call_id, finished.ok)),
            _ => None,
        })
        .unwrap();
    assert_eq!(finished, ("c1".to_owned(), false));
}

#[tokio::test]
async fn arguments_that_are_not_json_give_a_tool_error_and_the_loop_goes_on() {
    let ws = Ws::new();
    ws.file("a.txt", "alpha\n");
    let provider = scripted([
        calls(&[call("c1", "read", r#"{"path": "a.txt""#)]),
        calls(&[call("c2", "read", r#"{"path":"a.txt"}"#)]),
        text("It says alpha."),
    ]);
    let (builder, _events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();

    let outcome = agent.turn("what is in a.txt?").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::Done);
    assert_eq!(outcome.text, "It says alpha.");
    let requests = provider.requests();
    assert_eq!(requests.len(), 3);
    let (output, is_error) = result_for(&requests[1], "c1");
    assert!(is_error);
    assert!(output.starts_with("TOOL_ERROR:"), "{output}");
    assert!(output.contains("RECOVERY:"), "{output}");
    let (output, is_error) = result_for(&requests[2], "c2");
    assert!(!is_error);
    assert!(output.contains("alpha"), "{output}");
}

#[tokio::test]
async fn events_arrive_in_order_and_the_turn_reports_usage() {
    let ws = Ws::new();
    ws.file("a.txt", "alpha\n");
    let provider = scripted([
        answer("Reading.", &[call("c1", "read", r#"{"path":"a.txt"}"#)]),
        text("Done: alpha."),
    ]);
    let (builder, events) = builder(provider, &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();
    let session_id = agent.session_id().to_owned();

    let outcome = agent.turn("read a.txt").await.unwrap();

    let events = events.events();
    let kinds = kinds(&events);
    let expected = [
        "session_started",
        "turn_started",
        "request_started",
        "text_delta",
        "text_delta",
        "request_finished",
        "tool_call_started",
        "tool_call_finished",
        "request_started",
        "text_delta",
        "text_delta",
        "request_finished",
        "turn_finished",
    ];
    assert_eq!(kinds, expected);
    match &events[0] {
        AgentEvent::SessionStarted {
            session_id: id,
            workspace,
            provider,
            model,
            mode,
            resumed,
            ..
        } => {
            assert_eq!(id, &session_id);
            assert_eq!(workspace, &ws.root_str());
            assert_eq!(provider, "scripted");
            assert_eq!(model, "test-model");
            assert_eq!(mode, "plan");
            assert!(!resumed);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        &events[1],
        AgentEvent::TurnStarted { turn: 1, prompt, .. } if prompt == "read a.txt"
    ));
    let requests: Vec<(u32, u64, u64)> = events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::RequestStarted { request } => Some((*request, 0, 0)),
            AgentEvent::RequestFinished { request, usage } => {
                assert!(!usage.estimated);
                Some((*request, usage.input_tokens, usage.output_tokens))
            }
            _ => None,
        })
        .collect();
    assert_eq!(requests, [(1, 0, 0), (1, 100, 10), (2, 0, 0), (2, 100, 10)]);
    match &events[7] {
        AgentEvent::ToolCallFinished(finished) => {
            assert_eq!(
                (
                    finished.call_id.as_str(),
                    finished.tool.as_str(),
                    finished.ok
                ),
                ("c1", "read", true)
            );
            assert_eq!(finished.output_bytes, finished.output.len());
            assert!(finished.output.contains("alpha"));
            assert!(!finished.truncated);
            assert_eq!(finished.status, oy_agent::CallStatus::Ok);
            assert_eq!((finished.exit_code, finished.diff.as_deref()), (None, None));
        }
        other => panic!("{other:?}"),
    }
    match &events[12] {
        AgentEvent::TurnFinished {
            turn,
            stop,
            reason,
            requests,
            usage,
            ..
        } => {
            assert_eq!((*turn, *stop, *requests), (1, TurnStop::Done, 2));
            assert!(reason.is_none());
            assert_eq!(usage.input_tokens, 200);
            assert_eq!(usage.output_tokens, 20);
            assert!(!usage.estimated);
            assert_eq!(*usage, outcome.usage);
        }
        other => panic!("{other:?}"),
    }
    let streamed: String = events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(streamed, "Reading.Done: alpha.");
    assert_eq!(agent.usage(), outcome.usage);
}

#[tokio::test]
async fn usage_is_estimated_when_the_server_reports_none() {
    let ws = Ws::new();
    let provider = scripted([oy_provider::ScriptedReply::Stream(vec![Ok(
        oy_provider::Event::TextDelta {
            text: "hello".to_owned(),
        },
    )])]);
    let (builder, _events) = builder(provider, &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();

    let outcome = agent.turn("hi").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::Done);
    assert!(outcome.usage.estimated);
    assert!(outcome.usage.input_tokens > 0);
    assert!(outcome.usage.output_tokens > 0);
}

#[tokio::test]
async fn a_second_turn_sends_the_first_turns_conversation() {
    let ws = Ws::new();
    let provider = scripted([text("first answer"), text("second answer")]);
    let (builder, events) = builder(provider.clone(), &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();

    agent.turn("one").await.unwrap();
    let outcome = agent.turn("two").await.unwrap();

    assert_eq!(outcome.turn, 2);
    assert_eq!(outcome.text, "second answer");
    let requests = provider.requests();
    assert_eq!(
        requests[1].messages,
        vec![
            Message::User {
                text: "one".to_owned()
            },
            Message::Assistant {
                text: Some("first answer".to_owned()),
                tool_calls: Vec::new(),
                reasoning: None,
            },
            Message::User {
                text: "two".to_owned()
            },
        ]
    );
    let turns: Vec<u64> = events
        .events()
        .iter()
        .filter_map(|event| match event {
            AgentEvent::TurnStarted { turn, .. } => Some(*turn),
            _ => None,
        })
        .collect();
    assert_eq!(turns, [1, 2]);
}

#[tokio::test]
async fn a_model_stopped_at_its_token_cap_ends_with_max_tokens() {
    let ws = Ws::new();
    let provider = scripted([oy_provider::ScriptedReply::Stream(vec![
        Ok(oy_provider::Event::TextDelta {
            text: "partial".to_owned(),
        }),
        Ok(oy_provider::Event::Finished {
            reason: oy_provider::StopReason::MaxTokens,
        }),
    ])]);
    let (builder, _events) = builder(provider, &ws, Mode::Plan);
    let mut agent = builder.build().unwrap();

    let outcome = agent.turn("write a lot").await.unwrap();

    assert_eq!(outcome.stop, TurnStop::MaxTokens);
    assert!(outcome.stop.is_failure());
    assert_eq!(outcome.text, "partial");
}

/// One identity per call: the provider's id names the call in the
/// transcript, in every event of it, and in its ledger entry.
#[tokio::test]
async fn the_providers_call_id_joins_transcript_events_and_ledger() {
    let ws = Ws::new();
    let provider = scripted([
        calls(&[call(
            "call_Xy9",
            "write",
            r#"{"path":"a.txt","content":"x"}"#,
        )]),
        text("done"),
    ]);
    let (builder, events) = builder(provider, &ws, Mode::AutoApprove);
    let mut agent = builder.build().unwrap();
    agent.turn("write a.txt").await.unwrap();

    let ledger = agent.tool_context().ledger().entries();
    assert_eq!(ledger.len(), 1);
    assert_eq!(ledger[0].call_id, "call_Xy9");
    assert_eq!(ledger[0].succeeded, Some(true));
    assert!(agent.history().iter().any(|entry| matches!(
        entry,
        oy_agent::Entry::ToolResult { call_id, .. } if call_id == "call_Xy9"
    )));
    let ids: Vec<String> = events
        .events()
        .into_iter()
        .filter_map(|event| match event {
            AgentEvent::ToolCallStarted(started) => Some(started.call_id),
            AgentEvent::Approval(approval) => Some(approval.call_id),
            AgentEvent::ToolCallFinished(finished) => Some(finished.call_id),
            _ => None,
        })
        .collect();
    // Started and finished (auto-approve asks no one), each emitted once.
    assert_eq!(ids, ["call_Xy9", "call_Xy9"]);
}

/// A call cut off by the output-token cap never runs (its arguments may be
/// half a JSON object), and what is sent back to the server next is valid
/// JSON, never the broken text.
#[tokio::test]
async fn calls_cut_at_the_token_cap_are_not_run_nor_echoed_back_broken() {
    let ws = Ws::new();
    let cut = call("c1", "write", r#"{"path":"a.txt","content":"unfinish"#);
    let provider = scripted([
        oy_provider::ScriptedReply::Stream(vec![
            Ok(oy_provider::Event::ToolCallDone {
                index: 0,
                call: cut,
            }),
            Ok(oy_provider::Event::Finished {
                reason: oy_provider::StopReason::MaxTokens,
            }),
        ]),
        text("continued"),
    ]);
    let (builder, events) = builder(provider.clone(), &ws, Mode::AutoApprove);
    let mut agent = builder.build().unwrap();

    let outcome = agent.turn("write a.txt").await.unwrap();
    assert_eq!(outcome.stop, TurnStop::MaxTokens);
    assert!(!ws.root.join("a.txt").exists());
    assert!(
        !events
            .events()
            .iter()
            .any(|event| matches!(event, AgentEvent::ToolCallStarted(_)))
    );
    agent.transcript().check().unwrap();

    agent.turn("continue").await.unwrap();
    let sent = &provider.requests()[1];
    for message in &sent.messages {
        if let Message::Assistant { tool_calls, .. } = message {
            for call in tool_calls {
                serde_json::from_str::<serde_json::Value>(&call.arguments).unwrap();
            }
        }
    }
}
