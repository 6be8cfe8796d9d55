//! Approval: an MCP call is a process-class effect unless the config says
//! it only reads; the server's `readOnlyHint` never lowers it.

use oy_mcp::ServerStatus;
use oy_tools::{Answer, Effect, Mode, Preview};
use serde_json::json;

use crate::support::{BASIC, Env, Setup, assert_tool_error};

fn in_mode(toml: &str, mode: Mode, answer: Option<Answer>) -> Env {
    Env::with(
        toml,
        Setup {
            mode,
            answer,
            ..Setup::default()
        },
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn plan_mode_starts_no_server_whose_tools_it_would_not_offer() {
    let env = in_mode(BASIC, Mode::Plan, None);
    env.refresh().await;
    assert_eq!(env.report("t").status, ServerStatus::NotStarted);
    assert!(env.offered().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_the_config_marks_read_only_is_offered_in_plan_mode_and_a_hint_is_not_enough() {
    let env = in_mode(
        "[mcp_servers.t]\ncommand = \"{bin}\"\nread_only_tools = [\"echo\"]\n",
        Mode::Plan,
        None,
    );
    env.refresh().await;
    // `add` carries readOnlyHint from the server: not offered all the same.
    assert_eq!(env.offered(), vec!["mcp__t__echo".to_owned()]);
    let out = env.call("mcp__t__echo", json!({"text": "read"})).await;
    assert_eq!(out.text, "read");
    let refused = env.call("mcp__t__add", json!({"a": 1, "b": 2})).await;
    assert_tool_error(&refused, "is not available");
}

#[tokio::test(flavor = "multi_thread")]
async fn default_mode_asks_with_the_server_the_tool_and_the_exact_arguments() {
    let env = in_mode(BASIC, Mode::Default, Some(Answer::Approve));
    env.refresh().await;
    let out = env
        .call("mcp__t__echo", json!({"text": "héllo \"x\""}))
        .await;
    assert_eq!(out.text, "héllo \"x\"");
    let requests = env.approvals.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.tool, "mcp__t__echo");
    assert_eq!(request.effect, Effect::Process);
    let Preview::Command(preview) = &request.preview else {
        panic!("{:?}", request.preview);
    };
    assert!(preview.contains("MCP server `t`"), "{preview}");
    assert!(preview.contains("tool `echo`"), "{preview}");
    assert!(preview.contains(r#""text": "héllo \"x\"""#), "{preview}");
    assert!(env.ctx.ledger().side_effect_attempted());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_approval_never_reaches_the_server() {
    let env = in_mode(BASIC, Mode::AcceptEdits, Some(Answer::Deny));
    env.refresh().await;
    let target = env.root.join("made.txt");
    let out = env
        .call(
            "mcp__t__write_file",
            json!({"path": target.display().to_string(), "text": "x"}),
        )
        .await;
    assert_tool_error(&out, "denied");
    assert!(!target.exists());
    assert_eq!(env.approvals.requests.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_person_the_call_is_refused_with_the_flag_that_allows_it() {
    let env = in_mode(BASIC, Mode::Default, None);
    env.refresh().await;
    let out = env.call("mcp__t__echo", json!({"text": "x"})).await;
    assert_tool_error(&out, "no one to ask");
    assert!(out.text.contains("the auto-approve mode"), "{}", out.text);
}

#[tokio::test(flavor = "multi_thread")]
async fn auto_approve_calls_without_asking_and_a_read_only_server_needs_no_approval() {
    let env = in_mode(BASIC, Mode::AutoApprove, Some(Answer::Deny));
    env.refresh().await;
    assert_eq!(
        env.call("mcp__t__echo", json!({"text": "a"})).await.text,
        "a"
    );
    assert!(env.approvals.requests.lock().unwrap().is_empty());
    let reader = in_mode(
        "[mcp_servers.t]\ncommand = \"{bin}\"\nread_only = true\n",
        Mode::Default,
        Some(Answer::Deny),
    );
    reader.refresh().await;
    assert_eq!(
        reader.call("mcp__t__echo", json!({"text": "b"})).await.text,
        "b"
    );
    assert!(reader.approvals.requests.lock().unwrap().is_empty());
    assert!(!reader.ctx.ledger().side_effect_attempted());
}
