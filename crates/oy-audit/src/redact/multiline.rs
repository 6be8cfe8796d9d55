//! Multi-line strings given to a secret name: Python's and TOML's `"""` and
//! `'''`, JavaScript's template literals, Rust's raw strings — the name is
//! on the opening line and the value on the lines below, which name
//! nothing. The lines up to the closing delimiter go (the opening line too
//! when the value starts on it); a certificate or public key does not.

use std::sync::LazyLock;

use regex::Regex;

use super::assignment::secret_name;
use super::regex;

/// `NAME = """…`, `NAME: '''…`, `const NAME = \`…`, `let NAME = r#"…`,
/// with a declaration keyword or a type before the operator.
static OPENER: LazyLock<Regex> = LazyLock::new(|| {
    regex(concat!(
        r#"^\s*(?:(?:export|const|let|var|final|static|val|pub|readonly|private|public)\s+)*"#,
        r#"["']?([A-Za-z_][A-Za-z0-9_.\-]*)["']?"#,
        r#"(?:\s*:\s*&?'?[A-Za-z_][A-Za-z0-9_<>\[\]]*)?\s*(?::=|=|:)\s*"#,
        r#"(?:[rRbBuUfF]{0,2})("""|'''|`|#*")(.*)$"#
    ))
});

/// How far below its opener a closing delimiter is looked for.
const MAX_LINES: usize = 200;

/// An open multi-line string: what closes it.
pub(super) struct OpenString {
    pub(super) close: String,
}

impl OpenString {
    /// True when `content` holds the closing delimiter.
    pub(super) fn ends_at(&self, content: &str) -> bool {
        content.contains(self.close.as_str())
    }
}

/// The multi-line string `content` opens for a secret name, and whether
/// the opening line holds part of the value.
pub(super) fn secret_string(content: &str) -> Option<(OpenString, bool)> {
    if !(content.contains("\"\"\"")
        || content.contains("'''")
        || content.contains('`')
        || content.contains("#\""))
    {
        return None;
    }
    let captures = OPENER.captures(content)?;
    let name = captures.get(1)?.as_str();
    let open = captures.get(2)?.as_str();
    let rest = captures.get(3).map_or("", |m| m.as_str());
    let close = match open {
        "\"\"\"" | "'''" | "`" => open.to_owned(),
        // A raw string `r#"`: closed by `"#`; a plain `"` is one line.
        hashes if hashes.len() > 1 => format!("\"{}", &hashes[..hashes.len() - 1]),
        _ => return None,
    };
    // Closed on the same line: a one-line value, judged as such.
    if rest.contains(close.as_str()) {
        return None;
    }
    // A password, or a key, token or credential: `PRIVATE_NOTES` and
    // `AUTH_HELP` are text, and public keys are public.
    let upper = name.to_ascii_uppercase();
    let password = secret_name(name) == Some(true);
    let keyed = ["KEY", "TOKEN", "CREDENTIAL"]
        .iter()
        .any(|word| upper.contains(word))
        && oy_secrets::is_credential_name(name);
    if !(password || keyed) || upper.contains("PUBLIC") {
        return None;
    }
    Some((OpenString { close }, super::is_opaque(rest)))
}

/// True when the string opened on line `begin` closes within reach, and
/// its first line of value is no certificate or public key.
pub(super) fn closes(open: &OpenString, lines: &[&str], begin: usize) -> bool {
    let first = lines
        .get(begin + 1)
        .map(|line| line.trim())
        .unwrap_or_default();
    let public = first.starts_with("-----BEGIN")
        && !first.contains("PRIVATE KEY")
        && !first.contains("OpenVPN");
    !public
        && lines
            .iter()
            .skip(begin + 1)
            .take(MAX_LINES)
            .any(|line| open.ends_at(line))
}
