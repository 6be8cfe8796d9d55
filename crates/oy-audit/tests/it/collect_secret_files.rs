//! Tests of the likely-secret file rules beyond the first ones: env files,
//! credential stores and password databases under other names, wallets,
//! OpenVPN profiles, history files (never collected, also with hidden
//! files included), and paths whose names hold a secret's shape (never
//! collected, so the name never reaches what is sent).

#![expect(
    clippy::unwrap_used,
    reason = "fixture helpers outside #[test] fns fail loudly"
)]

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use oy_audit::{CollectOptions, Collection, SkipReason, collect};
use oy_boundary::Workspace;

/// Names skipped as likely secrets: each holds a planted value.
const LIKELY_SECRETS: &[&str] = &[
    // Env files in other spellings.
    "app.env.local",
    "env.production",
    "config/env.staging",
    ".env.local.backup",
    "deploy/env.example",
    "serverless/env.yml",
    // Credential stores without their dot, and tools' token files.
    "netrc",
    "git-credentials",
    ".vault-token",
    ".terraformrc",
    "credentials.tfrc.json",
    ".mylogin.cnf",
    "settings-security.xml",
    "rclone.conf",
    // Password databases.
    "etc/shadow",
    "etc/gshadow",
    "etc/shadow-",
    "etc/master.passwd",
    "auth/.htpasswd.bak",
    "auth/users.htpasswd",
    "auth/.htpasswd-admin",
    "auth/htdigest",
    // SSH keys under other names.
    "id_ed448",
    "keys/id_ecdsa_sk",
    "keys/deploy_rsa",
    "keys/ci_ed25519.pub",
    "etc/ssh/ssh_host_ed25519_key",
    "identity",
    // AWS console downloads.
    "credentials.csv",
    "new_user_credentials.csv",
    "downloads/accessKeys.csv",
    "downloads/admin_accessKeys.csv",
    "rootkey.csv",
    // Wallets and seed words.
    "wallet.dat",
    "backup/savings.wallet",
    "keystore/UTC--2024-01-02T03-04-05.678Z--0f4e5a7c9b1d3e5f7a9c1b3d5e7f9a1c3e5b7d9f",
    "mnemonic.txt",
    "seed_phrase.json",
    "electrum/wallets/default_wallet",
    ".config/solana/id.json",
    // OpenVPN profiles, which carry their keys inline.
    "vpn/office.ovpn",
    // Command-line tools' token directories.
    ".config/gh/hosts.yml",
    ".password-store/web/github.gpg",
];

/// History files: skipped as likely secrets even with hidden files
/// included.
const HISTORY_FILES: &[&str] = &[
    ".bash_history",
    ".zsh_history",
    ".histfile",
    ".sh_history",
    ".local/share/fish/fish_history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".rediscli_history",
    ".node_repl_history",
    ".irb_history",
    ".pry_history",
    ".Rhistory",
    ".lesshst",
    ".viminfo",
    ".dbshell",
    ".mongodb/mongosh/65f0c0ffee_repl_history",
    ".wget-hsts",
    ".gdb_history",
    ".cassandra/cqlsh_history",
    ".julia/logs/repl_history.jl",
    ".zsh_sessions/6B1C.history",
    "home/user/.bash_history.bak",
];

/// Files named like secrets or history that are code or prose: collected.
const ORDINARY: &[&str] = &[
    "src/env.ts",
    "src/vite-env.d.ts",
    "lib/test.env.js",
    "docs/env.md",
    "src/environment.rs",
    "src/credential_helper.sh",
    "src/htpasswd.go",
    "src/history.rs",
    "docs/HISTORY.md",
    "src/shadow.rs",
    "src/wallet.py",
    "src/seed.rs",
    "src/pk_lookup.rs",
    "src/id_utils.py",
    "docs/identity.md",
];

/// Builds a repository holding `paths`, each with a planted value.
fn repository(paths: &[&str]) -> tempfile::TempDir {
    let root = tempfile::Builder::new()
        .prefix("audit-files")
        .tempdir()
        .unwrap();
    for (index, path) in paths.iter().enumerate() {
        let file = root.path().join(path);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, format!("value = PLANTED-NAME-SECRET-{index}\n")).unwrap();
    }
    root
}

fn collect_in(root: &Path, scope: Option<&str>, include_hidden: bool) -> Collection {
    let workspace = Workspace::open(root).unwrap();
    let mut options = CollectOptions::default();
    options.scope = scope.map(str::to_owned);
    options.include_hidden = include_hidden;
    options.include_ignored = true;
    collect(&workspace, &options).unwrap()
}

/// The paths each skipped as something other than a likely secret, or
/// collected.
fn not_refused(root: &Path, paths: &[&str]) -> Vec<String> {
    paths
        .iter()
        .filter_map(|path| {
            let collection = collect_in(root, Some(path), true);
            let refused = collection.files.is_empty()
                && collection.skipped == BTreeMap::from([(SkipReason::LikelySecret, 1)]);
            (!refused).then(|| format!("{path}: {:?}", collection.skipped))
        })
        .collect()
}

#[test]
fn secret_files_under_other_names_are_refused_even_as_the_scope() {
    let root = repository(LIKELY_SECRETS);
    let failures = not_refused(root.path(), LIKELY_SECRETS);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn history_files_are_refused_with_hidden_files_included() {
    let root = repository(HISTORY_FILES);
    let failures = not_refused(root.path(), HISTORY_FILES);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let collection = collect_in(root.path(), None, true);
    assert!(collection.files.is_empty(), "{:?}", collection.files);
    assert_eq!(
        collection.skipped,
        BTreeMap::from([(SkipReason::LikelySecret, HISTORY_FILES.len())])
    );
}

#[test]
fn code_and_prose_named_like_secrets_are_collected() {
    let mut paths: Vec<&str> = ORDINARY.to_vec();
    paths.extend(LIKELY_SECRETS);
    let root = repository(&paths);
    let collection = collect_in(root.path(), None, true);
    let mut collected: Vec<&str> = collection.files.iter().map(|f| f.path.as_str()).collect();
    collected.sort_unstable();
    let mut ordinary = ORDINARY.to_vec();
    ordinary.sort_unstable();
    assert_eq!(collected, ordinary);
    assert_eq!(
        collection.skipped[&SkipReason::LikelySecret],
        LIKELY_SECRETS.len()
    );
}

/// Names that hold a secret's shape, assembled so that this file holds
/// none (the `EXAMPLE` keeps them obviously fake).
fn secret_shaped_paths() -> Vec<String> {
    let github = concat!("gh", "p_", "EXAMPLE0fake1token2for3oy4tests5x6y7z");
    let aws = concat!("AKIA", "EXAMPLE0FAKE1234");
    let slack = concat!("xo", "xb-", "EXAMPLE0000-FAKE1111-abcdefghij");
    let jwt = concat!(
        "eyJ",
        "hbGciOiJIUzI1NiJ9",
        ".eyJ",
        "zdWIiOiJvLXRlc3QifQ",
        ".c2lnbmF0dXJlLWZha2U"
    );
    vec![
        format!("uploads/{github}.txt"),
        format!("keys/{aws}.json"),
        format!("cache/{slack}/notes.md"),
        format!("sessions/{jwt}"),
    ]
}

#[test]
fn a_path_whose_name_holds_a_secret_is_never_collected_or_listed() {
    let paths = secret_shaped_paths();
    let mut all: Vec<&str> = paths.iter().map(String::as_str).collect();
    all.push("src/main.rs");
    let root = repository(&all);
    let collection = collect_in(root.path(), None, true);
    let collected: Vec<&str> = collection.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(collected, ["src/main.rs"]);
    assert_eq!(
        collection.skipped,
        BTreeMap::from([(SkipReason::LikelySecret, paths.len())])
    );
    let sent: String = collection
        .files
        .iter()
        .map(|f| format!("{}\n{}", f.path, f.text))
        .collect();
    // Nor shown: the dry run prints the skipped examples.
    let shown = format!("{:?}", collection.skipped_examples);
    for path in &paths {
        let name = path.rsplit('/').next().unwrap();
        assert!(!sent.contains(name), "{name}");
        assert!(!shown.contains(path.as_str()), "{path} in {shown}");
    }
    let failures = not_refused(root.path(), &all[..paths.len()]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
