//! Tests of `collect`: a fixture repository with planted secret files and
//! inline secrets, every skip reason counted exactly, nothing secret in
//! what would be sent, and the options and scopes each changing exactly
//! the counts they should.

#![expect(
    clippy::unwrap_used,
    reason = "fixture helpers outside #[test] fns fail loudly"
)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

use oy_audit::{AuditError, CollectOptions, Collection, SkipReason, collect};
use oy_boundary::{BoundaryError, Workspace};

use crate::redact::{
    ANTHROPIC_KEY, AWS_ACCESS_KEY_ID, AWS_SECRET, GENERIC_VALUE, GITHUB_PAT, GITHUB_TOKEN,
    GOOGLE_KEY, JWT, KEY_BODY, OPENAI_KEY, PASSWORD_VALUE, SLACK_TOKEN, SLACK_WEBHOOK, STRIPE_KEY,
    pem_begin, pem_end,
};

/// The size cap the fixture's oversized file exceeds.
const MAX_BYTES: u64 = 4096;

/// Files whose names mark them as likely secrets; each holds a planted
/// value that must never be collected.
const SECRET_FILES: &[&str] = &[
    ".env",
    ".env.production",
    ".env.example",
    ".envrc",
    "id_rsa",
    "id_ed25519.pub",
    "deploy/server.pem",
    "deploy/tls.key",
    "deploy/cert.p12",
    "deploy/cert.pfx",
    "deploy/release.jks",
    "deploy/app.keystore",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".git-credentials",
    "credentials",
    "credentials.json",
    "config/credentials.yml",
    "config/secrets.yaml",
    "kubeconfig",
    "deploy/prod.kubeconfig",
    "infra/terraform.tfstate",
    "infra/terraform.tfstate.backup",
    "infra/terraform.tfvars",
    "config/app.secret",
    ".htpasswd",
    "service-account-prod.json",
    ".aws/credentials",
    ".ssh/config",
];

/// The inline-secrets source file, and what each of its lines must become.
fn settings_py() -> (String, Vec<(usize, &'static str)>) {
    let lines = [
        "\"\"\"Settings for the app.\"\"\"".to_owned(),
        "import os".to_owned(),
        format!("AWS_ACCESS_KEY_ID = \"{AWS_ACCESS_KEY_ID}\""),
        format!("aws_secret_access_key = \"{AWS_SECRET}\""),
        format!("GITHUB = \"{GITHUB_TOKEN}\""),
        format!("GITHUB_FINE = \"{GITHUB_PAT}\""),
        format!("OPENAI = \"{OPENAI_KEY}\""),
        format!("ANTHROPIC = \"{ANTHROPIC_KEY}\""),
        format!("SLACK = \"{SLACK_TOKEN}\""),
        format!("WEBHOOK = \"{SLACK_WEBHOOK}\""),
        format!("GOOGLE = \"{GOOGLE_KEY}\""),
        format!("STRIPE = \"{STRIPE_KEY}\""),
        format!("SESSION = \"{JWT}\""),
        format!("api_key = \"{GENERIC_VALUE}\""),
        format!("DB_PASSWORD = \"{PASSWORD_VALUE}\""),
        "DEBUG = os.environ.get(\"DEBUG\") == \"1\"".to_owned(),
        "SIGNING = \"\"\"".to_owned(),
        pem_begin(),
        KEY_BODY.to_owned(),
        pem_end(),
        "\"\"\"".to_owned(),
        "def main():".to_owned(),
        "    return DEBUG".to_owned(),
    ];
    let redacted = vec![
        (3, "aws-access-key-id"),
        (4, "aws-secret-access-key"),
        (5, "github-token"),
        (6, "github-token"),
        (7, "openai-key"),
        (8, "anthropic-key"),
        (9, "slack-token"),
        (10, "slack-webhook"),
        (11, "google-api-key"),
        (12, "stripe-key"),
        (13, "jwt"),
        (14, "generic-secret"),
        (15, "generic-secret"),
        (18, "private-key"),
        (19, "private-key"),
        (20, "private-key"),
    ];
    (lines.join("\n") + "\n", redacted)
}

/// Every planted secret value: none may appear in collected text.
fn planted_values() -> Vec<String> {
    let mut values: Vec<String> = [
        AWS_ACCESS_KEY_ID,
        AWS_SECRET,
        GITHUB_TOKEN,
        GITHUB_PAT,
        OPENAI_KEY,
        ANTHROPIC_KEY,
        SLACK_TOKEN,
        SLACK_WEBHOOK,
        GOOGLE_KEY,
        STRIPE_KEY,
        JWT,
        GENERIC_VALUE,
        PASSWORD_VALUE,
        KEY_BODY,
        "PLANTED-FILE-SECRET",
        "PLANTED-OUTSIDE-SECRET",
    ]
    .iter()
    .map(|v| (*v).to_owned())
    .collect();
    values.push(pem_begin());
    values
}

struct Fixture {
    root: tempfile::TempDir,
    _outside: tempfile::TempDir,
}

fn write(root: &Path, path: &str, contents: impl AsRef<[u8]>) {
    let path = root.join(path);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, contents).unwrap();
}

/// Builds the fixture repository. Its directory name must not look like
/// a secret or a hidden directory.
fn fixture() -> Fixture {
    let root = tempfile::Builder::new()
        .prefix("audit-fixture")
        .tempdir()
        .unwrap();
    let outside = tempfile::Builder::new()
        .prefix("audit-outside")
        .tempdir()
        .unwrap();
    let r = root.path();

    // Collected by default.
    write(r, "README.md", "# Demo\n\nA small app.\n");
    write(r, "Makefile", "all:\n\tcargo build\n");
    write(r, "src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n");
    write(r, "src/settings.py", settings_py().0);
    write(
        r,
        "config/app.yaml",
        format!("name: demo\npassword: {PASSWORD_VALUE}\nport: 8080\n"),
    );

    // Ignored: two files and one directory (counted once), and a secret
    // that only `include_ignored` would reveal as one.
    write(r, ".gitignore", "*.tmp\nlogs/\n.env.local\n");
    write(r, "scratch.tmp", "scratch\n");
    write(r, "src/cache.tmp", "cache\n");
    write(r, "logs/app.log", "log line\n");
    write(r, "logs/old/app.log", "old log line\n");
    write(r, ".env.local", "TOKEN=PLANTED-FILE-SECRET-local\n");

    // Build outputs and dependencies: six files.
    write(r, "target/debug/app.d", "deps\n");
    write(r, "node_modules/pkg/index.js", "module.exports = 1;\n");
    write(r, "node_modules/pkg/package.json", "{}\n");
    write(r, "vendor/lib/lib.go", "package lib\n");
    write(r, "build/out.txt", "out\n");
    write(r, ".venv/lib/site.py", "x = 1\n");

    // Version control: `.git` is never listed; `.hg` and `.svn` are counted.
    write(r, ".git/config", "[core]\n");
    write(r, ".hg/store/data", "hg\n");
    write(r, ".svn/entries", "svn\n");

    // Lockfiles.
    for lock in [
        "Cargo.lock",
        "package-lock.json",
        "yarn.lock",
        "go.sum",
        "poetry.lock",
    ] {
        write(r, lock, "locked\n");
    }

    // Hidden.
    write(r, ".editorconfig", "root = true\n");
    write(r, ".github/workflows/ci.yml", "on: push\n");

    // Likely secrets by name.
    for (index, name) in SECRET_FILES.iter().enumerate() {
        write(r, name, format!("value = PLANTED-FILE-SECRET-{index}\n"));
    }

    // Content the collector refuses.
    write(r, "assets/logo.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    write(r, "docs/latin1.txt", b"caf\xe9\n");
    write(r, "docs/big.txt", "x".repeat(MAX_BYTES as usize + 1));

    // The audit's own earlier output.
    write(r, "ISSUES.md", "# Issues\n");
    write(r, "results.sarif", "{}\n");

    // Not regular: links (one leaving the root) and a FIFO.
    write(outside.path(), "secret.txt", "PLANTED-OUTSIDE-SECRET\n");
    symlink(outside.path().join("secret.txt"), r.join("outside-link")).unwrap();
    symlink("src/main.rs", r.join("inner-link")).unwrap();
    let status = Command::new("mkfifo").arg(r.join("pipe")).status().unwrap();
    assert!(status.success());

    Fixture {
        root,
        _outside: outside,
    }
}

fn options() -> CollectOptions {
    let mut options = CollectOptions::default();
    options.max_file_bytes = Some(MAX_BYTES);
    options
}

/// The fixture's options, changed by `change` (`CollectOptions` is
/// non-exhaustive, so no struct update syntax).
fn options_with(change: impl FnOnce(&mut CollectOptions)) -> CollectOptions {
    let mut options = options();
    change(&mut options);
    options
}

fn run(fixture: &Fixture, options: &CollectOptions) -> Collection {
    let workspace = Workspace::open(fixture.root.path()).unwrap();
    collect(&workspace, options).unwrap()
}

fn paths(collection: &Collection) -> Vec<&str> {
    collection.files.iter().map(|f| f.path.as_str()).collect()
}

fn default_counts() -> BTreeMap<SkipReason, usize> {
    BTreeMap::from([
        (SkipReason::Ignored, 4),
        (SkipReason::BuildOrDependency, 6),
        (SkipReason::Vcs, 2),
        (SkipReason::Lockfile, 5),
        (SkipReason::Hidden, 3),
        (SkipReason::LikelySecret, SECRET_FILES.len()),
        (SkipReason::Binary, 1),
        (SkipReason::NotUtf8, 1),
        (SkipReason::TooLarge, 1),
        (SkipReason::PreviousOutput, 2),
        (SkipReason::NotRegular, 3),
    ])
}

fn assert_nothing_secret(collection: &Collection) {
    let sent: String = collection.files.iter().map(|f| f.text.as_str()).collect();
    for value in planted_values() {
        assert!(!sent.contains(&value), "{value} would be sent");
    }
}

#[test]
fn counts_every_skip_by_reason_and_collects_the_rest() {
    let fixture = fixture();
    let collection = run(&fixture, &options());
    assert_eq!(
        paths(&collection),
        [
            "Makefile",
            "README.md",
            "config/app.yaml",
            "src/main.rs",
            "src/settings.py"
        ]
    );
    assert_eq!(collection.skipped, default_counts());
    assert_nothing_secret(&collection);

    let examples = &collection.skipped_examples;
    assert_eq!(
        examples[&SkipReason::Ignored],
        [".env.local", "logs", "scratch.tmp", "src/cache.tmp"]
    );
    assert_eq!(
        examples[&SkipReason::NotRegular],
        ["inner-link", "outside-link", "pipe"]
    );
    assert_eq!(
        examples[&SkipReason::PreviousOutput],
        ["ISSUES.md", "results.sarif"]
    );
    assert_eq!(examples[&SkipReason::TooLarge], ["docs/big.txt"]);
    assert_eq!(
        examples[&SkipReason::Vcs],
        [".hg/store/data", ".svn/entries"]
    );
    assert_eq!(
        examples[&SkipReason::LikelySecret],
        [
            ".aws/credentials",
            ".env",
            ".env.example",
            ".env.production",
            ".envrc"
        ]
    );
    assert!(examples.values().all(|paths| paths.len() <= 5));
}

#[test]
fn inline_secret_lines_become_markers_and_other_lines_survive() {
    let fixture = fixture();
    let collection = run(&fixture, &options());
    let settings = collection
        .files
        .iter()
        .find(|f| f.path == "src/settings.py")
        .unwrap();
    let (original, expected) = settings_py();
    let got: Vec<&str> = settings.text.lines().collect();
    let want: Vec<&str> = original.lines().collect();
    assert_eq!(got.len(), want.len());
    assert_eq!(settings.lines, want.len());
    for (index, (got, want)) in got.iter().zip(&want).enumerate() {
        let number = index + 1;
        match expected.iter().find(|(line, _)| *line == number) {
            Some((_, kind)) => assert_eq!(*got, format!("[redacted: {kind}]"), "line {number}"),
            None => assert_eq!(got, want, "line {number}"),
        }
    }
    let redactions: Vec<(usize, &str)> = settings
        .redactions
        .iter()
        .map(|r| (r.line, r.kind))
        .collect();
    assert_eq!(redactions, expected);
    assert_eq!(settings.bytes, original.len() as u64);
    assert_eq!(settings.language.as_deref(), Some("Python"));

    let yaml = collection
        .files
        .iter()
        .find(|f| f.path == "config/app.yaml")
        .unwrap();
    assert_eq!(
        yaml.text,
        "name: demo\n[redacted: generic-secret]\nport: 8080\n"
    );
    assert_eq!(yaml.language.as_deref(), Some("YAML"));
    let makefile = collection
        .files
        .iter()
        .find(|f| f.path == "Makefile")
        .unwrap();
    assert_eq!(makefile.language.as_deref(), Some("Makefile"));
    assert_eq!(makefile.text, "all:\n\tcargo build\n");
}

#[test]
fn include_hidden_collects_dot_files_but_never_vcs_or_secrets() {
    let fixture = fixture();
    let collection = run(
        &fixture,
        &options_with(|o| {
            o.include_hidden = true;
        }),
    );
    let mut counts = default_counts();
    counts.remove(&SkipReason::Hidden);
    assert_eq!(collection.skipped, counts);
    for hidden in [".editorconfig", ".github/workflows/ci.yml", ".gitignore"] {
        assert!(paths(&collection).contains(&hidden), "{hidden}");
    }
    assert_eq!(collection.files.len(), 5 + 3);
    assert!(paths(&collection).iter().all(|p| !p.starts_with(".git/")));
    assert_nothing_secret(&collection);
}

#[test]
fn include_ignored_collects_ignored_files_but_never_secrets() {
    let fixture = fixture();
    let collection = run(
        &fixture,
        &options_with(|o| {
            o.include_ignored = true;
        }),
    );
    let mut counts = default_counts();
    counts.remove(&SkipReason::Ignored);
    // `.env.local` was hidden by `.gitignore`; now it is seen, and refused
    // for what it is.
    *counts.get_mut(&SkipReason::LikelySecret).unwrap() += 1;
    assert_eq!(collection.skipped, counts);
    for ignored in [
        "logs/app.log",
        "logs/old/app.log",
        "scratch.tmp",
        "src/cache.tmp",
    ] {
        assert!(paths(&collection).contains(&ignored), "{ignored}");
    }
    assert_eq!(collection.files.len(), 5 + 4);
    assert_nothing_secret(&collection);
}

#[test]
fn include_lockfiles_collects_exactly_the_lockfiles() {
    let fixture = fixture();
    let collection = run(
        &fixture,
        &options_with(|o| {
            o.include_lockfiles = true;
        }),
    );
    let mut counts = default_counts();
    counts.remove(&SkipReason::Lockfile);
    assert_eq!(collection.skipped, counts);
    assert_eq!(collection.files.len(), 5 + 5);
    assert!(paths(&collection).contains(&"Cargo.lock"));
    assert_nothing_secret(&collection);
}

#[test]
fn all_options_together_still_never_collect_likely_secrets() {
    let fixture = fixture();
    let collection = run(
        &fixture,
        &options_with(|o| {
            o.include_hidden = true;
            o.include_ignored = true;
            o.include_lockfiles = true;
        }),
    );
    assert_eq!(
        collection.skipped[&SkipReason::LikelySecret],
        SECRET_FILES.len() + 1
    );
    assert_nothing_secret(&collection);
}

#[test]
fn scope_to_a_subdirectory_walks_only_it() {
    let fixture = fixture();
    let collection = run(
        &fixture,
        &options_with(|o| {
            o.scope = Some("src".to_owned());
        }),
    );
    assert_eq!(paths(&collection), ["src/main.rs", "src/settings.py"]);
    // The root's `.gitignore` still applies inside the scope.
    assert_eq!(
        collection.skipped,
        BTreeMap::from([(SkipReason::Ignored, 1)])
    );
    assert_eq!(
        collection.skipped_examples[&SkipReason::Ignored],
        ["src/cache.tmp"]
    );
}

#[test]
fn scope_into_a_build_directory_audits_it() {
    let fixture = fixture();
    let collection = run(
        &fixture,
        &options_with(|o| {
            o.scope = Some("node_modules/pkg/".to_owned());
        }),
    );
    assert_eq!(
        paths(&collection),
        ["node_modules/pkg/index.js", "node_modules/pkg/package.json"]
    );
    assert!(collection.skipped.is_empty());
}

#[test]
fn scope_to_a_single_file() {
    let fixture = fixture();
    let collection = run(
        &fixture,
        &options_with(|o| {
            o.scope = Some("src/main.rs".to_owned());
        }),
    );
    assert_eq!(paths(&collection), ["src/main.rs"]);
    assert!(collection.skipped.is_empty());
    assert_eq!(collection.files[0].language.as_deref(), Some("Rust"));
    assert_eq!(collection.files[0].lines, 3);
}

#[test]
fn scope_to_a_secret_file_still_refuses_it() {
    let fixture = fixture();
    for (scope, reason) in [
        (".env", SkipReason::LikelySecret),
        ("deploy/server.pem", SkipReason::LikelySecret),
        ("Cargo.lock", SkipReason::Lockfile),
        ("outside-link", SkipReason::NotRegular),
    ] {
        let workspace = Workspace::open(fixture.root.path()).unwrap();
        let result = collect(
            &workspace,
            &options_with(|o| {
                o.scope = Some(scope.to_owned());
            }),
        );
        match (scope, result) {
            // A link leaving the root is refused before the walk starts.
            ("outside-link", Err(AuditError::Boundary(BoundaryError::Escape { .. }))) => {}
            (_, Ok(collection)) => {
                assert!(collection.files.is_empty(), "{scope}");
                assert_eq!(collection.skipped, BTreeMap::from([(reason, 1)]), "{scope}");
            }
            (_, Err(e)) => panic!("{scope}: {e}"),
        }
    }
}

#[test]
fn scope_outside_the_root_or_missing_is_a_boundary_error() {
    let fixture = fixture();
    let workspace = Workspace::open(fixture.root.path()).unwrap();
    let outside = collect(
        &workspace,
        &options_with(|o| {
            o.scope = Some("../elsewhere".to_owned());
        }),
    );
    assert!(
        matches!(
            outside,
            Err(AuditError::Boundary(BoundaryError::Escape { .. }))
        ),
        "{outside:?}"
    );
    let missing = collect(
        &workspace,
        &options_with(|o| {
            o.scope = Some("no/such/dir".to_owned());
        }),
    );
    assert!(
        matches!(
            missing,
            Err(AuditError::Boundary(BoundaryError::NotFound { .. }))
        ),
        "{missing:?}"
    );
}

#[test]
fn collection_is_deterministic() {
    let fixture = fixture();
    let first = run(&fixture, &options());
    for _ in 0..3 {
        assert_eq!(run(&fixture, &options()), first);
    }
}

#[test]
fn skip_reason_names_are_kebab_case_and_match_serde() {
    let reasons = default_counts();
    for reason in reasons.keys() {
        let json = serde_json::to_string(reason).unwrap();
        assert_eq!(json, format!("\"{}\"", reason.name()));
    }
}

/// Names the first rules let through: each row must be refused as a
/// likely secret, also when a scope names it alone.
const NEW_SECRET_FILES: &[&str] = &[
    // 7. Secret directories at any depth, and gcloud's.
    ".aws/sso/cache/abc.json",
    ".ssh/keys/deploy",
    "home/.kube/cache/discovery/x.json",
    "home/.docker/contexts/meta/m.json",
    "home/.azure/msal/token_cache.json",
    "home/.gnupg/private-keys-v1.d/k.txt",
    ".config/gcloud/credentials.db",
    "home/.config/gcloud/access_tokens.db",
    // 8. Env files in every spelling.
    "prod.env",
    "config/app.env",
    ".env-staging",
    ".env_local",
    ".envs/.production/.django",
    // Credentials and secrets files, and their backups.
    "credentials.json.bak",
    "config/credentials.yml.old",
    "credentials-prod",
    "secrets",
    "config/secrets.yaml.orig",
    "secrets_backup.json",
    "config/secrets.yml~",
    "deploy/server.pem.bak",
    "deploy/tls.key.1",
    "deploy/tls.key.backup",
    // Kubeconfigs.
    "kubeconfig.yaml",
    "kubeconfig-prod",
    "deploy/prod.kubeconfig.yaml",
    "k8s/admin.conf",
    "kubernetes/controller-manager.conf",
    // Other credential stores.
    "pgpass",
    "auth/htpasswd",
    "application_default_credentials.json",
    "docker/config.json",
];

/// Source files named like secrets: collected, with line redaction.
const SECRET_NAMED_SOURCE: &[&str] = &[
    "src/credentials.rs",
    "app/secrets.py",
    "docs/kubeconfig.md",
    "nginx/admin.conf",
    "config/config.json",
];

fn secret_names_fixture() -> tempfile::TempDir {
    let root = tempfile::Builder::new()
        .prefix("audit-names")
        .tempdir()
        .unwrap();
    for (index, name) in NEW_SECRET_FILES.iter().enumerate() {
        write(
            root.path(),
            name,
            format!("value = PLANTED-FILE-SECRET-{index}\n"),
        );
    }
    for name in SECRET_NAMED_SOURCE {
        write(root.path(), name, "def load():\n    return None\n");
    }
    root
}

#[test]
fn each_new_secret_name_is_refused_even_as_the_scope() {
    let root = secret_names_fixture();
    let workspace = Workspace::open(root.path()).unwrap();
    let mut failures = Vec::new();
    for name in NEW_SECRET_FILES {
        let collection = collect(
            &workspace,
            &options_with(|o| {
                o.scope = Some((*name).to_owned());
            }),
        )
        .unwrap();
        if !collection.files.is_empty()
            || collection.skipped != BTreeMap::from([(SkipReason::LikelySecret, 1)])
        {
            failures.push(format!("{name}: {:?}", collection.skipped));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn new_secret_names_are_never_collected_and_source_names_are() {
    let root = secret_names_fixture();
    let workspace = Workspace::open(root.path()).unwrap();
    let collection = collect(
        &workspace,
        &options_with(|o| {
            o.include_hidden = true;
            o.include_ignored = true;
        }),
    )
    .unwrap();
    let sent: String = collection.files.iter().map(|f| f.text.as_str()).collect();
    assert!(
        !sent.contains("PLANTED-FILE-SECRET"),
        "{:?}",
        paths(&collection)
    );
    assert_eq!(
        collection.skipped[&SkipReason::LikelySecret],
        NEW_SECRET_FILES.len()
    );
    let mut source: Vec<&str> = SECRET_NAMED_SOURCE.to_vec();
    source.sort_unstable();
    assert_eq!(paths(&collection), source);
}
