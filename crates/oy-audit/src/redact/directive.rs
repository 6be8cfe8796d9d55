//! Config directives that give a secret-named setting a value without an
//! operator, `name value` alone on a line: Redis's `requirepass` and
//! `masterauth`, keepalived's `auth_pass`, slapd's `rootpw`, a netrc's
//! `password` line, Windows' `setx NAME value`. Prose has lines of two
//! words too ("password reset"), so a password needs a digit or a symbol
//! here, not letters alone.

use std::sync::LazyLock;

use regex::Regex;

use super::assignment::secret_name;
use super::regex;
use super::value::looks_secret;

static DIRECTIVE: LazyLock<Regex> = LazyLock::new(|| {
    regex(r#"^[ \t]*(?:(?i:setx)[ \t]+)?([A-Za-z0-9_.\-]+)[ \t]+(["']?)([^\s"'=:]+)["']?[ \t]*$"#)
});

/// True when `content` is a directive giving a secret name a secret.
pub(super) fn directive_check(content: &str) -> bool {
    let Some(captures) = DIRECTIVE.captures(content) else {
        return false;
    };
    let (Some(name), Some(value)) = (captures.get(1), captures.get(3)) else {
        return false;
    };
    let Some(password_like) = secret_name(name.as_str()) else {
        return false;
    };
    // A password directive; a credential only when `setx` says it is a
    // setting (`PRIVATE third_party/lib` is CMake).
    let setx = content
        .trim_start()
        .get(..5)
        .is_some_and(|w| w.eq_ignore_ascii_case("setx "));
    let quoted = captures.get(2).is_some_and(|quote| !quote.is_empty());
    (password_like || setx) && looks_secret(value.as_str(), !quoted, password_like, false)
}
