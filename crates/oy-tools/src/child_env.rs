//! `ChildEnv`: the environment every child process gets (bash, exec, PTY
//! sessions, user tools) — the caller's environment with credential-like
//! variables removed, plus names the user allowed on purpose.
//!
//! The library never reads the process environment itself: the frontend
//! hands its variables to [`ChildEnv::filtered`].

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

/// Fragments that mark a credential anywhere in the (upper-cased) name.
const CREDENTIAL_SUBSTRINGS: [&str; 15] = [
    "SECRET",
    "TOKEN",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "COOKIE",
    "APIKEY",
    "API_KEY",
    "ACCESSKEY",
    "PRIVATEKEY",
    "JWT",
    "BEARER",
    "CONNECTION_STRING",
    "WEBHOOK",
];

/// Words that mark a credential only as a whole `_`-separated part of the
/// name: `SSH_AUTH_SOCK` and `MYSQL_PWD` go, `GIT_AUTHOR_NAME`,
/// `KEYBOARD_LAYOUT` and `PASSENGER_ENV` stay. `PWD` and `OLDPWD`
/// themselves are the shell's directories and are kept.
const CREDENTIAL_WORDS: [&str; 15] = [
    "KEY",
    "KEYS",
    "KEYFILE",
    "PASS",
    "PWD",
    "PW",
    "PSW",
    "PAT",
    "AUTH",
    "SESSION",
    "PRIVATE",
    "SIGNATURE",
    "CREDS",
    "PEM",
    "ASKPASS",
];

/// Whole names that carry credentials without a telling fragment.
const CREDENTIAL_NAMES: [&str; 9] = [
    "IDENTITY_HEADER",
    "DATABASE_URL",
    "KUBECONFIG",
    "AWS_PROFILE",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "NETRC",
    "PGPASSFILE",
];

/// Suffixes of names that are connection strings (`SENTRY_DSN`, `REDIS_URL`…
/// are only stripped when their value holds a password, see below).
const CREDENTIAL_SUFFIXES: [&str; 1] = ["_DSN"];

/// True when a variable should not reach a child process: its name looks
/// like a credential, or its value is a URL with a password in it.
pub fn is_credential_like(name: &OsStr, value: &OsStr) -> bool {
    let upper = name.to_string_lossy().to_ascii_uppercase();
    if upper == "PWD" || upper == "OLDPWD" {
        return false;
    }
    CREDENTIAL_SUBSTRINGS
        .iter()
        .any(|fragment| upper.contains(fragment))
        || upper
            .split('_')
            .any(|word| CREDENTIAL_WORDS.contains(&word))
        || CREDENTIAL_NAMES.contains(&upper.as_str())
        || CREDENTIAL_SUFFIXES
            .iter()
            .any(|suffix| upper.ends_with(suffix))
        || upper.starts_with("VSCODE_GIT_")
        || secret_value(value.as_bytes())
}

/// Values that are credentials whatever their name: a URL with a
/// password, a PEM block, an Azure-style connection string.
fn secret_value(value: &[u8]) -> bool {
    let text = String::from_utf8_lossy(value);
    text.contains("-----BEGIN")
        || text.contains("AccountKey=")
        || text.contains("SharedAccessSignature=")
        || url_with_password(value)
}

/// `scheme://user:password@host…` anywhere in the value.
fn url_with_password(value: &[u8]) -> bool {
    let text = String::from_utf8_lossy(value);
    text.match_indices("://").any(|(at, sep)| {
        let rest = &text[at + sep.len()..];
        // The password may itself hold `/`, `?` or `#`: the userinfo ends
        // at the last `@` before the next whitespace.
        let token = rest.split(char::is_whitespace).next().unwrap_or("");
        token
            .rsplit_once('@')
            .is_some_and(|(userinfo, _)| userinfo.contains(':'))
    })
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

/// The environment for child processes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildEnv {
    vars: Vec<(OsString, OsString)>,
    removed: Vec<String>,
}

impl Default for ChildEnv {
    /// A minimal environment (a standard `PATH` and a UTF-8 locale) for
    /// embedders that pass none: nothing of the parent's leaks by default.
    fn default() -> Self {
        Self {
            vars: vec![
                ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
                ("LANG".into(), "C.UTF-8".into()),
            ],
            removed: Vec::new(),
        }
    }
}

impl ChildEnv {
    /// `vars` (the caller's environment) minus credential-like variables,
    /// except the names in `allow`, which pass through on purpose.
    pub fn filtered(
        vars: impl IntoIterator<Item = (OsString, OsString)>,
        allow: &[String],
    ) -> Self {
        let mut kept = Vec::new();
        let mut removed = Vec::new();
        for (name, value) in vars {
            let value = if name == "PATH" {
                absolute_path_entries(&value)
            } else {
                value
            };
            let allowed = allow.iter().any(|allowed| OsStr::new(allowed) == name);
            if !allowed && is_credential_like(&name, &value) {
                removed.push(name.to_string_lossy().into_owned());
            } else {
                kept.push((name, value));
            }
        }
        removed.sort();
        Self {
            vars: kept,
            removed,
        }
    }

    /// The variables a child gets.
    pub fn vars(&self) -> &[(OsString, OsString)] {
        &self.vars
    }

    /// Names that were removed (for `oy doctor` and debugging; never values).
    pub fn removed(&self) -> &[String] {
        &self.removed
    }

    /// The value of `name`, if kept.
    pub fn get(&self, name: &str) -> Option<&OsStr> {
        self.vars
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_os_str())
    }

    /// Replaces a command's environment with this one.
    pub fn apply(&self, command: &mut std::process::Command) {
        command.env_clear();
        command.envs(self.vars.iter().map(|(name, value)| (name, value)));
    }
}
