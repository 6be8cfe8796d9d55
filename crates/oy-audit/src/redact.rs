//! Content-level redaction: lines carrying well-known secret shapes are
//! replaced by a `[redacted: KIND]` marker before any text leaves the
//! machine.
//!
//! Whole lines go, not just the matched token: a line that held a secret
//! often holds its neighbours too (a key id next to its secret, a user next
//! to a password), and a line-granular rule is easy to state and to test.
//! The marker keeps the line's indentation and its line ending, so line
//! numbers (which findings cite as evidence) stay exact. Redacting twice
//! changes nothing: a marker line is never looked at again.

use std::sync::LazyLock;

use regex::{Regex, RegexSet};
use serde::Serialize;

/// One redacted line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redaction {
    /// 1-based line number.
    pub line: usize,
    /// What it looked like (`aws-access-key-id`, `private-key`, …).
    pub kind: &'static str,
}

/// Returns `text` with every secret-shaped line replaced by
/// `[redacted: KIND]` (line count and numbering unchanged), and the list of
/// redactions.
pub fn redact(text: &str) -> (String, Vec<Redaction>) {
    // Most files hold nothing secret-shaped: one scan of the whole text
    // decides that without splitting it into lines.
    if !PREFILTER.is_match(text) {
        return (text.to_owned(), Vec::new());
    }
    // JWK private members (`"d": …`) count only in text that holds a JWK.
    let jwk = text.contains("\"kty\"");
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len());
    let mut redactions = Vec::new();
    let mut redact_line = |out: &mut String, index: usize, content: &str, kind, ending: &str| {
        push_marker(out, content, kind, ending);
        redactions.push(Redaction {
            line: index + 1,
            kind,
        });
    };
    // The value of a secret-named YAML key that goes on below it.
    let mut continuation: Option<Continuation> = None;
    let mut end_lines: Option<Vec<usize>> = None;
    let mut index = 0;
    while let Some(&line) = lines.get(index) {
        let (content, ending) = split_ending(line);
        if is_marker(content) || content.trim().is_empty() {
            out.push_str(line);
            index += 1;
            continue;
        }
        if let Some(open) = continuation {
            if indent_of(content) > open.indent && (open.block || !is_mapping_entry(content)) {
                redact_line(&mut out, index, content, "generic-secret", ending);
                index += 1;
                continue;
            }
            continuation = None;
        }
        if BEGIN_PRIVATE_KEY.is_match(content) {
            // The whole block goes: the BEGIN line, every body line, the END line.
            // The END lines, found once: each BEGIN looks up the next.
            let ends = end_lines.get_or_insert_with(|| {
                lines
                    .iter()
                    .enumerate()
                    .filter(|(_, line)| END_PRIVATE_KEY.is_match(line))
                    .map(|(index, _)| index)
                    .collect()
            });
            let end = private_key_block_end(&lines, index, ends);
            for (offset, block_line) in lines
                .get(index..=end)
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                let (block_content, block_ending) = split_ending(block_line);
                redact_line(
                    &mut out,
                    index + offset,
                    block_content,
                    "private-key",
                    block_ending,
                );
            }
            index = end + 1;
            continue;
        }
        match line_kind(content, jwk) {
            Some(kind) => redact_line(&mut out, index, content, kind, ending),
            None => {
                continuation = yaml_secret_key(content);
                out.push_str(line);
            }
        }
        index += 1;
    }
    (out, redactions)
}

/// A secret-named YAML key whose value follows on more-indented lines.
#[derive(Clone, Copy)]
struct Continuation {
    /// The key's column: lines indented further belong to its value.
    indent: usize,
    /// A block scalar (`|`, `>-`): every more-indented line is value. A
    /// bare `key:` only continues while lines are not `name: …` entries
    /// (those start a nested mapping, judged line by line).
    block: bool,
}

/// `name:` alone or with a block-scalar indicator, at the end of a line.
static YAML_KEY: LazyLock<Regex> = LazyLock::new(|| {
    regex(r#"^(\s*(?:-\s+)?)["']?([A-Za-z0-9_.\-]+)["']?\s*:\s*([|>][-+0-9]*)?\s*(?:#.*)?$"#)
});
/// A line that starts a `name: …` entry (or a list item holding one).
static MAPPING_ENTRY: LazyLock<Regex> =
    LazyLock::new(|| regex(r#"^\s*(?:-\s+)?["']?[^\s:"'#]+["']?\s*:(?:\s|$)"#));

fn yaml_secret_key(content: &str) -> Option<Continuation> {
    let captures = YAML_KEY.captures(content)?;
    let name = captures.get(2)?.as_str();
    let block = captures.get(3).is_some();
    // `private:` (C++), `public:`… open a section of code, not a value.
    if !block && ["private", "protected", "public"].contains(&name.to_ascii_lowercase().as_str()) {
        return None;
    }
    secret_name(name)?;
    Some(Continuation {
        indent: captures.get(1).map_or(0, |m| m.as_str().len()),
        block,
    })
}

fn is_mapping_entry(content: &str) -> bool {
    MAPPING_ENTRY.is_match(content)
}

fn indent_of(content: &str) -> usize {
    content.len() - content.trim_start().len()
}

/// Splits a line from `split_inclusive('\n')` into its content and its
/// ending (`\n`, `\r\n` or nothing), so the marker keeps the ending.
fn split_ending(line: &str) -> (&str, &str) {
    let content = line
        .strip_suffix("\r\n")
        .or_else(|| line.strip_suffix('\n'))
        .unwrap_or(line);
    (content, line.get(content.len()..).unwrap_or_default())
}

fn push_marker(out: &mut String, content: &str, kind: &str, ending: &str) {
    let indent_len = indent_of(content);
    out.push_str(content.get(..indent_len).unwrap_or_default());
    out.push_str("[redacted: ");
    out.push_str(kind);
    out.push(']');
    out.push_str(ending);
}

fn is_marker(content: &str) -> bool {
    let trimmed = content.trim();
    trimmed.starts_with("[redacted: ")
        && trimmed.ends_with(']')
        && trimmed
            .get("[redacted: ".len()..trimmed.len() - 1)
            .is_some_and(|kind| {
                !kind.is_empty() && kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
            })
}

/// A `BEGIN … PRIVATE KEY` marker (PKCS#1/#8, EC, DSA, OpenSSH, encrypted,
/// and PGP's `PRIVATE KEY BLOCK`).
static BEGIN_PRIVATE_KEY: LazyLock<Regex> =
    LazyLock::new(|| regex(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"));
static END_PRIVATE_KEY: LazyLock<Regex> =
    LazyLock::new(|| regex(r"-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"));
/// A PEM armour header inside a block (`Proc-Type: 4,ENCRYPTED`, `DEK-Info: …`).
static PEM_HEADER: LazyLock<Regex> = LazyLock::new(|| regex(r"^[A-Za-z][A-Za-z-]*: \S"));

/// How far below a BEGIN line its END line is looked for. A 4096-bit RSA
/// key is about 50 lines; a PGP key block a few hundred at most.
const MAX_PRIVATE_KEY_LINES: usize = 200;

/// The index of the last line of the private-key block starting at
/// `begin`: its END line when one follows within
/// [`MAX_PRIVATE_KEY_LINES`], whatever prefixes the lines carry (a diff's
/// `+`, a quote's `>`, a comment's `#`, a literal's `b"`); else the last
/// line that still looks like key body.
///
/// Code that merely mentions a BEGIN marker (a PEM parser) thus loses
/// that one line, not the rest of the file; a real key, in a file or in a
/// literal, loses every line.
fn private_key_block_end(lines: &[&str], begin: usize, end_lines: &[usize]) -> usize {
    let Some(first) = lines.get(begin) else {
        return begin;
    };
    let (first, _) = split_ending(first);
    // The whole key on one line (JSON with `\n` escapes, say).
    if BEGIN_PRIVATE_KEY
        .find(first)
        .is_some_and(|m| END_PRIVATE_KEY.is_match(first.get(m.end()..).unwrap_or_default()))
    {
        return begin;
    }
    let next_end = end_lines.get(end_lines.partition_point(|&end| end <= begin));
    if let Some(&end) = next_end.filter(|&&end| end - begin <= MAX_PRIVATE_KEY_LINES) {
        return end;
    }
    let mut last = begin;
    for (index, line) in lines.iter().enumerate().skip(begin + 1) {
        let (content, _) = split_ending(line);
        if !looks_like_pem_body(content) {
            break;
        }
        last = index;
    }
    last
}

fn looks_like_pem_body(content: &str) -> bool {
    // Quoting, diff, comment and string-literal noise around a body line.
    let noise = |c: char| c.is_whitespace() || "\"'`,+;\\>#*/-()".contains(c);
    let mut body = content.trim_matches(noise);
    loop {
        let before = body.len();
        // A byte/raw literal's prefix (`b"`), then more noise.
        if let Some(rest) = body
            .strip_prefix(['b', 'B', 'r', 'R', 'u', 'f'])
            .filter(|rest| rest.starts_with(['"', '\'']))
        {
            body = rest.trim_matches(noise);
        }
        // A literal's escaped line break, possibly doubled as `\r\n`.
        if let Some(rest) = body
            .strip_suffix("\\n")
            .or_else(|| body.strip_suffix("\\r"))
        {
            body = rest.trim_matches(noise);
        }
        if body.len() == before {
            break;
        }
    }
    body.is_empty()
        || body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=')
        || PEM_HEADER.is_match(body)
}

/// One secret shape: a pattern (also used by the prefilter) and what else
/// must hold for shapes whose pattern alone would catch prose or code.
struct Shape {
    kind: &'static str,
    pattern: &'static str,
    check: Check,
}

#[derive(Clone, Copy)]
enum Check {
    /// The pattern is enough.
    None,
    /// Some match must also pass this.
    Match(fn(&str) -> bool),
    /// The whole line must pass this (the pattern only says "worth a look").
    Line(fn(&str) -> bool),
    /// The pattern is enough in a text that holds a JWK (`"kty"`).
    InJwk,
}

/// The secret words a name is looked at for (see [`secret_name`] for
/// which names they make secret).
macro_rules! secret_words {
    () => {
        "(?:key|secret|token|pass|pwd|pw|auth|credential|dsn|private)"
    };
}
/// A name that may hold a secret word anywhere.
macro_rules! secret_name_pattern {
    ($extra:literal) => {
        concat!(
            "[A-Za-z0-9_.",
            $extra,
            r"\-]*",
            secret_words!(),
            "[A-Za-z0-9_.",
            $extra,
            r"\-]*"
        )
    };
}

/// In priority order: the first shape a line matches names it, so the
/// specific prefixes (`sk-ant-`) come before the general ones (`sk-`), and
/// the generic assignment comes last.
const SHAPES: &[Shape] = &[
    Shape {
        kind: "private-key",
        pattern: r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----",
        check: Check::None,
    },
    Shape {
        // Base64 of `-----BEGIN` (kubeconfig `client-key-data`, `*_B64=`).
        kind: "base64-pem",
        pattern: r"LS0tLS1CRUdJTi",
        check: Check::None,
    },
    Shape {
        kind: "aws-access-key-id",
        pattern: r"(?-u:\b)(?:AKIA|ASIA)[A-Z0-9]{16}(?-u:\b)",
        check: Check::None,
    },
    Shape {
        kind: "aws-secret-access-key",
        pattern: r#"(?i)aws_?secret_?access_?key["'`]?\s*(?::=|=>|=|:)\s*["'`]?[A-Za-z0-9/+=]{40}(?:[^A-Za-z0-9/+=]|$)"#,
        check: Check::None,
    },
    Shape {
        kind: "github-token",
        pattern: r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})",
        check: Check::None,
    },
    Shape {
        kind: "gitlab-token",
        pattern: r"(?-u:\b)glpat-[A-Za-z0-9_-]{20,}",
        check: Check::None,
    },
    Shape {
        kind: "anthropic-key",
        pattern: r"(?-u:\b)sk-ant-[A-Za-z0-9_-]{20,}",
        check: Check::None,
    },
    Shape {
        kind: "openai-key",
        pattern: r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
        check: Check::Match(openai_key_check),
    },
    Shape {
        kind: "slack-token",
        pattern: r"(?-u:\b)xox[abposr]-[A-Za-z0-9-]{10,}",
        check: Check::None,
    },
    Shape {
        kind: "slack-webhook",
        pattern: r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{8,}",
        check: Check::None,
    },
    Shape {
        kind: "discord-webhook",
        pattern: r"(?i)discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]{16,}",
        check: Check::None,
    },
    Shape {
        kind: "teams-webhook",
        pattern: r"(?i)(?:\.webhook\.office\.com/webhookb2|outlook\.office(?:365)?\.com/webhook)/[A-Za-z0-9@/_-]{16,}",
        check: Check::None,
    },
    Shape {
        kind: "azure-sas",
        pattern: r"(?i)[?&;]sig=[A-Za-z0-9%+/=]{16,}",
        check: Check::None,
    },
    Shape {
        kind: "google-api-key",
        pattern: r"(?-u:\b)AIza[0-9A-Za-z_-]{35}",
        check: Check::None,
    },
    Shape {
        kind: "stripe-key",
        pattern: r"(?-u:\b)(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}",
        check: Check::None,
    },
    Shape {
        kind: "npm-token",
        pattern: r"(?-u:\b)npm_[A-Za-z0-9]{36}",
        check: Check::None,
    },
    Shape {
        kind: "pypi-token",
        pattern: r"(?-u:\b)pypi-AgE[A-Za-z0-9_-]{50,}",
        check: Check::None,
    },
    Shape {
        kind: "jwt",
        pattern: r"(?-u:\b)eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
        check: Check::None,
    },
    Shape {
        kind: "bearer-token",
        pattern: r"(?i)(?-u:\b)bearer\s+[A-Za-z0-9._~+/=-]{16,}",
        check: Check::Match(bearer_check),
    },
    Shape {
        kind: "basic-auth",
        pattern: r"(?i)(?-u:\b)basic\s+[A-Za-z0-9+/]{8,}={0,2}",
        check: Check::Match(basic_auth_check),
    },
    Shape {
        kind: "docker-auth",
        pattern: r#""auth"\s*:\s*"[A-Za-z0-9+/]{4,}={0,2}""#,
        check: Check::Match(docker_auth_check),
    },
    Shape {
        kind: "docker-config",
        pattern: r#"(?i)\.docker(?:configjson|cfg)["']?\s*:\s*["']?[A-Za-z0-9+/=]{16,}"#,
        check: Check::None,
    },
    Shape {
        kind: "jwk-private-key",
        pattern: r#""(?:d|p|q|dp|dq|qi|k)"\s*:\s*"[A-Za-z0-9_-]{16,}""#,
        check: Check::InJwk,
    },
    Shape {
        kind: "url-credentials",
        pattern: r"(?i)(?-u:\b)[a-z][a-z0-9+.-]*://[^\s/:@]*:[^\s/@]+@",
        check: Check::Match(url_credentials_check),
    },
    Shape {
        kind: "cli-password",
        pattern: r#"(?i)(?-u:\b)curl(?-u:\b)[^\n]*\s(?:-u|--user)(?:\s+|=)?["']?[^\s:"']*:[^\s"']+"#,
        check: Check::Match(cli_password_check),
    },
    Shape {
        kind: "cli-password",
        pattern: r#"(?-u:\b)(?i:mysql|mysqldump|mysqladmin|mariadb)(?-u:\b)[^\n]*\s-p["']?[^\s"'-][^\s"']*"#,
        check: Check::Match(cli_password_check),
    },
    Shape {
        kind: "cli-password",
        pattern: r#"(?i)(?-u:\b)docker\s+login(?-u:\b)[^\n]*\s(?:-p|--password)(?:\s+|=)["']?[^\s"'-][^\s"']*"#,
        check: Check::Match(cli_password_check),
    },
    Shape {
        kind: "generic-secret",
        pattern: concat!(
            "(?i)",
            secret_words!(),
            r#"[A-Za-z0-9_.\-]*["'`\]]?\s*(?:[:=]|=>)"#
        ),
        check: Check::Line(generic_assignment_check),
    },
    Shape {
        // `define('DB_PASSWORD', 'v')`, `set("api_key", "v")`.
        kind: "generic-secret",
        pattern: concat!(
            "(?i)[\"'`]",
            secret_name_pattern!(""),
            "[\"'`]\\s*,\\s*[\"'`]"
        ),
        check: Check::Line(name_value_pair_check),
    },
    Shape {
        // `<password>v</password>`.
        kind: "generic-secret",
        pattern: concat!("(?i)<", secret_name_pattern!(":"), r"(?:\s[^>]*)?>[^<]+</"),
        check: Check::Line(xml_element_check),
    },
    Shape {
        // Only a trigger for the prefilter: a secret-named YAML key whose
        // value follows on the next lines (see [`yaml_secret_key`]).
        kind: "generic-secret",
        pattern: concat!(
            "(?im)",
            secret_words!(),
            r#"[A-Za-z0-9_.\-]*["']?\s*:\s*(?:[|>][-+0-9]*)?\s*(?:#.*)?$"#
        ),
        check: Check::Line(|_| false),
    },
];

#[expect(
    clippy::expect_used,
    reason = "constant patterns, compiled by every test run"
)]
static PREFILTER: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new(SHAPES.iter().map(|shape| shape.pattern)).expect("redaction patterns are valid")
});

/// Each shape's pattern, compiled alone to re-check a prefiltered line.
static SHAPE_REGEXES: LazyLock<Vec<Regex>> =
    LazyLock::new(|| SHAPES.iter().map(|shape| regex(shape.pattern)).collect());

/// Compiles a pattern from this file. They are constants that every test
/// run compiles, so a failure is a programming error, not bad input; a
/// pattern silently matching nothing would fail open instead.
#[expect(
    clippy::expect_used,
    reason = "constant patterns, compiled by every test run"
)]
fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).expect("redaction patterns are valid")
}

/// The kind of the first shape `content` matches, if any.
fn line_kind(content: &str, jwk: bool) -> Option<&'static str> {
    let matched = PREFILTER.matches(content);
    if !matched.matched_any() {
        return None;
    }
    SHAPES
        .iter()
        .zip(SHAPE_REGEXES.iter())
        .enumerate()
        .filter(|(index, _)| matched.matched(*index))
        .find(|(_, (shape, regex))| match shape.check {
            Check::None => true,
            Check::Match(check) => regex.find_iter(content).any(|found| check(found.as_str())),
            Check::Line(check) => check(content),
            Check::InJwk => jwk,
        })
        .map(|(_, (shape, _))| shape.kind)
}

/// `sk-` is also the start of ordinary hyphenated words (`sk-learn-…`):
/// a key mixes digits with upper- and lowercase letters.
fn openai_key_check(found: &str) -> bool {
    let tail = found.trim_start_matches("sk-");
    tail.bytes().any(|b| b.is_ascii_digit())
        && tail.bytes().any(|b| b.is_ascii_uppercase())
        && tail.bytes().any(|b| b.is_ascii_lowercase())
}

fn url_credentials_check(found: &str) -> bool {
    let Some(password) = found
        .rsplit_once('@')
        .and_then(|(before, _)| before.rsplit_once(':'))
        .map(|(_, password)| password)
    else {
        return false;
    };
    !is_placeholder(password, true)
}

/// `Bearer <token>`: prose says "bearer authentication", a token holds a digit.
fn bearer_check(found: &str) -> bool {
    let token = found.split_whitespace().last().unwrap_or_default();
    token.bytes().any(|b| b.is_ascii_digit()) && !is_placeholder(token, true)
}

/// `Basic <base64>`: the value must decode to `user:password`.
fn basic_auth_check(found: &str) -> bool {
    let value = found.split_whitespace().last().unwrap_or_default();
    decodes_to_credentials(value)
}

/// Docker's `"auth": "<base64 of user:password>"`.
fn docker_auth_check(found: &str) -> bool {
    let value = found
        .trim_end_matches('"')
        .rsplit('"')
        .next()
        .unwrap_or_default();
    decodes_to_credentials(value)
}

/// True when `value` is base64 of text holding a `:` (`user:password`).
fn decodes_to_credentials(value: &str) -> bool {
    let mut bits = 0_u32;
    let mut count = 0_u32;
    let mut decoded = Vec::new();
    for b in value.trim_end_matches('=').bytes() {
        let sextet = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return false,
        };
        bits = (bits << 6) | u32::from(sextet);
        count += 6;
        if count >= 8 {
            count -= 8;
            decoded.push(((bits >> count) & 0xff) as u8);
        }
    }
    let Some(colon) = decoded.iter().position(|&b| b == b':') else {
        return false;
    };
    colon > 0 && colon + 1 < decoded.len() && decoded.iter().all(|&b| (0x20..0x7f).contains(&b))
}

/// A password handed to a command line (`curl -u user:pw`, `mysql -pPW`,
/// `docker login -p PW`): the value must not be a variable or placeholder.
fn cli_password_check(found: &str) -> bool {
    let last = found
        .rsplit(|c: char| c.is_whitespace() || c == '=')
        .next()
        .unwrap_or_default();
    let last = last.trim_matches(['"', '\'']);
    let value = if let Some(rest) = last.strip_prefix("-p") {
        rest
    } else if let Some((_, password)) = last.split_once(':') {
        password
    } else {
        last
    };
    let value = value.trim_matches(['"', '\'']);
    !value.is_empty() && !value.starts_with('$') && !is_placeholder(value, true)
}

/// Name parts that hold a secret word but name no secret.
const NOT_SECRET_PARTS: &[&str] = &[
    "keyboard",
    "keyboards",
    "keyword",
    "keywords",
    "keystroke",
    "keystrokes",
    "keyframe",
    "keyframes",
    "keymap",
    "keycode",
    "keypress",
    "keydown",
    "keyup",
    "monkey",
    "donkey",
    "turkey",
    "hockey",
    "whiskey",
    "tokenizer",
    "tokenize",
    "tokenized",
    "author",
    "authors",
    "authored",
    "authority",
    "authorities",
    "authenticated",
    "bypass",
    "compass",
    "encompass",
    "surpass",
    "trespass",
    "overpass",
    "underpass",
];

/// Whether `name` names a secret: `None` when it does not, else whether
/// it is password-like (its values need no entropy to count).
///
/// A name counts when one of its parts (split at `_`, `-`, `.` and
/// camelCase) holds `key`, `secret`, `token`, `passw…`, `credential`,
/// `auth…` or `passphrase` anywhere, or is `pass`/`pwd`/`pw`/`dsn`/
/// `private` (also as a suffix: `dbpass`, `sentrydsn`).
fn secret_name(name: &str) -> Option<bool> {
    let mut secret = false;
    let mut password_like = false;
    for part in name_parts(name) {
        let part = part.to_ascii_lowercase();
        if NOT_SECRET_PARTS.contains(&part.as_str()) {
            continue;
        }
        let password = part.contains("passw")
            || part.contains("passphrase")
            || part.contains("secret")
            || part.ends_with("pass")
            || part == "pw"
            || part.ends_with("pwd");
        password_like |= password;
        secret |= password
            || part.contains("key")
            || part.contains("token")
            || part.contains("credential")
            || part.contains("auth")
            || part.ends_with("dsn")
            || part == "private";
    }
    secret.then_some(password_like)
}

/// Splits a name at punctuation and camelCase boundaries (`DBPassword` →
/// `DB`, `Password`).
fn name_parts(name: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    for piece in name.split(|c: char| !c.is_ascii_alphanumeric()) {
        let bytes = piece.as_bytes();
        let mut start = 0;
        for i in 1..bytes.len() {
            let (prev, cur) = (bytes[i - 1], bytes[i]);
            let next_lower = bytes.get(i + 1).is_some_and(u8::is_ascii_lowercase);
            let boundary = (cur.is_ascii_uppercase() && !prev.is_ascii_uppercase())
                || (cur.is_ascii_uppercase() && prev.is_ascii_uppercase() && next_lower);
            if boundary {
                parts.push(piece.get(start..i).unwrap_or_default());
                start = i;
            }
        }
        parts.push(piece.get(start..).unwrap_or_default());
    }
    parts.retain(|p| !p.is_empty());
    parts
}

/// `NAME = value` where NAME holds a secret-like word anywhere.
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    regex(concat!(
        r"(?i)(?:^|[^A-Za-z0-9_.\-])(",
        secret_name_pattern!(""),
        ")",
        r#"["'`\]]?\s*"#,
        // A type annotation between the name and `=` (`const KEY: &str =`).
        r#"(?::\s*&?(?:'[a-z]+\s+)?[A-Za-z_][A-Za-z0-9_<>\[\]]*\s*)?"#,
        r#"(?:===?|!==?|:=|=>|=|:)\s*"#,
        // A quoted value (with a `b"…"`/`r"…"` prefix), or a bare one.
        r#"(?:[bBrRuf]{0,2}"([^"]*)"|[bBrRuf]{0,2}'([^']*)'|`([^`]*)`|([^\s,;'"`]+))"#,
    ))
});

/// `("name", "value")`: a call or tuple pairing a secret name with a value.
static NAME_VALUE_PAIR: LazyLock<Regex> = LazyLock::new(|| {
    regex(concat!(
        r#"(?i)["'`]("#,
        secret_name_pattern!(""),
        r#")["'`]\s*,\s*(?:"([^"]*)"|'([^']*)'|`([^`]*)`)(\s*:)?"#
    ))
});

/// `<name …>value</`: an XML element named like a secret.
static XML_ELEMENT: LazyLock<Regex> = LazyLock::new(|| {
    regex(concat!(
        "(?i)<(",
        secret_name_pattern!(":"),
        r")(?:\s[^>]*)?>([^<]+)</"
    ))
});

/// True when some assignment on the line gives a secret-like name a
/// value that looks like a real secret rather than code or a placeholder.
fn generic_assignment_check(content: &str) -> bool {
    ASSIGNMENT.captures_iter(content).any(|captures| {
        let Some(name) = captures.get(1) else {
            return false;
        };
        let Some(password_like) = secret_name(name.as_str()) else {
            return false;
        };
        match (captures.get(2), captures.get(3), captures.get(4)) {
            (Some(v), _, _) | (_, Some(v), _) | (_, _, Some(v)) => {
                looks_secret(v.as_str(), false, password_like, false)
            }
            _ => captures.get(5).is_some_and(|v| {
                let before = content.get(..name.start()).unwrap_or_default().trim_end();
                let operator = content.get(name.end()..v.start()).unwrap_or_default();
                let rest = content.get(v.end()..).unwrap_or_default().trim();
                let ends_statement = rest.is_empty()
                    || rest.starts_with(['#', ',', ';', '}', ')'])
                    || rest.starts_with("//");
                // `name: word` is YAML only at the start of an entry;
                // mid-line it is prose ("secrets: collected").
                let entry_start = before.is_empty() || before.ends_with(['-', '{', ',']);
                let letters_ok = ends_statement && (operator.contains('=') || entry_start);
                looks_secret(v.as_str(), true, password_like, letters_ok)
            }),
        }
    })
}

fn name_value_pair_check(content: &str) -> bool {
    NAME_VALUE_PAIR.captures_iter(content).any(|captures| {
        let Some(password_like) = captures.get(1).and_then(|m| secret_name(m.as_str())) else {
            return false;
        };
        // `{"cmd": "pwd", "workdir": …}`: the "value" is the next key.
        if captures.get(5).is_some() {
            return false;
        }
        [captures.get(2), captures.get(3), captures.get(4)]
            .into_iter()
            .flatten()
            // `("TOKEN_NAMES", "API_TOKEN")`: a list of names.
            .filter(|v| !is_separated_identifier(v.as_str()) && !is_upper_identifier(v.as_str()))
            .any(|v| looks_secret(v.as_str(), false, password_like, false))
    })
}

fn xml_element_check(content: &str) -> bool {
    XML_ELEMENT.captures_iter(content).any(|captures| {
        let name = captures.get(1).map_or("", |m| m.as_str());
        let local = name.rsplit(':').next().unwrap_or(name);
        // A plist's `<key>` holds a key's name, not a key.
        if local.eq_ignore_ascii_case("key") {
            return false;
        }
        let Some(password_like) = secret_name(local) else {
            return false;
        };
        captures
            .get(2)
            .is_some_and(|v| looks_secret(v.as_str().trim(), false, password_like, false))
    })
}

/// Bare letters-only values that are words of code or configuration, not
/// passwords (`password: String,`, `secret: SecretStr`, `pass: true`).
const NOT_PASSWORD_WORDS: &[&str] = &[
    "string",
    "str",
    "secretstr",
    "secretstring",
    "secretbytes",
    "secretbox",
    "secretvec",
    "bytes",
    "option",
    "optional",
    "required",
    "none",
    "null",
    "nil",
    "true",
    "false",
    "undefined",
    "hidden",
    "text",
    "string_type",
];

/// Whether a value given to a secret-named name looks like a real secret.
/// `letters_ok`: a bare word of letters alone ends a config entry
/// (`PASSWORD=Word`), so it may be a password rather than code.
fn looks_secret(value: &str, bare: bool, password_like: bool, letters_ok: bool) -> bool {
    let length = value.chars().count();
    if is_placeholder(value, bare) || names_a_secret(value) || is_path(value) {
        return false;
    }
    if !password_like {
        return length >= 12
            && !value.chars().any(char::is_whitespace)
            && !(bare && is_code_reference(value))
            && shannon_entropy(value) >= 3.0;
    }
    // Passwords: no entropy needed, letters alone will do, and a quoted
    // one may hold spaces (but a sentence is a message, not a password).
    if length < 6 {
        return false;
    }
    if !bare {
        let sentence = value.contains(char::is_whitespace)
            && (value.ends_with(['.', '!', '?', ':'])
                || mentions_secret_word(&value.to_ascii_lowercase()));
        return !sentence;
    }
    if value.starts_with(['/', '~']) || value.starts_with("./") || is_code_reference_symbol(value) {
        return false;
    }
    let lower = value.to_ascii_lowercase();
    let identifier = value
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let dotted = value.contains('.')
        && value
            .split('.')
            .all(|s| s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !s.is_empty())
        && !value.chars().next().is_some_and(|c| c.is_ascii_digit());
    if dotted && value.split('.').count() > 1 && value.chars().any(|c| c.is_ascii_lowercase()) {
        // `settings.DB_PASSWORD`, `self.password`.
        return false;
    }
    if identifier {
        // `password = new_password`, `pw: String,`, `secret = x if y`.
        let variable = value == lower && mentions_secret_word(&lower);
        return !variable && !NOT_PASSWORD_WORDS.contains(&lower.as_str()) && letters_ok;
    }
    true
}

/// A file path (`/usr/bin/askpass`, `~/.aws/credentials`, `../x`): where
/// a secret lives, not the secret.
/// An absolute path counts only when lowercase (`/usr/bin/askpass`): a
/// base64 secret may start with `/` too.
fn is_path(value: &str) -> bool {
    let relative = ["./", "../", "~/"]
        .iter()
        .any(|prefix| value.starts_with(prefix));
    let absolute = value.starts_with('/')
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"/._-".contains(&b));
    (relative || absolute)
        && value.matches('/').count() >= 2
        && !value.contains(char::is_whitespace)
}

/// `lower_snake`, `UPPER_SNAKE` or `kebab-case` words (at least two).
fn is_separated_identifier(value: &str) -> bool {
    value.contains(['_', '-'])
        && value
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && (!value.chars().any(|c| c.is_ascii_uppercase())
            || !value.chars().any(|c| c.is_ascii_lowercase()))
        && value.split(['_', '-']).all(|word| !word.is_empty())
}

/// `UPPER` or `UPPER_SNAKE`: an environment variable's or constant's name.
fn is_upper_identifier(value: &str) -> bool {
    value.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && value
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// A value that names a secret rather than holds one: `"WORK_LLM_KEY"`
/// (an environment variable's name), `"likely-secret"` (a label).
fn names_a_secret(value: &str) -> bool {
    is_separated_identifier(value) && mentions_secret_word(&value.to_ascii_lowercase())
}

fn mentions_secret_word(lower: &str) -> bool {
    [
        "pass", "pwd", "pw", "secret", "token", "key", "cred", "auth",
    ]
    .iter()
    .any(|word| lower.contains(word))
}

/// A bare value that is code, not data: a call, an index, a field path,
/// a variable name, a literal keyword.
fn is_code_reference(value: &str) -> bool {
    let identifier = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    is_code_reference_symbol(value)
        || (value.contains('.') && value.split('.').all(identifier))
        || (identifier(value) && !value.chars().any(|c| c.is_ascii_digit()))
}

/// A bare value that is a call, an index, a block, a generic type, a
/// variable (`$VAR`), a pointer or reference, or a YAML alias.
fn is_code_reference_symbol(value: &str) -> bool {
    value.contains(['(', ')', '[', ']', '{', '}', '<', '>'])
        || value.contains("::")
        || value.starts_with(['&', '*', '@', ':', '$'])
}

/// Values that stand in for a secret: templates, environment lookups,
/// documentation fillers. A bare `$VAR` is a variable; a quoted `"$x…"`
/// may be a password that starts with `$`.
fn is_placeholder(value: &str, bare: bool) -> bool {
    let lower = value.to_ascii_lowercase();
    let filler = |c: char| matches!(c, 'x' | '*' | '.' | '-' | '_' | '0' | '#');
    let mut chars = lower.chars();
    let first = chars.next();
    lower.chars().all(filler)
        || chars.all(|c| Some(c) == first)
        || (lower.starts_with('<') && lower.ends_with('>'))
        || lower.contains("${")
        || lower.contains("{{")
        || lower.contains("%(")
        || (bare && lower.starts_with('$'))
        || lower.starts_with("your")
        || lower.contains("your_")
        || lower.contains("your-")
        || lower.contains("your ")
        || lower.starts_with("enter ")
        || [
            "password", "passwd", "pass", "pwd", "pw", "secret", "token", "none", "null",
        ]
        .contains(&lower.as_str())
        || [
            "changeme",
            "change_me",
            "change-me",
            "placeholder",
            "example",
            "process.env",
            "os.environ",
            "getenv",
            "env!(",
            "env::var",
            "redacted",
        ]
        .iter()
        .any(|word| lower.contains(word))
}

/// Shannon entropy in bits per character.
fn shannon_entropy(value: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    let mut total = 0_u32;
    for c in value.chars() {
        *counts.entry(c).or_insert(0_u32) += 1;
        total += 1;
    }
    let total = f64::from(total);
    counts
        .values()
        .map(|&count| {
            let p = f64::from(count) / total;
            -p * p.log2()
        })
        .sum()
}
