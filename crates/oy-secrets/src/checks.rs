//! Checks for shapes whose pattern alone would also catch prose, code or
//! placeholders: each takes the matched text and says whether it is a
//! secret.

use crate::placeholder::is_placeholder;
use crate::userinfo;

/// `sk-` also starts ordinary hyphenated words (`sk-learn-…`): a key is
/// long (32 characters and more), or mixes digits with upper- and
/// lower-case letters.
pub(crate) fn openai_key(found: &str) -> bool {
    let tail = found.trim_start_matches("sk-");
    tail.len() >= 32
        || tail.bytes().any(|b| b.is_ascii_digit())
            && tail.bytes().any(|b| b.is_ascii_uppercase())
            && tail.bytes().any(|b| b.is_ascii_lowercase())
}

/// `scheme://user:password@`: the password must not be a placeholder.
pub(crate) fn url_credentials(found: &str) -> bool {
    let Some(password) = found
        .rsplit_once('@')
        .and_then(|(before, _)| before.rsplit_once(':'))
        .map(|(_, password)| password)
    else {
        return false;
    };
    !is_placeholder(password, true)
}

/// A URL with a password as git and curl read it (see
/// [`userinfo::has_password`]).
pub(crate) fn url_password(found: &str) -> bool {
    userinfo::has_password(found)
}

/// `Bearer <token>`: prose says "bearer authentication", a token holds a digit.
pub(crate) fn bearer(found: &str) -> bool {
    let token = found.split_whitespace().last().unwrap_or_default();
    token.bytes().any(|b| b.is_ascii_digit()) && !is_placeholder(token, true)
}

/// `Basic <base64>`: the value must decode to `user:password`.
pub(crate) fn basic_auth(found: &str) -> bool {
    let value = found.split_whitespace().last().unwrap_or_default();
    decodes_to_credentials(value)
}

/// Docker's `"auth": "<base64 of user:password>"`.
pub(crate) fn docker_auth(found: &str) -> bool {
    let value = found
        .trim_end_matches('"')
        .rsplit('"')
        .next()
        .unwrap_or_default();
    decodes_to_credentials(value)
}

/// True when `value` is base64 of text holding a `:` (`user:password`).
fn decodes_to_credentials(value: &str) -> bool {
    let mut bits = 0_u32;
    let mut count = 0_u32;
    let mut decoded = Vec::new();
    for b in value.trim_end_matches('=').bytes() {
        let sextet = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return false,
        };
        bits = (bits << 6) | u32::from(sextet);
        count += 6;
        if count >= 8 {
            count -= 8;
            decoded.push(((bits >> count) & 0xff) as u8);
        }
    }
    let Some(colon) = decoded.iter().position(|&b| b == b':') else {
        return false;
    };
    colon > 0 && colon + 1 < decoded.len() && decoded.iter().all(|&b| (0x20..0x7f).contains(&b))
}

/// A password handed to a command line (`curl -u user:pw`, `mysql -pPW`,
/// `docker login -p PW`): the value must not be a variable or placeholder.
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
