//! Credentials inside structures: webhook URLs, auth headers and schemes,
//! URLs with a password, `key=value` pairs in query and connection
//! strings, JSON secret fields, command lines with a password.
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
    // Passwords on command lines.
    Shape::new(
        "cli-password",
        Anywhere,
        r#"(?i)(?-u:\b)curl(?-u:\b)[^\n]*\s(?:-u|--user)(?:\s+|=)?["']?[^\s:"']*:[^\s"']+"#,
        &["curl"],
        concat!("curl -u admin:", "Tr0ub4dor3x", " https://api.internal/"),
    )
    .with_check(checks::cli_password),
    Shape::new(
        "cli-password",
        Anywhere,
        r#"(?-u:\b)(?i:mysql|mysqldump|mysqladmin|mariadb)(?-u:\b)[^\n]*\s-p["']?[^\s"'-][^\s"']*"#,
        &["mysql", "mariadb"],
        concat!("mysql -h db -u root -p", "Tr0ub4dor3x", " app"),
    )
    .with_check(checks::cli_password),
    Shape::new(
        "cli-password",
        Anywhere,
        r#"(?i)(?-u:\b)docker\s+login(?-u:\b)[^\n]*\s(?:-p|--password)(?:\s+|=)["']?[^\s"'-][^\s"']*"#,
        &["docker"],
        concat!("docker login -u ci -p ", "Tr0ub4dor3x", " registry.example.org"),
    )
    .with_check(checks::cli_password),
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
