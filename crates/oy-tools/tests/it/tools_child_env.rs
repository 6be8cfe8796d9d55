//! The credential filter for child processes: planted variables are
//! removed, what tools need is kept, the allow-list passes names through.

use std::ffi::OsString;

use oy_tools::ChildEnv;

fn vars(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).into(), (*v).into()))
        .collect()
}

#[test]
fn credential_like_variables_are_removed_and_useful_ones_kept() {
    let planted = [
        ("OPENAI_API_KEY", "sk-1"),
        ("ANTHROPIC_API_KEY", "sk-2"),
        ("GITHUB_TOKEN", "ghp"),
        ("NPM_TOKEN", "npm"),
        ("AWS_ACCESS_KEY_ID", "AKIA"),
        ("AWS_SECRET_ACCESS_KEY", "s"),
        ("AWS_SESSION_TOKEN", "t"),
        ("AWS_PROFILE", "prod"),
        ("DATABASE_URL", "postgres://u@h/db"),
        ("SENTRY_DSN", "https://k@sentry"),
        ("KUBECONFIG", "/k"),
        ("DB_PASSWORD", "p"),
        ("MYSQL_PWD", "p"),
        ("LDAP_PASSWD", "p"),
        ("SMTP_PASS", "p"),
        ("GOOGLE_APPLICATION_CREDENTIALS", "/c.json"),
        ("SSH_AUTH_SOCK", "/tmp/agent"),
        ("SESSION_ID", "x"),
        ("COOKIE_JAR", "x"),
        ("my_lowercase_secret", "x"),
        ("HTTP_PROXY", "http://user:hunter2@proxy:3128"),
        ("STRIPE_APIKEY", "x"),
        ("DEPLOY_KEYS", "x"),
        ("OPENAI_API_KEY2", "x"),
        ("CI_JOB_JWT_V2", "x"),
        ("GITHUB_PAT", "x"),
        ("AZURE_DEVOPS_EXT_PAT", "x"),
        (
            "AZURE_STORAGE_CONNECTION_STRING",
            "DefaultEndpointsProtocol=https;AccountKey=abc",
        ),
        ("IDENTITY_HEADER", "x"),
        ("GCLOUD_KEYFILE_JSON", "{}"),
        ("BORG_PASSPHRASE", "x"),
        ("CREDS_PSW", "x"),
        ("DB_PW", "x"),
        ("SLACK_WEBHOOK_URL", "https://hooks"),
        ("GITHUB_APP_PEM", "x"),
        ("GIT_ASKPASS", "/usr/bin/askpass"),
        ("VSCODE_GIT_IPC_HANDLE", "/tmp/sock"),
        ("SOME_BLOB", "-----BEGIN OPENSSH PRIVATE KEY-----"),
        ("PG_URL", "postgres://u:p/ss@h/db"),
        ("MONGO_URL", "mongodb://u:p#ss@h"),
    ];
    let kept_names = [
        ("PATH", "/usr/bin"),
        ("HOME", "/srv/u"),
        ("LANG", "C.UTF-8"),
        ("TERM", "xterm"),
        ("PWD", "/work"),
        ("OLDPWD", "/"),
        ("GIT_AUTHOR_NAME", "A"),
        ("GIT_COMMITTER_EMAIL", "a@b"),
        ("NO_PROXY", "localhost"),
        ("REDIS_URL", "redis://cache:6379"),
        ("KEYBOARD_LAYOUT", "us"),
        ("PASSENGER_ENV", "x"),
        ("SSH_TTY", "/dev/pts/0"),
    ];
    let mut all = vars(&planted);
    all.extend(vars(&kept_names));
    let env = ChildEnv::filtered(all, &[]);
    for (name, _) in planted {
        assert!(env.get(name).is_none(), "{name} leaked");
        assert!(
            env.removed().contains(&name.to_owned()),
            "{name} not reported"
        );
    }
    for (name, value) in kept_names {
        assert_eq!(
            env.get(name).and_then(|v| v.to_str()),
            Some(value),
            "{name} lost"
        );
    }
}

#[test]
fn the_allow_list_passes_a_named_variable_through() {
    let env = ChildEnv::filtered(
        vars(&[("GITHUB_TOKEN", "ghp"), ("NPM_TOKEN", "npm")]),
        &["GITHUB_TOKEN".to_owned()],
    );
    assert_eq!(
        env.get("GITHUB_TOKEN").and_then(|v| v.to_str()),
        Some("ghp")
    );
    assert!(env.get("NPM_TOKEN").is_none());
}

#[test]
fn the_default_environment_holds_nothing_of_the_parent() {
    let env = ChildEnv::default();
    let names: Vec<String> = env
        .vars()
        .iter()
        .map(|(k, _)| k.to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["PATH", "LANG"]);
}

#[test]
fn path_keeps_only_absolute_entries() {
    let env = ChildEnv::filtered(vars(&[("PATH", ":./bin:/usr/bin::bin:/bin:")]), &[]);
    assert_eq!(
        env.get("PATH").and_then(|v| v.to_str()),
        Some("/usr/bin:/bin")
    );
}
