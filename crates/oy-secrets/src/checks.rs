//! Checks for shapes whose pattern alone would also catch prose, code or
//! placeholders: each takes the matched text (group 1 when the pattern
//! has one) and says whether it is a secret. Command-line values are
//! `cli.rs`', header values `header.rs`'.

mod cli;
mod header;

pub(crate) use cli::{cli_password, cli_secret, cli_spaced_secret, htpasswd_password};
pub(crate) use header::header_value;

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

/// A prefixed token whose alphabet is shared with identifiers
/// (`vcr_cassetteDirectoryName`): a real one mixes digits and letters.
pub(crate) fn mixed_token(found: &str) -> bool {
    let tail = found.split_once('_').map_or(found, |(_, tail)| tail);
    tail.bytes().any(|b| b.is_ascii_digit()) && tail.bytes().any(|b| b.is_ascii_alphabetic())
}

/// A value read from a config line (netrc, pgpass): anything but a
/// placeholder, a variable or a wildcard.
pub(crate) fn plain_secret(found: &str) -> bool {
    let value = found.trim_matches(['"', '\'']);
    value.len() >= 3 && value != "*" && !value.starts_with('$') && !is_placeholder(value, true)
}

/// 12, 15, 18, 21 or 24 words, every one from the BIP-39 English list.
pub(crate) fn seed_phrase(found: &str) -> bool {
    let words: Vec<&str> = found
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|word| !word.is_empty())
        .collect();
    [12, 15, 18, 21, 24].contains(&words.len())
        && words.iter().all(|word| crate::bip39::is_word(word))
}
