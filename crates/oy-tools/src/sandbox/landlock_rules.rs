//! The Landlock ruleset of the confine stage: read and execute on the
//! read list, every right on the writable hierarchies, read and write on
//! a few device files, and the signal and abstract-socket scopes — which
//! also keep a command from tracing oy or reading `/proc/<oy>/environ`.

use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, BitFlags, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr,
    RulesetStatus, Scope, make_bitflags,
};

use super::argv::Spec;

/// The ABI whose rights and scopes oy asks for; older kernels get what
/// they support (best effort), which `oy doctor` reports.
const ABI_USED: ABI = ABI::V6;

/// Restricts the calling thread (and everything it `exec`s). `Err` names
/// what failed; the caller refuses to run the command then.
pub(crate) fn restrict(spec: &Spec) -> Result<(), String> {
    let all = AccessFs::from_all(ABI_USED);
    let read = AccessFs::from_read(ABI_USED);
    let device: BitFlags<AccessFs> =
        make_bitflags!(AccessFs::{ReadFile | WriteFile | Truncate | IoctlDev});
    let mut rules = Vec::new();
    for (paths, access) in [
        (&spec.read, read),
        (&spec.write, all),
        (&spec.devices, device),
    ] {
        for path in paths {
            if let Some(rule) = rule(path, access) {
                rules.push(rule);
            }
        }
    }
    let status = Ruleset::default()
        .handle_access(all)
        .and_then(|ruleset| ruleset.scope(Scope::from_all(ABI_USED)))
        .and_then(|ruleset| ruleset.create())
        .and_then(|ruleset| {
            ruleset.add_rules(rules.into_iter().map(Ok::<_, landlock::RulesetError>))
        })
        .and_then(|ruleset| ruleset.restrict_self())
        .map_err(|error| format!("Landlock: {error}"))?;
    match status.ruleset {
        RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced => Ok(()),
        RulesetStatus::NotEnforced => Err("Landlock is not enforced by this kernel".to_owned()),
    }
}

/// A rule for `path` if it exists (a missing toolchain directory is
/// simply not granted). Files get the file rights only.
fn rule(path: &Path, access: BitFlags<AccessFs>) -> Option<PathBeneath<PathFd>> {
    let fd = PathFd::new(path).ok()?;
    let is_dir = rustix::fs::fstat(&fd)
        .map(|stat| {
            rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::Directory
        })
        .unwrap_or(false);
    let access = if is_dir {
        access
    } else {
        access & AccessFs::from_file(ABI_USED)
    };
    Some(PathBeneath::new(fd, access))
}
