//! Credential-shaped values: published token formats, URLs and connection
//! strings with a password, auth headers and private-key blocks — secrets
//! whatever the variable is called.
//!
//! Every shape is tight on purpose: a prefix alone never counts (`sk-` needs
//! 32 more token characters, `SG.` the 22.43 SendGrid layout, `AKIA`
//! exactly 16 more), so paths, locales, flags and plain URLs pass.

use std::sync::LazyLock;

use regex::bytes::Regex;

/// Token formats, each preceded by the start of the value or a character
/// that is not a letter or digit, so a word that merely contains a prefix
/// (`task-…`, `bashf_…`) does not count.
const TOKENS: [&str; 43] = [
    // OpenAI (`sk-`, `sk-proj-`, `sk-svcacct-`), Anthropic (`sk-ant-api03-`)
    // and the OpenAI-compatible APIs that copied the prefix.
    r"sk-[A-Za-z0-9_-]{32,}",
    // Stripe secret and restricted keys and webhook secrets; publishable
    // `pk_` keys are public by design.
    r"[sr]k_(?:live|test)_[A-Za-z0-9]{20,}",
    r"whsec_[A-Za-z0-9+/=]{24,}",
    // GitHub: personal, OAuth, user-to-server, server-to-server, refresh,
    // fine-grained.
    r"gh[pousr]_[A-Za-z0-9]{36,}",
    r"github_pat_[A-Za-z0-9_]{50,}",
    // GitLab: personal, deploy, runner, trigger, CI job, OAuth, feed, mail.
    r"gl(?:pat|dt|rt|ptt|cbt|oas|ft|imt)-[A-Za-z0-9_-]{20,}",
    // Slack bot, user, app-level, refresh and configuration tokens.
    r"xox[abposre]-[A-Za-z0-9-]{10,}",
    r"xapp-[0-9]-[A-Za-z0-9-]{10,}",
    // AWS access key ids: long-lived, temporary (STS), bearer, context.
    r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?:[^A-Za-z0-9]|$)",
    // Google API keys, OAuth access tokens, OAuth client secrets.
    r"AIza[A-Za-z0-9_-]{35}",
    r"ya29\.[A-Za-z0-9_.-]{20,}",
    r"GOCSPX-[A-Za-z0-9_-]{24,}",
    // Azure AD (Entra) client secrets carry `Q~` after a digit.
    r"[A-Za-z0-9_.-]{3}[0-9]Q~[A-Za-z0-9_.~-]{31,34}",
    // npm, PyPI (a macaroon: base64 of its version byte), crates.io,
    // RubyGems, NuGet, Docker Hub.
    r"npm_[A-Za-z0-9]{36,}",
    r"pypi-Ag[A-Za-z0-9_-]{50,}",
    r"cio[A-Za-z0-9]{32}(?:[^A-Za-z0-9]|$)",
    r"rubygems_[a-f0-9]{48}",
    r"oy2[a-z0-9]{43}",
    r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}",
    // Hugging Face user and organisation tokens.
    r"hf_[A-Za-z0-9]{30,}",
    r"api_org_[A-Za-z0-9]{30,}",
    // DigitalOcean, Shopify, SendGrid, Tailscale, Linear.
    r"do[opr]_v1_[a-f0-9]{64}",
    r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
    r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
    r"tskey-[A-Za-z0-9-]{20,}",
    r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}",
    // Grafana Cloud and service-account tokens, Databricks, age identities.
    r"glc_[A-Za-z0-9+/=_-]{32,}",
    r"glsa_[A-Za-z0-9_]{32,}",
    r"dapi[a-f0-9]{32}",
    r"AGE-SECRET-KEY-1[0-9A-Z]{50,}",
    // Sentry org and user tokens, Atlassian, Postman, Vault, Doppler,
    // Buildkite, CircleCI, Square.
    r"sntry[su]_[A-Za-z0-9+/=_-]{30,}",
    r"ATATT3[A-Za-z0-9_=-]{50,}",
    r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}",
    r"hv[sbr]\.[A-Za-z0-9_-]{20,}",
    r"dp\.(?:st|ct|pt|sa|scim|audit)\.[A-Za-z0-9_.-]{40,}",
    r"bkua_[A-Za-z0-9]{30,}",
    r"CCIPAT_[A-Za-z0-9_]{30,}",
    r"sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}",
    // Discord bot tokens: base64 user id, timestamp, HMAC.
    r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}",
    // JWTs (CI OIDC tokens, service tokens): two base64url JSON parts.
    r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.",
    // Auth schemes at the start of a value: `Bearer …`, `Basic …`, `token …`.
    r"(?i:^\s*(?:bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{16,}(?:\s|$))",
    // HTTP auth headers, as in `http.extraHeader` or a curl command line.
    r"(?i:(?:proxy-)?authorization|x-api-key|api-key|private-token|job-token|x-auth-token|x-vault-token|x-goog-api-key|cookie)\s*:\s*\S",
    // JSON (or JSON-ish config) with a secret field: service-account keys,
    // Docker's `{"auths":{…{"auth":"…"}}}`.
    r#"(?i:"(?:password|passwd|secret|client_secret|private_key|access_token|refresh_token|id_token|token|auth|api_key|apikey)"\s*:\s*"[^"\s]+)"#,
];

/// Shapes that need no boundary before them.
const STRUCTURES: [&str; 5] = [
    // Key-value secrets in query strings (`?password=`, `&sig=`,
    // `X-Amz-Signature=`), JDBC/ODBC/ADO.NET, StackExchange.Redis and libpq
    // connection strings (`;Password=`, `AccountKey=`, `,password=`,
    // ` password=`) and flags (`--token=`). Not after `_` or `.`: the
    // `-DUSE_TOKEN=ON` of a build flag is a setting, not a token.
    r"(?i:(?:^|[?&;,\s-])(?:password|passwd|pwd|pass|token|access_token|auth_token|refresh_token|id_token|private_token|api_key|apikey|api-key|secret|client_secret|sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature|accountkey|sharedaccesskey|sharedaccesssignature)\s*=\s*[^\s;&#'\x22]+)",
    // Private keys in PEM, OpenSSH and PGP armour (`PRIVATE KEY BLOCK`);
    // certificates and public keys are not secrets and pass.
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY",
    r"PuTTY-User-Key-File-[0-9]",
    // Chat webhooks, where the URL itself is the credential.
    r"(?i:hooks\.slack\.com/(?:services|workflows|triggers)/|discord(?:app)?\.com/api/webhooks/|\.webhook\.office\.com/|outlook\.office\.com/webhook/)",
    // Sentry-style DSNs: a 32-hex key as the URL's user.
    r"(?i:://[a-f0-9]{32}(?::[a-f0-9]{32})?@)",
];

/// All shapes in one automaton, built on first use: the filter runs once
/// per process start.
static SHAPES: LazyLock<Regex> = LazyLock::new(compile);

#[expect(
    clippy::expect_used,
    reason = "the patterns are constants, and every test that filters a value compiles them"
)]
fn compile() -> Regex {
    let tokens = TOKENS.join("|");
    let structures = STRUCTURES.join("|");
    // ASCII-only (`(?-u)`): every shape is ASCII, and byte classes keep the
    // automaton small — about 2 ms to build in a release build, once.
    Regex::new(&format!("(?-u)(?:^|[^A-Za-z0-9])(?:{tokens})|{structures}"))
        .expect("credential shapes are valid regular expressions")
}

/// True when `value` holds a credential whatever its name.
pub(super) fn is_secret(value: &str) -> bool {
    SHAPES.is_match(value.as_bytes()) || url_with_password(value)
}

/// `scheme://user:password@host…` anywhere in the value.
pub(super) fn url_with_password(text: &str) -> bool {
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
        // `host:443/npm/lodash@4.17.21` is a port and a path with an `@` in
        // it, not a user and a password; a user never holds a `/` (nor the `[`
        // of an IPv6 host).
        !password.is_empty() && !user.contains(['/', '[']) && !is_port_then_path(password)
    })
}

/// `443/…`, `8080?…`: a port followed by the rest of a URL.
fn is_port_then_path(text: &str) -> bool {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    (1..=5).contains(&digits) && matches!(text.as_bytes().get(digits), Some(b'/' | b'?' | b'#'))
}

/// True when a `scheme://…` URL in `text` names a user (`https://token@host`),
/// with or without a password.
pub(super) fn url_with_userinfo(text: &str) -> bool {
    text.match_indices("://").any(|(at, sep)| {
        let authority = text[at + sep.len()..]
            .split(['/', '?', '#'])
            .next()
            .unwrap_or("");
        authority.contains('@')
    })
}
