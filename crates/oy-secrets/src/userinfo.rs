//! Credentials in URLs (`scheme://user:password@host`): finding them, and
//! taking them out of a URL before it is shown or logged.

use std::borrow::Cow;

/// `url` with any userinfo (`user:password@`, `token@`) replaced by
/// `***@`, for display: a base URL or proxy may carry credentials, and
/// diagnostics get pasted into issues. Everything else is kept as given
/// (no normalising). Without `://`, a leading `user:password@host` with no
/// whitespace (a proxy written without its scheme) counts as the
/// authority; other text comes back unchanged.
pub fn redact_userinfo(url: &str) -> Cow<'_, str> {
    let authority_start = match url.find("://") {
        Some(at) => at + "://".len(),
        None => 0,
    };
    let rest = url.get(authority_start..).unwrap_or_default();
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority_start == 0 && authority.contains(char::is_whitespace) {
        return Cow::Borrowed(url);
    }
    match authority.rfind('@') {
        Some(at) => Cow::Owned(format!(
            "{}***@{}",
            url.get(..authority_start).unwrap_or_default(),
            rest.get(at + 1..).unwrap_or_default()
        )),
        None => Cow::Borrowed(url),
    }
}

/// True when a `scheme://…` URL in `text` names a user
/// (`https://token@host`), with or without a password.
pub fn has_userinfo(text: &str) -> bool {
    text.match_indices("://").any(|(at, sep)| {
        let authority = text[at + sep.len()..]
            .split(['/', '?', '#'])
            .next()
            .unwrap_or("");
        authority.contains('@')
    })
}

/// True when `text` holds `scheme://user:password@host…` anywhere, as git
/// and curl read a URL: a port followed by a path with an `@` in it
/// (`host:443/npm/lodash@4.17.21`) is no password.
pub fn has_password(text: &str) -> bool {
    text.match_indices("://").any(|(at, sep)| {
        let rest = &text[at + sep.len()..];
        // The password may itself hold `/`, `?` or `#`: the userinfo ends
        // at the last `@` before the next whitespace.
        let token = rest.split(char::is_whitespace).next().unwrap_or("");
        let Some((userinfo, _host)) = token.rsplit_once('@') else {
            return false;
        };
        let Some((user, password)) = userinfo.split_once(':') else {
            return false;
        };
        // A user never holds a `/` (nor the `[` of an IPv6 host).
        !password.is_empty() && !user.contains(['/', '[']) && !is_port_then_path(password)
    })
}

/// `443/…`, `8080?…`: a port followed by the rest of a URL.
fn is_port_then_path(text: &str) -> bool {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    (1..=5).contains(&digits) && matches!(text.as_bytes().get(digits), Some(b'/' | b'?' | b'#'))
}
