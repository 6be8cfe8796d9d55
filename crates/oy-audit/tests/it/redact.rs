//! Tests of `redact`: one case per secret shape, placeholders and code
//! left alone, private-key blocks redacted whole, and (proptest) line
//! count preserved and redaction idempotent.
//!
//! Secret-shaped values are assembled with `concat!` so that this file
//! itself holds no token a scanner would flag.

use oy_audit::{Redaction, redact};
use proptest::prelude::*;

/// Planted secrets, one per kind, shared with the collection tests.
pub(crate) const AWS_ACCESS_KEY_ID: &str = concat!("AKIA", "QZ3X7RT2MW9PLK4J");
pub(crate) const AWS_SECRET: &str = concat!("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYq8r3Zt9uWv");
pub(crate) const GITHUB_TOKEN: &str = concat!("gh", "p_", "R8f2kLm9Qw3Zt7Xy1Bv4Nc6Hj0Ps5Ud8Ea2G");
pub(crate) const GITHUB_PAT: &str = concat!(
    "github",
    "_pat_",
    "11ABCDEFG0abcdefghij12_",
    "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0Ed"
);
pub(crate) const OPENAI_KEY: &str = concat!("sk-", "proj-", "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z");
pub(crate) const OPENAI_LEGACY: &str =
    concat!("sk-", "T3BlbkFJ7x9QmZ2pW4rV8nK1sL6dF0gH3jY5uE8cA2b");
pub(crate) const ANTHROPIC_KEY: &str =
    concat!("sk-", "ant-", "api03-Zx8Cv7Bn6Mq5Wk4Ej3Rt2Yu1Io0Pa9Sd");
pub(crate) const SLACK_TOKEN: &str = concat!("xo", "xb-", "2468013579-1357924680-AbCdEfGhIjKlMnOp");
pub(crate) const SLACK_WEBHOOK: &str = concat!(
    "https://hooks.",
    "slack.com/services/",
    "T0A1B2C3D/B4E5F6G7H/",
    "q8R9s0T1u2V3w4X5y6Z7a8B9"
);
pub(crate) const GOOGLE_KEY: &str = concat!("AI", "za", "SyD4f7Gh2Jk9Lm3Np6Qr8St1Uv5Wx0Yz2Ab4C");
pub(crate) const STRIPE_KEY: &str = concat!("sk", "_live_", "4eC39HqLyjWDarjtT1zdp7dc");
pub(crate) const JWT: &str = concat!(
    "eyJ",
    "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
    ".eyJ",
    "zdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ",
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
);
pub(crate) const GENERIC_VALUE: &str = "q7Vd9xKp2LmZ4rTw8sNb";
pub(crate) const PASSWORD_VALUE: &str = "Tr0ub4dor&3x";
pub(crate) const KEY_BODY: &str = "MIIEowIBAAKCAQEA7bq98L4aQzPvWmT3xR2kYn5sJd8uFhB1cG6eNtZ0oXiVlM";

/// Private key markers, split so no line of this file is one.
pub(crate) fn pem_begin() -> String {
    format!("-----BEGIN RSA {}-----", "PRIVATE KEY")
}

pub(crate) fn pem_end() -> String {
    format!("-----END RSA {}-----", "PRIVATE KEY")
}

/// `(line, kind)` cases: each whole line must become the marker.
fn cases() -> Vec<(String, &'static str)> {
    vec![
        (
            format!("aws_access_key_id = {AWS_ACCESS_KEY_ID}"),
            "aws-access-key-id",
        ),
        (
            format!("    let id = \"{AWS_ACCESS_KEY_ID}\";"),
            "aws-access-key-id",
        ),
        (
            format!("aws_secret_access_key = {AWS_SECRET}"),
            "aws-secret-access-key",
        ),
        (
            format!("AWS_SECRET_ACCESS_KEY=\"{AWS_SECRET}\""),
            "aws-secret-access-key",
        ),
        (format!("token: {GITHUB_TOKEN}"), "github-token"),
        (format!("GH_TOKEN={GITHUB_PAT}"), "github-token"),
        (
            format!("client = OpenAI(api_key=\"{OPENAI_KEY}\")"),
            "openai-key",
        ),
        (format!("OPENAI={OPENAI_LEGACY}"), "openai-key"),
        (format!("const k = '{ANTHROPIC_KEY}';"), "anthropic-key"),
        (format!("slack: {SLACK_TOKEN}"), "slack-token"),
        (format!("url = \"{SLACK_WEBHOOK}\""), "slack-webhook"),
        (format!("maps({GOOGLE_KEY})"), "google-api-key"),
        (format!("Stripe.api_key = '{STRIPE_KEY}'"), "stripe-key"),
        (format!("Authorization: Bearer {JWT}"), "jwt"),
        (format!("api_key = \"{GENERIC_VALUE}\""), "generic-secret"),
        (
            format!("\"client_secret\": \"{GENERIC_VALUE}\","),
            "generic-secret",
        ),
        (
            format!("export DB_PASSWORD={PASSWORD_VALUE}"),
            "generic-secret",
        ),
        (format!("password: {PASSWORD_VALUE}"), "generic-secret"),
        (
            format!("const API_TOKEN: &str = \"{GENERIC_VALUE}\";"),
            "generic-secret",
        ),
        (format!("SECRET_KEY = b'{GENERIC_VALUE}'"), "generic-secret"),
        (
            format!("DATABASE_URL=postgres://app:{PASSWORD_VALUE}@db:5432/app"),
            "url-credentials",
        ),
        (
            format!("{} {KEY_BODY} {}", pem_begin(), pem_end()),
            "private-key",
        ),
    ]
}

#[test]
fn redacts_each_secret_shape_with_its_kind() {
    for (line, kind) in cases() {
        let text = format!("before\n{line}\nafter\n");
        let (redacted, redactions) = redact(&text);
        let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
        assert_eq!(
            redacted,
            format!("before\n{indent}[redacted: {kind}]\nafter\n"),
            "line: {line}"
        );
        assert_eq!(
            redactions,
            vec![Redaction { line: 2, kind }],
            "line: {line}"
        );
    }
}

#[test]
fn redacts_every_line_of_a_private_key_block() {
    let text = format!(
        "fn main() {{}}\n{}\n{KEY_BODY}\n{KEY_BODY}\nAbCd==\n{}\nfn after() {{}}\n",
        pem_begin(),
        pem_end()
    );
    let (redacted, redactions) = redact(&text);
    let lines: Vec<&str> = redacted.lines().collect();
    assert_eq!(lines.first(), Some(&"fn main() {}"));
    assert_eq!(lines.last(), Some(&"fn after() {}"));
    assert!(lines[1..6].iter().all(|l| *l == "[redacted: private-key]"));
    let numbers: Vec<usize> = redactions.iter().map(|r| r.line).collect();
    assert_eq!(numbers, vec![2, 3, 4, 5, 6]);
    assert!(redactions.iter().all(|r| r.kind == "private-key"));
}

#[test]
fn redacts_a_key_embedded_as_string_literals() {
    let text = format!(
        "const KEY: &str = concat!(\n    \"{}\\n\",\n    \"{KEY_BODY}\\n\",\n    \"{}\\n\",\n);\n",
        pem_begin(),
        pem_end()
    );
    let (redacted, _) = redact(&text);
    assert!(!redacted.contains(KEY_BODY), "{redacted}");
    assert!(redacted.starts_with("const KEY: &str = concat!(\n"));
    assert!(redacted.ends_with(");\n"));
}

#[test]
fn code_that_mentions_a_key_marker_keeps_its_other_lines() {
    let text = format!(
        "if line.starts_with(\"{}\") {{\n    in_key = true;\n}}\n",
        pem_begin()
    );
    let (redacted, redactions) = redact(&text);
    assert_eq!(redactions.len(), 1);
    assert!(redacted.ends_with("    in_key = true;\n}\n"));
}

#[test]
fn leaves_placeholders_and_code_alone() {
    let untouched = [
        "api_key = \"changeme\"",
        "API_KEY=xxxxxxxxxxxxxxxxxxxx",
        "password: <your-password-here>",
        "token: ${GITHUB_TOKEN}",
        "secret: \"{{ .Values.secret }}\"",
        "api_key = os.environ[\"API_KEY\"]",
        "const apiKey = process.env.OPENAI_API_KEY;",
        "let key = env!(\"SIGNING_KEY\");",
        "token = next_token(&mut lexer);",
        "api_key = settings.API_KEY",
        "password = request.form['password']",
        "primary_key = user_id",
        "key: value",
        "let api_key = \"short\";",
        "password = \"aaaaaaaaaaaa\"",
        "password: \"Enter your password\"",
        "pip install scikit-learn sk-learn-is-not-a-key-at-all",
        "SECRET_KEY = your_secret_key_here",
        "DATABASE_URL=postgres://user:${DB_PASSWORD}@localhost/app",
        "Token string `json:\"token\"`",
        "fn token(&self) -> &str { &self.token }",
        "[redacted: generic-secret]",
    ];
    for line in untouched {
        let text = format!("{line}\n");
        let (redacted, redactions) = redact(&text);
        assert_eq!(redacted, text, "line: {line}");
        assert!(redactions.is_empty(), "line: {line}");
    }
}

#[test]
fn keeps_line_endings_and_a_missing_final_newline() {
    let text = format!("a\r\nkey = \"{GENERIC_VALUE}\"\r\nb");
    let (redacted, _) = redact(&text);
    assert_eq!(redacted, "a\r\n[redacted: generic-secret]\r\nb");
}

#[test]
fn redacting_twice_changes_nothing() {
    let text: String = cases()
        .into_iter()
        .map(|(line, _)| line + "\n")
        .collect::<String>()
        + &format!("{}\n{KEY_BODY}\n{}\n", pem_begin(), pem_end());
    let (once, first) = redact(&text);
    let (twice, second) = redact(&once);
    assert_eq!(once, twice);
    assert!(second.is_empty());
    assert_eq!(first.len(), cases().len() + 3);
}

/// Lines drawn from normal code, secret shapes and noise.
fn line_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,40}",
        "[ \t]{0,4}[a-z_]{1,12} = \"[A-Za-z0-9+/]{0,30}\"",
        Just(format!("key = {AWS_ACCESS_KEY_ID}")),
        Just(pem_begin()),
        Just(pem_end()),
        Just(KEY_BODY.to_owned()),
        Just(format!("  password: {PASSWORD_VALUE}")),
        Just(String::new()),
        "\\PC{0,20}",
    ]
}

proptest! {
    #[test]
    fn redaction_keeps_line_count_and_is_idempotent(
        lines in proptest::collection::vec(line_strategy(), 0..20),
        crlf in any::<bool>(),
        final_newline in any::<bool>(),
    ) {
        let ending = if crlf { "\r\n" } else { "\n" };
        let mut text = lines.join(ending);
        if final_newline {
            text.push_str(ending);
        }
        let (once, redactions) = redact(&text);
        prop_assert_eq!(once.lines().count(), text.lines().count());
        prop_assert_eq!(once.matches('\n').count(), text.matches('\n').count());
        for redaction in &redactions {
            prop_assert!(redaction.line >= 1 && redaction.line <= text.lines().count());
        }
        let (twice, again) = redact(&once);
        prop_assert_eq!(&twice, &once);
        prop_assert!(again.is_empty());
    }
}

/// A base64 token body (no real secret; assembled so no scanner flags it).
const TOKEN_BODY: &str = concat!("Zk9x", "Q2mT7rWv8LpN3sYb6HcJ");

/// Canaries that got through the first redactor: `(line, kind)`, each
/// whole line must become the marker. One row per reviewed shape.
fn canary_cases() -> Vec<(String, &'static str)> {
    let g = "generic-secret";
    vec![
        // 1. The secret word anywhere in the name.
        (format!("SECRET_KEY_BASE={GENERIC_VALUE}"), g),
        (format!("API_TOKEN_PROD={GENERIC_VALUE}"), g),
        (format!("DB_PASS: {PASSWORD_VALUE}"), g),
        (format!("DB_PW={PASSWORD_VALUE}"), g),
        (format!("AUTH_HEADER_VALUE=\"{GENERIC_VALUE}\""), g),
        (format!("GOOGLE_CREDENTIALS_JSON='{GENERIC_VALUE}'"), g),
        (
            format!("SENTRY_DSN=https://{GENERIC_VALUE}@o1.ingest.sentry.io/42"),
            g,
        ),
        (format!("SENTRY_DSN_PROD={GENERIC_VALUE}"), g),
        (format!("PRIVATE_SIGNING_MATERIAL={GENERIC_VALUE}"), g),
        (format!("apiKeyProd: \"{GENERIC_VALUE}\""), g),
        // 2. Password-like names: letters only, spaces, a leading `$`.
        ("ADMIN_PASSWORD=CANARYzeroTwoSecretWord".to_owned(), g),
        ("spring.datasource.password=CANARYtenPassword".to_owned(), g),
        ("password: \"CANARY correct horse battery\"".to_owned(), g),
        ("DB_PASSWORD=\"$CANARY20x\"".to_owned(), g),
        ("client_secret = 'CANARY two words'".to_owned(), g),
        ("pwd=CANARYpwd".to_owned(), g),
        ("$db_pass = 'CANARYphp';".to_owned(), g),
        // 3. Call forms and XML.
        ("define( 'DB_PASSWORD', 'CANARYdefine01' );".to_owned(), g),
        (format!("define('AUTH_KEY', '{GENERIC_VALUE}');"), g),
        (
            "config.set(\"db.password\", \"CANARYsetPair\");".to_owned(),
            g,
        ),
        (
            format!("headers.put(\"X-Api-Token\",\"{GENERIC_VALUE}\")"),
            g,
        ),
        ("<password>CANARYxmlPassword</password>".to_owned(), g),
        (format!("  <secret>{GENERIC_VALUE}</secret>"), g),
        (format!("<token type=\"bearer\">{GENERIC_VALUE}</token>"), g),
        // 6. New shapes.
        (
            format!("    client-key-data: LS0tLS1CRUdJTi{TOKEN_BODY}=="),
            "base64-pem",
        ),
        (
            format!("PRIVATE_KEY_B64=LS0tLS1CRUdJTi{TOKEN_BODY}"),
            "base64-pem",
        ),
        (
            format!("Authorization: Bearer {TOKEN_BODY}"),
            "bearer-token",
        ),
        (
            format!("fetch(url, {{ headers: {{ Authorization: `Bearer {TOKEN_BODY}` }} }})"),
            "bearer-token",
        ),
        // base64("admin:CANARYbasic")
        (
            "Authorization: Basic YWRtaW46Q0FOQVJZYmFzaWM=".to_owned(),
            "basic-auth",
        ),
        (
            "REDIS_URL=redis://:CANARYredis@cache:6379/0".to_owned(),
            "url-credentials",
        ),
        (
            "ftp://deploy:C9@files.internal/CANARY".to_owned(),
            "url-credentials",
        ),
        (
            "curl -u admin:CANARYcurl https://api.internal/".to_owned(),
            "cli-password",
        ),
        (
            "curl --user 'deploy:CANARYcurl2' -X POST https://x/".to_owned(),
            "cli-password",
        ),
        (
            "mysql -h db -u root -pCANARYmysql app < dump.sql".to_owned(),
            "cli-password",
        ),
        (
            "docker login -u ci -p CANARYdocker registry.example.org".to_owned(),
            "cli-password",
        ),
        (
            "docker login --password=CANARYdocker2 ghcr.io".to_owned(),
            "cli-password",
        ),
        (
            format!(
                "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&se=2030-01-01&sr=b&sp=r&sig={TOKEN_BODY}%3D"
            ),
            "azure-sas",
        ),
        (
            format!("url = \"https://discord.com/api/webhooks/123456789012345678/{TOKEN_BODY}\""),
            "discord-webhook",
        ),
        (
            format!(
                "TEAMS=https://contoso.webhook.office.com/webhookb2/{TOKEN_BODY}@{TOKEN_BODY}/IncomingWebhook/abc"
            ),
            "teams-webhook",
        ),
        // base64("ci:CANARYdockerauth")
        (
            "\"auth\": \"Y2k6Q0FOQVJZZG9ja2VyYXV0aA==\"".to_owned(),
            "docker-auth",
        ),
        (
            format!("  .dockerconfigjson: eyJhdXRocyI6{TOKEN_BODY}"),
            "docker-config",
        ),
    ]
}

#[test]
fn redacts_each_canary_shape() {
    let mut failures = Vec::new();
    for (line, kind) in canary_cases() {
        let text = format!("before\n{line}\nafter\n");
        let (redacted, redactions) = redact(&text);
        let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
        if redacted != format!("before\n{indent}[redacted: {kind}]\nafter\n")
            || redactions != vec![Redaction { line: 2, kind }]
        {
            failures.push(format!("{line}\n  want {kind}, got {redactions:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Multi-line canaries: `(text, redacted line numbers)`; every other line
/// must survive unchanged.
fn block_cases() -> Vec<(String, Vec<usize>)> {
    let begin = |kind: &str| format!("-----BEGIN {kind}{}-----", "PRIVATE KEY");
    let end = |kind: &str| format!("-----END {kind}{}-----", "PRIVATE KEY");
    vec![
        // 4. YAML block scalars and bare keys with indented values.
        (
            "db:\n  password: >-\n    CANARY folded\n    secret words\n  host: db\n".to_owned(),
            vec![3, 4],
        ),
        (
            format!("api_key: |\n  {GENERIC_VALUE}\n  {GENERIC_VALUE}\nname: app\n"),
            vec![2, 3],
        ),
        (
            "secret:\n  CANARYplainScalarValue\nport: 80\n".to_owned(),
            vec![2],
        ),
        (
            "- name: x\n  token: |+\n\n    CANARYkeepToken\nnext: 1\n".to_owned(),
            vec![4],
        ),
        // 5. PEM blocks whatever prefixes their lines carry.
        (
            format!(
                "KEY = b\"{}\\n\"\nb\"{KEY_BODY}\\n\"\nb\"CANARY-with-dashes and spaces\\n\"\nb\"{}\\n\"\nx = 1\n",
                begin("RSA "),
                end("RSA ")
            ),
            vec![1, 2, 3, 4],
        ),
        (
            format!(
                "> {}\n> {KEY_BODY}\n> CANARY: quoted mail body!\n> {}\nthanks\n",
                begin("EC "),
                end("EC ")
            ),
            vec![1, 2, 3, 4],
        ),
        (
            format!(
                "@@ -1 +1 @@\n+{}\n+{KEY_BODY}\n-CANARY removed line (old)\n+{}\n context\n",
                begin("OPENSSH "),
                end("OPENSSH ")
            ),
            vec![2, 3, 4, 5],
        ),
        (
            format!(
                "/*\n * {}\n * {KEY_BODY}\n * CANARY line: with prose.\n * {}\n */\n",
                begin("ENCRYPTED "),
                end("ENCRYPTED ")
            ),
            vec![2, 3, 4, 5],
        ),
        (
            format!(
                "// -----BEGIN PGP {k} BLOCK-----\n// Version: CANARY 1.0 (comment)\n// {KEY_BODY}\n// -----END PGP {k} BLOCK-----\nfn f() {{}}\n",
                k = "PRIVATE KEY"
            ),
            vec![1, 2, 3, 4],
        ),
        (
            format!(
                "# {}\n# {KEY_BODY}\n# CANARY = not base64!\n# {}\n",
                begin(""),
                end("")
            ),
            vec![1, 2, 3, 4],
        ),
        // 6. JWK private members, in a file that holds a JWK.
        (
            format!(
                "{{\n  \"kty\": \"RSA\",\n  \"n\": \"{TOKEN_BODY}\",\n  \"e\": \"AQAB\",\n  \"d\": \"{TOKEN_BODY}\",\n  \"p\": \"{TOKEN_BODY}\"\n}}\n"
            ),
            vec![5, 6],
        ),
    ]
}

#[test]
fn redacts_each_multi_line_canary() {
    let mut failures = Vec::new();
    for (text, expected) in block_cases() {
        let (redacted, redactions) = redact(&text);
        let numbers: Vec<usize> = redactions.iter().map(|r| r.line).collect();
        if numbers != expected {
            failures.push(format!("{text}\n  want {expected:?}, got {numbers:?}"));
            continue;
        }
        for (index, (got, want)) in redacted.lines().zip(text.lines()).enumerate() {
            if expected.contains(&(index + 1)) {
                assert!(got.contains("[redacted: "), "line {}: {got}", index + 1);
            } else {
                assert_eq!(got, want, "line {}", index + 1);
            }
        }
        assert!(!redacted.contains("CANARY"), "{redacted}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// More lines than a key block may span.
const MAX_GAP: usize = 201;

#[test]
fn a_begin_marker_without_an_end_costs_little() {
    // A parser mentioning the marker, with no END within reach, many times.
    let mut text = String::new();
    for _ in 0..2_000 {
        text.push_str(&format!("if l.starts_with(\"{}\") {{\n", pem_begin()));
        text.push_str(&"    fn body() {}\n".repeat(3));
    }
    text.push_str(&"x\n".repeat(MAX_GAP));
    text.push_str(&format!("const END: &str = \"{}\";\n", pem_end()));
    let (_, redactions) = redact(&text);
    assert_eq!(redactions.len(), 2_000);
    // Once, with the END line out of reach.
    let mut text = format!("const MARKER: &str = \"{}\";\n", pem_begin());
    text.push_str(&"fn body() {}\n".repeat(300));
    text.push_str(&format!("const END: &str = \"{}\";\n", pem_end()));
    let (redacted, redactions) = redact(&text);
    assert_eq!(
        redactions.iter().map(|r| r.line).collect::<Vec<_>>(),
        vec![1]
    );
    assert!(redacted.contains("fn body() {}"));
}

#[test]
fn leaves_new_lookalikes_alone() {
    let untouched = [
        "self.password = password",
        "password: String,",
        "    secret: SecretStr",
        "pw = new_password",
        "api_key = settings.API_KEY",
        "token = next_token();",
        "primary_key = user_id",
        "PASSWORD=$DB_PASSWORD",
        "DB_PASSWORD=\"${DB_PASSWORD}\"",
        "password: \"changeme\"",
        "PASSWORD=",
        "password = os.getenv(\"DB_PASSWORD\")",
        "PWD=/srv/user/project",
        "keyboard_layout = \"us-international-alt\"",
        "author = \"Jane Q. Public\"",
        "PASSWORD_HINT = \"Password must be 8 characters.\"",
        "docker run -u 1000:1000 image",
        "mysql -u root -p$MYSQL_ROOT_PASSWORD",
        "docker login -u ci --password-stdin ghcr.io",
        "Basic authentication is enabled by default",
        "Use bearer authentication with tokenised requests",
        "<key>CFBundleIdentifier</key>",
        "\"d\": \"abcdefghijklmnopqrstuvwxyz\"",
        "https://example.org/path?sig=short",
        "class A {\nprivate:\n    int counter_value_for_things = 0;\n};",
        "auth:\n  enabled: true\n  provider: github\n",
        "            Self::LikelySecret => \"likely-secret\",",
        "        \"tokens\" => ChatInput::Tokens,",
        "json!({\"command\": \"pwd\", \"workdir\": \"sub/dir\"})",
        "`input_tokens`, `output_tokens`, `cached_input_tokens`",
        "`PASSPHRASE`, `CREDENTIAL`, `COOKIE`, `APIKEY`",
        "env_key = \"WORK_LLM_KEY\"     # the variable holding the key",
        "(\"GIT_ASKPASS\", \"/usr/bin/askpass\")",
        "(`AWS_WEB_IDENTITY_TOKEN_FILE`, `~/.aws/credentials`)",
        "/// Source files named like secrets: collected, with line redaction.",
        "(`scheme://user:pw@host`, the password may contain `/`)",
    ];
    for text in untouched {
        let text = format!("{text}\n");
        let (redacted, redactions) = redact(&text);
        assert_eq!(redacted, text, "text: {text}");
        assert!(redactions.is_empty(), "text: {text}");
    }
}

#[test]
fn canaries_redact_once_and_stay_redacted() {
    let mut text: String = canary_cases()
        .into_iter()
        .map(|(line, _)| line + "\n")
        .collect();
    for (block, _) in block_cases() {
        text.push_str(&block);
    }
    let (once, _) = redact(&text);
    let (twice, again) = redact(&once);
    assert_eq!(once, twice);
    assert!(again.is_empty());
    assert!(!once.contains("CANARY"));
}

#[test]
fn the_prefilter_keeps_redaction_fast_on_large_text() {
    // 2 MiB of ordinary code with one secret at the end: linear time.
    let mut text = "let value = compute(input, 42); // ordinary line\n".repeat(40_000);
    text.push_str("ADMIN_PASSWORD=CANARYzeroTwoSecretWord\n");
    let started = std::time::Instant::now();
    let (redacted, redactions) = redact(&text);
    assert_eq!(redactions.len(), 1);
    assert!(!redacted.contains("CANARY"));
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn every_secret_shape_of_the_shared_table_is_redacted() {
    // The table is the one the child-process environment filter drops
    // variables by (`oy-secrets`). A text shape names its line; a shape
    // that holds only in single values is still caught by the audit's own
    // heuristics.
    let mut failures = Vec::new();
    for shape in oy_secrets::shapes() {
        // The vendored rules have no example; the corpus covers them.
        let Some(example) = shape.example() else {
            continue;
        };
        // In text, key material alone reads like a digest or prose (a WIF
        // key, twelve words): it counts next to a name.
        let planted = match shape.kind() {
            "wallet-private-key" if !shape.scope().in_text() => format!("WALLET_KEY='{example}'"),
            "seed-phrase" if !shape.scope().in_text() => format!("SEED_PHRASE='{example}'"),
            _ => example.to_owned(),
        };
        let text = format!("let before = 1;\n{planted}\nlet after = 2;\n");
        let (redacted, redactions) = redact(&text);
        let lines: Vec<&str> = redacted.lines().collect();
        let kinds: Vec<&str> = redactions.iter().map(|r| r.kind).collect();
        // A multi-line example (a netrc entry) loses its secret's line.
        let one_line = example.trim_end().lines().count() == 1;
        let named = !shape.scope().in_text() || kinds.iter().all(|kind| *kind == shape.kind());
        if lines.first() != Some(&"let before = 1;")
            || lines.last() != Some(&"let after = 2;")
            || (one_line && redactions.iter().map(|r| r.line).collect::<Vec<_>>() != [2])
            || redactions.is_empty()
            || !named
            || redacted.contains(example)
        {
            failures.push(format!("{}: {redactions:?}", shape.kind()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

proptest! {
    #[test]
    fn redaction_never_leaves_a_planted_secret_behind(
        index in 0..64_usize,
        lines in proptest::collection::vec(line_strategy(), 0..6),
        at in 0..6_usize,
    ) {
        let text_shapes: Vec<&oy_secrets::Shape> = oy_secrets::shapes()
            .iter()
            .filter(|shape| shape.scope().in_text() && !shape.is_vendored())
            .collect();
        let secret = text_shapes[index % text_shapes.len()].example().unwrap();
        let mut lines = lines;
        lines.insert(at.min(lines.len()), format!("  value {secret} end"));
        let text = lines.join("\n") + "\n";
        let (redacted, _) = redact(&text);
        prop_assert!(!redacted.contains(secret), "{text:?}");
    }
}

#[test]
fn a_keyword_spelt_with_a_folding_character_is_still_found() {
    // `ſ` is an `s` to the shapes' case-insensitive patterns, though not
    // to an ASCII keyword search: its line is tried against every shape.
    let text = "fn a() {}\nAuthorization: Ba\u{17f}ic YWRtaW46Q0FOQVJZYmFzaWM=\nfn b() {}\n";
    let (redacted, redactions) = redact(text);
    assert_eq!(
        redactions,
        vec![Redaction {
            line: 2,
            kind: "basic-auth"
        }]
    );
    assert_eq!(redacted, "fn a() {}\n[redacted: basic-auth]\nfn b() {}\n");
}

#[test]
fn code_and_links_that_name_cookies_and_tokens_stay() {
    let untouched = [
        "            cookie: Some(PayloadU16::new(vec![0])),",
        "    cookie_store: Option<Arc<dyn cookie::CookieStore>>,",
        "use crate::cookie::service::CookieService;",
        "/// [`Token`]: ../enum.Token.html",
        "/// [`Pair::tokens`]: struct.Pair.html#method.tokens",
        "AUTHENTICATION_BACKENDS = (\"django.contrib.auth.backends.ModelBackend\",)",
    ];
    for line in untouched {
        let text = format!("{line}\n");
        let (redacted, redactions) = redact(&text);
        assert_eq!(redacted, text, "{line}");
        assert!(redactions.is_empty(), "{line}");
    }
}
