//! Heredocs that feed a secret to a command or a file: the body of
//! `<<EOF` (also `<<-EOF`, `<<'EOF'`, Ruby's `<<~EOS`) goes whole when the
//! line that opens it names a credential — a secret-named flag or
//! argument (`--password-stdin`, `password=-`, `--from-file=token=…`) or a
//! credentials file (`> ~/.netrc`, `> .env`, `> secrets.yaml`) — since
//! the value is then on lines of its own that name nothing.

use std::sync::LazyLock;

use regex::Regex;

use super::regex;

/// `<<TAG`, `<<-TAG`, `<<~TAG`, with the tag quoted or not; not `<<<`.
static OPENER: LazyLock<Regex> =
    LazyLock::new(|| regex(r#"(?:^|[^<])<<([-~]?)[ \t]*(["']?)([A-Za-z_][A-Za-z0-9_]*)(["']?)"#));

/// How far below its opener a heredoc's terminator is looked for.
const MAX_BODY_LINES: usize = 500;

/// Files that hold credentials, as a heredoc's target names them.
const CREDENTIAL_FILES: &[&str] = &[
    "netrc",
    "_netrc",
    "pgpass",
    "git-credentials",
    "htpasswd",
    "npmrc",
    "pypirc",
    "env",
    "my.cnf",
    "s3cfg",
    "boto",
    "dockercfg",
    "kubeconfig",
];

/// An open heredoc: its terminator, and whether leading whitespace before
/// it is allowed (`<<-` strips tabs, `<<~` any indentation).
pub(super) struct Heredoc {
    pub(super) tag: String,
    pub(super) indented: bool,
}

impl Heredoc {
    /// True when `content` ends the body.
    pub(super) fn ends_at(&self, content: &str) -> bool {
        let line = if self.indented {
            content.trim_start()
        } else {
            content
        };
        line.trim_end() == self.tag
    }
}

/// The heredoc `content` opens, when its line names a credential.
pub(super) fn secret_heredoc(content: &str) -> Option<Heredoc> {
    if !content.contains("<<") {
        return None;
    }
    let captures = OPENER.captures(content)?;
    let (open, close) = (captures.get(2)?.as_str(), captures.get(4)?.as_str());
    if open != close {
        return None;
    }
    let command = content.get(..captures.get(0)?.start()).unwrap_or_default();
    let after = content.get(captures.get(0)?.end()..).unwrap_or_default();
    let names_secret = format!("{command} {after}")
        .split(|c: char| c.is_whitespace() || "|;&<>()'\"`".contains(c))
        .filter(|word| !word.is_empty())
        .any(names_a_credential);
    names_secret.then(|| Heredoc {
        tag: captures.get(3).map_or("", |m| m.as_str()).to_owned(),
        indented: !captures.get(1).is_none_or(|m| m.as_str().is_empty()),
    })
}

/// True when the terminator of `heredoc` follows within reach of `begin`.
pub(super) fn closes(heredoc: &Heredoc, lines: &[&str], begin: usize) -> bool {
    lines
        .iter()
        .skip(begin + 1)
        .take(MAX_BODY_LINES)
        .any(|line| heredoc.ends_at(super::split_ending(line).0))
}

/// One word of the opener's command line: a flag, an argument or a path.
fn names_a_credential(word: &str) -> bool {
    let file = word.rsplit('/').next().unwrap_or(word);
    let bare = file.trim_start_matches('.').to_ascii_lowercase();
    let stem = bare.split('.').next().unwrap_or_default();
    if CREDENTIAL_FILES.contains(&bare.as_str())
        || CREDENTIAL_FILES.contains(&stem)
        || bare.ends_with(".env")
    {
        return true;
    }
    // `--password-stdin`, `password=-`, `--from-file=token=/dev/stdin`:
    // each part of a flag or assignment judged as a name.
    word.split(['=', ','])
        .map(|part| part.trim_start_matches('-'))
        .filter(|part| !part.is_empty() && !part.contains('/'))
        .any(|part| {
            oy_secrets::secret_name(part)
                .is_some_and(|name| name.is_credential() || name.is_password_like())
        })
}
