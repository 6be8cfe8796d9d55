//! A workspace's own servers: `.oy/mcp.toml` (`[mcp_servers.NAME]` tables,
//! as in the global config) or `.oy/mcp.json` (`{"mcp_servers": {…}}`, or
//! `mcpServers`). The file comes with the repository, and a server is a
//! program that runs on the person's machine, so it adds nothing until its
//! exact content is trusted for that workspace root — the same rule, and
//! the same kind of [`TrustStore`], as `.oy/tools.json`, in its own record.

use std::collections::BTreeMap;

use oy_boundary::{BoundaryError, Workspace};
use oy_tools::{TrustStore, content_digest};

use crate::config::ServerConfig;
use crate::error::McpError;

/// The TOML form, relative to the root.
pub const WORKSPACE_MCP_TOML: &str = ".oy/mcp.toml";

/// The JSON form, relative to the root.
pub const WORKSPACE_MCP_JSON: &str = ".oy/mcp.json";

/// The trust record's file name in oy's data directory (its own: trusting
/// `tools.json` never trusts servers, nor the reverse).
pub const MCP_TRUST_FILE: &str = "trusted-mcp.json";

/// Largest server file read.
const FILE_LIMIT: u64 = 256 * 1024;

/// Servers by name, in name order.
pub type Servers = Vec<(String, ServerConfig)>;

/// What a person is asked to approve.
#[derive(Debug, Clone, Copy)]
pub struct McpTrustRequest<'a> {
    /// The file, relative to the root.
    pub file: &'a str,
    /// SHA-256 of its name and content, lowercase hex.
    pub digest: &'a str,
    /// The servers it would add, checked.
    pub servers: &'a [(String, ServerConfig)],
}

/// What came of the workspace's server file.
#[derive(Debug)]
#[non_exhaustive]
pub enum WorkspaceServers {
    /// There is none.
    Absent,
    /// Trusted (earlier, or now).
    Trusted {
        /// The file.
        file: &'static str,
        /// Its servers.
        servers: Servers,
        /// Unknown keys, ignored.
        warnings: Vec<String>,
    },
    /// Present but not trusted: it added nothing.
    Untrusted {
        /// The file.
        file: &'static str,
        /// SHA-256 of its name and content.
        digest: String,
        /// The servers it names.
        names: Vec<String>,
    },
    /// Present but refused before any trust question: it does not parse,
    /// both forms are there, or a server breaks a rule for repositories
    /// (`ServerConfig::check_workspace`). It added nothing.
    Refused {
        /// The file.
        file: &'static str,
        /// Why.
        problem: String,
    },
    /// Present but not a readable text file inside the workspace.
    Unreadable {
        /// The file.
        file: &'static str,
        /// Why.
        error: BoundaryError,
    },
}

/// Reads the workspace's server file and returns its servers when `store`
/// trusts its content for this root, or `trust_now` is set, or `ask`
/// approves (then `store` remembers). `ask` sees only a valid file that is
/// not trusted yet, at most once.
///
/// A file that does not parse or breaks a rule (both forms present, a
/// server that names a credential…) is `Refused`: nothing is added,
/// nothing recorded, nothing asked. Errors: a trust record that cannot be
/// read or written.
pub fn load_workspace_servers(
    workspace: &Workspace,
    store: &mut dyn TrustStore,
    trust_now: bool,
    ask: impl FnOnce(&McpTrustRequest<'_>) -> bool,
) -> Result<WorkspaceServers, McpError> {
    let mut found = Vec::new();
    for file in [WORKSPACE_MCP_TOML, WORKSPACE_MCP_JSON] {
        let path = workspace.path(file)?;
        match workspace.read_text(&path, FILE_LIMIT) {
            Ok(text) => found.push((file, text)),
            Err(BoundaryError::NotFound { .. }) => {}
            Err(error) => return Ok(WorkspaceServers::Unreadable { file, error }),
        }
    }
    let (file, text) = match found.len() {
        0 => return Ok(WorkspaceServers::Absent),
        1 => found.remove(0),
        _ => {
            return Ok(WorkspaceServers::Refused {
                file: WORKSPACE_MCP_TOML,
                problem: format!("{WORKSPACE_MCP_JSON} exists too; keep one of them"),
            });
        }
    };
    // A file that breaks the rules never blocks the run: it adds nothing.
    let parsed = parse_servers(file, &text, file == WORKSPACE_MCP_JSON).and_then(|parsed| {
        for (name, config) in &parsed.0 {
            config.check_workspace(name)?;
        }
        Ok(parsed)
    });
    let (servers, warnings) = match parsed {
        Ok(parsed) => parsed,
        Err(error) => {
            return Ok(WorkspaceServers::Refused {
                file,
                problem: error.to_string(),
            });
        }
    };
    let digest = content_digest(format!("{file}\0{text}").as_bytes());
    let root = workspace.root();
    if !store.is_trusted(root, &digest)? {
        let request = McpTrustRequest {
            file,
            digest: &digest,
            servers: &servers,
        };
        if !(trust_now || ask(&request)) {
            return Ok(WorkspaceServers::Untrusted {
                file,
                digest,
                names: servers.into_iter().map(|(name, _)| name).collect(),
            });
        }
        store.trust(root, &digest)?;
    }
    Ok(WorkspaceServers::Trusted {
        file,
        servers,
        warnings,
    })
}

/// Parses a server file (`file` names it in messages): TOML with
/// `[mcp_servers.NAME]` tables, or JSON with an `mcp_servers` (or
/// `mcpServers`) object. Every server is checked; unknown keys are
/// returned as warnings.
pub fn parse_servers(
    file: &str,
    text: &str,
    json: bool,
) -> Result<(Servers, Vec<String>), McpError> {
    let invalid = |problem: String| McpError::Parse {
        file: file.to_owned(),
        problem,
    };
    let tables: BTreeMap<String, serde_json::Value> = if json {
        let mut value: serde_json::Value =
            serde_json::from_str(text).map_err(|error| invalid(error.to_string()))?;
        let key = if value.get("mcp_servers").is_some() {
            "mcp_servers"
        } else {
            "mcpServers"
        };
        let servers = value
            .get_mut(key)
            .map(serde_json::Value::take)
            .unwrap_or_default();
        serde_json::from_value(servers).map_err(|error| invalid(error.to_string()))?
    } else {
        #[derive(serde::Deserialize)]
        struct File {
            #[serde(default)]
            mcp_servers: BTreeMap<String, toml::Value>,
        }
        let parsed: File = toml::from_str(text).map_err(|error| invalid(error.to_string()))?;
        parsed
            .mcp_servers
            .into_iter()
            .map(|(name, value)| {
                serde_json::to_value(value)
                    .map(|value| (name, value))
                    .map_err(|error| invalid(error.to_string()))
            })
            .collect::<Result<_, _>>()?
    };
    let mut servers = Vec::new();
    let mut warnings = Vec::new();
    for (name, table) in tables {
        if let Some(keys) = table.as_object() {
            for key in keys.keys() {
                if !ServerConfig::KEYS.contains(&key.as_str()) {
                    warnings.push(format!("unknown key `mcp_servers.{name}.{key}` in {file}"));
                }
            }
        }
        let config: ServerConfig = serde_json::from_value(table)
            .map_err(|error| invalid(format!("server `{name}`: {error}")))?;
        config.check(&name)?;
        servers.push((name, config));
    }
    Ok((servers, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_and_json_forms_read_alike() {
        let (toml_servers, warnings) = parse_servers(
            WORKSPACE_MCP_TOML,
            "[mcp_servers.docs]\ncommand = \"docs-mcp\"\nargs = [\"--stdio\"]\ncolour = 1\n",
            false,
        )
        .unwrap();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let (json_servers, _) = parse_servers(
            WORKSPACE_MCP_JSON,
            r#"{"mcpServers": {"docs": {"command": "docs-mcp", "args": ["--stdio"]}}}"#,
            true,
        )
        .unwrap();
        assert_eq!(toml_servers, json_servers);
    }

    #[test]
    fn a_broken_server_table_fails_the_whole_file() {
        let error = parse_servers(
            WORKSPACE_MCP_TOML,
            "[mcp_servers.ok]\ncommand = \"a\"\n[mcp_servers.bad]\nargs = []\n",
            false,
        )
        .unwrap_err();
        assert!(error.to_string().contains("`bad`"), "{error}");
    }
}
