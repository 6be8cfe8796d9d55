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
