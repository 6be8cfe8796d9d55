//! `oy run` end to end: the real binary against the scripted mock model,
//! on both OpenAI wire APIs — the tool loop, its guards, approvals without
//! a terminal, retries around side effects, compaction and output modes
//! (README; docs/events.md). Sessions are in `cli_sessions`.

use serde_json::{Value, json};

use crate::mock_model::{
    self, MockModel, Ran, Wire, assistant_texts, call, calls, error, instructions, text,
    text_and_call, tool_names, tool_outputs, user_texts,
};
use crate::support::Oy;

pub(crate) fn run(oy: &Oy, mock: &MockModel, args: &[&str]) -> Ran {
    mock_model::run(oy, mock, args)
}

/// The `--json` events of a run, every stdout line parsed.
pub(crate) fn events(out: &Ran) -> Vec<Value> {
    out.stdout
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("not JSON ({error}): {line:?}\n{}", out.stderr))
        })
        .collect()
}

pub(crate) fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|event| event["type"].as_str().unwrap().to_owned())
        .collect()
}

/// The streamed text of `--json` events, joined.
pub(crate) fn answer(events: &[Value]) -> String {
    events
        .iter()
        .filter(|event| event["type"] == "text_delta")
        .map(|event| event["text"].as_str().unwrap())
        .collect()
}

pub(crate) fn session_id(out: &Ran) -> String {
    events(out)
        .iter()
        .find(|event| event["type"] == "session_started")
        .and_then(|event| event["session_id"].as_str())
        .unwrap_or_else(|| panic!("no session_started in {}", out.stdout))
        .to_owned()
}

pub(crate) fn sessions_dir(oy: &Oy) -> std::path::PathBuf {
    oy.data.join("oy/sessions")
}

pub(crate) fn demo_workspace() -> Oy {
    let oy = Oy::new();
    oy.file(
        "src/lib.rs",
        "pub fn greet() -> &'static str {\n    \"Hello\"\n}\n",
    )
    .file("README.md", "# Demo\n");
    oy
}

#[test]
fn multi_step_task_changes_the_workspace_and_feeds_each_result_back() {
    for wire in Wire::BOTH {
        let oy = demo_workspace();
        let patch = "*** Begin Patch\n*** Add File: NOTES.md\n+greeting is Howdy\n*** End Patch\n";
        let mock = mock_model::start(
            wire,
            vec![
                text_and_call("Let me look around.", "list", json!({"path": "."})),
                call("search", json!({"pattern": "Hello"})),
                call("read", json!({"path": "src/lib.rs"})),
                call(
                    "replace",
                    json!({"path": "src/lib.rs", "old": "\"Hello\"", "new": "\"Howdy\""}),
                ),
                call("patch", json!({ "patch": patch })),
                call(
                    "bash",
                    json!({"command": "grep -c Howdy src/lib.rs NOTES.md > count.txt; echo bash-says-$((40+2))"}),
                ),
                text("Done: the greeting is now Howdy."),
            ],
        );
        let out = run(
            &oy,
            &mock,
            &["--mode", "auto", "change the greeting to Howdy"],
        );
        assert_eq!(
            out.code, 0,
            "{wire:?}\nstdout:{}\nstderr:{}",
            out.stdout, out.stderr
        );
        assert!(
            out.stdout.contains("Done: the greeting is now Howdy."),
            "{wire:?}: {}",
            out.stdout
        );
        assert_eq!(
            oy.read("src/lib.rs"),
            "pub fn greet() -> &'static str {\n    \"Howdy\"\n}\n"
        );
        assert_eq!(oy.read("NOTES.md"), "greeting is Howdy\n");
        assert_eq!(oy.read("count.txt"), "src/lib.rs:1\nNOTES.md:1\n");
        assert_eq!(oy.read("README.md"), "# Demo\n");

        let requests = mock.requests();
        assert_eq!(requests.len(), 7, "{wire:?}: {:#?}", mock.paths());
        assert_eq!(mock.steps_left(), 0);
        assert_eq!(
            user_texts(&requests[0]),
            ["change the greeting to Howdy"],
            "{wire:?}"
        );
        assert!(tool_outputs(&requests[0]).is_empty());
        assert!(tool_names(&requests[0]).contains(&"bash".to_owned()));
        for (index, request) in requests.iter().enumerate() {
            assert_eq!(request["model"], "mock-model");
            assert_eq!(
                tool_outputs(request).len(),
                index,
                "{wire:?}: request {index} should carry {index} tool results"
            );
        }
        let last = |index: usize| tool_outputs(&requests[index]).pop().unwrap();
        assert!(last(1).contains("src/"), "list: {}", last(1));
        assert!(last(1).contains("README.md"), "list: {}", last(1));
        assert!(last(2).contains("src/lib.rs:2:"), "search: {}", last(2));
        assert!(last(3).contains("\"Hello\""), "read: {}", last(3));
        assert!(!last(4).starts_with("TOOL_ERROR"), "replace: {}", last(4));
        assert!(!last(5).starts_with("TOOL_ERROR"), "patch: {}", last(5));
        assert!(last(6).contains("bash-says-42"), "bash: {}", last(6));
        // The model's own text comes back as the assistant's turn.
        assert_eq!(assistant_texts(&requests[1]), ["Let me look around."]);
    }
}

#[test]
fn the_same_failing_call_three_times_stops_with_exit_1() {
    for wire in Wire::BOTH {
        let oy = Oy::new();
        let missing = json!({"path": "missing.txt"});
        let mock = mock_model::start(
            wire,
            vec![
                call("read", missing.clone()),
                call("read", missing.clone()),
                call("read", missing),
                text("never reached"),
            ],
        );
        let out = run(&oy, &mock, &["read missing.txt"]);
        assert_eq!(out.code, 1, "{wire:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("same failing `read` call 3 times"),
            "{wire:?}: {}",
            out.stderr
        );
        assert_eq!(mock.requests().len(), 3);
        let results = tool_outputs(&mock.requests()[2]);
        assert!(
            results.iter().all(|r| r.starts_with("TOOL_ERROR")),
            "{results:?}"
        );
        assert!(results[0].contains("RECOVERY"), "{}", results[0]);
    }
}

#[test]
fn max_turns_stops_a_run_that_keeps_calling_tools() {
    for wire in Wire::BOTH {
        let oy = Oy::new();
        let mock = mock_model::start(
            wire,
            vec![
                call("list", json!({})),
                call("list", json!({"depth": 1})),
                text("never reached"),
            ],
        );
        let out = run(&oy, &mock, &["--max-turns", "2", "look around"]);
        assert_eq!(out.code, 1, "{wire:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("--max-turns 2"),
            "{wire:?}: {}",
            out.stderr
        );
        assert_eq!(mock.requests().len(), 2);
    }
}

#[test]
fn an_unknown_tool_is_a_tool_error_listing_the_tools_and_the_run_goes_on() {
    for wire in Wire::BOTH {
        let oy = Oy::new();
        let mock = mock_model::start(
            wire,
            vec![
                call("frobnicate", json!({"x": 1})),
                text("Sorry, I used a tool that does not exist."),
            ],
        );
        let out = run(&oy, &mock, &["do something"]);
        assert_eq!(out.code, 0, "{wire:?}: {}", out.stderr);
        let requests = mock.requests();
        assert_eq!(requests.len(), 2);
        let result = &tool_outputs(&requests[1])[0];
        assert!(result.starts_with("TOOL_ERROR"), "{result}");
        assert!(result.contains("frobnicate"), "{result}");
        for tool in ["read", "list", "search"] {
            assert!(result.contains(tool), "{tool} not listed in {result}");
        }
        assert!(out.stdout.contains("does not exist"), "{}", out.stdout);
    }
}

#[test]
fn a_write_without_a_terminal_in_default_mode_exits_3_and_writes_nothing() {
    for wire in Wire::BOTH {
        let oy = Oy::new();
        let mock = mock_model::start(
            wire,
            vec![
                call("write", json!({"path": "new.txt", "content": "x\n"})),
                text("never reached"),
            ],
        );
        let out = run(&oy, &mock, &["create new.txt"]);
        assert_eq!(out.code, 3, "{wire:?}: {}", out.stderr);
        assert!(!oy.root.join("new.txt").exists());
        assert!(out.stderr.contains("write"), "{}", out.stderr);
        assert_eq!(mock.requests().len(), 1, "the turn stops at the denial");
    }
}

#[test]
fn a_provider_error_after_a_side_effect_is_not_retried() {
    for wire in Wire::BOTH {
        let oy = Oy::new();
        let mock = mock_model::start(
            wire,
            vec![
                call("write", json!({"path": "a.txt", "content": "one\n"})),
                error(500, None),
                text("a retry would have got this"),
            ],
        );
        let out = run(&oy, &mock, &["--mode", "auto", "write a.txt"]);
        assert_eq!(out.code, 1, "{wire:?}: {}", out.stderr);
        assert_eq!(oy.read("a.txt"), "one\n");
        assert_eq!(mock.requests().len(), 2, "{wire:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("not retried"),
            "{wire:?}: {}",
            out.stderr
        );
        assert!(!out.stdout.contains("a retry would"), "{}", out.stdout);
    }
}

#[test]
fn a_429_before_any_side_effect_is_retried_after_retry_after() {
    for wire in Wire::BOTH {
        let oy = Oy::new();
        let mock = mock_model::start(
            wire,
            vec![
                error(429, Some("0")),
                text("Recovered after the rate limit."),
            ],
        );
        let out = run(&oy, &mock, &["--json", "hello"]);
        assert_eq!(out.code, 0, "{wire:?}: {}", out.stderr);
        let requests = mock.requests();
        assert_eq!(requests.len(), 2);
        assert_eq!(requests[0], requests[1], "the same request is replayed");
        let events = events(&out);
        let retry = events
            .iter()
            .find(|event| event["type"] == "retry")
            .unwrap_or_else(|| panic!("no retry event: {}", out.stdout));
        assert_eq!(retry["attempt"], 1);
        assert_eq!(retry["delay_ms"], 0);
        assert!(retry["error"].is_string());
        assert_eq!(answer(&events), "Recovered after the rate limit.");
    }
}

#[test]
fn a_dropped_connection_before_any_side_effect_is_retried() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Chat,
        vec![mock_model::Step::Drop, text("Second time lucky.")],
    );
    let out = run(&oy, &mock, &["-q", "hello"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "Second time lucky.\n");
    assert_eq!(mock.requests().len(), 2);
}

/// A workspace with eight 20 KB files, a global config with
/// `context_window = 4096`, and a script reading each file in turn.
fn long_loop(wire: Wire) -> (Oy, MockModel) {
    let oy = Oy::new();
    let line = "let value = compute_something_long(alpha, beta, gamma, delta); // padding\n";
    let big: String = line.repeat(20 * 1024 / line.len());
    let mut steps = Vec::new();
    for index in 0..8 {
        let name = format!("big{index}.rs");
        oy.file(&name, &big);
        steps.push(call("read", json!({ "path": name })));
    }
    steps.push(text("Read them all."));
    let config = oy.data.with_file_name("config").join("oy");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "context_window = 4096\n").unwrap();
    let mock = mock_model::start(wire, steps);
    (oy, mock)
}

#[test]
fn a_long_loop_compacts_the_context_with_a_model_summary() {
    for wire in Wire::BOTH {
        let (oy, mock) = long_loop(wire);
        let out = run(&oy, &mock, &["--json", "read every big file"]);
        assert_eq!(out.code, 0, "{wire:?}: {}", out.stderr);
        assert!(!out.stderr.contains("warning"), "{}", out.stderr);
        let events = events(&out);
        let compactions: Vec<&Value> = events
            .iter()
            .filter(|event| event["type"] == "compaction")
            .collect();
        let compaction = compactions
            .iter()
            .find(|event| event["summary_by"] == "model")
            .unwrap_or_else(|| panic!("{wire:?}: no compaction by the model in {compactions:?}"));
        assert_eq!(compaction["trigger"], "auto");
        assert!(compaction["entries_summarized"].as_u64().unwrap() >= 2);
        assert!(
            compaction["tokens_after"].as_u64() < compaction["tokens_before"].as_u64(),
            "{compaction}"
        );
        let requests = mock.requests();
        let summary = requests
            .iter()
            .find(|request| tool_names(request).is_empty())
            .unwrap_or_else(|| panic!("{wire:?}: no request without tools"));
        assert!(
            instructions(summary).unwrap().starts_with("Summarise"),
            "{summary}"
        );
        // The turn's later requests carry the summary, and the loop went on
        // to the end of the script.
        let turn_requests = mock.turn_requests();
        assert_eq!(turn_requests.len(), 9, "{wire:?}");
        let last = turn_requests.last().unwrap().to_string();
        assert!(last.contains(mock_model::SUMMARY), "{wire:?}");
        assert_eq!(answer(&events), "Read them all.");
    }
}

/// Compaction keeps the request near the model's window. With
/// a 4096-token window, instructions and tool schemas already take most
/// of it, and the latest 20 KB tool output is kept whole, so every
/// request after compaction is still about twice the window.
#[test]
fn compaction_brings_the_next_request_within_the_window() {
    let (oy, mock) = long_loop(Wire::Chat);
    let out = run(&oy, &mock, &["--json", "read every big file"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let window_bytes = 4096 * 7 / 2;
    for (index, request) in mock.turn_requests().iter().enumerate() {
        let bytes = request.to_string().len();
        assert!(
            bytes <= window_bytes,
            "request {index} is {bytes} bytes, over a 4096-token window (~{window_bytes} bytes)"
        );
    }
}

#[test]
fn json_prints_one_event_per_line_in_order() {
    for wire in Wire::BOTH {
        let oy = Oy::new();
        oy.file("a.txt", "alpha\n");
        let mock = mock_model::start(
            wire,
            vec![
                text_and_call("Reading.", "read", json!({"path": "a.txt"})),
                text("It says alpha."),
            ],
        );
        let out = run(&oy, &mock, &["--json", "what is in a.txt?"]);
        assert_eq!(out.code, 0, "{wire:?}: {}", out.stderr);
        let events = events(&out);
        let kinds = types(&events);
        assert_eq!(kinds[0], "session_started", "{kinds:?}");
        assert_eq!(kinds[1], "turn_started", "{kinds:?}");
        assert_eq!(kinds.last().unwrap(), "turn_finished", "{kinds:?}");
        let position = |kind: &str| kinds.iter().position(|k| k == kind).unwrap();
        assert!(position("text_delta") < position("tool_call_started"));
        assert!(position("tool_call_started") < position("tool_call_finished"));

        let started = &events[0];
        for field in [
            "session_id",
            "workspace",
            "provider",
            "model",
            "mode",
            "network",
        ] {
            assert!(started[field].is_string(), "{field} in {started}");
        }
        assert_eq!(started["model"], "mock-model");
        assert_eq!(started["mode"], "default");
        assert_eq!(started["resumed"], false);
        assert_eq!(events[1]["turn"], 1);
        assert_eq!(events[1]["prompt"], "what is in a.txt?");

        let call = &events[position("tool_call_started")];
        assert_eq!(call["tool"], "read");
        assert!(call["call_id"].is_string());
        let arguments: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(arguments, json!({"path": "a.txt"}));
        let done = &events[position("tool_call_finished")];
        assert_eq!(done["call_id"], call["call_id"]);
        assert_eq!(done["ok"], true);
        assert_eq!(done["truncated"], false);
        assert!(done["duration_ms"].is_u64());
        assert_eq!(done["output"], "1\talpha\n");
        assert_eq!(done["output_bytes"], 8);

        let finished = events.last().unwrap();
        assert_eq!(finished["stop"], "done");
        assert_eq!(finished["turn"], 1);
        assert_eq!(finished["requests"], 2);
        assert!(finished.get("reason").is_none(), "{finished}");
        assert_eq!(finished["usage"]["input_tokens"], 240);
        assert_eq!(finished["usage"]["output_tokens"], 60);
        assert_eq!(finished["usage"]["estimated"], false);
        assert_eq!(answer(&events), "Reading.It says alpha.");
    }
}

#[test]
fn json_reports_a_guard_stop_with_its_reason() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Responses, vec![call("list", json!({}))]);
    let out = run(&oy, &mock, &["--json", "--max-turns", "1", "look"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let events = events(&out);
    let finished = events.last().unwrap();
    assert_eq!(finished["type"], "turn_finished");
    assert_eq!(finished["stop"], "max_turns");
    assert!(
        finished["reason"]
            .as_str()
            .unwrap()
            .contains("--max-turns 1"),
        "{finished}"
    );
}

#[test]
fn quiet_prints_only_the_final_answer() {
    for wire in Wire::BOTH {
        let oy = Oy::new();
        let mock = mock_model::start(
            wire,
            vec![
                text_and_call("Let me check.", "list", json!({})),
                text("The answer is 42."),
            ],
        );
        let out = run(&oy, &mock, &["-q", "what is the answer?"]);
        assert_eq!(out.code, 0, "{wire:?}: {}", out.stderr);
        assert_eq!(out.stdout, "The answer is 42.\n", "{wire:?}");
    }
}

#[test]
fn human_output_streams_the_answer_on_stdout_and_notes_on_stderr() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            text_and_call("Let me check.", "list", json!({})),
            text("The answer is 42."),
        ],
    );
    let out = run(&oy, &mock, &["what is the answer?"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Let me check."), "{}", out.stdout);
    assert!(out.stdout.contains("The answer is 42."), "{}", out.stdout);
    assert!(!out.stdout.contains("→ list"), "{}", out.stdout);
    assert!(out.stderr.contains("→ list"), "{}", out.stderr);
}

#[test]
fn the_prompt_can_come_on_stdin() {
    for wire in Wire::BOTH {
        let oy = Oy::new();
        let mock = mock_model::start(wire, vec![text("Summary: nothing here.")]);
        let out = mock_model::run_with_stdin(&oy, &mock, &["-q"], Some("summarise the README\n"));
        assert_eq!(out.code, 0, "{wire:?}: {}", out.stderr);
        assert_eq!(out.stdout, "Summary: nothing here.\n");
        let users = user_texts(&mock.requests()[0]);
        assert_eq!(users.len(), 1);
        assert_eq!(users[0].trim_end(), "summarise the README");
    }
}

#[test]
fn an_empty_prompt_on_stdin_is_a_usage_error() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Chat, vec![]);
    let out = mock_model::run_with_stdin(&oy, &mock, &[], Some("  \n"));
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("empty"), "{}", out.stderr);
    assert!(mock.requests().is_empty());
}

#[test]
fn calls_split_over_one_answer_all_run_in_order() {
    for wire in Wire::BOTH {
        let oy = Oy::new();
        oy.file("a.txt", "A\n").file("b.txt", "B\n");
        let mock = mock_model::start(
            wire,
            vec![
                calls(&[
                    ("read", json!({"path": "a.txt"})),
                    ("read", json!({"path": "b.txt"})),
                ]),
                text("A and B."),
            ],
        );
        let out = run(&oy, &mock, &["-q", "read both"]);
        assert_eq!(out.code, 0, "{wire:?}: {}", out.stderr);
        assert_eq!(
            tool_outputs(&mock.requests()[1]),
            ["1\tA\n", "1\tB\n"],
            "{wire:?}"
        );
    }
}

#[test]
fn a_stream_cut_after_text_was_shown_is_never_repeated() {
    // Nothing a person or a program reads is ever duplicated: text that
    // reached stdout or a `text_delta` is not streamed again by a retry;
    // the error says why the request was not retried.
    for wire in Wire::BOTH {
        for json in [false, true] {
            let oy = Oy::new();
            let mock = mock_model::start(
                wire,
                vec![
                    mock_model::Step::Cut {
                        text: "This answer is cut".to_owned(),
                    },
                    text("This answer is cut, and now whole."),
                ],
            );
            let args: &[&str] = if json {
                &["--json", "hello"]
            } else {
                &["hello"]
            };
            let out = run(&oy, &mock, args);
            let what = format!("{wire:?} json={json}");
            assert_eq!(
                (out.code, mock.requests().len()),
                (1, 1),
                "{what}: {}",
                out.stderr
            );
            if json {
                let events = events(&out);
                let shown: String = events
                    .iter()
                    .filter(|event| event["type"] == "text_delta")
                    .map(|event| event["text"].as_str().unwrap())
                    .collect();
                assert_eq!(shown, "This answer is cut", "{what}");
                assert!(!types(&events).contains(&"retry".to_owned()), "{what}");
                let error = events
                    .iter()
                    .find(|event| event["type"] == "error")
                    .unwrap();
                assert!(
                    error["message"]
                        .as_str()
                        .unwrap()
                        .contains("not retried: part of the answer was already shown"),
                    "{what}: {error}"
                );
            } else {
                assert_eq!(
                    out.stdout.matches("This answer is cut").count(),
                    1,
                    "{what}: {}",
                    out.stdout
                );
                assert!(!out.stdout.contains("now whole"), "{what}");
                assert!(
                    out.stderr
                        .contains("not retried: part of the answer was already shown"),
                    "{what}: {}",
                    out.stderr
                );
            }
        }
    }
}

#[test]
fn a_stream_cut_before_any_text_is_retried_with_one_attempt_count() {
    // Cut while a tool call's arguments were streaming: nothing was shown
    // and nothing ran, so the request is sent again.
    for wire in Wire::BOTH {
        let oy = Oy::new();
        let mock = mock_model::start(
            wire,
            vec![
                error(503, None),
                mock_model::Step::CutDuringCall {
                    call: mock_model::Call {
                        name: "read".to_owned(),
                        args: json!({"path": "a.txt"}),
                    },
                },
                text("The whole answer."),
            ],
        );
        let out = run(&oy, &mock, &["--json", "hello"]);
        assert_eq!(
            (out.code, mock.requests().len()),
            (0, 3),
            "{wire:?}: {}",
            out.stderr
        );
        let events = events(&out);
        let attempts: Vec<u64> = events
            .iter()
            .filter(|event| event["type"] == "retry")
            .map(|event| event["attempt"].as_u64().unwrap())
            .collect();
        assert_eq!(attempts, [1, 2], "{wire:?}");
        assert!(
            !types(&events).contains(&"tool_call_started".to_owned()),
            "{wire:?}"
        );
        let quiet = Oy::new();
        let mock = mock_model::start(
            wire,
            vec![
                mock_model::Step::CutDuringCall {
                    call: mock_model::Call {
                        name: "read".to_owned(),
                        args: json!({"path": "a.txt"}),
                    },
                },
                text("The whole answer."),
            ],
        );
        let out = run(&quiet, &mock, &["hello"]);
        assert_eq!(out.code, 0, "{wire:?}: {}", out.stderr);
        assert_eq!(out.stdout, "The whole answer.\n", "{wire:?}");
    }
}

#[test]
fn a_client_error_is_not_retried() {
    for wire in Wire::BOTH {
        let oy = Oy::new();
        let mock = mock_model::start(wire, vec![error(400, None), text("unused")]);
        let out = run(&oy, &mock, &["hello"]);
        assert_eq!(out.code, 1, "{wire:?}: {}", out.stderr);
        assert_eq!(mock.requests().len(), 1);
        assert!(
            out.stderr.contains("scripted HTTP 400"),
            "the server's message is shown: {}",
            out.stderr
        );
    }
}

#[test]
fn server_errors_are_retried_a_bounded_number_of_times() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            error(503, None),
            error(503, None),
            error(503, None),
            error(503, None),
            text("a fifth attempt is one too many"),
        ],
    );
    let out = run(&oy, &mock, &["--json", "hello"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(mock.requests().len(), 4);
    let events = events(&out);
    assert_eq!(types(&events).iter().filter(|t| *t == "retry").count(), 3);
    let error = events
        .iter()
        .find(|event| event["type"] == "error")
        .unwrap_or_else(|| panic!("no error event: {}", out.stdout));
    assert!(
        error["message"].as_str().unwrap().contains("4 attempts"),
        "{error}"
    );
    assert_eq!(events.last().unwrap()["stop"], "provider_error");
}

#[test]
fn a_retry_after_longer_than_oy_waits_is_not_retried() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Responses,
        vec![error(429, Some("3600")), text("unused")],
    );
    let out = run(&oy, &mock, &["hello"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(mock.requests().len(), 1);
    assert!(out.stderr.contains("3600"), "{}", out.stderr);
}

#[test]
fn sigint_during_a_run_kills_the_command_and_exits_130() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            call(
                "bash",
                json!({"command": "echo $$ > sleeper.pid; exec sleep 30"}),
            ),
            text("never reached"),
        ],
    );
    let mut cmd = mock_model::oy_command(&oy, &mock);
    let child = cmd
        .args(["run", "--model", "m", "--mode", "auto", "sleep"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid_file = oy.root.join("sleeper.pid");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !std::fs::read_to_string(&pid_file).is_ok_and(|pid| pid.ends_with('\n')) {
        assert!(
            std::time::Instant::now() < deadline,
            "the command never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let started = std::time::Instant::now();
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
    let sleeper = std::fs::read_to_string(&pid_file).unwrap();
    let proc = std::path::Path::new("/proc").join(sleeper.trim());
    while proc.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "`sleep 30` outlived oy"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(mock.requests().len(), 1);
}

#[test]
fn model_text_cannot_send_escape_sequences_to_the_terminal() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Chat,
        vec![text("plain \u{1b}]0;pwned\u{7}title \u{1b}[2Jcleared")],
    );
    let out = run(&oy, &mock, &["hello"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains('\u{1b}'), "{:?}", out.stdout);
    assert!(!out.stdout.contains('\u{7}'), "{:?}", out.stdout);
    assert!(out.stdout.contains("cleared"), "{:?}", out.stdout);
}

#[test]
fn a_big_command_output_reaches_the_model_cut_with_a_marker() {
    for wire in Wire::BOTH {
        let oy = Oy::new();
        let mock = mock_model::start(
            wire,
            vec![
                call("bash", json!({"command": "seq 1 50000"})),
                text("That was long."),
            ],
        );
        let out = run(&oy, &mock, &["--json", "--mode", "auto", "count"]);
        assert_eq!(out.code, 0, "{wire:?}: {}", out.stderr);
        let result = tool_outputs(&mock.requests()[1]).pop().unwrap();
        assert!(result.len() < 20_000, "{} bytes", result.len());
        assert!(result.contains("truncated"), "{result}");
        assert!(
            result.contains("\n1\n") || result.contains("1\n2\n"),
            "{result}"
        );
        assert!(result.contains("50000"), "the tail is kept: {result}");
        assert!(!result.contains("\n25000\n"), "the middle is cut");
        let finished = events(&out)
            .into_iter()
            .find(|event| event["type"] == "tool_call_finished")
            .unwrap();
        assert_eq!(finished["output"].as_str().unwrap(), result);
    }
}

#[test]
fn tool_only_answers_without_progress_stop_the_turn() {
    let oy = Oy::new();
    // Three distinct calls (progress), then the same ones over and over.
    let steps = (0..50)
        .map(|step| call("list", json!({"depth": step % 3 + 1})))
        .collect();
    let mock = mock_model::start(Wire::Chat, steps);
    let out = run(&oy, &mock, &["look forever"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("tool-only answers"), "{}", out.stderr);
    assert_eq!(mock.requests().len(), 43);
}

#[test]
fn the_prompt_without_run_is_a_run() {
    let oy = Oy::new();
    let mock = mock_model::start(Wire::Responses, vec![text("Short form works.")]);
    let out = mock_model::oy_command(&oy, &mock)
        .args(["--model", "m", "-q", "what is this?"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "Short form works.\n"
    );
    assert_eq!(user_texts(&mock.requests()[0]), ["what is this?"]);
}

#[test]
fn the_api_key_reaches_the_server_but_not_commands() {
    for wire in Wire::BOTH {
        let oy = Oy::new();
        let mock = mock_model::start(
            wire,
            vec![
                call(
                    "bash",
                    json!({"command": "echo key=${OPENAI_API_KEY:-unset}"}),
                ),
                text("ok"),
            ],
        );
        let out = mock_model::oy_command(&oy, &mock)
            .env("OPENAI_API_KEY", "sk-mock-not-a-real-key")
            .args([
                "run",
                "--model",
                "m",
                "--mode",
                "auto",
                "-q",
                "show the key",
            ])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let auth: Vec<String> = mock
            .headers()
            .iter()
            .map(|headers| {
                headers
                    .iter()
                    .find(|(name, _)| name == "authorization")
                    .map(|(_, value)| value.clone())
                    .unwrap_or_default()
            })
            .collect();
        assert_eq!(auth, ["Bearer sk-mock-not-a-real-key"; 2], "{wire:?}");
        let result = tool_outputs(&mock.requests()[1]).pop().unwrap();
        assert!(result.contains("key=unset"), "{result}");
    }
}

#[test]
fn agents_md_is_part_of_the_instructions() {
    for wire in Wire::BOTH {
        let oy = Oy::new();
        oy.file("AGENTS.md", "Always answer in haiku. MARKER-7731\n");
        let mock = mock_model::start(wire, vec![text("ok")]);
        let out = run(&oy, &mock, &["hello"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let instructions = instructions(&mock.requests()[0]).unwrap();
        assert!(
            instructions.contains("MARKER-7731"),
            "{wire:?}: {instructions}"
        );
    }
}

#[test]
fn json_shows_the_denied_approval() {
    let oy = Oy::new();
    let mock = mock_model::start(
        Wire::Responses,
        vec![call("write", json!({"path": "x.txt", "content": "x"}))],
    );
    let out = run(&oy, &mock, &["--json", "write x"]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    let events = events(&out);
    let approval = events
        .iter()
        .find(|event| event["type"] == "approval")
        .unwrap_or_else(|| panic!("no approval event: {:?}", types(&events)));
    assert_eq!(approval["stage"], "denied");
    assert_eq!(approval["tool"], "write");
    assert!(approval["call_id"].is_string() && approval["summary"].is_string());
    let finished = events.last().unwrap();
    assert_eq!(finished["stop"], "approval_denied");
    assert!(finished["reason"].is_string());
}

#[test]
fn a_server_named_by_openai_base_url_that_lists_one_model_supplies_it() {
    // No --model, no config: the one model the server lists is used, as
    // for an autodetected server (docs/configuration.md).
    for wire in Wire::BOTH {
        let oy = Oy::new();
        let mock = mock_model::start_listing(wire, vec![text("hi")], Some(&["only-model"]));
        let mut cmd = mock_model::oy_command(&oy, &mock);
        cmd.args(["run", "--json", "hello"]);
        let output = crate::support::output_with_stdin(&mut cmd, None);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{wire:?}: {stderr}");
        let stdout = String::from_utf8(output.stdout).unwrap();
        let started: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
        assert_eq!(started["model"], "only-model", "{wire:?}");
        assert_eq!(mock.turn_requests()[0]["model"], "only-model", "{wire:?}");
    }
    // Two models: no guess, the usage error names how to choose.
    let oy = Oy::new();
    let mock = mock_model::start_listing(Wire::Chat, vec![text("hi")], Some(&["a", "b"]));
    let mut cmd = mock_model::oy_command(&oy, &mock);
    cmd.args(["run", "hello"]);
    let output = crate::support::output_with_stdin(&mut cmd, None);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("oy model --set ID"), "{stderr}");
    assert!(stderr.contains("it lists 2 models (a, b)"), "{stderr}");
}

#[test]
fn a_prompt_larger_than_the_window_is_refused_before_any_request() {
    let oy = Oy::new();
    let config = oy.data.with_file_name("config").join("oy");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("config.toml"), "context_window = 4096\n").unwrap();
    let mock = mock_model::start(Wire::Chat, vec![text("never sent")]);
    let prompt = "explain this log line please ".repeat(2000);
    let ran = mock_model::run_with_stdin(&oy, &mock, &[], Some(&prompt));
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("the prompt does not fit the model's context window"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr
            .contains("the window is 4096 tokens (configured)"),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("hint: "), "{}", ran.stderr);
    assert!(mock.turn_requests().is_empty(), "no request may be sent");
}
