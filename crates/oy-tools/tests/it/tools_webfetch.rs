//! `webfetch` against local servers on 127.0.0.1: every refused form gets
//! no connection (and no lookup when none is needed), redirects, and the
//! network policy. Allowed fetches go through the explicit test hook;
//! what the model sees of a response is in `content`.

mod content;
mod server;

use std::net::SocketAddr;
use std::sync::Arc;

use oy_boundary::Workspace;
use oy_tools::tools::{Resolve, WebFetchTool};
use oy_tools::{Answer, Mode, Network, Policy, Preview, Registry, ToolContext, ToolOutput};
use serde_json::{Value, json};

use crate::support::{Env, assert_tool_error};
use content::PAGE;
use server::{MapResolver, Server, html, response};

/// `env` with a registry holding only `tool`.
fn with_tool(mut env: Env, tool: WebFetchTool) -> Env {
    env.registry = Registry::new(vec![Box::new(tool)]);
    env
}

/// A production-configured tool (no hook) with `resolver`.
fn production(resolver: Arc<MapResolver>) -> WebFetchTool {
    WebFetchTool::with_resolver(resolver as Arc<dyn Resolve>)
}

/// A tool for which exactly `allowed` count as public.
fn hooked(resolver: Arc<MapResolver>, allowed: &[SocketAddr]) -> WebFetchTool {
    production(resolver).allow_socket_addrs_for_tests(allowed.to_vec())
}

fn fetch(env: &Env, args: Value) -> ToolOutput {
    env.call("webfetch", args)
}

fn scrape(output: &ToolOutput) -> Value {
    assert!(output.ok, "expected a result, got: {}", output.text);
    serde_json::from_str(&output.text).unwrap()
}

fn content(output: &ToolOutput) -> String {
    scrape(output)["content"].as_str().unwrap().to_owned()
}

#[test]
fn refuses_loopback_in_every_spelling_without_connecting_or_resolving() {
    let server = Server::always(|| html("<p>reached</p>"));
    let resolver = MapResolver::new(&[]);
    let env = with_tool(Env::new(Mode::AutoApprove), production(resolver.clone()));
    let port = server.port();
    for host in [
        "127.0.0.1",
        "2130706433",
        "0x7f.1",
        "017700000001",
        "127.1",
        "0x7f000001",
        "127.0.0.1.",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "[::ffff:7f00:1]",
        "[::127.0.0.1]",
        "0.0.0.0",
        "0",
        "localhost",
        "localhost.",
        "LocalHost",
        "foo.localhost",
    ] {
        let output = fetch(&env, json!({"url": format!("http://{host}:{port}/")}));
        assert_tool_error(&output, "refused");
        assert!(output.text.contains("public"), "{host}: {}", output.text);
    }
    // The normalised address is what was checked and what the error names.
    let output = fetch(&env, json!({"url": format!("http://0x7f.1:{port}/")}));
    assert_tool_error(&output, "127.0.0.1 is a loopback address");
    assert_eq!(server.connections(), 0);
    assert_eq!(resolver.lookups(), 0);
}

#[test]
fn refuses_names_that_resolve_to_any_non_public_address() {
    let server = Server::always(|| html("<p>reached</p>"));
    let resolver = MapResolver::new(&[
        ("internal.test", &["127.0.0.1"]),
        ("mixed.test", &["93.184.215.14", "127.0.0.1"]),
        ("mapped.test", &["::ffff:127.0.0.1"]),
        ("metadata.test", &["169.254.169.254"]),
        ("nat64.test", &["64:ff9b::7f00:1"]),
    ]);
    let env = with_tool(Env::new(Mode::AutoApprove), production(resolver.clone()));
    let port = server.port();
    for (name, needle) in [
        (
            "internal.test",
            "resolves to 127.0.0.1, which is a loopback address",
        ),
        ("mixed.test", "resolves to 127.0.0.1"),
        ("mapped.test", "an IPv6 form of 127.0.0.1"),
        ("metadata.test", "cloud metadata"),
        ("nat64.test", "NAT64"),
    ] {
        let output = fetch(&env, json!({"url": format!("http://{name}:{port}/")}));
        assert_tool_error(&output, needle);
    }
    assert_eq!(resolver.lookups(), 5);
    assert_eq!(server.connections(), 0);
}

#[test]
fn refuses_metadata_private_and_special_literals() {
    let env = with_tool(
        Env::new(Mode::AutoApprove),
        production(MapResolver::new(&[])),
    );
    for (url, needle) in [
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
        ("http://[fd00:ec2::254]/", "cloud metadata"),
        ("http://100.100.100.200/", "cloud metadata"),
        ("http://168.63.129.16/", "cloud metadata"),
        ("http://10.0.0.1/", "private"),
        ("http://192.168.1.1:8080/", "private"),
        ("http://100.64.0.1/", "carrier-grade NAT"),
        ("http://[fc00::1]/", "unique-local"),
        ("http://[fe80::1]/", "link-local"),
        ("http://224.0.0.1/", "multicast"),
        ("http://255.255.255.255/", "broadcast"),
        ("http://192.0.2.1/", "documentation"),
        ("http://[2001:db8::1]/", "documentation"),
        ("http://198.18.0.1/", "benchmarking"),
        ("http://[2002:7f00:1::]/", "6to4"),
        ("http://[2001::1]/", "Teredo"),
        ("http://[64:ff9b:1::1]/", "NAT64"),
    ] {
        assert_tool_error(&fetch(&env, json!({ "url": url })), needle);
    }
}

#[test]
fn refuses_userinfo_and_non_http_schemes() {
    let server = Server::always(|| html("<p>reached</p>"));
    let resolver = MapResolver::new(&[("public.test", &["93.184.215.14"])]);
    let allowed = [server.addr];
    let env = with_tool(
        Env::new(Mode::AutoApprove),
        hooked(resolver.clone(), &allowed),
    );
    let port = server.port();
    for (url, needle) in [
        (
            format!("http://user:pw@127.0.0.1:{port}/"),
            "user name or password",
        ),
        (
            format!("http://user@127.0.0.1:{port}/"),
            "user name or password",
        ),
        (
            "https://user:pw@public.test/".to_owned(),
            "user name or password",
        ),
        ("file:///etc/passwd".to_owned(), "`file:` scheme"),
        ("ftp://public.test/".to_owned(), "`ftp:` scheme"),
        ("data:text/html,hi".to_owned(), "`data:` scheme"),
        ("javascript:alert(1)".to_owned(), "`javascript:` scheme"),
        ("not a url".to_owned(), "not a valid URL"),
    ] {
        assert_tool_error(&fetch(&env, json!({ "url": url })), needle);
    }
    assert_eq!(server.connections(), 0);
    assert_eq!(resolver.lookups(), 0);
}

#[test]
fn refuses_redirects_to_loopback_without_connecting_to_them() {
    let target = Server::always(|| html("<p>SECRET</p>"));
    let t = target.port();
    let resolver = MapResolver::new(&[("internal.test", &["127.0.0.1"])]);
    let locations = [
        format!("http://127.0.0.1:{t}/secret"),
        format!("http://0x7f.1:{t}/secret"),
        format!("http://[::1]:{t}/secret"),
        format!("http://localhost:{t}/secret"),
        format!("http://internal.test:{t}/secret"),
        "file:///etc/passwd".to_owned(),
        format!("http://user:pw@127.0.0.1:{t}/"),
    ];
    let redirector = {
        let locations = locations.clone();
        Server::start(move |head| {
            let index: usize = head
                .split_whitespace()
                .nth(1)
                .and_then(|path| path.trim_start_matches('/').parse().ok())
                .unwrap_or(0);
            response("302 Found", &[("Location", &locations[index])], b"")
        })
    };
    let env = with_tool(
        Env::new(Mode::AutoApprove),
        hooked(resolver.clone(), &[redirector.addr]),
    );
    for index in 0..locations.len() {
        let output = fetch(&env, json!({"url": redirector.url(&format!("/{index}"))}));
        assert_tool_error(&output, "redirect refused");
    }
    assert_eq!(redirector.connections(), locations.len());
    assert_eq!(target.connections(), 0);
    assert_eq!(resolver.lookups(), 1);
}

#[test]
fn follows_allowed_redirects_and_keeps_the_cookie_on_its_origin() {
    let other = Server::always(|| html("<p>landed elsewhere</p>"));
    let other_url = other.url("/landing");
    let first = Server::start(move |head| {
        if head.starts_with("GET /start ") {
            response("301 Moved", &[("Location", "/next")], b"")
        } else if head.starts_with("GET /next ") {
            response("307 Temporary", &[("Location", &other_url)], b"")
        } else {
            html("<p>unexpected</p>")
        }
    });
    let env = with_tool(
        Env::new(Mode::AutoApprove),
        hooked(MapResolver::new(&[]), &[first.addr, other.addr]),
    );
    let output = fetch(
        &env,
        json!({"url": first.url("/start"), "cookie": "session=abc", "user_agent": "TestAgent/1.0"}),
    );
    let result = scrape(&output);
    assert_eq!(result["url"], other.url("/landing"));
    assert_eq!(result["status"], 200);
    assert!(content(&output).contains("landed elsewhere"));
    let first_requests = first.requests();
    assert_eq!(first_requests.len(), 2);
    for head in &first_requests {
        assert!(
            head.to_ascii_lowercase().contains("cookie: session=abc"),
            "{head}"
        );
        assert!(
            head.to_ascii_lowercase()
                .contains("user-agent: testagent/1.0"),
            "{head}"
        );
    }
    let other_requests = other.requests();
    assert_eq!(other_requests.len(), 1);
    assert!(
        !other_requests[0].to_ascii_lowercase().contains("cookie"),
        "{other_requests:?}"
    );
}

#[test]
fn stops_after_five_redirects() {
    let looping = Server::always(|| response("302 Found", &[("Location", "/again")], b""));
    let env = with_tool(
        Env::new(Mode::AutoApprove),
        hooked(MapResolver::new(&[]), &[looping.addr]),
    );
    assert_tool_error(
        &fetch(&env, json!({"url": looping.url("/")})),
        "more than 5 redirects",
    );
    assert_eq!(looping.connections(), 6);
}

#[test]
fn refuses_header_values_with_line_breaks() {
    let env = with_tool(
        Env::new(Mode::AutoApprove),
        production(MapResolver::new(&[])),
    );
    let output = fetch(
        &env,
        json!({"url": "https://example.org/", "user_agent": "a\r\nX-Evil: 1"}),
    );
    assert_tool_error(&output, "`user_agent` must be one line");
    let output = fetch(
        &env,
        json!({"url": "https://example.org/", "cookie": "a=1\nb=2"}),
    );
    assert_tool_error(&output, "`cookie` must be one line");
}

#[test]
fn is_not_offered_when_the_network_is_denied_or_in_plan_mode() {
    let server = Server::always(|| html("<p>reached</p>"));
    let resolver = MapResolver::new(&[]);
    let tool = || hooked(resolver.clone(), &[server.addr]);
    let plan = with_tool(Env::new(Mode::Plan), tool());
    assert!(plan.registry.specs(&plan.ctx).is_empty());
    assert_tool_error(
        &fetch(&plan, json!({"url": server.url("/")})),
        "not available",
    );
    let mut denied = with_tool(Env::interactive(Mode::AutoApprove, Answer::Approve), tool());
    let workspace = Arc::new(Workspace::open(&denied.root).unwrap());
    let policy = Policy {
        network: Network::Deny,
        ..Policy::new(Mode::AutoApprove, true)
    };
    denied.ctx = ToolContext::new(workspace, policy);
    assert!(denied.registry.specs(&denied.ctx).is_empty());
    assert_tool_error(
        &fetch(&denied, json!({"url": server.url("/")})),
        "not available",
    );
    assert_eq!(server.connections(), 0);
    assert_eq!(resolver.lookups(), 0);
}

#[test]
fn asks_in_default_mode_and_is_denied_without_a_user() {
    let server = Server::always(|| html("<p>reached</p>"));
    let resolver = MapResolver::new(&[("docs.test", &["127.0.0.1"])]);
    let tool = || hooked(resolver.clone(), &[server.addr]);
    let url = format!("http://docs.test:{}/", server.port());
    let quiet = with_tool(Env::new(Mode::Default), tool());
    assert_eq!(quiet.registry.specs(&quiet.ctx).len(), 1);
    assert_tool_error(&fetch(&quiet, json!({ "url": url })), "network: allow");
    let declined = with_tool(Env::interactive(Mode::Default, Answer::Deny), tool());
    assert_tool_error(&fetch(&declined, json!({ "url": url })), "declined");
    // No lookup (a DNS query can carry data out) and no connection before approval.
    assert_eq!(resolver.lookups(), 0);
    assert_eq!(server.connections(), 0);
    let approved = with_tool(Env::interactive(Mode::Default, Answer::Approve), tool());
    let output = fetch(&approved, json!({ "url": url }));
    assert!(content(&output).contains("reached"));
    let requests = approved.events.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].preview,
        Preview::Summary(format!("fetch {url}"))
    );
    assert_eq!(server.connections(), 1);
}

#[test]
fn is_in_the_default_registry_with_the_documented_schema() {
    let env = Env::new(Mode::AutoApprove);
    let spec = env
        .registry
        .all_specs()
        .into_iter()
        .find(|spec| spec.name == "webfetch")
        .expect("webfetch is registered");
    let props = &spec.parameters["properties"];
    assert_eq!(spec.parameters["required"], json!(["url"]));
    assert_eq!(props["return_format"]["default"], "markdown");
    assert_eq!(
        props["return_format"]["enum"],
        json!(["markdown", "text", "raw"])
    );
    assert_eq!(props["max_length"]["default"], 8000);
    assert_eq!(props["max_length"]["maximum"], 65536);
    assert!(
        spec.parameters.to_string().len() < 500,
        "{}",
        spec.parameters
    );
    for field in ["user_agent", "cookie"] {
        assert_eq!(props[field]["type"], "string", "{field}");
    }
}

/// A socket address on 127.0.0.1 with nothing listening (bound, then closed).
fn free_port() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}

#[test]
fn snapshot_fetched_page() {
    let server = Server::always(|| html(PAGE));
    let resolver = MapResolver::new(&[("docs.example.test", &["127.0.0.1"])]);
    let env = with_tool(
        Env::new(Mode::AutoApprove),
        hooked(resolver, &[server.addr]),
    );
    let port = server.port().to_string();
    let url = format!("http://docs.example.test:{port}/guide");
    let markdown = fetch(&env, json!({ "url": url })).text;
    let text = fetch(
        &env,
        json!({"url": url, "return_format": "text", "max_length": 40}),
    )
    .text;
    insta::assert_snapshot!(format!("{markdown}\n---\n{text}").replace(&port, "PORT"));
}
