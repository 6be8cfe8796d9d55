//! Lifecycle: lazy and parallel starts, startup and call timeouts,
//! cancellation, `tools/list_changed`, servers that crash, and cleanup.

use std::time::{Duration, Instant};

use oy_mcp::ServerStatus;
use oy_tools::CallStatus;
use serde_json::json;

use crate::support::{BASIC, Env, assert_ready, assert_tool_error};

async fn cancelled_count(env: &Env) -> String {
    env.call("mcp__t__cancelled_count", json!({})).await.text
}

async fn eventually_cancelled(env: &Env) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while cancelled_count(env).await != "1" {
        assert!(
            Instant::now() < deadline,
            "the server never saw the cancellation"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_past_its_timeout_ends_and_the_server_is_told_to_cancel() {
    let env = Env::new("[mcp_servers.t]\ncommand = \"{bin}\"\ntool_timeout = 0.3\n");
    env.refresh().await;
    let started = Instant::now();
    let out = env.call("mcp__t__slow", json!({"ms": 20_000})).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(out.status, CallStatus::TimedOut);
    assert_tool_error(&out, "did not answer within 0.3 s");
    eventually_cancelled(&env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cancellation_reaches_an_inflight_call() {
    let env = Env::new(BASIC);
    env.refresh().await;
    let token = env.ctx.cancel_token().clone();
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        token.cancel();
    });
    let started = Instant::now();
    let out = env.call("mcp__t__slow", json!({"ms": 20_000})).await;
    canceller.await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(out.status, CallStatus::Cancelled);
    assert_tool_error(&out, "was cancelled");
    env.ctx.cancel_token().reset();
    eventually_cancelled(&env).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn list_changed_updates_the_offered_tools_at_the_next_refresh() {
    let env = Env::new(BASIC);
    env.refresh().await;
    assert!(!env.offered().iter().any(|name| name == "mcp__t__fresh"));
    let out = env.call("mcp__t__add_tool", json!({"name": "fresh"})).await;
    assert_eq!(out.text, "added");
    env.refresh_until("the new tool is offered", |env| {
        env.offered().iter().any(|name| name == "mcp__t__fresh")
    })
    .await;
    let fresh = env.call("mcp__t__fresh", json!({"text": "new"})).await;
    assert_eq!(fresh.text, "new");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_crashes_at_start_is_reported_once_and_left_out() {
    let env = Env::new(
        "[mcp_servers.bad]\ncommand = \"{bin}\"\nargs = [\"--exit-at-start\"]\n[mcp_servers.t]\ncommand = \"{bin}\"\n",
    );
    env.refresh().await;
    env.refresh().await;
    let notices = env.notices();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0].server, "bad");
    assert!(
        notices[0].message.contains("its tools are left out"),
        "{notices:?}"
    );
    assert!(matches!(env.report("bad").status, ServerStatus::Failed(_)));
    assert!(
        !env.offered()
            .iter()
            .any(|name| name.starts_with("mcp__bad__"))
    );
    assert_ready(&env.report("t"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_slow_server_is_cut_at_its_startup_timeout_while_others_start() {
    let env = Env::new(
        "[mcp_servers.slow]\ncommand = \"{bin}\"\nargs = [\"--hang-at-start\"]\nstartup_timeout = 0.5\n[mcp_servers.t]\ncommand = \"{bin}\"\n",
    );
    let started = Instant::now();
    env.refresh().await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(
        matches!(env.report("slow").status, ServerStatus::Failed(ref why) if why.contains("within 0.5 s")),
        "{:?}",
        env.report("slow")
    );
    assert_ready(&env.report("t"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_dies_later_is_reported_and_its_tools_removed() {
    let env = Env::new(BASIC);
    env.refresh().await;
    let out = env.call("mcp__t__exit", json!({})).await;
    assert!(!out.ok, "{}", out.text);
    env.refresh_until("the server's failure is noticed", |env| {
        matches!(env.report("t").status, ServerStatus::Failed(_))
    })
    .await;
    assert!(env.offered().is_empty(), "{:?}", env.offered());
    assert_eq!(env.notices().len(), 1, "{:?}", env.notices());
    let gone = env.call("mcp__t__echo", json!({"text": "x"})).await;
    assert_tool_error(&gone, "unknown tool");
}

#[tokio::test(flavor = "multi_thread")]
async fn disabled_servers_never_start_and_dropping_the_tools_stops_the_rest() {
    let env = Env::new(
        "[mcp_servers.off]\ncommand = \"{bin}\"\nenabled = false\n[mcp_servers.t]\ncommand = \"{bin}\"\n",
    );
    env.refresh().await;
    assert_eq!(env.report("off").status, ServerStatus::Disabled);
    let pid: u32 = env
        .call("mcp__t__pid", json!({}))
        .await
        .text
        .parse()
        .unwrap();
    let proc = format!("/proc/{pid}");
    assert!(std::path::Path::new(&proc).exists());
    drop(env);
    let deadline = Instant::now() + Duration::from_secs(5);
    while std::path::Path::new(&proc).exists() {
        assert!(Instant::now() < deadline, "the server outlived its session");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_listing_too_many_tools_is_left_out_and_said() {
    let many: Vec<String> = (0..300)
        .flat_map(|i| ["\"--extra-tool\"".to_owned(), format!("\"tool{i}\"")])
        .collect();
    let env = Env::new(&format!(
        "[mcp_servers.many]\ncommand = \"{{bin}}\"\nargs = [{}]\n[mcp_servers.t]\ncommand = \"{{bin}}\"\n",
        many.join(", ")
    ));
    env.refresh().await;
    let notices = env.notices();
    assert!(
        notices
            .iter()
            .any(|notice| notice.server == "many" && notice.message.contains("more than 256 tools")),
        "{notices:?}"
    );
    assert!(
        !env.offered()
            .iter()
            .any(|name| name.starts_with("mcp__many__"))
    );
    assert_ready(&env.report("t"));
}
