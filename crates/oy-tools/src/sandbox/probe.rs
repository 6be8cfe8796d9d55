//! `Support`: what this kernel lets the sandbox do — Landlock (and which
//! ABI), seccomp filters, a private mount namespace for the read-only
//! parts of `.git` — and the [`Level`] that follows. A handful of cheap
//! syscalls and `/proc` reads, done once when a sandbox is resolved.

use std::fmt;

use landlock::{ABI, Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, Scope};

/// How much of the sandbox a command gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Nothing is confined: the sandbox is off, or the kernel has neither
    /// Landlock nor seccomp.
    None,
    /// Some of it: see [`Support::missing`].
    Partial,
    /// Filesystem, signals and ptrace (Landlock ABI 6 or later), sockets
    /// (seccomp) and the read-only parts of `.git` (mount namespace).
    Full,
}

impl Level {
    /// `full`, `partial` or `none`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Partial => "partial",
            Self::None => "none",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the running kernel supports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Support {
    /// The newest Landlock ABI that works, `None` without Landlock.
    pub landlock_abi: Option<u8>,
    /// seccomp filters with an errno action.
    pub seccomp: bool,
    /// A private mount namespace can be made (root, or user namespaces).
    pub mount_namespace: bool,
}

impl Support {
    /// Asks the kernel.
    pub fn probe() -> Self {
        Self {
            landlock_abi: landlock_abi(),
            seccomp: seccomp_available(),
            mount_namespace: mount_namespace_available(),
        }
    }

    /// The level a sandboxed command gets on this kernel.
    pub fn level(&self) -> Level {
        match (self.landlock_abi, self.seccomp) {
            (None, false) => Level::None,
            (Some(abi), true) if abi >= 6 && self.mount_namespace => Level::Full,
            _ => Level::Partial,
        }
    }

    /// What is not confined on this kernel, one sentence each.
    pub fn missing(&self) -> Vec<String> {
        let mut missing = Vec::new();
        match self.landlock_abi {
            None => missing.push(
                "files are not confined: the kernel has no Landlock (Linux 5.13+ with `lsm=landlock`)"
                    .to_owned(),
            ),
            Some(abi) if abi < 6 => missing.push(format!(
                "Landlock ABI {abi} cannot stop a command from signalling oy's supervisor (needs ABI 6, Linux 6.12+)"
            )),
            Some(_) => {}
        }
        if !self.seccomp {
            missing
                .push("the network is not confined: the kernel has no seccomp filters".to_owned());
        }
        if !self.mount_namespace {
            missing.push(
                "`.git/config` and hooks are writable, and files outside the workspace can have their mode and times changed: no mount namespace (root without CAP_SYS_ADMIN, or user namespaces disabled)"
                    .to_owned(),
            );
        }
        missing
    }
}

/// Tries each ABI from the newest this build knows, strictly: the first
/// ruleset the kernel accepts names the ABI.
fn landlock_abi() -> Option<u8> {
    let tries: [(ABI, u8); 6] = [
        (ABI::V6, 6),
        (ABI::V5, 5),
        (ABI::V4, 4),
        (ABI::V3, 3),
        (ABI::V2, 2),
        (ABI::V1, 1),
    ];
    tries
        .into_iter()
        .find(|(abi, number)| {
            let ruleset = Ruleset::default()
                .set_compatibility(CompatLevel::HardRequirement)
                .handle_access(AccessFs::from_all(*abi));
            let ruleset = if *number >= 6 {
                ruleset.and_then(|ruleset| ruleset.scope(Scope::from_all(*abi)))
            } else {
                ruleset
            };
            ruleset.and_then(|ruleset| ruleset.create()).is_ok()
        })
        .map(|(_, number)| number)
}

#[expect(
    clippy::disallowed_methods,
    reason = "kernel settings under /proc, not workspace files"
)]
fn proc_text(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn seccomp_available() -> bool {
    proc_text("/proc/sys/kernel/seccomp/actions_avail")
        .is_some_and(|actions| actions.split_whitespace().any(|action| action == "errno"))
}

/// Root may always make one; anyone else needs user namespaces, which
/// distributions can switch off in three ways.
fn mount_namespace_available() -> bool {
    if rustix::process::geteuid().is_root() {
        return true;
    }
    let says = |path: &str, value: &str| proc_text(path).is_some_and(|text| text.trim() == value);
    !(says("/proc/sys/kernel/unprivileged_userns_clone", "0")
        || says("/proc/sys/user/max_user_namespaces", "0")
        || says(
            "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
            "1",
        ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_follow_support() {
        let full = Support {
            landlock_abi: Some(7),
            seccomp: true,
            mount_namespace: true,
        };
        assert_eq!(full.level(), Level::Full);
        assert!(full.missing().is_empty());
        let old = Support {
            landlock_abi: Some(3),
            ..full.clone()
        };
        assert_eq!(old.level(), Level::Partial);
        assert_eq!(old.missing().len(), 1);
        let bare = Support {
            landlock_abi: None,
            seccomp: false,
            mount_namespace: false,
        };
        assert_eq!(bare.level(), Level::None);
        assert_eq!(bare.missing().len(), 3);
    }
}
