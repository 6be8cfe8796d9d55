//! A stdio server runs under the process sandbox, as a `bash` call would:
//! files outside the workspace are out of reach, and the network is off
//! unless the policy or the server's config allows it. Skipped, saying
//! why, only where the kernel lacks the full sandbox.

use std::sync::Arc;

use oy_tools::{Mode, Network, Sandbox, SandboxInputs, SandboxSetting};
use serde_json::json;

use crate::support::{Env, Setup, server_bin};

fn sandbox(temp: &std::path::Path) -> Arc<Sandbox> {
    Arc::new(Sandbox::resolve(SandboxInputs {
        setting: SandboxSetting::On,
        launcher: Some(server_bin().into()),
        // The server's own program must be readable (as with
        // `sandbox_read` for a server installed somewhere unusual).
        extra_read: vec![
            std::path::Path::new(&server_bin())
                .parent()
                .unwrap()
                .to_path_buf(),
        ],
        temp_base: temp.to_path_buf(),
        ..SandboxInputs::default()
    }))
}

#[expect(
    clippy::print_stdout,
    reason = "a test skipped for the kernel says why"
)]
fn full(sandbox: &Sandbox) -> bool {
    let missing = sandbox.missing();
    if !missing.is_empty() {
        println!("skipped: the kernel does not offer the full sandbox: {missing:?}");
    }
    missing.is_empty()
}

fn confined(toml: &str, temp: &tempfile::TempDir) -> Option<Env> {
    let sandbox = sandbox(temp.path());
    if !full(&sandbox) {
        return None;
    }
    Some(Env::with(
        toml,
        Setup {
            mode: Mode::AutoApprove,
            sandbox: Some(sandbox),
            ..Setup::default()
        },
    ))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stdio_server_cannot_read_or_write_outside_the_workspace() {
    let temp = tempfile::tempdir().unwrap();
    let Some(env) = confined("[mcp_servers.t]\ncommand = \"{bin}\"\n", &temp) else {
        return;
    };
    env.ctx.set_policy(oy_tools::Policy {
        network: Network::Deny,
        ..env.ctx.policy()
    });
    env.refresh().await;
    assert!(env.notices().is_empty(), "{:?}", env.notices());
    std::fs::write(env.root.join("inside.txt"), "INSIDE\n").unwrap();
    let inside = env
        .call(
            "mcp__t__read_file",
            json!({"path": env.root.join("inside.txt")}),
        )
        .await;
    assert_eq!(inside.text, "INSIDE\n");
    let secret = env.outside.join("secret.txt");
    let outside = env.call("mcp__t__read_file", json!({"path": secret})).await;
    assert!(
        !outside.ok && outside.text.contains("ermission denied"),
        "{}",
        outside.text
    );
    let planted = env.outside.join("planted.txt");
    let write = env
        .call("mcp__t__write_file", json!({"path": planted, "text": "x"}))
        .await;
    assert!(!write.ok, "{}", write.text);
    assert!(!planted.exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_network_is_off_unless_the_policy_or_the_config_grants_it() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let temp = tempfile::tempdir().unwrap();
    let Some(env) = confined(
        "[mcp_servers.off]\ncommand = \"{bin}\"\n[mcp_servers.on]\ncommand = \"{bin}\"\nnetwork = true\n",
        &temp,
    ) else {
        return;
    };
    // auto-approve's default network is `allow`; the denied case first.
    env.ctx.set_policy(oy_tools::Policy {
        network: Network::Deny,
        ..env.ctx.policy()
    });
    env.refresh().await;
    let denied = env.call("mcp__off__connect", json!({"addr": addr})).await;
    assert!(!denied.ok, "{}", denied.text);
    assert!(denied.text.contains("cannot connect"), "{}", denied.text);
    let granted = env.call("mcp__on__connect", json!({"addr": addr})).await;
    assert_eq!(granted.text, "connected");
}
