//! Likely secrets by path alone: files skipped before they are opened,
//! because their names hold credentials so often that reading them is not
//! worth the risk — credential stores, keys, env files in every spelling,
//! password databases, wallets — and shell, database, REPL and editor
//! history files (commands typed with their passwords), also when hidden
//! files are included. A path any of whose names holds a secret's shape
//! (`ghp_…`, `AKIA…` as a file or directory name) is skipped too, so the
//! name never reaches what is sent. Secret-shaped *lines* in other files
//! are redacted instead (see `redact`).

use std::path::{Component, Path};

/// Names that hold credentials so often that the file is never opened.
/// Everything under these (home-style) directories counts too, at any
/// depth (`.aws/sso/cache/x.json`, `.ssh/keys/deploy`), as does
/// everything under `.envs/` and `.config/gcloud/`.
const SECRET_DIRS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".kube",
    ".docker",
    ".azure",
    ".envs",
    ".password-store",
    ".electrum",
    ".bitcoin",
    ".ethereum",
    // Shell sessions saved with their history (macOS Terminal).
    ".zsh_sessions",
    ".bash_sessions",
    ".erlang-history",
];
/// `.config/…` directories of tools that keep tokens there.
const SECRET_CONFIG_DIRS: &[&str] = &["gcloud", "gh", "hub", "solana", "op", "doctl"];
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
    // Without their dot, as copied into a repository.
    "netrc",
    "git-credentials",
    "htdigest",
    ".htdigest",
    // Password databases.
    "shadow",
    "shadow-",
    "gshadow",
    "gshadow-",
    "master.passwd",
    "spwd.db",
    "opasswd",
    // Tokens of command-line tools.
    ".vault-token",
    ".terraformrc",
    "terraform.rc",
    "credentials.tfrc.json",
    ".mylogin.cnf",
    "settings-security.xml",
    "rclone.conf",
    ".rclone.conf",
    // AWS console downloads.
    "accesskeys.csv",
    "rootkey.csv",
    // Wallets.
    "wallet.dat",
    "default_wallet",
];
/// Shell, database, REPL and editor history files: every command typed,
/// passwords on command lines included.
const HISTORY_NAMES: &[&str] = &[
    ".bash_history",
    ".zsh_history",
    ".sh_history",
    ".ksh_history",
    ".histfile",
    "fish_history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".rediscli_history",
    ".node_repl_history",
    ".irb_history",
    ".pry_history",
    ".rhistory",
    ".lesshst",
    ".viminfo",
    ".dbshell",
    ".scala_history",
    ".gdb_history",
    ".octave_hist",
    ".wget-hsts",
    ".cqlsh_history",
    "cqlsh_history",
    ".influx_history",
    ".clickhouse-client-history",
    ".duckdb_history",
    ".usql_history",
    ".sqlplus_history",
    ".ghci_history",
    "ghci_history",
    ".tig_history",
    "repl_history.jl",
    "main.shada",
    "history.sqlite",
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
    // OpenVPN profiles carry their keys inline (`<key>`, `<tls-crypt>`)
    // as often as not; a profile without them is no loss to a review.
    "ovpn",
    "wallet",
    "htpasswd",
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
const SSH_KEY_PREFIXES: &[&str] = &[
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_ed448",
    "id_xmss",
    "ssh_host_",
];
/// Suffixes of SSH key files named after their purpose (`deploy_rsa`,
/// `github_ed25519.pub`).
const SSH_KEY_SUFFIXES: &[&str] = &["_rsa", "_dsa", "_ecdsa", "_ed25519", "_ed448"];
/// Source and documentation extensions: `env.ts`, `test.env.js` and
/// `env.md` are code and prose about an environment, not one.
const SOURCE_EXTENSIONS: &[&str] = &[
    "rs", "py", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "go", "rb", "java", "kt",
    "kts", "scala", "swift", "c", "h", "cc", "cpp", "hpp", "cs", "php", "pl", "pm", "lua", "sh",
    "bash", "zsh", "fish", "ps1", "nix", "md", "markdown", "rst", "adoc", "html", "vue", "svelte",
    "dart", "ex", "exs", "erl", "hs", "ml", "r", "jl", "sql", "clj", "groovy", "el", "vim", "tf",
];

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
/// credentials: a [`SECRET_DIRS`] name or a [`SECRET_CONFIG_DIRS`] one
/// under `.config`.
fn in_secret_dir(dirs: &[&str]) -> bool {
    dirs.iter()
        .any(|dir| SECRET_DIRS.contains(&dir.to_ascii_lowercase().as_str()))
        || dirs.windows(2).any(|pair| {
            pair[0] == ".config"
                && SECRET_CONFIG_DIRS.contains(&pair[1].to_ascii_lowercase().as_str())
        })
}

/// True for a history file (see [`HISTORY_NAMES`]): also any hidden name
/// with `history` in it, and `…_history`, `…-history`,
/// `…_repl_history` without an extension (mongosh, fish, cqlsh).
fn is_history(lower: &str) -> bool {
    HISTORY_NAMES.contains(&lower)
        || (lower.starts_with('.') && (lower.contains("history") || lower.ends_with("_hist")))
        || (!lower.contains('.') && (lower.ends_with("_history") || lower.ends_with("-history")))
}

/// `env.production`, `app.env.local`, `env.example`: a name with an `env`
/// part that is not source code or a document (`env.ts`, `env.md`).
fn is_env_file(lower: &str) -> bool {
    let parts: Vec<&str> = lower.split('.').collect();
    parts.len() > 1
        && parts.contains(&"env")
        && parts
            .last()
            .is_some_and(|last| !SOURCE_EXTENSIONS.contains(last))
}

/// An SSH key named after its purpose: `deploy_rsa`, `ci_ed25519.pub`.
fn is_named_ssh_key(lower: &str) -> bool {
    let stem = lower.strip_suffix(".pub").unwrap_or(lower);
    !stem.contains('.') && SSH_KEY_SUFFIXES.iter().any(|suffix| stem.ends_with(suffix))
}

/// A wallet's key store or seed words: Ethereum's `UTC--…` keystore
/// files, `mnemonic.txt`, `seed_phrase.json`.
fn is_wallet_file(lower: &str, data_or_none: bool) -> bool {
    lower.starts_with("utc--")
        || (data_or_none
            && [
                "mnemonic",
                "seed_phrase",
                "seed-phrase",
                "recovery_phrase",
                "recovery-phrase",
            ]
            .iter()
            .any(|prefix| lower.starts_with(prefix)))
}

/// True when a name on the path (a directory's or the file's) holds a
/// secret's shape: a token used as a file name.
fn names_a_secret(path: &Path) -> bool {
    path.components().any(|component| match component {
        Component::Normal(part) => part
            .to_str()
            .is_some_and(|part| !oy_secrets::find_secrets(part).is_empty()),
        _ => false,
    })
}

/// Likely secrets by path alone. `.env`, every `.env.*`, `.env-*`,
/// `.env_*`, `*.env` and names with an `env` part (`env.production`,
/// `app.env.local`; also `.env.example`: telling a template from a copy
/// with real values would need reading it), SSH keys (also `.pub`:
/// public, but of no use to a review), key stores (also their numbered
/// or backup copies), credential files, password databases, kubeconfigs,
/// Terraform state and variables, Docker client configs, OpenVPN
/// profiles, wallets, history files, anything under a home-style
/// credentials directory, and any path with a secret-shaped name. Backup
/// suffixes (`.bak`, `~`, …) are stripped first.
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
    if in_secret_dir(&dirs) || names_a_secret(path) {
        return true;
    }
    let full = name.to_ascii_lowercase();
    let lower = strip_backup_suffixes(&full);
    let extension = lower.rsplit_once('.').map(|(_, ext)| ext);
    let data_or_none = extension.is_none_or(|ext| DATA_EXTENSIONS.contains(&ext));
    let middle_extensions = lower.split('.').skip(1);
    let parent = dirs.last().map(|d| d.to_ascii_lowercase());
    lower == ".env"
        || is_history(lower)
        || is_env_file(lower)
        || is_named_ssh_key(lower)
        || is_wallet_file(lower, data_or_none)
        || lower == "identity"
        || lower == "identity.pub"
        || (lower.contains("htpasswd")
            && extension.is_none_or(|ext| !SOURCE_EXTENSIONS.contains(&ext)))
        || (lower.contains("credential") && data_or_none)
        || lower.ends_with("_accesskeys.csv")
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
