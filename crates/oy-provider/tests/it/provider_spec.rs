//! The request-body oracle (`tests/support/openai_spec.rs`) is not vacuous:
//! minimal and full bodies pass, deliberately wrong ones fail at the place
//! they are wrong, each normalisation step of `extract.py` shows in what
//! passes and fails, and the known violations it excuses are exactly
//! what oy sends today.

use futures_util::StreamExt;
use oy_provider::{Message, OpenAiConfig, OpenAiResponsesProvider, Provider, Request, ToolCall};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

use crate::openai_spec::known::REASONING_WITHOUT_ID;
use crate::openai_spec::{
    self, Api, Recorder, assert_chat_request, assert_responses_request, check_request,
    guarded_server, known_violations, strict_violations, violations,
};

fn chat(extra: Value) -> Value {
    let mut body = json!({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    body
}

fn responses(extra: Value) -> Value {
    let mut body = json!({"model": "gpt-5", "input": "hi"});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    body
}

/// Fails unless `body` breaks the spec with a violation at `at`.
fn assert_fails_at(api: Api, body: &Value, at: &str) {
    let found = violations(api, body);
    assert!(
        found
            .iter()
            .any(|line| line.trim_start().starts_with(&format!("{at}: "))),
        "expected a violation at {at} for {body}, got {found:#?}"
    );
}

#[test]
fn minimal_bodies_pass() {
    assert_chat_request(&chat(json!({})));
    assert_responses_request(&responses(json!({})));
    check_request("/v1/chat/completions", &chat(json!({})));
    check_request("/v1/responses", &responses(json!({})));
    // Other paths carry no body to check.
    check_request("/v1/models", &Value::Null);
}

#[test]
fn full_chat_body_in_the_shape_oy_sends_passes() {
    assert_chat_request(&json!({
        "model": "gpt-4o-mini",
        "stream": true,
        "stream_options": {"include_usage": true},
        "messages": [
            {"role": "developer", "content": "Be brief."},
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "List files"},
            {"role": "assistant", "content": "Looking.", "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "list", "arguments": "{\"path\":\".\"}"}}
            ]},
            {"role": "assistant", "tool_calls": [
                {"id": "call_2", "type": "function", "function": {"name": "list", "arguments": "{}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "a.rs\nb.rs"}
        ],
        "tools": [{"type": "function", "function": {
            "name": "list", "description": "List a directory",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}
        }}],
        "max_completion_tokens": 512,
        "max_tokens": 512,
        "temperature": 0.5,
        "reasoning_effort": "high"
    }));
}

#[test]
fn full_responses_body_in_unambiguous_shapes_passes() {
    assert_responses_request(&json!({
        "model": "gpt-5",
        "instructions": "You are a coding agent.",
        "input": [
            {"role": "user", "content": "hello"},
            {"type": "message", "role": "user", "content": "hello"},
            {"role": "assistant", "content": "Looking."},
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAAB-1"},
            {"type": "function_call", "call_id": "call_9", "name": "read", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_9", "output": "TOOL_ERROR: no path"}
        ],
        "tools": [{"type": "function", "name": "read", "description": "Read a file.",
                   "parameters": {"type": "object"}, "strict": false}],
        "stream": true,
        "store": false,
        "include": ["reasoning.encrypted_content"],
        "max_output_tokens": 4096,
        "temperature": 0.5,
        "reasoning": {"effort": "medium"}
    }));
}

#[test]
fn wrong_chat_bodies_fail_where_they_are_wrong() {
    let api = Api::ChatCompletions;
    assert_fails_at(api, &chat(json!({"messages": "hi"})), "/messages");
    assert_fails_at(
        api,
        &chat(json!({"messages": [{"role": "wizard", "content": "hi"}]})),
        "/messages/0",
    );
    assert_fails_at(api, &chat(json!({"temperature": "hot"})), "/temperature");
    assert_fails_at(api, &chat(json!({"temperature": 3})), "/temperature");
    assert_fails_at(
        api,
        &chat(json!({"tools": [{"type": "function"}]})),
        "/tools/0",
    );
    assert_fails_at(
        api,
        &chat(json!({"messages": [{"role": "tool", "content": "x"}]})),
        "/messages/0",
    );
    assert_fails_at(api, &json!({"messages": []}), "/");
    assert_fails_at(api, &chat(json!({"max_tokens": "many"})), "/max_tokens");
    // The one tightening over the spec: top-level names are a closed list.
    assert_fails_at(api, &chat(json!({"max_output_tokens": 5})), "/");
    assert_fails_at(api, &Value::Null, "/");
}

#[test]
fn wrong_responses_bodies_fail_where_they_are_wrong() {
    let api = Api::Responses;
    assert_fails_at(
        api,
        &responses(json!({"input": [{"type": "telepathy", "thought": "hi"}]})),
        "/input",
    );
    assert_fails_at(
        api,
        &responses(json!({"input": [{"type": "function_call_output", "call_id": "c"}]})),
        "/input",
    );
    assert_fails_at(
        api,
        &responses(json!({"tools": [{"type": "function", "parameters": {}}]})),
        "/tools/0",
    );
    assert_fails_at(
        api,
        &responses(json!({"temperature": "hot"})),
        "/temperature",
    );
    assert_fails_at(
        api,
        &responses(json!({"reasoning": {"effort": "extreme"}})),
        "/reasoning",
    );
    assert_fails_at(api, &responses(json!({"max_tokens": 5})), "/");
    assert_fails_at(api, &responses(json!({"messages": []})), "/");
}

#[test]
fn nullable_became_a_union_with_null() {
    // `nullable: true` on a plain type, on a type with a range, and on a
    // `oneOf` whose own branch is nullable too (null must match once).
    assert_chat_request(&chat(json!({
        "max_tokens": null, "frequency_penalty": null, "stop": null, "prediction": null
    })));
    assert_chat_request(&chat(json!({"stop": ["\n\n"]})));
    assert_fails_at(
        Api::ChatCompletions,
        &chat(json!({"frequency_penalty": 9})),
        "/frequency_penalty",
    );
    assert_fails_at(Api::ChatCompletions, &chat(json!({"stop": 7})), "/stop");
}

#[test]
fn the_recursive_compound_filter_is_checked_all_the_way_down() {
    let tool = |inner: Value| {
        responses(
            json!({"tools": [{"type": "file_search", "vector_store_ids": ["vs_1"],
            "filters": {"type": "and", "filters": [{"type": "or", "filters": [inner]}]}}]}),
        )
    };
    assert_responses_request(&tool(json!({"type": "eq", "key": "lang", "value": "rust"})));
    assert_fails_at(
        Api::Responses,
        &tool(json!({"type": "eq", "key": "lang", "value": {"no": "objects"}})),
        "/tools/0",
    );
}

#[test]
fn violations_name_the_branches_a_value_is_torn_between() {
    let body = responses(json!({"input": [{"type": "message", "role": "user",
        "content": [{"type": "input_text", "text": "hi"}]}]}));
    let found = strict_violations(Api::Responses, &body).join("\n");
    assert!(
        found.contains("/input/0: matches more than one `oneOf` branch: EasyInputMessage, Item"),
        "{found}"
    );
    // For no match, the branches of the item's own `type` and what each
    // is missing.
    let body = responses(json!({"input": [{"type": "reasoning", "summary": []}]}));
    let found = strict_violations(Api::Responses, &body).join("\n");
    assert!(found.contains("as ReasoningItem:"), "{found}");
    assert!(
        found.contains("/input/0: \"id\" is a required property"),
        "{found}"
    );
    assert!(!found.contains("as EasyInputMessage:"), "{found}");
}

/// The one known departure excuses exactly what oy sends, and nothing
/// near it; the message forms oy used to send (content-part arrays) are
/// violations again.
#[test]
fn known_violations_excuse_only_oy_s_exact_shapes() {
    let reasoning = json!({"type": "reasoning", "encrypted_content": "gAAAAB-1",
                           "summary": [{"type": "summary_text", "text": "Checking."}]});
    let body = responses(json!({"input": [reasoning]}));
    assert_eq!(violations(Api::Responses, &body), Vec::<String>::new());
    assert!(!strict_violations(Api::Responses, &body).is_empty());
    assert_eq!(
        known_violations(Api::Responses, &body),
        [REASONING_WITHOUT_ID]
    );

    let old_user = json!({"type": "message", "role": "user",
                          "content": [{"type": "input_text", "text": "hi"}]});
    let old_assistant = json!({"type": "message", "role": "assistant",
        "content": [{"type": "output_text", "text": "Looking.", "annotations": []}]});
    for old in [old_user, old_assistant] {
        assert_fails_at(
            Api::Responses,
            &responses(json!({"input": [old]})),
            "/input",
        );
    }
    let near_misses = [
        ("summary", reasoning.clone(), json!("Checking.")),
        ("encrypted_content", reasoning, json!(null)),
    ];
    for (key, mut item, value) in near_misses {
        item[key] = value;
        let body = responses(json!({"input": [item]}));
        assert_fails_at(Api::Responses, &body, "/input");
    }
    // Only on Responses.
    assert!(!violations(Api::ChatCompletions, &json!({"model": "m", "input": [1]})).is_empty());
}

/// When this fails, oy's Responses request builder no longer makes the
/// known departure: delete its entry in
/// `tests/support/openai_spec/known.rs`, and its name here.
#[tokio::test]
async fn known_violations_are_still_committed_by_oy() {
    let server = guarded_server().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(
            include_str!("../fixtures/responses/text.sse"),
            "text/event-stream",
        ))
        .mount(&server)
        .await;
    let provider =
        OpenAiResponsesProvider::new(OpenAiConfig::new(format!("{}/v1", server.uri()))).unwrap();
    let reasoning = json!({"type": "reasoning", "id": "rs_1", "summary": [],
                           "encrypted_content": "gAAAAB-1"});
    let request = Request {
        model: "gpt-5".to_owned(),
        messages: vec![
            Message::User {
                text: "hi".to_owned(),
            },
            Message::Assistant {
                text: Some("Looking.".to_owned()),
                tool_calls: vec![ToolCall {
                    id: "call_1".to_owned(),
                    name: "read".to_owned(),
                    arguments: "{}".to_owned(),
                }],
                reasoning: Some(reasoning),
            },
            Message::ToolResult {
                call_id: "call_1".to_owned(),
                output: "text".to_owned(),
                is_error: false,
            },
        ],
        ..Request::default()
    };
    let items: Vec<_> = provider.stream(&request).await.unwrap().collect().await;
    assert!(items.iter().all(Result::is_ok), "{items:?}");
    let sent: Value = server.received_requests().await.unwrap()[0]
        .body_json()
        .unwrap();
    assert_eq!(
        known_violations(Api::Responses, &sent),
        [REASONING_WITHOUT_ID],
        "{sent:#}"
    );
}

#[tokio::test]
#[should_panic(expected = "a request body that breaks OpenAI's spec")]
async fn a_guarded_wiremock_server_fails_the_test_on_a_bad_body() {
    let server = guarded_server().await;
    // Whatever a test makes of the 400, dropping the server panics.
    let client = reqwest::Client::new();
    let answer = client
        .post(format!("{}/v1/chat/completions", server.uri()))
        .body(r#"{"model": "m", "messages": "hi"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 400);
    assert!(answer.text().await.unwrap().contains("/messages"));
}

#[test]
#[should_panic(expected = "a request body broke OpenAI's spec")]
fn a_recorder_fails_the_test_on_a_bad_body() {
    let recorder = Recorder::default();
    recorder.record("/v1/models", &Value::Null);
    recorder.record("/v1/responses", &responses(json!({})));
    recorder.assert_clean();
    recorder.record("/v1/responses", &json!({"model": "m", "input": 5}));
    recorder.assert_clean();
}

#[test]
fn split_request_waits_for_the_whole_body() {
    let full = b"POST /v1/responses HTTP/1.1\r\nContent-Length: 4\r\nHost: x\r\n\r\nnull";
    assert_eq!(openai_spec::split_request(&full[..full.len() - 1]), None);
    let (path, body) = openai_spec::split_request(full).unwrap();
    assert_eq!((path.as_str(), body), ("/v1/responses", &b"null"[..]));
}
