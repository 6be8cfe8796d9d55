//! Likely secrets by path alone: files skipped before they are opened,
//! because their names hold credentials so often that reading them is not
//! worth the risk. Secret-shaped *lines* in other files are redacted
//! instead (see `redact`).

use std::path::{Component, Path};

/// Names that hold credentials so often that the file is never opened.
/// Everything under these (home-style) directories counts too, at any
/// depth (`.aws/sso/cache/x.json`, `.ssh/keys/deploy`), as does
/// everything under `.envs/` and `.config/gcloud/`.
const SECRET_DIRS: &[&str] = &[
    ".ssh", ".gnupg", ".aws", ".kube", ".docker", ".azure", ".envs",
];
const SECRET_NAMES: &[&str] = &[
    ".envrc",
    ".npmrc",
    ".pypirc",
    ".netrc",
    "_netrc",
    ".git-credentials",
    ".htpasswd",
    "htpasswd",
    ".pgpass",
    "pgpass",
    ".my.cnf",
    ".dockercfg",
    ".dockerconfigjson",
    ".boto",
    ".s3cfg",
    "terraform.tfvars",
    "secring.gpg",
    "application_default_credentials.json",
];
const SECRET_EXTENSIONS: &[&str] = &[
    "pem",
    "key",
    "p12",
    "pfx",
    "jks",
    "keystore",
    "ppk",
    "kdbx",
    "kubeconfig",
    "tfstate",
    "tfvars",
    "secret",
    "secrets",
    "gpg",
    "env",
];
/// Key-store extensions that, followed by more (`tls.key.1`,
/// `server.pem.2024`), still name a key.
const KEY_EXTENSIONS: &[&str] = &["pem", "key", "p12", "pfx", "jks", "keystore", "ppk"];
/// Extensions of data files: `credentials*`, `secrets*` and
/// `kubeconfig*` with one of these (or none) are skipped, while source
/// files of the same name (`credentials.rs`, `secrets.py`) are code worth
/// reviewing, and are collected with their secret-shaped lines redacted.
const DATA_EXTENSIONS: &[&str] = &[
    "json",
    "jsonc",
    "yaml",
    "yml",
    "toml",
    "ini",
    "xml",
    "txt",
    "csv",
    "conf",
    "cfg",
    "config",
    "env",
    "properties",
    "plist",
    "hcl",
    "dat",
];
/// Suffixes of backup and editor copies, stripped before the rules apply
/// (`credentials.json.bak` is `credentials.json`).
const BACKUP_SUFFIXES: &[&str] = &[
    "~", ".bak", ".backup", ".old", ".orig", ".save", ".swp", ".tmp", ".copy",
];
/// Prefixes of names whose data files hold credentials.
const SECRET_PREFIXES: &[&str] = &["credentials", "secrets", "kubeconfig"];
/// Kubernetes control-plane kubeconfigs, skipped under a directory named
/// `k8s`, `kube` or `kubernetes` only: `admin.conf` elsewhere is as often
/// a web server's configuration.
const KUBE_DIRS: &[&str] = &["k8s", "kube", "kubernetes", ".kube"];
const KUBE_CONFIG_NAMES: &[&str] = &[
    "admin.conf",
    "super-admin.conf",
    "kubelet.conf",
    "controller-manager.conf",
    "scheduler.conf",
];
const SSH_KEY_PREFIXES: &[&str] = &["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"];

/// Strips backup suffixes (repeatedly: `x.json.bak~`).
fn strip_backup_suffixes(lower: &str) -> &str {
    let mut name = lower;
    while let Some(stripped) = BACKUP_SUFFIXES
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .filter(|stripped| !stripped.is_empty())
    {
        name = stripped;
    }
    name
}

/// True when a directory on the way to the file (any depth) holds
/// credentials: a [`SECRET_DIRS`] name or `.config/gcloud`.
fn in_secret_dir(dirs: &[&str]) -> bool {
    dirs.iter()
        .any(|dir| SECRET_DIRS.contains(&dir.to_ascii_lowercase().as_str()))
        || dirs
            .windows(2)
            .any(|pair| pair[0] == ".config" && pair[1].eq_ignore_ascii_case("gcloud"))
}

/// Likely secrets by path alone. `.env`, every `.env.*`, `.env-*`,
/// `.env_*` and `*.env` (also `.env.example`: telling a template from a
/// copy with real values would need reading it), SSH keys (also `.pub`:
/// public, but of no use to a review), key stores (also their numbered
/// or backup copies), credential files, kubeconfigs, Terraform state and
/// variables, Docker client configs, and anything under a home-style
/// credentials directory. Backup suffixes (`.bak`, `~`, …) are stripped
/// first.
pub(super) fn is_likely_secret(path: &Path, name: &str) -> bool {
    let dirs: Vec<&str> = path
        .parent()
        .map(|parent| {
            parent
                .components()
                .filter_map(|c| match c {
                    Component::Normal(part) => part.to_str(),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    if in_secret_dir(&dirs) {
        return true;
    }
    let full = name.to_ascii_lowercase();
    let lower = strip_backup_suffixes(&full);
    let extension = lower.rsplit_once('.').map(|(_, ext)| ext);
    let data_or_none = extension.is_none_or(|ext| DATA_EXTENSIONS.contains(&ext));
    let middle_extensions = lower.split('.').skip(1);
    let parent = dirs.last().map(|d| d.to_ascii_lowercase());
    lower == ".env"
        || lower.starts_with(".env.")
        || lower.starts_with(".env-")
        || lower.starts_with(".env_")
        || SECRET_NAMES.contains(&lower)
        || SSH_KEY_PREFIXES.iter().any(|p| lower.starts_with(p))
        || extension.is_some_and(|ext| SECRET_EXTENSIONS.contains(&ext))
        || middle_extensions
            .clone()
            .any(|ext| KEY_EXTENSIONS.contains(&ext) || ext == "kubeconfig")
        || lower.ends_with(".tfstate.backup")
        || lower.ends_with(".tfvars.json")
        || (SECRET_PREFIXES.iter().any(|p| lower.starts_with(p)) && data_or_none)
        || (lower.starts_with("credentials") && lower.ends_with(".json"))
        || (lower.starts_with("service-account") && lower.ends_with(".json"))
        || (lower.starts_with("service_account") && lower.ends_with(".json"))
        || (lower == "config.json" && parent.as_deref().is_some_and(|p| p == "docker"))
        || (KUBE_CONFIG_NAMES.contains(&lower)
            && dirs
                .iter()
                .any(|d| KUBE_DIRS.contains(&d.to_ascii_lowercase().as_str())))
}
