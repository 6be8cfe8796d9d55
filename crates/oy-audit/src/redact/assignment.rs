//! The audit's own heuristics for secret-named assignments: `NAME = value`
//! in any language or config format, `("name", "value")` pairs and
//! `<name>value</name>` elements, where `oy_secrets::secret_name` judges the
//! name and [`looks_secret`] the value (code and placeholders pass).
//!
//! They come after every shape of `oy-secrets`' table: the first rule a
//! line matches names it, and these all name it `generic-secret`.

use std::sync::LazyLock;

use regex::Regex;

use super::regex;
use super::value::{is_separated_identifier, is_upper_identifier, looks_secret};

/// The secret words a name is looked at for: a prefilter, wide enough for
/// every name the audit's heuristics act on; `oy_secrets::secret_name`
/// decides which names are secret.
macro_rules! secret_words {
    () => {
        "(?:key|secret|token|pass|pwd|pw|auth|credential|dsn|private)"
    };
}
/// A name that may hold a secret word anywhere.
macro_rules! secret_name_pattern {
    ($extra:literal) => {
        concat!(
            "[A-Za-z0-9_.",
            $extra,
            r"\-]*",
            secret_words!(),
            "[A-Za-z0-9_.",
            $extra,
            r"\-]*"
        )
    };
}

/// One heuristic: a pattern for the prefilter, and the check the whole line
/// must pass (the pattern only says "worth a look").
pub(super) struct Heuristic {
    pub(super) pattern: &'static str,
    pub(super) check: fn(&str) -> bool,
}

/// The kind every heuristic names a line.
pub(super) const KIND: &str = "generic-secret";

/// In priority order, after the shared shapes.
pub(super) const HEURISTICS: &[Heuristic] = &[
    Heuristic {
        pattern: concat!(
            "(?i)",
            secret_words!(),
            r#"[A-Za-z0-9_.\-]*["'`\]]?\s*(?:[:=]|=>)"#
        ),
        check: generic_assignment_check,
    },
    Heuristic {
        // `define('DB_PASSWORD', 'v')`, `set("api_key", "v")`.
        pattern: concat!(
            "(?i)[\"'`]",
            secret_name_pattern!(""),
            "[\"'`]\\s*,\\s*[\"'`]"
        ),
        check: name_value_pair_check,
    },
    Heuristic {
        // `<password>v</password>`.
        pattern: concat!("(?i)<", secret_name_pattern!(":"), r"(?:\s[^>]*)?>[^<]+</"),
        check: xml_element_check,
    },
    Heuristic {
        // Only a trigger for the prefilter: a secret-named key inside a
        // string, its quotes escaped (`\"api_key\": \"…\"` in a notebook),
        // which the line's other reading (`reading`) then judges.
        pattern: concat!(
            "(?i)",
            secret_words!(),
            r#"[A-Za-z0-9_.\-]*\\["']\s*(?:[:=]|=>)"#
        ),
        check: |_| false,
    },
    Heuristic {
        // Only a trigger for the prefilter: a secret-named YAML key whose
        // value follows on the next lines (see `yaml_secret_key`).
        pattern: concat!(
            "(?im)",
            secret_words!(),
            r#"[A-Za-z0-9_.\-]*["']?\s*:\s*(?:[|>][-+0-9]*)?\s*(?:#.*)?$"#
        ),
        check: |_| false,
    },
];

/// Whether `name` names a secret: `None` when it does not, else whether
/// it is password-like (its values need no randomness to count). The
/// name table is `oy-secrets`', shared with the environment filter.
pub(super) fn secret_name(name: &str) -> Option<bool> {
    oy_secrets::secret_name(name).map(oy_secrets::SecretName::is_password_like)
}

/// `NAME = value` where NAME holds a secret-like word anywhere.
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    regex(concat!(
        r"(?i)(?:^|[^A-Za-z0-9_.\-])(",
        secret_name_pattern!(""),
        ")",
        r#"["'`\]]?\s*"#,
        // A type annotation between the name and `=` (`const KEY: &str =`).
        r#"(?::\s*&?(?:'[a-z]+\s+)?[A-Za-z_][A-Za-z0-9_<>\[\]]*\s*)?"#,
        r#"(?:===?|!==?|:=|=>|=|:)\s*"#,
        // A quoted value (with a `b"…"`/`r"…"` prefix), or a bare one.
        r#"(?:[bBrRuf]{0,2}"([^"]*)"|[bBrRuf]{0,2}'([^']*)'|`([^`]*)`|([^\s,;'"`]+))"#,
    ))
});

/// `("name", "value")`: a call or tuple pairing a secret name with a value.
static NAME_VALUE_PAIR: LazyLock<Regex> = LazyLock::new(|| {
    regex(concat!(
        r#"(?i)["'`]("#,
        secret_name_pattern!(""),
        r#")["'`]\s*,\s*(?:"([^"]*)"|'([^']*)'|`([^`]*)`)(\s*:)?"#
    ))
});

/// `<name …>value</`: an XML element named like a secret.
static XML_ELEMENT: LazyLock<Regex> = LazyLock::new(|| {
    regex(concat!(
        "(?i)<(",
        secret_name_pattern!(":"),
        r")(?:\s[^>]*)?>([^<]+)</"
    ))
});

/// True when some assignment on the line gives a secret-like name a
/// value that looks like a real secret rather than code or a placeholder.
fn generic_assignment_check(content: &str) -> bool {
    ASSIGNMENT.captures_iter(content).any(|captures| {
        let Some(name) = captures.get(1) else {
            return false;
        };
        let Some(password_like) = secret_name(name.as_str()) else {
            return false;
        };
        match (captures.get(2), captures.get(3), captures.get(4)) {
            (Some(v), _, _) | (_, Some(v), _) | (_, _, Some(v)) => {
                looks_secret(v.as_str(), false, password_like, false)
            }
            _ => captures.get(5).is_some_and(|v| {
                let before = content.get(..name.start()).unwrap_or_default().trim_end();
                let operator = content.get(name.end()..v.start()).unwrap_or_default();
                let rest = content.get(v.end()..).unwrap_or_default().trim();
                let ends_statement = rest.is_empty()
                    || rest.starts_with(['#', ',', ';', '}', ')'])
                    || rest.starts_with("//");
                // `name: word` is YAML only at the start of an entry;
                // mid-line it is prose ("secrets: collected").
                let entry_start = before.is_empty() || before.ends_with(['-', '{', ',']);
                // `NAME=word` without spaces is a shell or config value,
                // also before a command (`PGPASSWORD=word psql`) or a
                // closing quote (`"--password=word"`).
                let glued = operator == "=";
                let letters_ok = glued || ends_statement && (operator.contains('=') || entry_start);
                looks_secret(v.as_str(), true, password_like, letters_ok)
            }),
        }
    })
}

fn name_value_pair_check(content: &str) -> bool {
    NAME_VALUE_PAIR.captures_iter(content).any(|captures| {
        let Some(password_like) = captures.get(1).and_then(|m| secret_name(m.as_str())) else {
            return false;
        };
        // `{"cmd": "pwd", "workdir": …}`: the "value" is the next key.
        if captures.get(5).is_some() {
            return false;
        }
        [captures.get(2), captures.get(3), captures.get(4)]
            .into_iter()
            .flatten()
            // `("TOKEN_NAMES", "API_TOKEN")`: a list of names.
            .filter(|v| !is_separated_identifier(v.as_str()) && !is_upper_identifier(v.as_str()))
            .any(|v| looks_secret(v.as_str(), false, password_like, false))
    })
}

fn xml_element_check(content: &str) -> bool {
    XML_ELEMENT.captures_iter(content).any(|captures| {
        let name = captures.get(1).map_or("", |m| m.as_str());
        let local = name.rsplit(':').next().unwrap_or(name);
        // A plist's `<key>` holds a key's name, not a key.
        if local.eq_ignore_ascii_case("key") {
            return false;
        }
        let Some(password_like) = secret_name(local) else {
            return false;
        };
        captures
            .get(2)
            .is_some_and(|v| looks_secret(v.as_str().trim(), false, password_like, false))
    })
}
