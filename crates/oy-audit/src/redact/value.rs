//! Whether a value given to a secret-named name looks like a real secret:
//! length and entropy for keys, anything but code or a placeholder for
//! passwords.

use oy_secrets::{is_placeholder, shannon_entropy};

/// Bare letters-only values that are words of code or configuration, not
/// passwords (`password: String,`, `secret: SecretStr`, `pass: true`).
const NOT_PASSWORD_WORDS: &[&str] = &[
    "string",
    "str",
    "secretstr",
    "secretstring",
    "secretbytes",
    "secretbox",
    "secretvec",
    "bytes",
    "option",
    "optional",
    "required",
    "none",
    "null",
    "nil",
    "true",
    "false",
    "undefined",
    "hidden",
    "text",
    "string_type",
];

/// Whether a value given to a secret-named name looks like a real secret.
/// `letters_ok`: a bare word of letters alone ends a config entry
/// (`PASSWORD=Word`), so it may be a password rather than code.
pub(super) fn looks_secret(value: &str, bare: bool, password_like: bool, letters_ok: bool) -> bool {
    let length = value.chars().count();
    if is_placeholder(value, bare) || names_a_secret(value) || is_path(value) || is_plain_url(value)
    {
        return false;
    }
    if !password_like {
        // Code and names rather than data: a field path or call (bare), a
        // module path (`"django.contrib.auth.backends.ModelBackend"`),
        // words (`my-service-account`, `SOME_SETTING`; bare, a name in
        // code such as `ml_dsa_44_pack`), a constant (`CBS_ASN1_TAG`).
        let code = (bare || value.matches('.').count() >= 2) && is_code_reference(value);
        let words =
            is_separated_identifier(value) && (bare || !value.bytes().any(|b| b.is_ascii_digit()));
        let constant = bare && value.contains('_') && is_upper_identifier(value);
        return length >= 12
            && !value.chars().any(char::is_whitespace)
            && !code
            && !words
            && !constant
            && shannon_entropy(value) >= 3.0;
    }
    // Passwords: no entropy needed, letters alone will do, and a quoted
    // one may hold spaces (but a sentence is a message, not a password).
    if length < 6 {
        return false;
    }
    if !bare {
        let sentence = value.contains(char::is_whitespace)
            && (value.ends_with(['.', '!', '?', ':'])
                || mentions_secret_word(&value.to_ascii_lowercase()));
        return !sentence;
    }
    if value.starts_with(['/', '~']) || value.starts_with("./") || is_code_reference_symbol(value) {
        return false;
    }
    let lower = value.to_ascii_lowercase();
    let identifier = value
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let dotted = value.contains('.')
        && value
            .split('.')
            .all(|s| s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !s.is_empty())
        && !value.chars().next().is_some_and(|c| c.is_ascii_digit());
    if dotted && value.split('.').count() > 1 && value.chars().any(|c| c.is_ascii_lowercase()) {
        // `settings.DB_PASSWORD`, `self.password`.
        return false;
    }
    if identifier {
        // `password = new_password`, `pw: String,`, `secret = x if y`.
        let variable = value == lower && mentions_secret_word(&lower);
        return !variable && !NOT_PASSWORD_WORDS.contains(&lower.as_str()) && letters_ok;
    }
    true
}

/// A file path (`/usr/bin/askpass`, `~/.aws/credentials`, `../x`) or a
/// resource name (`projects/p/locations/global/keyRings/ring`,
/// `prod/app/database`): where a secret lives, not the secret.
/// A relative path counts whatever it holds; an absolute path only when
/// lowercase (`/usr/bin/askpass`), and
/// a resource name only when each part is a lower-case or camelCase word:
/// a base64 secret may start with `/` or hold several (`wJalr/K7MDENG/…`).
fn is_path(value: &str) -> bool {
    let relative = ["./", "../", "~/"]
        .iter()
        .any(|prefix| value.starts_with(prefix));
    let absolute = value.starts_with('/')
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"/._-".contains(&b));
    let resource = value.split('/').all(is_path_word);
    !value.contains(char::is_whitespace)
        && (relative || (absolute || resource) && value.matches('/').count() >= 2)
}

/// One part of a resource name: `keyRings`, `us-east-1`, `app_db`.
fn is_path_word(part: &str) -> bool {
    let mut chars = part.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let lower_word = first.is_ascii_lowercase() || first.is_ascii_digit();
    // camelCase: an upper-case letter only after a lower-case one.
    let mut previous = first;
    let camel = chars.all(|c| {
        let fits = c.is_ascii_lowercase()
            || c.is_ascii_digit()
            || "._-".contains(c)
            || (c.is_ascii_uppercase() && previous.is_ascii_lowercase());
        previous = c;
        fits
    });
    lower_word && camel
}

/// A URL with neither credentials nor a query (`https://oauth2.googleapis.com/token`):
/// where a secret is sent, not the secret; one with a password is the URL
/// shapes' to judge.
fn is_plain_url(value: &str) -> bool {
    let Some((scheme, rest)) = value.split_once("://") else {
        return false;
    };
    !scheme.is_empty()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+.-".contains(&b))
        && !rest.contains(['@', '?', ' '])
}

/// `lower_snake`, `UPPER_SNAKE` or `kebab-case` words (at least two).
pub(super) fn is_separated_identifier(value: &str) -> bool {
    value.contains(['_', '-'])
        && value
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && (!value.chars().any(|c| c.is_ascii_uppercase())
            || !value.chars().any(|c| c.is_ascii_lowercase()))
        && value.split(['_', '-']).all(|word| !word.is_empty())
}

/// `UPPER` or `UPPER_SNAKE`: an environment variable's or constant's name.
pub(super) fn is_upper_identifier(value: &str) -> bool {
    value.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && value
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// A value that names a secret rather than holds one: `"WORK_LLM_KEY"`
/// (an environment variable's name), `"likely-secret"` (a label).
fn names_a_secret(value: &str) -> bool {
    is_separated_identifier(value) && mentions_secret_word(&value.to_ascii_lowercase())
}

fn mentions_secret_word(lower: &str) -> bool {
    [
        "pass", "pwd", "pw", "secret", "token", "key", "cred", "auth",
    ]
    .iter()
    .any(|word| lower.contains(word))
}

/// A bare value that is code, not data: a call, an index, a field path,
/// a variable name, a literal keyword.
fn is_code_reference(value: &str) -> bool {
    let identifier = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    // A field path's parts are names, not 40 random characters
    // (`sk.eyJ1…` is a Mapbox token).
    let name = |s: &str| identifier(s) && s.len() <= 24;
    is_code_reference_symbol(value)
        || (value.contains('.') && value.split('.').all(name))
        || (identifier(value) && !value.chars().any(|c| c.is_ascii_digit()))
}

/// A bare value that is a call, an index, a block, a generic type, a
/// variable (`$VAR`), a pointer or reference, or a YAML alias.
fn is_code_reference_symbol(value: &str) -> bool {
    value.contains(['(', ')', '[', ']', '{', '}', '<', '>'])
        || value.contains("::")
        || value.starts_with(['&', '*', '@', ':', '$'])
}
