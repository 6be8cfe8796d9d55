//! The credential filter for child processes: planted variables are
//! removed, what tools need is kept, the allow-list passes names through,
//! and git's `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` pairs stay whole.

use std::ffi::{OsStr, OsString};
use std::process::Command;

use oy_tools::{ChildEnv, is_credential_like};

use crate::child_env_table::{KEPT, REMOVED_BY_NAME, REMOVED_BY_VALUE};

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

/// Filters `name=value` alone, so one row cannot hide another.
fn filter_one(name: &str, value: &str) -> ChildEnv {
    ChildEnv::filtered(vars(&[(name, value)]), &[])
}

#[test]
fn every_credential_in_the_table_is_removed() {
    let rows: Vec<&(&str, &str)> = REMOVED_BY_NAME.iter().chain(REMOVED_BY_VALUE).collect();
    assert!(rows.len() >= 110, "only {} credential rows", rows.len());
    let leaked: Vec<&str> = rows
        .iter()
        .filter(|(name, value)| {
            let env = filter_one(name, value);
            env.get(name).is_some() || env.removed() != [name.to_string()]
        })
        .map(|(name, _)| *name)
        .collect();
    assert!(leaked.is_empty(), "leaked: {leaked:?}");
}

#[test]
fn secrets_under_harmless_names_are_caught_by_their_value() {
    // Each of these rows must owe its removal to the value: with an empty
    // value the name alone passes.
    let named: Vec<&str> = REMOVED_BY_VALUE
        .iter()
        .filter(|(name, _)| is_credential_like(OsStr::new(name), OsStr::new("")))
        .map(|(name, _)| *name)
        .collect();
    assert!(
        named.is_empty(),
        "names that already say credential: {named:?}"
    );
}

#[test]
fn every_ordinary_variable_in_the_table_is_kept_unchanged() {
    assert!(KEPT.len() >= 110, "only {} ordinary rows", KEPT.len());
    let lost: Vec<&str> = KEPT
        .iter()
        .filter(|(name, value)| {
            let env = filter_one(name, value);
            env.get(name).and_then(OsStr::to_str) != Some(*value) || !env.removed().is_empty()
        })
        .map(|(name, _)| *name)
        .collect();
    assert!(lost.is_empty(), "lost: {lost:?}");
}

/// The git config variables a child gets, sorted by name.
fn git_config_vars(env: &ChildEnv) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = env
        .vars()
        .iter()
        .filter_map(|(name, value)| {
            let name = name.to_str()?;
            name.starts_with("GIT_CONFIG_")
                .then(|| (name.to_owned(), value.to_string_lossy().into_owned()))
        })
        .collect();
    found.sort();
    found
}

/// `pairs` as [`git_config_vars`] lists them.
fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut owned: Vec<(String, String)> = pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
    owned.sort();
    owned
}

/// Four pairs git reads: two ordinary, one with a bearer header, one whose
/// rewritten URL logs in.
const MIXED_GIT_CONFIG: [(&str, &str); 9] = [
    ("GIT_CONFIG_COUNT", "4"),
    ("GIT_CONFIG_KEY_0", "core.pager"),
    ("GIT_CONFIG_VALUE_0", "less -FRX"),
    ("GIT_CONFIG_KEY_1", "http.https://github.com/.extraheader"),
    (
        "GIT_CONFIG_VALUE_1",
        "AUTHORIZATION: basic ZmFrZTpGQUtFZXhhbXBsZQ==",
    ),
    ("GIT_CONFIG_KEY_2", "safe.directory"),
    ("GIT_CONFIG_VALUE_2", "/work"),
    (
        "GIT_CONFIG_KEY_3",
        "url.https://oauth2:FAKEexample0123@gitlab.example.com/.insteadOf",
    ),
    ("GIT_CONFIG_VALUE_3", "https://gitlab.example.com/"),
];

#[test]
fn a_secret_git_config_pair_goes_whole_and_the_rest_are_renumbered() {
    let env = ChildEnv::filtered(vars(&MIXED_GIT_CONFIG), &[]);
    assert_eq!(
        git_config_vars(&env),
        owned(&[
            ("GIT_CONFIG_COUNT", "2"),
            ("GIT_CONFIG_KEY_0", "core.pager"),
            ("GIT_CONFIG_KEY_1", "safe.directory"),
            ("GIT_CONFIG_VALUE_0", "less -FRX"),
            ("GIT_CONFIG_VALUE_1", "/work"),
        ])
    );
    assert_eq!(
        env.removed(),
        [
            "GIT_CONFIG_KEY_1",
            "GIT_CONFIG_KEY_3",
            "GIT_CONFIG_VALUE_1",
            "GIT_CONFIG_VALUE_3"
        ]
    );
}

#[test]
fn git_reads_the_renumbered_config() {
    let home = tempfile::tempdir().unwrap();
    let mut planted = vars(&MIXED_GIT_CONFIG);
    planted.extend(vars(&[
        ("PATH", "/usr/local/bin:/usr/bin:/bin"),
        ("HOME", home.path().to_str().unwrap()),
        ("GIT_CONFIG_NOSYSTEM", "1"),
    ]));
    let env = ChildEnv::filtered(planted, &[]);
    let mut git = Command::new("git");
    env.apply(&mut git);
    let out = git
        .args(["config", "--get-regexp", "."])
        .current_dir(home.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "core.pager less -FRX\nsafe.directory /work\n"
    );
}

#[test]
fn a_secret_value_under_an_ordinary_key_takes_its_key_along() {
    let env = ChildEnv::filtered(
        vars(&[
            ("GIT_CONFIG_COUNT", "2"),
            ("GIT_CONFIG_KEY_0", "remote.origin.url"),
            (
                "GIT_CONFIG_VALUE_0",
                "https://ci:FAKEexample0123@git.example.com/acme/app.git",
            ),
            ("GIT_CONFIG_KEY_1", "core.editor"),
            ("GIT_CONFIG_VALUE_1", "nvim"),
        ]),
        &[],
    );
    assert_eq!(
        git_config_vars(&env),
        owned(&[
            ("GIT_CONFIG_COUNT", "1"),
            ("GIT_CONFIG_KEY_0", "core.editor"),
            ("GIT_CONFIG_VALUE_0", "nvim"),
        ])
    );
}

#[test]
fn an_ordinary_git_config_pair_is_kept_untouched() {
    let pairs = [
        ("GIT_CONFIG_COUNT", "1"),
        ("GIT_CONFIG_KEY_0", "core.pager"),
        ("GIT_CONFIG_VALUE_0", "less"),
    ];
    let env = ChildEnv::filtered(vars(&pairs), &[]);
    assert_eq!(git_config_vars(&env), owned(&pairs));
    assert!(env.removed().is_empty(), "{:?}", env.removed());
}

#[test]
fn ordinary_pairs_that_only_look_like_logins_are_kept() {
    // An scp-style rewrite names a user but no password; `user.signingKey`
    // is a key id, not a key.
    let pairs = [
        ("GIT_CONFIG_COUNT", "2"),
        ("GIT_CONFIG_KEY_0", "url.git@github.com:.insteadOf"),
        ("GIT_CONFIG_VALUE_0", "https://github.com/"),
        ("GIT_CONFIG_KEY_1", "user.signingKey"),
        ("GIT_CONFIG_VALUE_1", "0xDEADBEEF01234567"),
    ];
    let env = ChildEnv::filtered(vars(&pairs), &[]);
    assert_eq!(git_config_vars(&env), owned(&pairs));
}

#[test]
fn credential_settings_go_whatever_their_value() {
    for key in [
        "credential.helper",
        "credential.https://example.com.username",
        "http.extraHeader",
        "http.https://example.com/.extraheader",
        "sendemail.smtpPass",
        "http.cookieFile",
        "http.sslKey",
        "imap.password",
        "url.https://FAKEexample0123@github.com/.insteadOf",
    ] {
        assert!(
            is_credential_like(OsStr::new("GIT_CONFIG_KEY_0"), OsStr::new(key)),
            "{key} kept"
        );
    }
    assert!(!is_credential_like(
        OsStr::new("GIT_CONFIG_KEY_0"),
        OsStr::new("core.pager")
    ));
}

#[test]
fn removing_every_pair_drops_the_count() {
    let env = ChildEnv::filtered(
        vars(&[
            ("GIT_CONFIG_COUNT", "1"),
            ("GIT_CONFIG_KEY_0", "credential.helper"),
            ("GIT_CONFIG_VALUE_0", "store"),
        ]),
        &[],
    );
    assert!(git_config_vars(&env).is_empty(), "{:?}", env.vars());
    assert_eq!(
        env.removed(),
        ["GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"]
    );
}

#[test]
fn a_half_pair_is_removed_and_the_count_follows() {
    let env = ChildEnv::filtered(
        vars(&[
            ("GIT_CONFIG_COUNT", "2"),
            ("GIT_CONFIG_KEY_0", "core.pager"),
            ("GIT_CONFIG_KEY_1", "safe.directory"),
            ("GIT_CONFIG_VALUE_1", "/work"),
        ]),
        &[],
    );
    assert_eq!(
        git_config_vars(&env),
        owned(&[
            ("GIT_CONFIG_COUNT", "1"),
            ("GIT_CONFIG_KEY_0", "safe.directory"),
            ("GIT_CONFIG_VALUE_0", "/work"),
        ])
    );
    assert_eq!(env.removed(), ["GIT_CONFIG_KEY_0"]);
}

#[test]
fn pairs_without_a_count_are_judged_but_not_renumbered() {
    // Git reads no pair without GIT_CONFIG_COUNT, so none is activated.
    let env = ChildEnv::filtered(
        vars(&[
            ("GIT_CONFIG_KEY_0", "http.extraHeader"),
            (
                "GIT_CONFIG_VALUE_0",
                "Authorization: Bearer FAKEexample0123456789",
            ),
            ("GIT_CONFIG_KEY_1", "core.pager"),
            ("GIT_CONFIG_VALUE_1", "less"),
        ]),
        &[],
    );
    assert_eq!(
        git_config_vars(&env),
        owned(&[
            ("GIT_CONFIG_KEY_1", "core.pager"),
            ("GIT_CONFIG_VALUE_1", "less"),
        ])
    );
}

#[test]
fn allowing_either_half_keeps_a_secret_pair() {
    let pairs = [
        ("GIT_CONFIG_COUNT", "1"),
        ("GIT_CONFIG_KEY_0", "http.extraHeader"),
        (
            "GIT_CONFIG_VALUE_0",
            "Authorization: Bearer FAKEexample0123456789",
        ),
    ];
    let env = ChildEnv::filtered(vars(&pairs), &["GIT_CONFIG_VALUE_0".to_owned()]);
    assert_eq!(git_config_vars(&env), owned(&pairs));
}

#[test]
fn every_secret_shape_of_the_shared_table_is_filtered_by_its_value() {
    // The table is the one the audit redacts with (`oy-secrets`): every
    // shape's example goes, whatever the variable is called (the vendored
    // gitleaks rows have none; oy-secrets' tests generate theirs).
    let leaked: Vec<&str> = oy_secrets::shapes()
        .iter()
        .filter(|shape| {
            shape.example().is_some_and(|example| {
                let env = filter_one("HARMLESS_SETTING", example);
                env.get("HARMLESS_SETTING").is_some()
            })
        })
        .map(oy_secrets::Shape::kind)
        .collect();
    assert!(leaked.is_empty(), "leaked: {leaked:?}");
}
