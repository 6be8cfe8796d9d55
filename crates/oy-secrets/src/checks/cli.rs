//! Checks for secrets on command lines: the value handed to a flag or
//! argument must be a literal, not a variable, a placeholder, another
//! flag, a file reference or a type.

use crate::placeholder::is_placeholder;

/// A password handed to a command line (`curl -u user:pw`, `mysql -pPW`):
/// the whole match, whose last word holds the value.
pub(crate) fn cli_password(found: &str) -> bool {
    let last = found
        .rsplit(|c: char| c.is_whitespace() || c == '=')
        .next()
        .unwrap_or_default();
    let last = last.trim_matches(['"', '\'']);
    let value = if let Some(rest) = last.strip_prefix("-p") {
        rest
    } else if let Some((_, password)) = last.split_once(':') {
        password
    } else {
        last
    };
    let value = value.trim_matches(['"', '\'']);
    !value.is_empty() && !value.starts_with('$') && !is_placeholder(value, true)
}

/// The value of a flag or argument that takes a secret (group 1 of the
/// command-line shapes): a literal of three characters or more.
pub(crate) fn cli_secret(found: &str) -> bool {
    let value = found.trim_matches(['"', '\'', '`', ')', ';']);
    if is_reference(value) {
        return false;
    }
    // OpenSSL's `pass:…`, a `user:password` pair.
    let value = value.strip_prefix("pass:").unwrap_or(value);
    let value = match value.split_once(':') {
        Some((user, password)) if !user.is_empty() && !user.contains('/') => password,
        _ => value,
    };
    value.chars().count() >= 3
        && !value.starts_with('-')
        && !has_variable(value)
        && !is_reference(value)
        && !is_placeholder(value, true)
        && ![
            "true", "false", "yes", "no", "on", "off", "none", "null", "stdin",
        ]
        .contains(&value.to_ascii_lowercase().as_str())
}

/// The value after a secret-named long flag and a space (`--token abc`),
/// which is also how prose reads ("pass --token to the command"): it must
/// look random — six characters or more, with a digit, mixed case or a
/// symbol — and not be a constant's name (`--api-key API_KEY`).
pub(crate) fn cli_spaced_secret(found: &str) -> bool {
    let value = found.trim_matches(['"', '\'', '`']);
    let digit = value.bytes().any(|b| b.is_ascii_digit());
    let mixed = value.bytes().any(|b| b.is_ascii_uppercase())
        && value.bytes().any(|b| b.is_ascii_lowercase());
    let symbol = value.bytes().any(|b| b"!@#%^&*+=?~$".contains(&b));
    let constant = value
        .bytes()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    cli_secret(found)
        && value.chars().count() >= 6
        && (digit || mixed || symbol)
        && !constant
        && !value.contains("://")
}

/// `htpasswd -b[c…] [FILE] USER PASSWORD`: the last argument (there is no
/// file with `-n`).
pub(crate) fn htpasswd_password(found: &str) -> bool {
    let mut words = found.split_whitespace().skip(1);
    let flags = words.next().unwrap_or_default();
    let rest: Vec<&str> = words.collect();
    let wanted = if flags.contains('n') { 2 } else { 3 };
    rest.len() == wanted && rest.last().is_some_and(|password| cli_secret(password))
}

/// `$VAR`, `${VAR}`, `$(cmd)`, `%VAR%`, `{{ var }}`, `{var}` (an
/// f-string or a format string): filled in later.
fn has_variable(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes
        .windows(2)
        .any(|pair| pair[0] == b'$' && (pair[1].is_ascii_alphabetic() || b"_{(".contains(&pair[1])))
        || value.starts_with('$')
        || (value.starts_with('%') && value.ends_with('%') && value.len() > 2)
        || (value.contains('{') && value.contains('}'))
}

/// A file, descriptor or environment reference instead of the secret
/// (`file:/run/pw`, `env:PW`, `fd:3`, `@secret.txt`, `./token`,
/// `/run/secrets/db`).
fn is_reference(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    ["file:", "env:", "fd:", "stdin"]
        .iter()
        .any(|prefix| lower.starts_with(prefix))
        || value.starts_with(['@', '<'])
        || value.starts_with("./")
        || value.starts_with("../")
        || value.starts_with("~/")
        || (value.starts_with('/')
            && value.matches('/').count() >= 2
            && value
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"/._-".contains(&b)))
}
