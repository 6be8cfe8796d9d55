//! MCP servers end to end: `oy mcp list`/`tools`, `oy tools`, `oy doctor`,
//! `/mcp`, and runs whose model calls an MCP tool — against the rmcp test
//! server over streamable HTTP on 127.0.0.1 (in this process), and the
//! official reference server `@modelcontextprotocol/server-everything`
//! over stdio when node and the package are present.

use std::path::PathBuf;

use oy_mcp::test_server::{Options, TestServer};
use serde_json::{Value, json};

use crate::cli_chat::chat;
use crate::mock_model::{self, Wire, call, text, tool_names, tool_outputs};
use crate::support::{Oy, assert_terminal_safe};

/// The test server on 127.0.0.1, running as long as the value (its
/// runtime) lives.
struct Server {
    _runtime: tokio::runtime::Runtime,
    server: TestServer,
    url: String,
}

impl Server {
    fn start(options: Options) -> Self {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let server = TestServer::new(options);
        runtime.spawn(server.clone().serve_http(listener));
        Self {
            _runtime: runtime,
            server,
            url,
        }
    }

    fn config(&self) -> String {
        format!("[mcp_servers.web]\nurl = \"{}\"\n", self.url)
    }
}

#[test]
fn oy_mcp_list_shows_each_server_its_tools_and_what_they_cost() {
    let server = Server::start(Options::default());
    let oy = Oy::new();
    oy.global_config(&format!(
        "{}[mcp_servers.dead]\nurl = \"http://127.0.0.1:9/mcp\"\nstartup_timeout = 2\n[mcp_servers.off]\ncommand = \"x\"\nenabled = false\n",
        server.config()
    ));
    let list = oy.run(&["mcp", "list"]);
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert!(
        list.stdout
            .contains(&format!("web (global, http: {}) — ready, ", server.url)),
        "{}",
        list.stdout
    );
    assert!(
        list.stdout.contains("tools: echo, add, fail"),
        "{}",
        list.stdout
    );
    assert!(list.stdout.contains("bytes (~"), "{}", list.stdout);
    assert!(list.stdout.contains("dead (global"), "{}", list.stdout);
    assert!(list.stdout.contains("— failed: "), "{}", list.stdout);
    assert!(
        list.stdout.contains("off (global, stdio: x) — disabled"),
        "{}",
        list.stdout
    );
    let tools = oy.run(&["mcp", "tools", "web"]);
    assert_eq!(tools.code, 0, "{}", tools.stderr);
    assert!(
        tools.stdout.contains("mcp__web__echo (") && tools.stdout.contains("Says the text back."),
        "{}",
        tools.stdout
    );
    let unknown = oy.run(&["mcp", "tools", "nope"]);
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
    assert!(
        unknown.stderr.contains("no MCP server named `nope`"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn a_run_calls_an_mcp_tool_under_the_mode_and_gets_its_result() {
    let server = Server::start(Options::default());
    let oy = Oy::new();
    oy.global_config(&server.config());
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            call("mcp__web__echo", json!({"text": "from the server"})),
            text("done"),
        ],
    );
    let ran = mock_model::run(&oy, &mock, &["--mode", "auto", "use the echo tool"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let requests = mock.turn_requests();
    assert!(
        tool_names(&requests[0]).contains(&"mcp__web__echo".to_owned()),
        "{:?}",
        tool_names(&requests[0])
    );
    assert_eq!(
        tool_outputs(&requests[1]),
        vec!["from the server".to_owned()]
    );
}

#[test]
fn without_a_person_default_mode_refuses_the_call_and_plan_mode_starts_nothing() {
    let server = Server::start(Options::default());
    let oy = Oy::new();
    oy.global_config(&server.config());
    let target = oy.root.join("made.txt");
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            call(
                "mcp__web__write_file",
                json!({"path": target.display().to_string(), "text": "x"}),
            ),
            text("done"),
        ],
    );
    let ran = mock_model::run(&oy, &mock, &["write it"]);
    // Nobody can approve: the turn stops by policy, saying what allows it.
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("the auto-approve mode"),
        "{}",
        ran.stderr
    );
    assert!(!target.exists());

    let quiet = Server::start(Options::default());
    let oy = Oy::new();
    oy.global_config(&quiet.config());
    let mock = mock_model::start(Wire::Chat, vec![text("nothing to do")]);
    let ran = mock_model::run(&oy, &mock, &["--mode", "plan", "look around"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        !tool_names(&mock.turn_requests()[0])
            .iter()
            .any(|name| name.starts_with("mcp__")),
    );
    let tool = oy.run(&["tool", "list", "{}"]);
    assert_eq!(tool.code, 0, "{}", tool.stderr);
    let docs = oy.run(&["tools", "--format", "markdown"]);
    assert_eq!(docs.code, 0, "{}", docs.stderr);
    assert_eq!(
        quiet.server.http_requests(),
        0,
        "a server started for nothing"
    );
}

#[test]
fn oy_tools_and_oy_doctor_include_configured_servers() {
    let server = Server::start(Options::default());
    let oy = Oy::new();
    oy.global_config(&server.config());
    let tools = oy.run(&["tools", "--mode", "auto"]);
    assert_eq!(tools.code, 0, "{}", tools.stderr);
    let specs: Vec<Value> = serde_json::from_str(&tools.stdout).unwrap();
    let echo = specs
        .iter()
        .find(|spec| spec["name"] == "mcp__web__echo")
        .unwrap_or_else(|| panic!("{}", tools.stdout));
    assert_eq!(echo["parameters"]["required"], json!(["text"]));
    let doctor = oy.clean_command().arg("doctor").output().unwrap();
    let stdout = String::from_utf8_lossy(&doctor.stdout);
    assert!(stdout.contains("mcp web"), "{stdout}");
    assert!(stdout.contains("ready, "), "{stdout}");
}

#[test]
fn a_workspace_server_file_is_used_only_once_trusted() {
    let server = Server::start(Options::default());
    let oy = Oy::new();
    oy.file(".oy/mcp.toml", &server.config());
    let untrusted = oy.run(&["mcp", "list"]);
    assert_eq!(untrusted.code, 0, "{}", untrusted.stderr);
    assert!(
        untrusted
            .stderr
            .contains("ignoring .oy/mcp.toml: its MCP servers are not trusted"),
        "{}",
        untrusted.stderr
    );
    assert!(
        untrusted.stderr.contains("--trust-mcp"),
        "{}",
        untrusted.stderr
    );
    assert_eq!(server.server.http_requests(), 0);
    let trusted = oy.run(&["mcp", "list", "--trust-mcp"]);
    assert!(
        trusted.stdout.contains("web (workspace, http:"),
        "{}",
        trusted.stdout
    );
    let remembered = oy.run(&["mcp", "list"]);
    assert!(
        remembered.stdout.contains("web (workspace"),
        "{}",
        remembered.stdout
    );
    oy.file(
        ".oy/mcp.toml",
        &format!("{}tool_timeout = 5\n", server.config()),
    );
    let edited = oy.run(&["mcp", "list"]);
    assert!(
        edited.stderr.contains("not trusted"),
        "{} / {}",
        edited.stderr,
        edited.stdout
    );
}

#[test]
fn hostile_names_and_descriptions_reach_the_terminal_safely() {
    let server = Server::start(Options {
        hostile: true,
        ..Options::default()
    });
    let oy = Oy::new();
    oy.global_config(&server.config());
    let tools = oy.run(&["mcp", "tools", "web"]);
    assert_eq!(tools.code, 0, "{}", tools.stderr);
    assert!(tools.stdout.contains("Looks harmless"), "{}", tools.stdout);
    assert_terminal_safe("oy mcp tools", &tools.stdout);
    let list = oy.run(&["mcp", "list"]);
    assert_terminal_safe("oy mcp list", &list.stdout);
}

#[test]
fn slash_mcp_in_chat_lists_the_servers() {
    let server = Server::start(Options::default());
    let oy = Oy::new();
    oy.global_config(&server.config());
    let mock = mock_model::start(Wire::Chat, vec![text("hello")]);
    let mut chat = chat(&oy, &mock, &[]);
    chat.line("/mcp");
    chat.expect("web (global, http:");
    chat.expect("not started");
    chat.prompt();
    chat.send("\x04");
    assert_eq!(chat.wait(), 0, "{}", chat.screen());
}

/// The installed reference server's entry point: `OY_MCP_EVERYTHING`, or
/// `target/mcp-everything` where `.ci/run` installs it.
fn everything_server() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("OY_MCP_EVERYTHING").map(PathBuf::from),
        Some(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../target/mcp-everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        ),
    ];
    candidates.into_iter().flatten().find(|path| path.is_file())
}

#[test]
fn the_reference_server_everything_works_over_stdio_in_the_sandbox() {
    let node = ["/usr/bin/node", "/usr/local/bin/node"]
        .into_iter()
        .map(PathBuf::from)
        .find(|path| path.is_file());
    let (Some(node), Some(entry)) = (node, everything_server()) else {
        println!(
            "skipped: node or @modelcontextprotocol/server-everything is missing (npm install --prefix target/mcp-everything @modelcontextprotocol/server-everything, or set OY_MCP_EVERYTHING)"
        );
        return;
    };
    let entry = std::fs::canonicalize(entry).unwrap();
    let package = entry.parent().unwrap().parent().unwrap();
    let modules = package.parent().unwrap().parent().unwrap();
    let oy = Oy::new();
    oy.global_config(&format!(
        "sandbox_read = [{:?}]\n[mcp_servers.everything]\ncommand = {:?}\nargs = [{:?}, \"stdio\"]\nstartup_timeout = 30\n",
        modules.display().to_string(),
        node.display().to_string(),
        entry.display().to_string(),
    ));
    let list = oy.run(&["mcp", "tools", "everything"]);
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert!(
        list.stdout.contains("mcp__everything__echo"),
        "{}",
        list.stdout
    );
    let mock = mock_model::start(
        Wire::Chat,
        vec![
            call("mcp__everything__echo", json!({"message": "hi there"})),
            text("done"),
        ],
    );
    let ran = mock_model::run(&oy, &mock, &["--mode", "auto", "echo"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let outputs = tool_outputs(&mock.turn_requests()[1]);
    assert!(outputs[0].contains("hi there"), "{outputs:?}");
}
