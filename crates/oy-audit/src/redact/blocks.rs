//! Key blocks: a BEGIN line, its body and its END line go whole, whatever
//! prefixes the lines carry (a diff's `+`, a quote's `>`, a comment's `#`,
//! a literal's `b"`). PEM private keys (PKCS#1/#8, EC, DSA, OpenSSH,
//! encrypted, PGP's `PRIVATE KEY BLOCK`), OpenVPN static keys, SSH2
//! (RFC 4716) private keys and PuTTY `.ppk` keys; certificates and public
//! keys pass.

use std::sync::LazyLock;

use regex::Regex;

use super::{regex, split_ending};

/// One kind of key block: its first and last lines, and its kind.
pub(super) struct Block {
    /// A cheap test before `begin` runs (most lines fail it).
    pub(super) hint: &'static str,
    pub(super) begin: LazyLock<Regex>,
    pub(super) end: LazyLock<Regex>,
    pub(super) kind: &'static str,
}

pub(super) static BLOCKS: [Block; 4] = [
    Block {
        hint: "BEGIN",
        begin: LazyLock::new(|| regex(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")),
        end: LazyLock::new(|| regex(r"-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")),
        kind: "private-key",
    },
    Block {
        hint: "BEGIN",
        begin: LazyLock::new(|| regex(r"-----BEGIN OpenVPN Static key V[0-9]-----")),
        end: LazyLock::new(|| regex(r"-----END OpenVPN Static key V[0-9]-----")),
        kind: "openvpn-static-key",
    },
    Block {
        hint: "BEGIN",
        begin: LazyLock::new(|| regex(r"-{4,5} ?BEGIN SSH2 (?:ENCRYPTED )?PRIVATE KEY ?-{4,5}")),
        end: LazyLock::new(|| regex(r"-{4,5} ?END SSH2 (?:ENCRYPTED )?PRIVATE KEY ?-{4,5}")),
        kind: "ssh2-private-key",
    },
    // A `.ppk` file: its header line down to its MAC, public part and all.
    Block {
        hint: "PuTTY-User-Key-File-",
        begin: LazyLock::new(|| regex(r"PuTTY-User-Key-File-[0-9]+:")),
        end: LazyLock::new(|| regex(r"Private-(?:MAC|Hash):")),
        kind: "putty-private-key",
    },
];

/// A PEM armour header inside a block (`Proc-Type: 4,ENCRYPTED`,
/// `DEK-Info: …`, a PuTTY key's `Public-Lines: 6`).
static PEM_HEADER: LazyLock<Regex> = LazyLock::new(|| regex(r"^[A-Za-z][A-Za-z0-9-]*: \S"));

/// The block that `content` begins, if any.
pub(super) fn block_begun_by(content: &str) -> Option<&'static Block> {
    BLOCKS
        .iter()
        .find(|block| content.contains(block.hint) && block.begin.is_match(content))
}

/// How far below a BEGIN line its END line is looked for. A 4096-bit RSA
/// key is about 50 lines; a PGP key block a few hundred at most.
const MAX_PRIVATE_KEY_LINES: usize = 200;

/// The index of the last line of the key block starting at `begin`: its END line when one follows within
/// [`MAX_PRIVATE_KEY_LINES`], whatever prefixes the lines carry (a diff's
/// `+`, a quote's `>`, a comment's `#`, a literal's `b"`); else the last
/// line that still looks like key body.
///
/// Code that merely mentions a BEGIN marker (a PEM parser) thus loses
/// that one line, not the rest of the file; a real key, in a file or in a
/// literal, loses every line.
pub(super) fn block_end(block: &Block, lines: &[&str], begin: usize, end_lines: &[usize]) -> usize {
    let Some(first) = lines.get(begin) else {
        return begin;
    };
    let (first, _) = split_ending(first);
    // The whole key on one line (JSON with `\n` escapes, say).
    if block
        .begin
        .find(first)
        .is_some_and(|m| block.end.is_match(first.get(m.end()..).unwrap_or_default()))
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
