//! Secret names: what the child-process environment filter reads
//! (credential or not) and what the audit reads (worth judging, and
//! whether a password needs no randomness) come from one table.

use oy_secrets::{is_credential_name, secret_name};

/// How a name reads.
#[derive(Debug, PartialEq, Eq)]
enum Reading {
    /// Not secret at all.
    Nothing,
    /// Worth judging what it holds; not a credential by itself.
    Mention,
    /// A credential whatever it holds.
    Credential,
    /// A credential, and a password: a value needs no randomness.
    Password,
    /// Password-like in code, but the desktop's own plumbing in the
    /// environment (`PWD`).
    PlumbingPassword,
}

fn reading(name: &str) -> Reading {
    match secret_name(name) {
        None => Reading::Nothing,
        Some(n) => match (n.is_credential(), n.is_password_like()) {
            (true, true) => Reading::Password,
            (true, false) => Reading::Credential,
            (false, true) => Reading::PlumbingPassword,
            (false, false) => Reading::Mention,
        },
    }
}

#[test]
fn each_name_reads_as_the_table_says() {
    use Reading::*;
    let cases = [
        // Passwords and secrets.
        ("DB_PASSWORD", Password),
        ("PGPASSWORD", Password),
        ("LDAP_PASSWD", Password),
        ("client_secret", Password),
        ("dbPassword", Password),
        ("MYSQL_PWD", Password),
        ("DB_PW", Password),
        ("DB_PW2", Password),
        ("SMTP_PASS", Password),
        ("dbpass", Password),
        ("GIT_ASKPASS", Password),
        ("BORG_PASSPHRASE", Password),
        ("SSHPASS", Password),
        ("awsSecretAccessKey", Password),
        // Credentials.
        ("GITHUB_TOKEN", Credential),
        ("GHTOKEN", Credential),
        ("OPENAI_API_KEY", Credential),
        ("OPENAI_API_KEY2", Credential),
        ("apiKeyProd", Credential),
        ("STRIPE_APIKEY", Credential),
        ("DEPLOY_KEYS", Credential),
        ("GCLOUD_KEYFILE_JSON", Credential),
        ("SSH_AUTH_SOCK", Credential),
        ("AUTHORIZATION", Credential),
        ("SESSION_ID", Credential),
        ("COOKIE_JAR", Credential),
        ("CI_JOB_JWT_V2", Credential),
        ("GITHUB_PAT", Credential),
        ("CREDS_PSW", Credential),
        ("GITHUB_APP_PEM", Credential),
        ("GOOGLE_APPLICATION_CREDENTIALS", Credential),
        ("SENTRY_DSN", Credential),
        ("sentrydsn", Credential),
        ("PRIVATE", Credential),
        ("SQLCONNSTR_main", Credential),
        ("AZURE_STORAGE_CONNECTION_STRING", Credential),
        ("DATABASE_URL", Credential),
        ("KUBECONFIG", Credential),
        ("AWS_PROFILE", Credential),
        ("PGPASSFILE", Credential),
        ("VSCODE_GIT_IPC_HANDLE", Credential),
        ("SLACK_WEBHOOK_URL", Credential),
        // Mentions: worth a look in code, harmless in the environment.
        ("HOTKEYS_ENABLED", Mention),
        ("KEYCHAIN_PATH", Mention),
        ("XAUTHORITY", Mention),
        ("TOKENIZERS_PARALLELISM", Mention),
        ("AUTH0_DOMAIN", Mention),
        ("DESKTOP_SESSION", Mention),
        ("XDG_SESSION_ID", Mention),
        ("PWD", PlumbingPassword),
        ("OLDPWD", PlumbingPassword),
        // Nothing secret.
        ("PATH", Nothing),
        ("HOME", Nothing),
        ("KEYBOARD_LAYOUT", Nothing),
        ("keyword", Nothing),
        ("MONKEY", Nothing),
        ("PASSENGER_ENV", Nothing),
        ("BYPASS_CACHE", Nothing),
        ("compass", Nothing),
        ("GIT_AUTHOR_NAME", Nothing),
        ("authority", Nothing),
        ("authenticated", Nothing),
        ("TOKENIZER", Nothing),
        ("COOKIECUTTER_CONFIG", Nothing),
        ("CARGO_HOME", Nothing),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter(|(name, want)| reading(name) != *want)
        .map(|(name, want)| format!("{name}: want {want:?}, got {:?}", reading(name)))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_credential_name_is_one_the_table_marks_as_credential() {
    for name in ["GITHUB_TOKEN", "DB_PASSWORD", "PWD", "XAUTHORITY", "PATH"] {
        assert_eq!(
            is_credential_name(name),
            secret_name(name).is_some_and(|n| n.is_credential()),
            "{name}"
        );
    }
}
