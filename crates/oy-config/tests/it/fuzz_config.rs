//! Fuzz target `config`: the global config and a workspace's
//! `.oy/config.toml`, as TOML built from the files' own keys (values of
//! every TOML type and extreme, `[providers]` and `[mcp_servers]` tables)
//! and as mutated valid files, through `parse_global`, `parse_workspace`
//! and `Settings::resolve`. The properties: no panic, every failure a
//! typed `ConfigError`, and a workspace file never raises a privilege the
//! run would have had without it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use oy_config::{ConfigError, ConfigTexts, Overrides, Settings, parse_global, parse_workspace};
use oy_tools::{Mode, Network, SandboxSetting};
use proptest::prelude::*;
use proptest::sample::select;

use crate::fuzz::{fuzz, mutated_text};

const KEYS: &[&str] = &[
    "model",
    "provider",
    "mode",
    "network",
    "max_turns",
    "context_window",
    "idle_timeout_secs",
    "sandbox",
    "sandbox_read",
    "unknown",
    "\"quoted key\"",
];

const TABLE_KEYS: &[&str] = &[
    "kind",
    "base_url",
    "env_key",
    "model",
    "wire_api",
    "headers",
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
    "read_only_tools",
    "enabled_tools",
    "disabled_tools",
    "read_only",
    "network",
    "nope",
];

/// TOML values of every type, with the names the keys accept and extremes.
fn toml_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        select(vec![
            "\"plan\"",
            "\"edit\"",
            "\"auto\"",
            "\"ask\"",
            "\"allow\"",
            "\"deny\"",
            "\"on\"",
            "\"off\"",
            "\"openai\"",
            "\"bedrock\"",
            "\"responses\"",
            "\"chat\"",
            "\"\"",
            "\"http://127.0.0.1:1/v1\"",
            "\"\\u0000\"",
            "\"\u{1b}[2J\"",
        ])
        .prop_map(str::to_owned),
        select(vec![
            "0",
            "1",
            "-1",
            "4294967295",
            "4294967296",
            "9223372036854775807",
            "-9223372036854775808",
            "0x7fffffff",
            "1e400",
            "nan",
            "inf",
            "-0.0",
            "1_000",
        ])
        .prop_map(str::to_owned),
        any::<bool>().prop_map(|b| b.to_string()),
        Just("1979-05-27T07:32:00Z".to_owned()),
        "\"[ -~&&[^\"\\\\]]{0,12}\"",
    ];
    leaf.prop_recursive(2, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3)
                .prop_map(|items| format!("[{}]", items.join(", "))),
            prop::collection::vec((select(TABLE_KEYS), inner), 0..3).prop_map(|pairs| {
                let body: Vec<String> = pairs.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                format!("{{ {} }}", body.join(", "))
            }),
        ]
    })
}

/// A config file: top-level keys, then `[providers.X]`/`[mcp_servers.X]`
/// tables with their keys.
fn toml_file() -> impl Strategy<Value = String> {
    let top = prop::collection::vec((select(KEYS), toml_value()), 0..6);
    let table = (
        select(vec!["providers", "mcp_servers", "other"]),
        select(vec!["a", "local", "\"odd name\"", "x.y", ""]),
        prop::collection::vec((select(TABLE_KEYS), toml_value()), 0..5),
    );
    (top, prop::collection::vec(table, 0..3)).prop_map(|(top, tables)| {
        let mut out = String::new();
        for (key, value) in top {
            out.push_str(&format!("{key} = {value}\n"));
        }
        for (kind, name, pairs) in tables {
            out.push_str(&format!("[{kind}.{name}]\n"));
            for (key, value) in pairs {
                out.push_str(&format!("{key} = {value}\n"));
            }
        }
        out
    })
}

const SEEDS: &[&str] = &[
    "model = \"gpt-4o\"\nmode = \"edit\"\nnetwork = \"ask\"\nmax_turns = 30\n",
    "provider = \"local\"\n[providers.local]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:8080/v1\"\nwire_api = \"chat\"\n",
    "[mcp_servers.fs]\ncommand = \"npx\"\nargs = [\"-y\", \"server\"]\nenv_vars = [\"HOME\"]\ntool_timeout = 10\n",
    "[mcp_servers.web]\nurl = \"https://example.com/mcp\"\nbearer_token_env_var = \"TOKEN\"\nenabled_tools = [\"a\"]\n",
    "sandbox = \"on\"\nsandbox_read = [\"/opt\"]\ncontext_window = 8192\nidle_timeout_secs = 60\n",
    "mode = \"plan\"\nnetwork = \"deny\"\nmax_turns = 5\nsandbox = \"on\"\n",
];

const DICTIONARY: &[&str] = &[
    "\n",
    "=",
    "\"",
    "'''",
    "[",
    "]",
    "[[",
    "]]",
    "{",
    "}",
    ",",
    ".",
    "#",
    "\\",
    "\\u",
    "\u{e9}",
    "\u{1f600}",
    "\r",
    "\t",
    "mode",
    "providers.",
    "mcp_servers.",
    "0",
    "-",
];

fn texts() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => toml_file(),
        2 => mutated_text(SEEDS, DICTIONARY, 6),
    ]
}

fn lookup(name: &str) -> Option<OsString> {
    (name == "HOME").then(|| OsString::from("/Users/u"))
}

fn resolve(global: Option<&str>, workspace: Option<&str>) -> Result<Settings, ConfigError> {
    let texts = ConfigTexts {
        global: global.map(str::to_owned),
        workspace: workspace.map(|text| {
            (
                PathBuf::from("/Users/u/repo/.oy/config.toml"),
                text.to_owned(),
            )
        }),
    };
    Settings::resolve(&Overrides::default(), texts, false, lookup, |_: &Path| {
        false
    })
}

fn mode_rank(mode: Mode) -> u8 {
    match mode {
        Mode::Plan => 0,
        Mode::Default => 1,
        Mode::AcceptEdits => 2,
        Mode::AutoApprove => 3,
    }
}

fn network_rank(network: Network) -> u8 {
    match network {
        Network::Deny => 0,
        Network::Ask => 1,
        Network::Allow => 2,
    }
}

#[test]
fn fuzz_config_files() {
    let path = Path::new("/Users/u/.config/oy/config.toml");
    fuzz("config", 400, (texts(), texts()), |(global, workspace)| {
        let _ = parse_global(path, &global);
        let _ = parse_workspace(path, &workspace);
        // A workspace file may only lower what the global file (and the
        // defaults) give.
        let Ok(without) = resolve(Some(&global), None) else {
            return Ok(());
        };
        if let Ok(with) = resolve(Some(&global), Some(&workspace)) {
            prop_assert!(mode_rank(with.policy.mode) <= mode_rank(without.policy.mode));
            prop_assert!(network_rank(with.policy.network) <= network_rank(without.policy.network));
            if without.sandbox == SandboxSetting::On {
                prop_assert_eq!(with.sandbox, SandboxSetting::On);
            }
            if let Some(limit) = without.max_turns_with(None) {
                prop_assert!(
                    with.max_turns_with(None)
                        .is_some_and(|turns| turns <= limit)
                );
            }
            prop_assert_eq!(with.model.map(|m| m.value), without.model.map(|m| m.value));
            prop_assert_eq!(with.providers.len(), without.providers.len());
            prop_assert_eq!(with.mcp_servers.len(), without.mcp_servers.len());
        }
        Ok(())
    });
}
