//! The secret-dense tree `cargo xtask bench audit` measures the redactor's
//! throughput on: small source and config files in which one line in
//! eight holds a credential in one of the forms the redactor knows (token
//! formats, passwords in assignments, command lines and URLs, headers,
//! JWTs, netrc lines), so `oy audit --dry-run` redacts all the way
//! through. Made once under the temp dir, like the main tree.
#![expect(
    clippy::disallowed_methods,
    reason = "xtask builds its own scratch tree in the temp dir, not a workspace of oy's"
)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::tree::{Rng, cached_tree};

/// Bump when the generator changes, so a stale tree is not reused.
const TREE_VERSION: u32 = 1;
/// Files, and bytes per file (about): ~24 MB of text.
const FILES: usize = 2400;
const FILE_BYTES: usize = 10_000;

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const ALNUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const URL_SAFE: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

/// Ordinary lines around the secrets; `@` becomes a word.
const CODE: &[&str] = &[
    "    let @_@ = @.@(&@)?;",
    "    // the @ is checked before the @",
    "def @_@(@, @):",
    "    return @.@(@)",
    "  const @@ = await @.@(@);",
    "@_@: @",
    "  @: \"@-@\"",
    "    if @.@ > @_@ { return Err(@); }",
];
const WORDS: &[&str] = &[
    "account", "buffer", "cache", "client", "config", "cursor", "event", "handler", "index",
    "invoice", "ledger", "order", "parser", "payload", "queue", "record", "request", "response",
    "state", "user", "value", "worker",
];
const EXTENSIONS: &[&str] = &["rs", "py", "ts", "go", "yaml", "sh", "json", "toml"];

/// The tree's root and its file and byte counts, generating it first when
/// it is missing or incomplete.
pub(super) fn ensure_secret_tree() -> Result<(PathBuf, u64, u64)> {
    let name = format!("oy-bench-audit-secrets-v{TREE_VERSION}");
    cached_tree(&name, "the secret-dense audit tree", generate)
}

/// Writes the tree under `root`; returns its file and byte counts.
fn generate(root: &Path) -> Result<(u64, u64)> {
    let mut rng = Rng(0x7365_6372_6574_7321);
    let (mut files, mut bytes) = (0_u64, 0_u64);
    std::fs::create_dir_all(root.join(".git"))?;
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n")?;
    for serial in 0..FILES {
        let extension = rng.pick(EXTENSIONS);
        let path = root.join(format!(
            "svc{:02}/mod{:02}/file{:02}.{extension}",
            serial / 100,
            serial / 10 % 10,
            serial % 10
        ));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        let body = text(&mut rng);
        std::fs::write(&path, &body).with_context(|| format!("writing {}", path.display()))?;
        files += 1;
        bytes += body.len() as u64;
    }
    Ok((files, bytes))
}

/// About [`FILE_BYTES`] of code, one line in eight a credential.
fn text(rng: &mut Rng) -> String {
    let mut text = String::with_capacity(FILE_BYTES + 256);
    while text.len() < FILE_BYTES {
        if rng.below(8) == 0 {
            text.push_str(&secret_line(rng));
        } else {
            let template = rng.pick(CODE);
            for (index, part) in template.split('@').enumerate() {
                if index > 0 {
                    text.push_str(rng.pick(WORDS));
                }
                text.push_str(part);
            }
        }
        text.push('\n');
    }
    text
}

/// One fake credential line. Prefixes are assembled at run time so that
/// this source file holds no secret-shaped string for scanners to flag.
fn secret_line(rng: &mut Rng) -> String {
    let password = format!("{}#{}", rng.chars(10, ALNUM), rng.below(10));
    let mut line = String::new();
    let _ = match rng.below(15) {
        0 => write!(
            line,
            "AWS_ACCESS_KEY_ID={}{}",
            ["AK", "IA"].concat(),
            rng.chars(16, UPPER)
        ),
        1 => write!(
            line,
            "github_token = \"{}_{}\"",
            ["gh", "p"].concat(),
            rng.chars(36, ALNUM)
        ),
        2 => write!(
            line,
            "STRIPE_SECRET_KEY={}_{}",
            ["sk", "live"].join("_"),
            rng.chars(24, ALNUM)
        ),
        3 => write!(line, "export DB_PASSWORD='{password}'"),
        4 => write!(line, "mysql -h db -u root -p{password} app < dump.sql"),
        5 => write!(
            line,
            "curl -H \"Authorization: Bearer {}\" https://api.example.com/v1",
            rng.chars(40, ALNUM)
        ),
        6 => write!(line, "machine api.example.com login ci password {password}"),
        7 => write!(line, "  \"api_key\": \"{}\",", rng.chars(32, ALNUM)),
        8 => {
            let part = ["e", "yJ"].concat();
            write!(
                line,
                "token: {part}{}.{part}{}.{}",
                rng.chars(30, URL_SAFE),
                rng.chars(60, URL_SAFE),
                rng.chars(43, URL_SAFE)
            )
        }
        9 => write!(
            line,
            "SLACK_BOT_TOKEN={}-{}-{}-{}",
            ["xo", "xb"].concat(),
            rng.chars(12, "0123456789"),
            rng.chars(13, "0123456789"),
            rng.chars(24, ALNUM)
        ),
        10 => write!(line, "sshpass -p '{password}' ssh deploy@web1"),
        11 => write!(
            line,
            "openai.api_key = \"{}-{}\"",
            ["sk", "proj"].join("-"),
            rng.chars(48, URL_SAFE)
        ),
        12 => write!(line, "DATABASE_URL=postgres://app:{password}@db:5432/app"),
        13 => write!(
            line,
            "HF_TOKEN={}_{}",
            ["h", "f"].concat(),
            rng.chars(34, ALNUM)
        ),
        _ => write!(line, "Cookie: session={}", rng.chars(40, ALNUM)),
    };
    line
}
