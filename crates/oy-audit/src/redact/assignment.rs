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
        "(?:key|secret|token|pass|pwd|pw|auth|credential|dsn|private|priv|wif|mnemonic|seed|phrase|bearer|jwt)"
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
            // Optionally a type between name and operator (Go's `tok string =`).
            r#"[A-Za-z0-9_.\-]*["'`]?\]?(?:\s+(?:string|\[\]byte))?\s*(?:[:=]|=>)"#
        ),
        check: generic_assignment_check,
    },
    Heuristic {
        // `define('DB_PASSWORD', 'v')`, `set("api_key", "v")`, Ruby's
        // `set :password, "v"`.
        pattern: concat!(
            "(?i)(?:[\"'`]|(?:^|[\\s(,]):)",
            secret_name_pattern!(""),
            "[\"'`]?\\s*,\\s*[\"'`]"
        ),
        check: name_value_pair_check,
    },
    Heuristic {
        // A config directive, `name value` alone on its line (Redis's
        // `requirepass`, keepalived's `auth_pass`, slapd's `rootpw`, a
        // netrc's `password`), or Windows' `setx NAME value`.
        pattern: concat!(
            r#"(?im)^[ \t]*(?:setx[ \t]+)?[A-Za-z0-9_.\-]*"#,
            secret_words!(),
            r#"[A-Za-z0-9_.\-]*[ \t]+["']?[^\s"'=:]+["']?[ \t]*$"#
        ),
        check: super::directive::directive_check,
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
        r"(?i)(?:^|[^A-Za-z0-9_.\-])(?P<name>",
        secret_name_pattern!(""),
        ")",
        // A closing quote and bracket (`$config["smtp_pass"] =`).
        r#"["'`]?\]?\s*"#,
        // A type annotation between the name and `=` (`const KEY: &str =`,
        // Go's `var token string =`).
        // (A type is followed by a space: `password: Tr0ub4dor=3` is YAML.)
        r#"(?::\s*&?(?:'[a-z]+\s+)?[A-Za-z_][A-Za-z0-9_<>\[\]]*\s+|\s+(?:string|\[\]byte)\s*)?"#,
        r#"(?:===?|!==?|:=|=>|=|:)\s*"#,
        // A YAML tag (`!!str`).
        r#"(?:!!?[A-Za-z]+\s+)?"#,
        // A quoted value (with a `b"…"`/`r"…"` prefix), a literal wrapped
        // in a call (`bytes.fromhex("…")`), or a bare value.
        r#"(?:[bBrRuf]{0,2}"(?P<dq>[^"]*)"|[bBrRuf]{0,2}'(?P<sq>[^']*)'|`(?P<bt>[^`]*)`"#,
        r#"|[A-Za-z_][A-Za-z0-9_.]*\(\s*[bBrRu]?["'](?P<call>[^"']*)["']"#,
        r#"|(?P<bare>[^\s,;'"`]+))"#,
    ))
});

/// `("name", "value")`: a call or tuple pairing a secret name with a value
/// (the name quoted, or a Ruby symbol).
static NAME_VALUE_PAIR: LazyLock<Regex> = LazyLock::new(|| {
    regex(concat!(
        r#"(?i)(?:["'`]|(?:^|[\s(,]):)("#,
        secret_name_pattern!(""),
        r#")["'`]?\s*,\s*(?:"([^"]*)"|'([^']*)'|`([^`]*)`)(\s*:)?"#
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
    // On from each name, not from each match's end: a value may hold an
    // assignment of its own (`"db:seed": "PGPASSWORD=… psql"`).
    let mut at = 0;
    while let Some(captures) = ASSIGNMENT.captures_at(content, at) {
        let Some(name) = captures.name("name") else {
            return false;
        };
        if assignment_is_secret(content, &captures) {
            return true;
        }
        at = name.end();
    }
    false
}

/// One assignment: its name is a secret name and its value a secret.
fn assignment_is_secret(content: &str, captures: &regex::Captures<'_>) -> bool {
    let Some(name) = captures.name("name") else {
        return false;
    };
    let Some(password_like) = secret_name(name.as_str()) else {
        return false;
    };
    // A Markdown link's label (`[`Token`]: ../enum.Token.html`).
    let before = content.get(..name.start()).unwrap_or_default();
    let after = content.get(name.end()..).unwrap_or_default();
    if before.contains('[') && after.trim_start_matches('`').starts_with("]:") {
        return false;
    }
    // A literal inside a call counts when it is data (`fromhex("9f…")`),
    // not another name (`headers.get("Authorization")`), given to a
    // setting or constant (`MASTER_KEY = bytes.fromhex(…)`) or a password,
    // not to a test's local (`let key = from_hex("0123…")`).
    if let Some(v) = captures.name("call") {
        let setting = !name.as_str().bytes().any(|b| b.is_ascii_lowercase());
        return (setting || password_like)
            && v.as_str().bytes().any(|b| b.is_ascii_digit())
            && looks_secret(v.as_str(), false, password_like, false);
    }
    let quoted = ["dq", "sq", "bt"]
        .into_iter()
        .find_map(|group| captures.name(group));
    match quoted {
        Some(v) => looks_secret(v.as_str(), false, password_like, false),
        None => captures.name("bare").is_some_and(|v| {
            let before = before.trim_end();
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
            // `("TOKEN_NAMES", "API_TOKEN")`, `TOKENIZERS_*`: names.
            .filter(|v| {
                let v = v.as_str().trim_end_matches('*');
                !is_separated_identifier(v) && !is_upper_identifier(v)
            })
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
