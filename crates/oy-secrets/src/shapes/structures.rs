//! Credentials inside structures: webhook URLs, auth headers and schemes,
//! URLs with a password, `key=value` pairs in query and connection
//! strings, JSON secret fields, netrc and pgpass entries. (Command lines
//! are `commands.rs`'.)
//!
//! Several of these read differently in a single value and in source code
//! (`token=…` is a credential in a connection string and an assignment in
//! code), so their [`Scope`] says where they hold.

use crate::checks;
use crate::shape::{Scope, Shape};

use Scope::{Anywhere, Text, Value};

pub(super) const STRUCTURES: &[Shape] = &[
    // Chat webhooks, where the URL itself is the credential.
    Shape::new(
        "slack-webhook",
        Anywhere,
        r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{8,}",
        &["hooks.slack.com/"],
        concat!(
            "https://hooks.",
            "slack.com/services/",
            "T0A1B2C3D/B4E5F6G7H/",
            "q8R9s0T1u2V3w4X5y6Z7a8B9"
        ),
    ),
    Shape::new(
        "discord-webhook",
        Anywhere,
        r"(?i)discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]{16,}",
        &["discord"],
        concat!(
            "https://discord.com/api/",
            "webhooks/123456789012345678/",
            "Zk9xQ2mT7rWv8LpN3sYb6HcJ"
        ),
    ),
    Shape::new(
        "teams-webhook",
        Anywhere,
        r"(?i)(?:\.webhook\.office\.com/webhookb2|outlook\.office(?:365)?\.com/webhook)/[A-Za-z0-9@/_-]{16,}",
        &[".webhook.office.com/webhookb2/", "outlook.office"],
        concat!(
            "https://contoso.webhook.office.com/",
            "webhookb2/Zk9xQ2mT7rWv8LpN3sYb6HcJ/IncomingWebhook/abc"
        ),
    ),
    // In a value, a webhook's address alone is enough.
    Shape::new(
        "chat-webhook",
        Value,
        r"(?i:hooks\.slack\.com/(?:services|workflows|triggers)/|discord(?:app)?\.com/api/webhooks/|\.webhook\.office\.com/|outlook\.office\.com/webhook/)",
        &[],
        concat!(
            "https://outlook.office.com/",
            "webhook/Zk9xQ2mT7rWv8LpN3sYb6HcJ"
        ),
    ),
    // Azure shared access signatures.
    Shape::new(
        "azure-sas",
        Anywhere,
        r"(?i)[?&;]sig=[A-Za-z0-9%+/=]{16,}",
        &["sig="],
        concat!(
            "https://acct.blob.core.windows.net/c/b?sv=2022-11-02",
            "&sig=Zk9xQ2mT7rWv8LpN3sYb6HcJ%3D"
        ),
    ),
    Shape::new(
        "bearer-token",
        Anywhere,
        r"(?i)(?-u:\b)bearer\s+[A-Za-z0-9._~+/=-]{16,}",
        &["bearer"],
        concat!("Bearer ", "Zk9xQ2mT7rWv8LpN3sYb6HcJ"),
    )
    .with_check(checks::bearer),
    Shape::new(
        "basic-auth",
        Anywhere,
        r"(?i)(?-u:\b)basic\s+[A-Za-z0-9+/]{8,}={0,2}",
        &["basic"],
        // base64("admin:CANARYbasic")
        concat!("Authorization: Basic ", "YWRtaW46Q0FOQVJZYmFzaWM="),
    )
    .with_check(checks::basic_auth),
    Shape::new(
        "docker-auth",
        Anywhere,
        r#""auth"\s*:\s*"[A-Za-z0-9+/]{4,}={0,2}""#,
        &["\"auth\""],
        // base64("ci:CANARYdockerauth")
        concat!("\"auth\": ", "\"Y2k6Q0FOQVJZZG9ja2VyYXV0aA==\""),
    )
    .with_check(checks::docker_auth),
    Shape::new(
        "docker-config",
        Anywhere,
        r#"(?i)\.docker(?:configjson|cfg)["']?\s*:\s*["']?[A-Za-z0-9+/=]{16,}"#,
        &[".docker"],
        concat!(".dockerconfigjson: ", "eyJhdXRocyI6Zk9xQ2mT7rWv8LpN3sYb6HcJ"),
    ),
    // JWK private members, in a document that holds a JWK.
    Shape::new(
        "jwk-private-key",
        Anywhere,
        r#""(?:d|p|q|dp|dq|qi|k)"\s*:\s*"[A-Za-z0-9_-]{16,}""#,
        &["\"kty\""],
        concat!("{\"kty\": \"RSA\", ", "\"d\": \"Zk9xQ2mT7rWv8LpN3sYb6HcJ\"}"),
    )
    .with_marker("\"kty\""),
    Shape::new(
        "aws-secret-access-key",
        Anywhere,
        r#"(?i)aws_?secret_?access_?key["'`]?\s*(?::=|=>|=|:)\s*["'`]?[A-Za-z0-9/+=]{40}(?:[^A-Za-z0-9/+=]|$)"#,
        &["aws_secret", "awssecret"],
        concat!(
            "aws_secret_access_key = ",
            "wJalrXUtnFEMI/K7MDENG/",
            "bPxRfiCYq8r3Zt9uWv"
        ),
    ),
    // Sentry-style DSNs: a 32-hex key as the URL's user.
    Shape::new(
        "sentry-dsn",
        Anywhere,
        r"(?i:://[a-f0-9]{32}(?::[a-f0-9]{32})?@)",
        &["://"],
        concat!(
            "https://",
            "0123456789abcdef0123456789abcdef",
            "@o1.ingest.sentry.io/42"
        ),
    ),
    // Credentials in a URL. In text, the user and password stop at `/`,
    // and placeholders (`${DB_PASSWORD}`, `pw`) pass; in a value, the URL
    // is read as git and curl read it (the password may hold `/`, a port
    // and a path are not a password).
    Shape::new(
        "url-credentials",
        Text,
        r"(?i)(?-u:\b)[a-z][a-z0-9+.-]*://[^\s/:@]*:[^\s/@]+@",
        &["://"],
        concat!("postgres://app:", "Tr0ub4dor&3x", "@db:5432/app"),
    )
    .with_check(checks::url_credentials),
    Shape::new(
        "url-password",
        Value,
        r"://\S*@",
        &[],
        concat!("postgres://app:", "Tr0ub4dor&3x", "@db:5432/app"),
    )
    .with_check(checks::url_password),
    // HTTP headers that carry a credential, in text (`curl -H`, HTTP
    // captures, `.http` files, header objects): the value must be a real
    // one, not a variable, a type, a placeholder or prose.
    Shape::new(
        "http-header",
        Text,
        r#"(?i)(?:^|[^A-Za-z0-9_-])(?:proxy-authorization|authorization|set-cookie|cookie|x-api-key|api-key|apikey|x-auth-token|x-access-token|access-token|private-token|job-token|x-vault-token|x-goog-api-key|x-functions-key|ocp-apim-subscription-key|x-shopify-access-token|x-figma-token|x-gitlab-token|x-github-token|x-csrf-token|x-xsrf-token|x-session-token|x-amz-security-token)["'`]?[ \t]*:[ \t]*["'`]?([^"'`\r\n]*)"#,
        &[
            "authorization",
            "cookie",
            "api-key",
            "apikey",
            "-token",
            "subscription-key",
            "functions-key",
        ],
        concat!("curl -H 'X-Api-Key: ", "q7Vd9xKp2LmZ4rTw8sNb' https://api.internal/v1"),
    )
    .with_check(checks::header_value),
    // Digest authorization: its quoted parameters, the response among them.
    Shape::new(
        "http-header",
        Anywhere,
        r#"(?i)authorization[ \t]*:[ \t]*digest\s[^\r\n]*?response\s*=\s*"?([A-Fa-f0-9]{32,})"#,
        &["authorization"],
        concat!(
            "Authorization: Digest username=\"u\", nonce=\"n\", ",
            "response=\"6629fae49393a05397450978507c4ef1\""
        ),
    ),
    // netrc entries (`~/.netrc`, `_netrc`, curl's `--netrc-file`): on one
    // line, or a `password` line of its own in a document with a
    // `machine` entry.
    Shape::new(
        "netrc-password",
        Anywhere,
        r"(?i)(?-u:\b)machine\s+\S+(?:\s+(?:login|account|port)\s+\S+)*\s+password\s+(\S+)",
        &["machine"],
        concat!("machine api.example.org login deploy password ", "Tr0ub4dor3x"),
    )
    .with_check(checks::plain_secret),
    Shape::new(
        "netrc-password",
        Text,
        r"(?m)^[ \t]*(?:password|passwd)[ \t]+(\S+)[ \t]*$",
        &["password", "passwd"],
        concat!("machine db.internal\n  login app\n  password ", "Tr0ub4dor3x\n"),
    )
    .with_marker("machine")
    .with_check(checks::plain_secret),
    // pgpass lines: `host:port:database:user:password`.
    Shape::new(
        "pgpass-password",
        Anywhere,
        r"(?m)^[ \t]*[A-Za-z0-9_.*\[\]-]+:(?:[0-9]{2,5}|\*):[^:\s]+:[^:\s]+:(\S+)[ \t]*$",
        &[":5432:", ":5433:", ":6432:", ":26257:", ":*:"],
        concat!("db.internal:5432:app:app_user:", "Tr0ub4dor3x"),
    )
    .with_check(checks::plain_secret),
    // NuGet's `<add key="ClearTextPassword" value="…" />`.
    Shape::new(
        "nuget-password",
        Anywhere,
        r#"(?i)<add\s+key\s*=\s*"ClearTextPassword"\s+value\s*=\s*"([^"]+)""#,
        &["cleartextpassword"],
        concat!("<add key=\"ClearTextPassword\" value=\"", "Tr0ub4dor3x\" />"),
    )
    .with_check(checks::plain_secret),
    // Key-value secrets in query strings (`?password=`, `&sig=`,
    // `X-Amz-Signature=`), JDBC/ODBC/ADO.NET, StackExchange.Redis and libpq
    // connection strings (`;Password=`, `AccountKey=`, `,password=`,
    // ` password=`) and flags (`--token=`). Not after `_` or `.`: the
    // `-DUSE_TOKEN=ON` of a build flag is a setting, not a token.
    Shape::new(
        "secret-parameter",
        Value,
        r"(?i:(?:^|[?&;,\s-])(?:password|passwd|pwd|pass|token|access_token|auth_token|refresh_token|id_token|private_token|api_key|apikey|api-key|secret|client_secret|sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature|accountkey|sharedaccesskey|sharedaccesssignature)\s*=\s*[^\s;&#'\x22]+)",
        &[],
        concat!("Server=db;Uid=app;", "Password=Tr0ub4dor3x"),
    ),
    // Auth schemes at the start of a value: `Bearer …`, `Basic …`, `token …`.
    Shape::new(
        "auth-scheme",
        Value,
        r"(?i:^\s*(?:bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{16,}(?:\s|$))",
        &[],
        concat!("Bearer ", "Zk9xQ2mT7rWv8LpN3sYb6HcJ"),
    ),
    // HTTP auth headers, as in `http.extraHeader` or a curl command line.
    Shape::new(
        "auth-header",
        Value,
        r"(?i:(?:proxy-)?authorization|x-api-key|api-key|private-token|job-token|x-auth-token|x-vault-token|x-goog-api-key|cookie)\s*:\s*\S",
        &[],
        concat!("X-Api-Key: ", "q7Vd9xKp2LmZ4rTw8sNb"),
    ),
    // JSON (or JSON-ish config) with a secret field: service-account keys,
    // Docker's `{"auths":{…{"auth":"…"}}}`.
    Shape::new(
        "json-secret-field",
        Value,
        r#"(?i:"(?:password|passwd|secret|client_secret|private_key|access_token|refresh_token|id_token|token|auth|api_key|apikey)"\s*:\s*"[^"\s]+)"#,
        &[],
        concat!("{\"client_secret\": ", "\"q7Vd9xKp2LmZ4rTw8sNb\"}"),
    ),
];
