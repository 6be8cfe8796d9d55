//! Explaining a refusal: when a sandboxed command fails with "Permission
//! denied", "Operation not permitted", "Read-only file system" or a name
//! lookup that could not reach the network, the model is told which
//! sandbox rule most likely refused it and what the user can do.

use std::path::Path;

/// Error texts that a Landlock, mount or seccomp refusal produces.
const FS_SIGNS: &[&str] = &[
    "Permission denied",
    "Operation not permitted",
    "Read-only file system",
];

/// What a command without network reports.
const NET_SIGNS: &[&str] = &[
    "Operation not permitted",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "failed to lookup address",
    "nodename nor servname",
];

/// A note for the model, or `None` when the output shows no sign of a
/// refusal. `output` is the command's stderr (never its stdout, where a
/// command could forge such a line); `root` the workspace; `cwd` where
/// the command ran (relative paths in errors are relative to it);
/// `network` whether sockets were allowed.
pub(crate) fn explain_refusal(
    output: &str,
    root: &Path,
    cwd: &Path,
    network: bool,
) -> Option<String> {
    let line = output
        .lines()
        .find(|line| FS_SIGNS.iter().any(|sign| line.contains(sign)));
    if let Some(line) = line {
        let rule = fs_rule(line, root, cwd);
        // A socket refusal reads like a file one; say both when in doubt.
        let network_note = if !network && rule.is_none() && line.contains("Operation not permitted")
        {
            " or a socket (the network is off for commands)"
        } else {
            ""
        };
        let rule = rule.unwrap_or_else(|| {
            format!(
                "it may be a file outside the sandbox's rules (writes only inside the workspace and $TMPDIR; the home directory readable only for toolchains; `.git/config`, hooks and `.oy/` read-only){network_note}"
            )
        });
        return Some(format!(
            "oy sandbox: the command was refused by the sandbox: {rule}.\nRECOVERY: keep the work inside the workspace (use $TMPDIR for scratch files); if the user needs more, they can run it themselves, add a read path in their global config, or use `--sandbox off`"
        ));
    }
    if !network && NET_SIGNS.iter().any(|sign| output.contains(sign)) {
        return Some(
            "oy sandbox: the network is off for commands (only Unix sockets are allowed).\nRECOVERY: work offline (vendored or cached dependencies); if the command needs the network, ask the user to allow the network (network: allow)"
                .to_owned(),
        );
    }
    None
}

/// The path an error line is about: the `: `-separated part just before
/// the error text (`cmd: PATH: Permission denied`, `mkdir: cannot create
/// directory 'PATH': …`), its quoted word if it has one, resolved against
/// `cwd`.
fn refused_path(line: &str, cwd: &Path) -> Option<std::path::PathBuf> {
    let sign_at = FS_SIGNS.iter().filter_map(|sign| line.find(sign)).min()?;
    let before = line[..sign_at].trim_end().strip_suffix(':')?;
    let part = before.rsplit(": ").next()?.trim();
    let pieces: Vec<&str> = part
        .split(['\'', '"', '`', '\u{2018}', '\u{2019}'])
        .collect();
    // The last quoted word if there is one, else the last word.
    let word = if pieces.len() >= 3 {
        pieces[pieces.len() - 2].trim()
    } else {
        part.split_whitespace().next_back()?
    };
    if word.is_empty() {
        return None;
    }
    Some(cwd.join(word))
}

/// Names the rule from the path on the line, if there is one.
fn fs_rule(line: &str, root: &Path, cwd: &Path) -> Option<String> {
    let path = refused_path(line, cwd)?;
    let path = path.as_path();
    let inside = path.starts_with(root);
    let relative = path.strip_prefix(root).ok();
    let in_git = relative.is_some_and(|rel| rel.starts_with(".git"));
    let in_oy = relative.is_some_and(|rel| rel.starts_with(".oy"));
    Some(if in_git {
        format!(
            "`{}` is git metadata that can make git run code (config, hooks, info), read-only to commands",
            path.display()
        )
    } else if in_oy {
        format!(
            "`{}` is oy's own workspace configuration, read-only to commands",
            path.display()
        )
    } else if inside {
        format!(
            "`{}` is inside the workspace but was refused (a file the user cannot write, or oy's own data)",
            path.display()
        )
    } else {
        format!(
            "`{}` is outside the workspace: commands may write only inside it and $TMPDIR, and read only system and toolchain directories",
            path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One refusal: the command's output, the directory it ran in, whether
    /// the network was allowed, and what the note must say (`None`: no
    /// note at all).
    type Case<'a> = (&'a str, &'a str, bool, Option<&'a [&'a str]>);

    fn check(cases: &[Case<'_>]) {
        let root = Path::new("/ws");
        for &(output, cwd, network, wanted) in cases {
            let note = explain_refusal(output, root, Path::new(cwd), network);
            match (wanted, note) {
                (None, note) => assert_eq!(note, None, "{output}"),
                (Some(parts), Some(note)) => {
                    for part in parts {
                        assert!(note.contains(part), "{output}: {note}");
                    }
                }
                (Some(_), None) => panic!("no note for {output}"),
            }
        }
    }

    #[test]
    fn names_the_path_before_the_error_not_the_program() {
        check(&[
            (
                "/usr/bin/bash: line 1: .git/hooks/pre-commit: Read-only file system",
                "/ws",
                false,
                Some(&["`/ws/.git/hooks/pre-commit` is git metadata"]),
            ),
            (
                "mkdir: cannot create directory \u{2018}/elsewhere/u/x\u{2019}: Read-only file system",
                "/ws",
                false,
                Some(&["`/elsewhere/u/x` is outside"]),
            ),
            (
                "chmod: changing permissions of '/etc/passwd': Read-only file system",
                "/ws/sub",
                false,
                Some(&["`/etc/passwd` is outside"]),
            ),
        ]);
    }

    #[test]
    fn names_the_rule_for_paths_outside_and_in_git() {
        check(&[
            (
                "bash: /elsewhere/u/.bashrc: Permission denied",
                "/ws",
                false,
                Some(&["outside the workspace", "RECOVERY:"]),
            ),
            (
                "error: could not lock config file /ws/.git/config: Read-only file system",
                "/ws",
                true,
                Some(&["git metadata"]),
            ),
            (
                "curl: (6) Could not resolve host: example.com",
                "/ws",
                false,
                Some(&["network: allow"]),
            ),
            ("all good", "/ws", false, None),
            ("curl: (6) Could not resolve host: x", "/ws", true, None),
        ]);
    }
}
