//! Streamable HTTP on 127.0.0.1: listing, calls, a bearer token read from
//! a named variable (through the frontend's lookup), an unreachable server.

use oy_mcp::ServerStatus;
use oy_mcp::test_server::{Options, TestServer};
use serde_json::json;

use crate::support::{Env, Setup, assert_ready};

async fn http_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(TestServer::new(Options::default()).serve_http(listener));
    format!("http://{addr}/mcp")
}

#[tokio::test(flavor = "multi_thread")]
async fn lists_and_calls_over_http_with_a_token_from_a_named_variable() {
    let url = http_server().await;
    let env = Env::with(
        &format!("[mcp_servers.web]\nurl = \"{url}\"\nbearer_token_env_var = \"WEB_TOKEN\"\n"),
        Setup {
            lookup: |name| (name == "WEB_TOKEN").then(|| "s3cret-value".to_owned()),
            ..Setup::default()
        },
    );
    env.refresh().await;
    assert_ready(&env.report("web"));
    assert_eq!(
        env.call("mcp__web__echo", json!({"text": "over http"}))
            .await
            .text,
        "over http"
    );
    let auth = env.call("mcp__web__last_authorization", json!({})).await;
    assert_eq!(auth.text, "Bearer s3cret-value");
    assert!(!format!("{:?}", env.mcp).contains("s3cret"));
    let out = env
        .call("mcp__web__add_tool", json!({"name": "later"}))
        .await;
    assert_eq!(out.text, "added");
    env.refresh_until("list_changed over HTTP", |env| {
        env.offered().iter().any(|name| name == "mcp__web__later")
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_http_server_is_reported_and_left_out() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let env = Env::new(&format!(
        "[mcp_servers.web]\nurl = \"http://{addr}/mcp\"\nstartup_timeout = 3\n"
    ));
    env.refresh().await;
    assert!(matches!(env.report("web").status, ServerStatus::Failed(_)));
    assert_eq!(env.notices().len(), 1);
    assert!(env.offered().is_empty());
}
