//! The TOML config files: the user's `$XDG_CONFIG_HOME/oy/config.toml`
//! (trusted, may set anything) and a workspace's `.oy/config.toml` (comes
//! with the repository, so it may only lower privileges). Parsing only: the
//! precedence between flags, environment and files is in `settings.rs`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use oy_boundary::{BoundaryError, Workspace};
use oy_mcp::ServerConfig;
use oy_provider::ProviderTable;
use oy_tools::{Ceiling, Mode, Network, SandboxSetting};
use serde::{Deserialize, Deserializer};

use crate::ConfigError;

/// Largest config file read; a config is a few lines.
pub const MAX_CONFIG_BYTES: u64 = 256 * 1024;

/// The workspace config, relative to the root.
pub const WORKSPACE_CONFIG: &str = ".oy/config.toml";

const TOP_KEYS: &[&str] = &[
    "model",
    "provider",
    "mode",
    "network",
    "max_turns",
    "context_window",
    "idle_timeout_secs",
    "sandbox",
    "sandbox_read",
    "providers",
    "mcp_servers",
];

/// The keys a workspace config may set: each can only make a run stricter.
const WORKSPACE_KEYS: &[&str] = &["mode", "network", "max_turns", "sandbox"];

/// The global config file's settings.
#[derive(Debug, Default, Deserialize)]
#[non_exhaustive]
pub struct GlobalFile {
    /// `model`: the default model.
    pub model: Option<String>,
    /// `provider`: the default provider's name.
    pub provider: Option<String>,
    /// `mode`.
    #[serde(default, deserialize_with = "mode")]
    pub mode: Option<Mode>,
    /// `network`.
    #[serde(default, deserialize_with = "network")]
    pub network: Option<Network>,
    /// `max_turns`.
    pub max_turns: Option<u32>,
    /// `context_window`, when a provider table gives none.
    pub context_window: Option<u64>,
    /// `idle_timeout_secs`.
    pub idle_timeout_secs: Option<u64>,
    /// `on` or `off`: the command sandbox.
    #[serde(default, deserialize_with = "sandbox")]
    pub sandbox: Option<SandboxSetting>,
    /// More paths commands may read (`~/` is the home directory).
    #[serde(default)]
    pub sandbox_read: Vec<String>,
    /// `[providers.NAME]` tables.
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderTable>,
    /// `[mcp_servers.NAME]` tables, as written (checked by
    /// [`Settings::resolve`](crate::Settings::resolve)).
    #[serde(default)]
    pub mcp_servers: BTreeMap<String, ServerConfig>,
}

/// What a workspace config may say: the TOML shape of a [`Ceiling`].
#[derive(Debug, Default, Deserialize)]
struct WorkspaceFile {
    #[serde(default, deserialize_with = "mode")]
    mode: Option<Mode>,
    #[serde(default, deserialize_with = "network")]
    network: Option<Network>,
    max_turns: Option<u32>,
    #[serde(default, deserialize_with = "sandbox")]
    sandbox: Option<SandboxSetting>,
}

/// Parses the global config at `path` (named in messages). Unknown keys
/// become warnings; anything that does not parse is an error naming the
/// file and line.
pub fn parse_global(path: &Path, text: &str) -> Result<(GlobalFile, Vec<String>), ConfigError> {
    let file: GlobalFile =
        toml::from_str(text).map_err(|error| syntax_error(path, text, &error))?;
    let table: toml::Table =
        toml::from_str(text).map_err(|error| syntax_error(path, text, &error))?;
    let mut warnings = Vec::new();
    for (key, value) in &table {
        if !TOP_KEYS.contains(&key.as_str()) {
            warnings.push(format!("unknown key `{key}` in {}", path.display()));
        } else if key == "mcp_servers"
            && let Some(servers) = value.as_table()
        {
            for (name, server) in servers {
                let Some(server) = server.as_table() else {
                    continue;
                };
                for key in server.keys() {
                    if !ServerConfig::KEYS.contains(&key.as_str()) {
                        warnings.push(format!(
                            "unknown key `mcp_servers.{name}.{key}` in {}",
                            path.display()
                        ));
                    }
                }
            }
        } else if key == "providers"
            && let Some(providers) = value.as_table()
        {
            for (name, provider) in providers {
                let Some(provider) = provider.as_table() else {
                    continue;
                };
                for key in provider.keys() {
                    if !ProviderTable::KEYS.contains(&key.as_str()) {
                        warnings.push(format!(
                            "unknown key `providers.{name}.{key}` in {}",
                            path.display()
                        ));
                    }
                }
            }
        }
    }
    Ok((file, warnings))
}

/// Parses a workspace config into its ceiling. Every key but the ones
/// that can only lower privileges is ignored with a warning.
pub fn parse_workspace(path: &Path, text: &str) -> Result<(Ceiling, Vec<String>), ConfigError> {
    let WorkspaceFile {
        mode,
        network,
        max_turns,
        sandbox,
    } = toml::from_str(text).map_err(|error| syntax_error(path, text, &error))?;
    let ceiling = Ceiling {
        mode,
        network,
        sandbox,
        max_turns,
    };
    let table: toml::Table =
        toml::from_str(text).map_err(|error| syntax_error(path, text, &error))?;
    let warnings = table
        .keys()
        .filter(|key| !WORKSPACE_KEYS.contains(&key.as_str()))
        .map(|key| {
            format!(
                "ignored in {}: a workspace config cannot set {key}",
                path.display()
            )
        })
        .collect();
    Ok((ceiling, warnings))
}

/// The workspace config's host path and text, read through the boundary
/// of a workspace the frontend opened. Missing is fine; present but
/// unreadable (a link out of the root, too large, binary) fails closed,
/// since it may have been meant to restrict.
pub fn read_workspace_config(
    workspace: &Workspace,
) -> Result<Option<(PathBuf, String)>, ConfigError> {
    let path = workspace.path(WORKSPACE_CONFIG)?;
    let host = workspace.host_path(&path);
    match workspace.read_text(&path, MAX_CONFIG_BYTES) {
        Ok(text) => Ok(Some((host, text))),
        Err(BoundaryError::NotFound { .. }) => Ok(None),
        Err(source) => Err(ConfigError::WorkspaceUnreadable { path: host, source }),
    }
}

/// The error at the parser's byte span, as a line and column.
fn syntax_error(path: &Path, text: &str, error: &toml::de::Error) -> ConfigError {
    let at = error.span().map(|span| {
        // A position inside a multi-byte character counts from the start
        // of that character, never panics.
        let mut start = span.start.min(text.len());
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let before = &text[..start];
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map_or(0, |at| at + 1) + 1;
        (line, column)
    });
    ConfigError::Syntax {
        path: path.to_owned(),
        at,
        message: error.message().trim().to_owned(),
    }
}

fn sandbox<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<SandboxSetting>, D::Error> {
    let name = String::deserialize(deserializer)?;
    SandboxSetting::parse(&name)
        .map(Some)
        .ok_or_else(|| serde::de::Error::custom(format!("sandbox must be on or off, not `{name}`")))
}

fn mode<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Mode>, D::Error> {
    let name = String::deserialize(deserializer)?;
    name.parse().map(Some).map_err(serde::de::Error::custom)
}

fn network<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Network>, D::Error> {
    let name = String::deserialize(deserializer)?;
    name.parse().map(Some).map_err(serde::de::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_line_of_a_syntax_error() {
        let error = parse_global(Path::new("c.toml"), "model = \"a\"\nmode = \n").unwrap_err();
        let message = error.to_string();
        assert!(message.contains("c.toml at line 2"), "{message}");
    }

    #[test]
    fn reports_line_of_a_bad_mode() {
        let error =
            parse_global(Path::new("c.toml"), "model = \"a\"\n\nmode = \"yolo\"\n").unwrap_err();
        let message = error.to_string();
        assert!(message.contains("line 3"), "{message}");
        assert!(message.contains("yolo"), "{message}");
    }

    #[test]
    fn warns_about_unknown_keys_without_failing() {
        let (file, warnings) = parse_global(
            Path::new("c.toml"),
            "model = \"m\"\ncolour = 1\n[providers.x]\nbase_url = \"http://h\"\nfoo = 2\n",
        )
        .unwrap();
        assert_eq!(file.model.as_deref(), Some("m"));
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("`colour`"));
        assert!(warnings[1].contains("`providers.x.foo`"));
    }

    #[test]
    fn workspace_config_ignores_provider_keys() {
        let (file, warnings) = parse_workspace(
            Path::new(".oy/config.toml"),
            "mode = \"plan\"\nmodel = \"evil\"\n[providers.x]\nbase_url = \"http://evil\"\n",
        )
        .unwrap();
        assert_eq!(file.mode, Some(Mode::Plan));
        assert_eq!(
            warnings,
            vec![
                "ignored in .oy/config.toml: a workspace config cannot set model",
                "ignored in .oy/config.toml: a workspace config cannot set providers",
            ]
        );
    }

    #[test]
    fn header_values_stay_out_of_debug() {
        let (file, _) = parse_global(
            Path::new("c.toml"),
            "[providers.gw]\nheaders = { x-api-key = \"hunter2\" }\n",
        )
        .unwrap();
        let debug = format!("{file:?}");
        assert!(
            debug.contains("x-api-key") && !debug.contains("hunter2"),
            "{debug}"
        );
    }
}
