//! `ChildEnv`: the environment every child process gets (bash, exec, PTY
//! sessions, user tools) — the caller's environment with credential-like
//! variables removed, plus names the user allowed on purpose.
//!
//! A variable goes when its name says credential
//! ([`oy_secrets::is_credential_name`]), when its value has a secret's
//! shape whatever the name ([`oy_secrets::is_secret_value`]), or, for git's
//! `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` pairs, when either half does
//! (`git_config`, which also keeps `GIT_CONFIG_COUNT` consistent). What a
//! secret looks like is `oy-secrets`' business, shared with the audit's
//! redactor; this module owns only how the environment is filtered.
//!
//! The library never reads the process environment itself: the frontend
//! hands its variables to [`ChildEnv::filtered`].

mod git_config;

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use git_config::{GitConfigEnv, Member};
use oy_secrets::{is_credential_name, is_secret_value};

/// True when a variable should not reach a child process: its name looks
/// like a credential, or its value has a secret's shape (a published token
/// format, a URL or connection string with a password, an auth header, a
/// private key). For `GIT_CONFIG_KEY_<n>` the value is a config key and is
/// judged as one (`http.extraHeader` carries a credential); the word `KEY`
/// in the variable's own name is structure, not a marker.
pub fn is_credential_like(name: &OsStr, value: &OsStr) -> bool {
    let name = name.to_string_lossy();
    let value = String::from_utf8_lossy(value.as_bytes());
    let by_name = match Member::of(&name) {
        Some(Member::Key(_)) => git_config::is_credential_setting(&value),
        Some(Member::Value(_) | Member::Count) => false,
        None if name == "GIT_CONFIG_PARAMETERS" => git_config::parameters_set_credential(&value),
        None => is_credential_name(&name),
    };
    by_name || is_secret_value(&value)
}

/// `PATH` without empty or relative entries: those make program lookup
/// depend on the working directory, so a workspace could plant its own
/// `bash` (or any tool) and have it run in place of the real one.
fn absolute_path_entries(value: &OsStr) -> OsString {
    let kept: Vec<&[u8]> = value
        .as_bytes()
        .split(|byte| *byte == b':')
        .filter(|entry| entry.first() == Some(&b'/'))
        .collect();
    OsString::from(OsStr::from_bytes(&kept.join(&b':')))
}

/// The environment for child processes. Filtering happens on first use,
/// not when it is made: the value shapes are one large automaton (a few
/// milliseconds to build, see `oy-secrets`), and a run that starts no
/// process should not pay for it.
/// Clones share the result.
#[derive(Clone)]
pub struct ChildEnv {
    inner: Arc<Lazy>,
}

/// The caller's variables and allow-list, kept until the first use.
type Source = (Vec<(OsString, OsString)>, Vec<String>);

struct Lazy {
    /// The caller's variables and allow-list, until filtered.
    source: Mutex<Option<Source>>,
    filtered: OnceLock<Filtered>,
}

#[derive(Debug, PartialEq, Eq)]
struct Filtered {
    vars: Vec<(OsString, OsString)>,
    removed: Vec<String>,
}

impl std::fmt::Debug for ChildEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChildEnv")
            .field("kept", &self.vars().len())
            .field("removed", &self.removed())
            .finish()
    }
}

impl PartialEq for ChildEnv {
    fn eq(&self, other: &Self) -> bool {
        self.now() == other.now()
    }
}

impl Eq for ChildEnv {}

impl Default for ChildEnv {
    /// A minimal environment (a standard `PATH` and a UTF-8 locale) for
    /// embedders that pass none: nothing of the parent's leaks by default.
    fn default() -> Self {
        Self::ready(Filtered {
            vars: vec![
                ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
                ("LANG".into(), "C.UTF-8".into()),
            ],
            removed: Vec::new(),
        })
    }
}

impl ChildEnv {
    fn ready(filtered: Filtered) -> Self {
        Self {
            inner: Arc::new(Lazy {
                source: Mutex::new(None),
                filtered: OnceLock::from(filtered),
            }),
        }
    }

    /// The filtered environment, computed on the first call.
    fn now(&self) -> &Filtered {
        self.inner.filtered.get_or_init(|| {
            let (vars, allow) = self
                .inner
                .source
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
                .unwrap_or_default();
            filter(vars, &allow)
        })
    }

    /// `vars` (the caller's environment) minus credential-like variables,
    /// except the names in `allow`, which pass through on purpose. Git's
    /// `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` pairs are kept or removed
    /// as pairs (naming either half in `allow` keeps the pair), and kept
    /// pairs are renumbered under a matching `GIT_CONFIG_COUNT` when one
    /// that git reads is removed. [`removed`](Self::removed) lists the
    /// original names. The filtering itself happens on first use.
    pub fn filtered(
        vars: impl IntoIterator<Item = (OsString, OsString)>,
        allow: &[String],
    ) -> Self {
        Self {
            inner: Arc::new(Lazy {
                source: Mutex::new(Some((vars.into_iter().collect(), allow.to_vec()))),
                filtered: OnceLock::new(),
            }),
        }
    }

    /// The variables a child gets.
    pub fn vars(&self) -> &[(OsString, OsString)] {
        &self.now().vars
    }

    /// Names that were removed (for `oy doctor` and debugging; never values).
    pub fn removed(&self) -> &[String] {
        &self.now().removed
    }

    /// The value of `name`, if kept.
    pub fn get(&self, name: &str) -> Option<&OsStr> {
        self.vars()
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_os_str())
    }

    /// This environment plus `extra`, which a person set explicitly (an
    /// MCP server's `env` table): they pass unfiltered and replace a kept
    /// variable of the same name.
    pub fn with_vars(&self, extra: impl IntoIterator<Item = (OsString, OsString)>) -> Self {
        let mut vars = self.vars().to_vec();
        for (name, value) in extra {
            vars.retain(|(kept, _)| *kept != name);
            vars.push((name, value));
        }
        Self::ready(Filtered {
            vars,
            removed: self.removed().to_vec(),
        })
    }

    /// Replaces a command's environment with this one.
    pub fn apply(&self, command: &mut std::process::Command) {
        command.env_clear();
        command.envs(self.vars().iter().map(|(name, value)| (name, value)));
    }
}

/// The filter itself (see [`ChildEnv::filtered`]).
fn filter(vars: Vec<(OsString, OsString)>, allow: &[String]) -> Filtered {
    let allowed = |name: &OsStr| allow.iter().any(|allowed| OsStr::new(allowed) == name);
    let mut git_config = GitConfigEnv::default();
    let mut kept = Vec::new();
    let mut removed = Vec::new();
    for (name, value) in vars {
        let value = if name == "PATH" {
            absolute_path_entries(&value)
        } else {
            value
        };
        let Some((name, value)) = git_config.take(name, value) else {
            continue;
        };
        if !allowed(&name) && is_credential_like(&name, &value) {
            removed.push(name.to_string_lossy().into_owned());
        } else {
            kept.push((name, value));
        }
    }
    let git_config = git_config.resolve(|name| allowed(OsStr::new(name)));
    kept.extend(git_config.kept);
    removed.extend(git_config.removed);
    removed.sort();
    Filtered {
        vars: kept,
        removed,
    }
}
