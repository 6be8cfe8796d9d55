//! The check of an HTTP credential header's value in text: a real value
//! (`Authorization: Bearer 9f2c…`, `Cookie: sid=38af…`) against what code
//! and documents put there instead — a variable, an interpolation, a type,
//! a placeholder, or words.

use crate::placeholder::is_placeholder;

/// Words that start an `Authorization` value: the scheme, not the secret.
const SCHEMES: &[&str] = &[
    "bearer",
    "basic",
    "token",
    "digest",
    "apikey",
    "api-key",
    "key",
    "jwt",
    "ssws",
    "sso-key",
    "genie-key",
    "splunk",
    "negotiate",
    "ntlm",
    "hmac",
    "aws4-hmac-sha256",
    "oauth",
    "dpop",
];

/// True when the header value (group 1 of the `http-header` shape, up to a
/// closing quote or the end of the line) carries a credential.
pub(crate) fn header_value(found: &str) -> bool {
    let value = found
        .trim()
        .trim_end_matches([',', ';', ')', '}', ']', '\\']);
    // Code: `cookie: Some(…)`, `cookie::CookieStore`, `cookie_store: Arc<…>`.
    if value.starts_with(':') || value.contains("::") || value.contains('(') {
        return false;
    }
    if value.is_empty()
        || value.contains("${")
        || value.contains("{{")
        || value.contains("%(")
        || value.contains('<')
        || value.starts_with(['{', '$', '+', '%'])
        || value.contains(" + ")
    {
        return false;
    }
    // Cookies: `name=value; name2=value2`, attributes aside.
    if value.contains('=') && !value.contains(' ') || value.contains("; ") {
        return value
            .split(';')
            .filter_map(|pair| pair.split_once('='))
            .any(|(_, cookie)| looks_random(cookie.trim()));
    }
    let mut words = value.split_whitespace();
    let first = words.next().unwrap_or_default();
    let credential = if SCHEMES.contains(&first.to_ascii_lowercase().as_str()) {
        words.collect::<Vec<_>>().join(" ")
    } else {
        value.to_owned()
    };
    // `Digest username="u", response="…"`: parameters, one may be it.
    if credential.contains('=') {
        return credential
            .split(',')
            .filter_map(|pair| pair.split_once('='))
            .any(|(_, part)| looks_random(part.trim().trim_matches('"')));
    }
    !credential.contains(char::is_whitespace) && looks_random(&credential)
}

/// A literal that looks generated: eight characters or more, with a digit
/// or both cases, and no placeholder, variable or identifier.
fn looks_random(value: &str) -> bool {
    let value = value.trim_matches(['"', '\'']);
    let digit = value.bytes().any(|b| b.is_ascii_digit());
    let mixed = value.bytes().any(|b| b.is_ascii_uppercase())
        && value.bytes().any(|b| b.is_ascii_lowercase());
    let identifier = value
        .bytes()
        .all(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'.');
    value.chars().count() >= 8
        && (digit || mixed)
        && !identifier
        && !value.starts_with('$')
        && !is_placeholder(value, true)
}
