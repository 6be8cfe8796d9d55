//! `GIT_CONFIG_COUNT` with its `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`
//! pairs: git's way to pass `-c key=value` through the environment, judged
//! and kept or removed one pair at a time.
//!
//! Judging the two halves apart both leaks and breaks git: the word `KEY`
//! removed `GIT_CONFIG_KEY_0` while `GIT_CONFIG_VALUE_0` carried an
//! `http.extraHeader` bearer token to the child, and git refuses to start
//! when `GIT_CONFIG_COUNT` names a pair that is not all there. So a pair is
//! secret when either half is, a secret pair goes as a whole, and when any
//! active pair goes the rest are renumbered from 0 under a matching count.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;

use oy_secrets::{has_userinfo, is_credential_name, is_secret_value};

const COUNT: &str = "GIT_CONFIG_COUNT";
const KEY_PREFIX: &str = "GIT_CONFIG_KEY_";
const VALUE_PREFIX: &str = "GIT_CONFIG_VALUE_";

/// The part a variable plays in git's environment config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Member {
    /// `GIT_CONFIG_COUNT`.
    Count,
    /// `GIT_CONFIG_KEY_<n>`: a config key such as `core.pager`.
    Key(usize),
    /// `GIT_CONFIG_VALUE_<n>`: the value for the key with the same `n`.
    Value(usize),
}

impl Member {
    /// The part `name` plays, if any. Git reads exactly these spellings
    /// (`GIT_CONFIG_KEY_01` is not key 1), so nothing else belongs.
    pub(super) fn of(name: &str) -> Option<Self> {
        if name == COUNT {
            Some(Self::Count)
        } else if let Some(digits) = name.strip_prefix(KEY_PREFIX) {
            canonical_index(digits).map(Self::Key)
        } else {
            name.strip_prefix(VALUE_PREFIX)
                .and_then(canonical_index)
                .map(Self::Value)
        }
    }
}

fn canonical_index(digits: &str) -> Option<usize> {
    let canonical = !digits.is_empty()
        && digits.bytes().all(|byte| byte.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    canonical.then(|| digits.parse().ok()).flatten()
}

/// True when the config key `key` (`http.<url>.extraHeader`) names a setting
/// that carries a credential whatever its value.
pub(super) fn is_credential_setting(key: &str) -> bool {
    let lower = key.trim().to_ascii_lowercase();
    let Some((section, _)) = lower.split_once('.') else {
        return false;
    };
    let (middle, name) = match lower.rsplit_once('.') {
        Some((head, name)) => (head.split_once('.').map_or("", |(_, sub)| sub), name),
        None => ("", lower.as_str()),
    };
    // Every `credential.*` setting configures how secrets are fetched or
    // stored (a helper may even print one inline).
    section == "credential"
        // A header (`Authorization: …`), a TLS client key, git send-email's
        // SMTP password: names the variable-name rules do not catch.
        || matches!(name, "extraheader" | "sslkey" | "smtppass")
        // `url.https://user:token@host/.insteadOf`: the rewritten URL logs in.
        || section == "url"
            && matches!(name, "insteadof" | "pushinsteadof")
            && has_userinfo(middle)
        // `*.password`, `*.token`, `http.cookieFile`, `core.askPass`.
        || is_credential_name(name)
}

/// True when `GIT_CONFIG_PARAMETERS` (what `git -c` hands to its children,
/// as `'key'='value'` or older `'key=value'` words) sets a credential
/// setting.
pub(super) fn parameters_set_credential(value: &str) -> bool {
    // Quoted words alternate with what lies between them; a word right after
    // `=` is a value, any other is a key (or `key=value`). An escaped quote
    // (`'\''`) only shifts the split, and then a value read as a key errs on
    // the side of removal.
    let mut quoted = false;
    let mut after_equals = false;
    for piece in value.split('\'') {
        if !quoted {
            after_equals = piece.ends_with('=');
        } else if !after_equals {
            let key = piece.split_once('=').map_or(piece, |(key, _)| key);
            if is_credential_setting(key) {
                return true;
            }
        }
        quoted = !quoted;
    }
    false
}

/// Git's environment config, set aside while the other variables are
/// filtered, then resolved into consistent pairs.
#[derive(Debug, Default)]
pub(super) struct GitConfigEnv {
    count: Option<(OsString, usize)>,
    keys: BTreeMap<usize, OsString>,
    values: BTreeMap<usize, OsString>,
}

/// What [`GitConfigEnv::resolve`] keeps and removes.
#[derive(Debug, Default)]
pub(super) struct Resolved {
    pub(super) kept: Vec<(OsString, OsString)>,
    pub(super) removed: Vec<String>,
}

impl GitConfigEnv {
    /// Takes `name=value` when it belongs to git's environment config and
    /// hands it back otherwise. A `GIT_CONFIG_COUNT` that is not a number is
    /// handed back: git rejects it before reading any pair, so it guards
    /// nothing and is judged like any other variable. A repeated name
    /// replaces the earlier one, as it would in `Command::envs`.
    pub(super) fn take(&mut self, name: OsString, value: OsString) -> Option<(OsString, OsString)> {
        let member = name.to_str().and_then(Member::of);
        match member {
            Some(Member::Count) => match value.to_str().and_then(|text| text.parse().ok()) {
                Some(count) => {
                    self.count = Some((value, count));
                    None
                }
                None => Some((name, value)),
            },
            Some(Member::Key(index)) => {
                self.keys.insert(index, value);
                None
            }
            Some(Member::Value(index)) => {
                self.values.insert(index, value);
                None
            }
            None => Some((name, value)),
        }
    }

    /// Keeps each ordinary pair, removes secret pairs (unless `allowed`
    /// names either half) and halves without a partner. Pairs below the
    /// count are the ones git reads; if any of those goes, the kept ones are
    /// renumbered from 0 and the count follows (or goes, with none left).
    /// Pairs at or past the count are inert to git and keep their names.
    pub(super) fn resolve(mut self, allowed: impl Fn(&str) -> bool) -> Resolved {
        let active = self.count.as_ref().map_or(0, |(_, count)| *count);
        let indices: BTreeSet<usize> = self
            .keys
            .keys()
            .chain(self.values.keys())
            .copied()
            .collect();
        let mut resolved = Resolved::default();
        let mut kept_active = Vec::new();
        let mut kept_inert = Vec::new();
        let mut active_removed = false;
        for index in indices {
            let (key_name, value_name) = (
                format!("{KEY_PREFIX}{index}"),
                format!("{VALUE_PREFIX}{index}"),
            );
            match (self.keys.remove(&index), self.values.remove(&index)) {
                (Some(key), Some(value))
                    if allowed(&key_name)
                        || allowed(&value_name)
                        || !is_secret_pair(&key, &value) =>
                {
                    let pair = (index, key, value);
                    if index < active {
                        kept_active.push(pair);
                    } else {
                        kept_inert.push(pair);
                    }
                }
                (key, value) => {
                    if key.is_some() {
                        resolved.removed.push(key_name);
                    }
                    if value.is_some() {
                        resolved.removed.push(value_name);
                    }
                    active_removed |= index < active;
                }
            }
        }
        if active_removed {
            if !kept_active.is_empty() {
                resolved
                    .kept
                    .push((COUNT.into(), kept_active.len().to_string().into()));
            } else if self.count.is_some() {
                resolved.removed.push(COUNT.to_owned());
            }
            for (new_index, (_, key, value)) in kept_active.into_iter().enumerate() {
                resolved.kept.push(pair_var(KEY_PREFIX, new_index, key));
                resolved.kept.push(pair_var(VALUE_PREFIX, new_index, value));
            }
        } else {
            if let Some((count, _)) = self.count.take() {
                resolved.kept.push((COUNT.into(), count));
            }
            for (index, key, value) in kept_active {
                resolved.kept.push(pair_var(KEY_PREFIX, index, key));
                resolved.kept.push(pair_var(VALUE_PREFIX, index, value));
            }
        }
        for (index, key, value) in kept_inert {
            resolved.kept.push(pair_var(KEY_PREFIX, index, key));
            resolved.kept.push(pair_var(VALUE_PREFIX, index, value));
        }
        resolved
    }
}

fn pair_var(prefix: &str, index: usize, value: OsString) -> (OsString, OsString) {
    (format!("{prefix}{index}").into(), value)
}

/// A pair is secret when its key names a credential setting or either half
/// has a secret's shape (`url.https://u:p@host/.insteadOf` holds one in
/// the key).
fn is_secret_pair(key: &OsString, value: &OsString) -> bool {
    let key = key.to_string_lossy();
    let value = value.to_string_lossy();
    is_credential_setting(&key) || is_secret_value(&key) || is_secret_value(&value)
}
