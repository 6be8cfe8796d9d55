//! `ServerConfig`: one `[mcp_servers.NAME]` table as written (in the global
//! `config.toml`, or a trusted `.oy/mcp.toml`/`.json`), its checks, and
//! `ServerSpec`, the same with the environment variables it names looked up
//! by the frontend (a library never reads the environment).

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Deserializer};

use crate::error::McpError;

/// How long a server may take to start and list its tools by default.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(10);

/// How long one tool call may take by default.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(60);

/// Longest timeout accepted for either (an hour).
const MAX_TIMEOUT_SECS: f64 = 3600.0;

/// One MCP server as configured. Exactly one of `command` (a stdio server
/// oy starts) and `url` (a streamable HTTP server) is set.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct ServerConfig {
    /// The program of a stdio server (looked up on the child's `PATH`).
    pub command: Option<String>,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set for it, as written (they pass the credential filter:
    /// the person put them there).
    pub env: BTreeMap<String, String>,
    /// Names of variables passed through from oy's own environment even
    /// when the filter would drop them (a token the server needs).
    pub env_vars: Vec<String>,
    /// Its working directory, relative to the workspace root (default:
    /// the root).
    pub cwd: Option<String>,
    /// The endpoint of a streamable HTTP server.
    pub url: Option<String>,
    /// A variable whose value is sent as `Authorization: Bearer VALUE`.
    pub bearer_token_env_var: Option<String>,
    /// Headers whose values are read from variables: header → variable.
    pub env_http_headers: BTreeMap<String, String>,
    /// `false` keeps the server configured but unused.
    #[serde(deserialize_with = "enabled")]
    pub enabled: Option<bool>,
    /// Seconds the server may take to start and list its tools.
    #[serde(deserialize_with = "seconds")]
    pub startup_timeout: Option<Duration>,
    /// Seconds one call may take.
    #[serde(deserialize_with = "seconds")]
    pub tool_timeout: Option<Duration>,
    /// Only these tools are offered (all when absent).
    pub enabled_tools: Option<Vec<String>>,
    /// These tools are never offered.
    pub disabled_tools: Vec<String>,
    /// Every tool of the server only reads: its calls need no approval and
    /// plan mode offers them. The server's own `readOnlyHint` never counts.
    pub read_only: bool,
    /// These tools only read (as `read_only`, per tool).
    pub read_only_tools: Vec<String>,
    /// A stdio server may use the network even when the network policy
    /// does not allow it.
    pub network: bool,
}

impl ServerConfig {
    /// Every key a table may hold, for unknown-key warnings.
    pub const KEYS: &'static [&'static str] = &[
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
    ];

    /// Whether the server is to be used.
    pub fn is_enabled(&self) -> bool {
        self.enabled.unwrap_or(true)
    }

    /// The startup timeout in force.
    pub fn startup_timeout(&self) -> Duration {
        self.startup_timeout.unwrap_or(DEFAULT_STARTUP_TIMEOUT)
    }

    /// The per-call timeout in force.
    pub fn tool_timeout(&self) -> Duration {
        self.tool_timeout.unwrap_or(DEFAULT_TOOL_TIMEOUT)
    }

    /// Whether the tool named `tool` (the server's name for it) is offered.
    pub fn offers(&self, tool: &str) -> bool {
        self.enabled_tools
            .as_ref()
            .is_none_or(|allowed| allowed.iter().any(|name| name == tool))
            && !self.disabled_tools.iter().any(|name| name == tool)
    }

    /// Whether the config says `tool` only reads.
    pub fn is_read_only(&self, tool: &str) -> bool {
        self.read_only || self.read_only_tools.iter().any(|name| name == tool)
    }

    /// Whether any of its tools could be read-only (so plan mode may
    /// offer something of it).
    pub fn may_read_only(&self) -> bool {
        self.read_only || !self.read_only_tools.is_empty()
    }

    /// Checks the table named `name`: a valid server name, one transport,
    /// an `http(s)` URL, no credential sent in the clear.
    pub fn check(&self, name: &str) -> Result<(), McpError> {
        let bad = |problem: &str| McpError::Config {
            server: name.to_owned(),
            problem: problem.to_owned(),
        };
        if !crate::names::is_server_name(name) {
            return Err(bad(
                "a server name is 1-32 of A-Z a-z 0-9 - _ (without `__`)",
            ));
        }
        match (&self.command, &self.url) {
            (Some(_), Some(_)) => return Err(bad("set `command` or `url`, not both")),
            (None, None) => {
                return Err(bad(
                    "set `command` (a stdio server) or `url` (a streamable HTTP server)",
                ));
            }
            (Some(command), None) if command.trim().is_empty() => {
                return Err(bad("`command` is empty"));
            }
            (Some(_), None) => {
                if self.bearer_token_env_var.is_some() || !self.env_http_headers.is_empty() {
                    return Err(bad("headers are for `url` servers only"));
                }
            }
            (None, Some(url)) => check_url(url, self.sends_credentials()).map_err(|p| bad(&p))?,
        }
        Ok(())
    }

    /// The rules for a server a repository's `.oy/mcp.*` declares: it may
    /// name no credential (`env_vars`, `bearer_token_env_var`,
    /// `env_http_headers`: a repository must not be able to send your
    /// secrets anywhere), cannot lower its own approval (`read_only`,
    /// `read_only_tools`) or grant itself the network, cannot change how
    /// its program is found or loaded (`PATH`, `LD_*`, `DYLD_*` in `env`),
    /// and keeps `cwd` inside the workspace.
    pub fn check_workspace(&self, name: &str) -> Result<(), McpError> {
        let bad = |problem: String| McpError::Config {
            server: name.to_owned(),
            problem,
        };
        let only_yours = |key: &str| {
            bad(format!(
                "a repository's server file cannot set `{key}`; only your own config can"
            ))
        };
        if !self.env_vars.is_empty() {
            return Err(only_yours("env_vars"));
        }
        if self.bearer_token_env_var.is_some() {
            return Err(only_yours("bearer_token_env_var"));
        }
        if !self.env_http_headers.is_empty() {
            return Err(only_yours("env_http_headers"));
        }
        if self.read_only || !self.read_only_tools.is_empty() {
            return Err(only_yours("read_only"));
        }
        if self.network {
            return Err(only_yours("network"));
        }
        if let Some(key) = self.env.keys().find(|key| {
            let upper = key.to_ascii_uppercase();
            upper == "PATH" || upper.starts_with("LD_") || upper.starts_with("DYLD_")
        }) {
            return Err(bad(format!(
                "a repository's server file cannot set `{key}` in `env`: it changes which program runs"
            )));
        }
        if let Some(cwd) = &self.cwd {
            let path = std::path::Path::new(cwd);
            if path.is_absolute()
                || path
                    .components()
                    .any(|part| matches!(part, std::path::Component::ParentDir))
            {
                return Err(bad(format!(
                    "`cwd` {cwd} must be a directory inside the workspace"
                )));
            }
        }
        Ok(())
    }

    /// Every setting, one line each, for a person deciding whether to
    /// trust a server (`runs …`, `env FOO=bar`, `cwd sub`, timeouts…).
    pub fn describe(&self) -> Vec<String> {
        let mut lines = Vec::new();
        match (&self.command, &self.url) {
            (Some(command), _) => {
                let mut argv = vec![command.clone()];
                argv.extend(self.args.iter().cloned());
                lines.push(format!(
                    "runs {argv:?} (in the sandbox, with this repository's files)"
                ));
            }
            (None, Some(url)) => lines.push(format!("connects to {url}")),
            (None, None) => {}
        }
        for (key, value) in &self.env {
            lines.push(format!("env {key}={value:?}"));
        }
        for name in &self.env_vars {
            lines.push(format!("passes your ${name}"));
        }
        if let Some(name) = &self.bearer_token_env_var {
            lines.push(format!("sends your ${name} as a bearer token"));
        }
        for (header, name) in &self.env_http_headers {
            lines.push(format!("sends your ${name} as header {header}"));
        }
        if let Some(cwd) = &self.cwd {
            lines.push(format!("cwd {cwd}"));
        }
        if self.network {
            lines.push("may use the network".to_owned());
        }
        if self.read_only {
            lines.push("its calls need no approval (read_only)".to_owned());
        }
        if !self.read_only_tools.is_empty() {
            lines.push(format!(
                "calls need no approval for: {}",
                self.read_only_tools.join(", ")
            ));
        }
        if let Some(tools) = &self.enabled_tools {
            lines.push(format!("only tools: {}", tools.join(", ")));
        }
        if let Some(timeout) = self.startup_timeout {
            lines.push(format!("startup_timeout {} s", timeout.as_secs_f64()));
        }
        if let Some(timeout) = self.tool_timeout {
            lines.push(format!("tool_timeout {} s", timeout.as_secs_f64()));
        }
        lines
    }

    fn sends_credentials(&self) -> bool {
        self.bearer_token_env_var.is_some() || !self.env_http_headers.is_empty()
    }
}

/// `url` must be `http(s)://`, and plain `http` only to a loopback host
/// when credentials go with it.
fn check_url(url: &str, credentials: bool) -> Result<(), String> {
    // Parsed by the parser the HTTP client uses, so the host checked is the
    // host connected to (`http://a\\@localhost/` is `a` to both).
    let parsed =
        reqwest::Url::parse(url).map_err(|_| format!("`url` {url} is not an http(s) URL"))?;
    let Some(host) = parsed.host() else {
        return Err(format!("`url` {url} names no host"));
    };
    let loopback = match host {
        url::Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
    };
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if !credentials || loopback => Ok(()),
        "http" => Err(
            "credentials are never sent over plain http to another machine: use https".to_owned(),
        ),
        _ => Err(format!("`url` {url} is not an http(s) URL")),
    }
}

/// Where a server was configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// The user's own config file.
    Global,
    /// The workspace's `.oy/mcp.toml` or `.json`, trusted.
    Workspace,
}

impl Origin {
    /// `global` or `workspace`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Global => "global",
            Self::Workspace => "workspace",
        }
    }
}

/// One server ready to start: its config and the values of the variables
/// it names, looked up by the frontend. `Debug` shows names, never values.
#[derive(Clone)]
#[non_exhaustive]
pub struct ServerSpec {
    /// Its name (the `NAME` of `[mcp_servers.NAME]`).
    pub name: String,
    /// Where it was configured.
    pub origin: Origin,
    /// The table.
    pub config: ServerConfig,
    /// `env_vars` that were set, with their values.
    pub passed_env: Vec<(String, String)>,
    /// HTTP headers with their values (the bearer token included).
    pub headers: Vec<(String, String)>,
    /// Variables it names that are not set: it cannot start.
    pub missing: Vec<String>,
}

impl std::fmt::Debug for ServerSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names = |pairs: &[(String, String)]| {
            pairs
                .iter()
                .map(|(name, _)| name.clone())
                .collect::<Vec<_>>()
        };
        f.debug_struct("ServerSpec")
            .field("name", &self.name)
            .field("origin", &self.origin)
            .field("transport", &self.transport())
            .field("passed_env", &names(&self.passed_env))
            .field("headers", &names(&self.headers))
            .field("missing", &self.missing)
            .finish_non_exhaustive()
    }
}

impl ServerSpec {
    /// Looks up the variables `config` names with `lookup` (the frontend's
    /// view of the environment).
    pub fn resolve(
        name: &str,
        origin: Origin,
        config: ServerConfig,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Self {
        let mut missing = Vec::new();
        let mut passed_env = Vec::new();
        for var in &config.env_vars {
            match lookup(var) {
                Some(value) => passed_env.push((var.clone(), value)),
                None => missing.push(var.clone()),
            }
        }
        let mut headers = Vec::new();
        if let Some(var) = &config.bearer_token_env_var {
            match lookup(var) {
                Some(value) => {
                    headers.push(("Authorization".to_owned(), format!("Bearer {value}")))
                }
                None => missing.push(var.clone()),
            }
        }
        for (header, var) in &config.env_http_headers {
            match lookup(var) {
                Some(value) => headers.push((header.clone(), value)),
                None => missing.push(var.clone()),
            }
        }
        Self {
            name: name.to_owned(),
            origin,
            config,
            passed_env,
            headers,
            missing,
        }
    }

    /// `stdio: PROGRAM ARGS` or `http: URL`, for people.
    pub fn transport(&self) -> String {
        match (&self.config.command, &self.config.url) {
            (Some(command), _) => {
                let mut words = vec![command.clone()];
                words.extend(self.config.args.iter().cloned());
                format!("stdio: {}", words.join(" "))
            }
            (None, Some(url)) => format!("http: {url}"),
            (None, None) => "none".to_owned(),
        }
    }
}

fn enabled<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
    bool::deserialize(deserializer).map(Some)
}

/// Seconds as an integer or a fraction, within an hour.
fn seconds<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Duration>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Number {
        Whole(u64),
        Fraction(f64),
    }
    let seconds = match Number::deserialize(deserializer)? {
        #[expect(
            clippy::cast_precision_loss,
            reason = "checked against an hour just below"
        )]
        Number::Whole(whole) => whole as f64,
        Number::Fraction(fraction) => fraction,
    };
    if !(seconds > 0.0 && seconds <= MAX_TIMEOUT_SECS) {
        return Err(serde::de::Error::custom(
            "a timeout is a number of seconds above 0 and at most 3600",
        ));
    }
    Ok(Some(Duration::from_secs_f64(seconds)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> ServerConfig {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn a_stdio_server_needs_a_command_and_no_headers() {
        let config = parse("command = \"srv\"\nargs = [\"-v\"]\ntool_timeout = 0.5\n");
        config.check("docs").unwrap();
        assert_eq!(config.tool_timeout(), Duration::from_millis(500));
        let headers = parse("command = \"srv\"\nbearer_token_env_var = \"T\"\n");
        assert!(headers.check("docs").is_err());
        assert!(parse("").check("docs").is_err());
    }

    #[test]
    fn credentials_never_go_over_plain_http_to_another_host() {
        let remote = parse("url = \"http://mcp.example.com/mcp\"\nbearer_token_env_var = \"T\"\n");
        assert!(remote.check("x").is_err());
        let local = parse("url = \"http://127.0.0.1:9/mcp\"\nbearer_token_env_var = \"T\"\n");
        local.check("x").unwrap();
        let plain = parse("url = \"http://mcp.example.com/mcp\"\n");
        plain.check("x").unwrap();
        assert!(parse("url = \"ftp://h/\"").check("x").is_err());
        // The host the client connects to is the one checked: a backslash
        // is a slash to it, and userinfo is not the host.
        for tricky in [
            "http://192.0.2.2:18720\\\\@localhost/bs",
            "http://localhost@192.0.2.2/mcp",
            "http://127.0.0.1.example.com/mcp",
        ] {
            let config = parse(&format!(
                "url = \"{tricky}\"\nbearer_token_env_var = \"T\"\n"
            ));
            assert!(config.check("x").is_err(), "{tricky}");
        }
        parse("url = \"http://[::1]:9/mcp\"\nbearer_token_env_var = \"T\"\n")
            .check("x")
            .unwrap();
    }

    #[test]
    fn bad_names_and_timeouts_are_refused() {
        assert!(parse("command = \"s\"").check("a__b").is_err());
        assert!(parse("command = \"s\"").check("a b").is_err());
        assert!(toml::from_str::<ServerConfig>("command = \"s\"\ntool_timeout = 0").is_err());
        assert!(toml::from_str::<ServerConfig>("command = \"s\"\nstartup_timeout = 7200").is_err());
    }

    #[test]
    fn allow_and_deny_lists_and_read_only_tools() {
        let config = parse(
            "command = \"s\"\nenabled_tools = [\"a\", \"b\"]\ndisabled_tools = [\"b\"]\nread_only_tools = [\"a\"]\n",
        );
        assert!(config.offers("a") && !config.offers("b") && !config.offers("c"));
        assert!(config.is_read_only("a") && !config.is_read_only("b"));
        assert!(config.may_read_only());
    }

    #[test]
    fn resolving_reads_only_through_the_lookup_and_names_what_is_missing() {
        let config = parse(
            "url = \"https://h/mcp\"\nbearer_token_env_var = \"TOKEN\"\nenv_http_headers = { \"X-Team\" = \"TEAM\" }\n",
        );
        let lookup = |name: &str| (name == "TOKEN").then(|| "s3cret".to_owned());
        let spec = ServerSpec::resolve("h", Origin::Global, config, &lookup);
        assert_eq!(
            spec.headers,
            vec![("Authorization".to_owned(), "Bearer s3cret".to_owned())]
        );
        assert_eq!(spec.missing, vec!["TEAM".to_owned()]);
    }
}
