//! Carrying the command's environment through the launcher without
//! letting the launcher run under it: the launcher stages start with an
//! empty environment but for `OY_SANDBOX_ENV_<n>` variables that hold the
//! command's, encoded, so nothing the model may set (`exec`'s `env`:
//! `LD_PRELOAD`, `LD_AUDIT`, `GCONV_PATH`…) reaches the dynamic loader of
//! the unconfined supervisor or of the confine stage before it restricts
//! itself. Only the final `exec` of the command gets it back.
//!
//! Encoding: `NAME=VALUE` entries joined by `\n`, with `\` written `\\`
//! and a newline `\n`; the stream is cut into chunks of at most [`CHUNK`]
//! bytes (never inside an escape pair), so no carrier meets the kernel's
//! 128 KiB limit for one variable before the command's own would.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};

/// The prefix of the carrier variables.
const PREFIX: &str = "OY_SANDBOX_ENV_";
/// Largest chunk (bytes).
const CHUNK: usize = 64 * 1024;

/// The carrier variables for `vars`.
pub(crate) fn encode(vars: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
    let mut stream = Vec::new();
    for (name, value) in vars {
        if !stream.is_empty() {
            stream.push(b'\n');
        }
        escape(name.as_bytes(), &mut stream);
        stream.push(b'=');
        escape(value.as_bytes(), &mut stream);
    }
    // Chunks may cut an entry (a single variable can be near the kernel's
    // limit itself), never an escape pair.
    let mut chunks = Vec::new();
    let mut rest = stream.as_slice();
    while !rest.is_empty() {
        let mut end = CHUNK.min(rest.len());
        let escapes_before = rest[..end]
            .iter()
            .rev()
            .take_while(|byte| **byte == b'\\')
            .count();
        if escapes_before % 2 == 1 {
            end -= 1;
        }
        chunks.push(rest[..end].to_vec());
        rest = &rest[end..];
    }
    chunks
        .into_iter()
        .enumerate()
        .map(|(index, chunk)| {
            (
                OsString::from(format!("{PREFIX}{index}")),
                OsString::from_vec(chunk),
            )
        })
        .collect()
}

/// The carrier variables found in `environment` (the launcher's own), in
/// order: what to pass to the next stage.
pub(crate) fn carriers(
    environment: impl IntoIterator<Item = (OsString, OsString)>,
) -> Vec<(OsString, OsString)> {
    let mut found: Vec<(usize, OsString, OsString)> = environment
        .into_iter()
        .filter_map(|(name, value)| {
            let index = name.to_str()?.strip_prefix(PREFIX)?.parse().ok()?;
            Some((index, name, value))
        })
        .collect();
    found.sort_by_key(|(index, _, _)| *index);
    found
        .into_iter()
        .map(|(_, name, value)| (name, value))
        .collect()
}

/// The command's environment from the carriers.
pub(crate) fn decode(carriers: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
    let stream: Vec<u8> = carriers
        .iter()
        .flat_map(|(_, chunk)| chunk.as_bytes().iter().copied())
        .collect();
    let mut vars = Vec::new();
    for entry in stream.split(|byte| *byte == b'\n') {
        if entry.is_empty() {
            continue;
        }
        let entry = unescape(entry);
        if let Some(at) = entry.iter().position(|byte| *byte == b'=') {
            vars.push((
                OsStr::from_bytes(&entry[..at]).to_owned(),
                OsStr::from_bytes(&entry[at + 1..]).to_owned(),
            ));
        }
    }
    vars
}

fn escape(bytes: &[u8], out: &mut Vec<u8>) {
    for &byte in bytes {
        match byte {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            other => out.push(other),
        }
    }
}

fn unescape(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut escaped = false;
    for &byte in bytes {
        match (escaped, byte) {
            (false, b'\\') => escaped = true,
            (true, b'n') => {
                out.push(b'\n');
                escaped = false;
            }
            (true, other) => {
                out.push(other);
                escaped = false;
            }
            (false, other) => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_awkward_values_across_chunks() {
        let mut vars: Vec<(OsString, OsString)> = vec![
            ("A".into(), "x=y\nz\\n\\".into()),
            ("EMPTY".into(), "".into()),
            ("BYTES".into(), OsString::from_vec(vec![0xff, b'=', b'\n'])),
        ];
        for index in 0..40 {
            vars.push((format!("BIG{index}").into(), "v".repeat(5000).into()));
        }
        // One variable of backslashes, larger than a chunk once escaped.
        vars.push(("SLASHES".into(), "\\".repeat(70_000).into()));
        let carried = encode(&vars);
        assert!(carried.len() > 1);
        assert!(carried.iter().all(|(_, chunk)| chunk.len() <= CHUNK));
        let mut shuffled = carried.clone();
        shuffled.reverse();
        shuffled.push(("LD_PRELOAD".into(), "/evil.so".into()));
        assert_eq!(decode(&carriers(shuffled)), vars);
    }
}
