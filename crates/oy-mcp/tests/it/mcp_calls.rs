//! Listing and calling: names, schemas, results of every kind, errors.

use oy_mcp::ServerStatus;
use serde_json::json;

use crate::support::{BASIC, Env, assert_ready, assert_tool_error};

#[tokio::test(flavor = "multi_thread")]
async fn lists_and_calls_the_tools_of_a_stdio_server() {
    let env = Env::new(BASIC);
    assert_eq!(env.report("t").status, ServerStatus::NotStarted);
    env.refresh().await;
    assert_ready(&env.report("t"));
    let offered = env.offered();
    for name in [
        "mcp__t__echo",
        "mcp__t__add",
        "mcp__t__slow",
        "mcp__t__add_tool",
    ] {
        assert!(
            offered.iter().any(|o| o == name),
            "{name} not in {offered:?}"
        );
    }
    let echo = env.registry.get("mcp__t__echo").unwrap();
    let spec = echo.spec();
    assert_eq!(spec.description, "Says the text back.");
    assert_eq!(spec.parameters["type"], "object");
    assert_eq!(spec.parameters["required"], json!(["text"]));
    let out = env.call("mcp__t__echo", json!({"text": "hello"})).await;
    assert!(out.ok, "{}", out.text);
    assert_eq!(out.text, "hello");
    let sum = env.call("mcp__t__add", json!({"a": 2, "b": 3})).await;
    assert_eq!(sum.text, "{\"sum\":5.0}");
    let report = env.report("t");
    assert!(report.request_bytes() > 500, "{}", report.request_bytes());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_error_result_becomes_a_tool_error_with_a_recovery_line() {
    let env = Env::new(BASIC);
    env.refresh().await;
    let out = env.call("mcp__t__fail", json!({})).await;
    assert_tool_error(&out, "this tool always fails");
    let not_object = env.call("mcp__t__echo", json!(["x"])).await;
    assert_tool_error(&not_object, "expected a JSON object");
}

#[tokio::test(flavor = "multi_thread")]
async fn images_become_a_placeholder_and_outputs_are_capped() {
    let env = Env::new(BASIC);
    env.refresh().await;
    let image = env.call("mcp__t__image", json!({})).await;
    assert_eq!(image.text, "[image image/png: 8 bytes, not shown]");
    let long = "line\n".repeat(20_000);
    let capped = env.call("mcp__t__echo", json!({"text": long})).await;
    assert!(capped.truncated, "not capped");
    assert!(
        capped.text.contains("[truncated:"),
        "{}",
        &capped.text[..200]
    );
    assert!(capped.text.len() < long.len());
}

#[tokio::test(flavor = "multi_thread")]
async fn colliding_names_are_refused_with_a_message_and_the_first_kept() {
    let env = Env::new(
        "[mcp_servers.t]\ncommand = \"{bin}\"\nargs = [\"--extra-tool\", \"a.b\", \"--extra-tool\", \"a_b\"]\n",
    );
    env.refresh().await;
    let offered = env.offered();
    assert_eq!(
        offered.iter().filter(|name| *name == "mcp__t__a_b").count(),
        1
    );
    let notices = env.notices();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0]
            .message
            .contains("a_b: its name `mcp__t__a_b` is already taken"),
        "{notices:?}"
    );
    assert_eq!(env.report("t").left_out.len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn two_servers_can_offer_tools_of_one_name() {
    let env = Env::new(
        "[mcp_servers.a]\ncommand = \"{bin}\"\n[mcp_servers.b]\ncommand = \"{bin}\"\nenabled_tools = [\"echo\"]\n",
    );
    env.refresh().await;
    let offered = env.offered();
    assert!(
        offered.iter().any(|name| name == "mcp__a__echo"),
        "{offered:?}"
    );
    assert!(
        offered.iter().any(|name| name == "mcp__b__echo"),
        "{offered:?}"
    );
    assert!(
        !offered.iter().any(|name| name == "mcp__b__add"),
        "{offered:?}"
    );
    let out = env.call("mcp__b__echo", json!({"text": "from b"})).await;
    assert_eq!(out.text, "from b");
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_tool_names_are_sanitised_and_descriptions_kept_as_data() {
    let env = Env::new("[mcp_servers.t]\ncommand = \"{bin}\"\nargs = [\"--hostile\"]\n");
    env.refresh().await;
    let evil: Vec<String> = env
        .offered()
        .into_iter()
        .filter(|name| name.contains("evil"))
        .collect();
    assert_eq!(evil.len(), 1, "{evil:?}");
    assert!(
        evil[0]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
        "{evil:?}"
    );
    assert!(evil[0].len() <= oy_mcp::MAX_TOOL_NAME);
    // The description reaches the model as the server wrote it; every
    // frontend makes it terminal-safe before showing it.
    let report = env.report("t");
    let tool = report
        .tools
        .iter()
        .find(|tool| tool.name == evil[0])
        .unwrap();
    assert!(tool.original.contains('\u{1b}'));
    assert!(!tool.read_only, "readOnlyHint alone lowered the effect");
}

#[tokio::test(flavor = "multi_thread")]
async fn explicit_env_reaches_the_server_and_filtered_secrets_do_not() {
    let child_env = oy_tools::ChildEnv::filtered(
        [
            ("PATH".into(), "/usr/bin:/bin".into()),
            (
                "GITHUB_TOKEN".into(),
                "ghp_abcdefghijklmnopqrstuvwxyz0123456789".into(),
            ),
            (
                "AWS_SECRET_ACCESS_KEY".into(),
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into(),
            ),
        ],
        &[],
    );
    let env = Env::with(
        "[mcp_servers.t]\ncommand = \"{bin}\"\nenv = { MY_SETTING = \"on\" }\nenv_vars = [\"GITHUB_TOKEN\"]\n",
        crate::support::Setup {
            child_env: Some(child_env),
            lookup: |name| (name == "GITHUB_TOKEN").then(|| "ghp_from_lookup".to_owned()),
            ..Default::default()
        },
    );
    env.refresh().await;
    let get = |name: &'static str| env.call("mcp__t__env", json!({ "name": name }));
    assert_eq!(get("MY_SETTING").await.text, "on");
    assert_eq!(get("GITHUB_TOKEN").await.text, "ghp_from_lookup");
    assert_eq!(get("AWS_SECRET_ACCESS_KEY").await.text, "(unset)");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_variable_stops_only_its_server() {
    let env = Env::new(
        "[mcp_servers.t]\ncommand = \"{bin}\"\nenv_vars = [\"NOT_SET_ANYWHERE\"]\n[mcp_servers.u]\ncommand = \"{bin}\"\n",
    );
    env.refresh().await;
    assert!(
        matches!(env.report("t").status, ServerStatus::Failed(ref why) if why.contains("NOT_SET_ANYWHERE"))
    );
    assert_ready(&env.report("u"));
}
