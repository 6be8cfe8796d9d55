//! Fuzz target `mcp-servers`: `parse_servers` on `[mcp_servers]` files in
//! both forms (TOML tables and the JSON `mcpServers` object), built from
//! the server keys with values of every type and extreme, and mutated from
//! valid files. The properties: no panic, every failure a typed
//! `McpError`, and every server accepted obeys the rules `check` states (a
//! valid name, exactly one of `command` and `url`, timeouts within an
//! hour); `check_workspace` on each never panics.

use std::time::Duration;

use oy_mcp::{McpError, is_server_name, parse_servers};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Map, Value, json};

use crate::fuzz::{fuzz, mutated_text};

const KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "env_vars",
    "cwd",
    "url",
    "bearer_token_env_var",
    "env_http_headers",
    "enabled",
    "startup_timeout",
    "tool_timeout",
    "enabled_tools",
    "disabled_tools",
    "read_only",
    "read_only_tools",
    "network",
    "unknown",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        select(vec![
            "srv",
            "",
            " ",
            "npx",
            "http://127.0.0.1:1/mcp",
            "https://u:p@example.com/mcp",
            "https://example.com:99999/",
            "ftp://x",
            "http://[::1]/",
            "PATH",
            "LD_PRELOAD",
            "TOKEN",
            "a\u{0}b",
            "\u{1b}[2J",
        ])
        .prop_map(Value::from),
        select(vec![0.0f64, 0.001, 1.0, 3600.0, 3600.5, -1.0, 1e300]).prop_map(|f| json!(f)),
        select(vec![0u64, 1, 3600, 3601, u64::MAX]).prop_map(Value::from),
        Just(json!(i64::MIN)),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::Null),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(2, 10, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec((select(vec!["A", "PATH", "X-Key", ""]), inner), 0..3).prop_map(
                |pairs| Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            ),
        ]
    })
}

/// A server file as JSON: `{"mcp_servers"|"mcpServers": {NAME: {KEY: V}}}`.
fn servers() -> impl Strategy<Value = Value> {
    let server = prop::collection::vec((select(KEYS), value()), 0..6).prop_map(|pairs| {
        Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
    });
    let name = select(vec![
        "docs",
        "a_b-1",
        "a__b",
        "",
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "\u{e9}",
    ]);
    (
        select(vec!["mcp_servers", "mcpServers"]),
        prop::collection::vec((name, prop_oneof![8 => server, 1 => value()]), 0..3),
    )
        .prop_map(|(key, servers)| {
            let servers: Map<String, Value> = servers
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect();
            json!({ key: servers })
        })
}

/// The same servers as TOML (null has no TOML form: such files are skipped
/// by the serializer and fuzzed as JSON only).
fn as_toml(value: &Value) -> Option<String> {
    let value = value
        .get("mcp_servers")
        .or_else(|| value.get("mcpServers"))?;
    let table = toml::Value::try_from(json!({ "mcp_servers": value })).ok()?;
    toml::to_string(&table).ok()
}

const SEEDS: &[&str] = &[
    "[mcp_servers.docs]\ncommand = \"docs-mcp\"\nargs = [\"--stdio\"]\nenv = { A = \"1\" }\ntool_timeout = 0.5\n",
    "[mcp_servers.web]\nurl = \"https://example.com/mcp\"\nenabled_tools = [\"a\"]\nstartup_timeout = 5\n",
    r#"{"mcpServers": {"docs": {"command": "docs-mcp", "args": ["--stdio"], "disabled_tools": ["x"]}}}"#,
    r#"{"mcp_servers": {"web": {"url": "http://127.0.0.1:8080/mcp", "enabled": false}}}"#,
];

const DICTIONARY: &[&str] = &[
    "\n",
    "=",
    "\"",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    ".",
    "mcp_servers.",
    "command",
    "url",
    "1e999",
    "-1",
    "3601",
    "\\u0000",
    "__",
    "http://",
    "@",
];

fn check_accepted(servers: &[(String, oy_mcp::ServerConfig)]) -> Result<(), TestCaseError> {
    for (name, config) in servers {
        prop_assert!(is_server_name(name), "accepted server name {:?}", name);
        prop_assert!(
            config.command.is_some() != config.url.is_some(),
            "{} has command {:?} and url {:?}",
            name,
            config.command,
            config.url
        );
        for timeout in [config.startup_timeout, config.tool_timeout]
            .into_iter()
            .flatten()
        {
            prop_assert!(timeout > Duration::ZERO && timeout <= Duration::from_secs(3600));
        }
        // The repository's rules: any answer, no panic.
        let _ = config.check_workspace(name);
    }
    Ok(())
}

fn check(text: &str, json: bool) -> Result<(), TestCaseError> {
    match parse_servers(
        if json { ".oy/mcp.json" } else { ".oy/mcp.toml" },
        text,
        json,
    ) {
        Ok((servers, _warnings)) => check_accepted(&servers),
        Err(McpError::Parse { .. } | McpError::Config { .. }) => Ok(()),
        Err(other) => Err(TestCaseError::fail(format!(
            "unexpected error kind {other:?}"
        ))),
    }
}

#[test]
fn fuzz_mcp_servers() {
    fuzz(
        "mcp-servers",
        500,
        (servers(), mutated_text(SEEDS, DICTIONARY, 8)),
        |(value, text)| {
            check(&value.to_string(), true)?;
            if let Some(toml) = as_toml(&value) {
                check(&toml, false)?;
            }
            check(&text, text.trim_start().starts_with('{'))?;
            Ok(())
        },
    );
}
