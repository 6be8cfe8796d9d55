//! The confine stage: in a private mount namespace pins the git
//! directories and makes their dangerous parts read-only, drops every
//! capability, sets `no_new_privs`, applies Landlock and seccomp, then
//! `exec`s the command. Any step that fails refuses the command (exit
//! 126) rather than running it less confined than oy said it would.

use std::ffi::OsStr;
use std::io;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use rustix::mount::{MountFlags, MountPropagationFlags};
use rustix::thread::{CapabilitiesSecureBits, CapabilitySet, CapabilitySets};

use super::argv::Spec;
use super::{env_transport, landlock_rules, seccomp};

/// Exit code when the sandbox could not be set up (as a shell's "cannot
/// execute").
pub(crate) const SETUP_FAILED: i32 = 126;
/// Exit code when the program does not exist.
pub(crate) const NOT_FOUND: i32 = 127;

/// Runs the stage; returns only on failure, with the exit code.
pub(crate) fn run(spec: &Spec) -> i32 {
    if let Err(message) = confine(spec) {
        say(&format!("oy sandbox: {message}; the command was not run"));
        return SETUP_FAILED;
    }
    let env = env_transport::decode(&env_transport::carriers(std::env::vars_os()));
    let error = Command::new(&spec.program)
        .args(&spec.args)
        .env_clear()
        .envs(env)
        .exec();
    let program = spec.program.to_string_lossy();
    match error.kind() {
        io::ErrorKind::NotFound => {
            say(&format!("oy sandbox: {program}: not found"));
            NOT_FOUND
        }
        io::ErrorKind::PermissionDenied => {
            say(&format!(
                "oy sandbox: {program}: permission denied (a program outside the sandbox's read list cannot run; see `oy sandbox --help`)"
            ));
            SETUP_FAILED
        }
        _ => {
            say(&format!("oy sandbox: {program}: {error}"));
            SETUP_FAILED
        }
    }
}

/// Writes one line to stderr (the launcher is a process of its own).
pub(crate) fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(io::stderr(), "{line}");
}

fn confine(spec: &Spec) -> Result<(), String> {
    if (!spec.pin.is_empty() || !spec.protect.is_empty()) && !protect_git(spec)? {
        // The probe expected a namespace and the kernel refused one (a
        // container's policy, say): everything else still applies, and the
        // command's output says what is missing.
        say(
            "oy sandbox: warning: .git/config, hooks and .oy are not protected for this command: the kernel refused a mount namespace",
        );
    }
    drop_capabilities().map_err(|error| format!("cannot drop capabilities: {error}"))?;
    rustix::thread::set_no_new_privs(true).map_err(|error| format!("no_new_privs: {error}"))?;
    if spec.landlock {
        landlock_rules::restrict(spec)?;
    }
    if spec.seccomp {
        seccomp::apply(spec.network)?;
    }
    Ok(())
}

/// Enters a private mount namespace and makes the protected paths
/// read-only. `Ok(false)`: the kernel refused the namespace itself;
/// `Err`: a mount failed once inside it (then nothing runs).
fn protect_git(spec: &Spec) -> Result<bool, String> {
    if enter_mount_namespace().is_err() {
        return Ok(false);
    }
    // Pins first: a later bind of `.git` would hide the read-only mounts
    // made inside it.
    for dir in &spec.pin {
        if exists(dir) {
            rustix::mount::mount_bind(dir, dir)
                .map_err(|error| format!("cannot pin {}: {error}", dir.display()))?;
        }
    }
    for path in &spec.protect {
        if exists(path) {
            read_only(path)
                .map_err(|error| format!("cannot protect {}: {error}", path.display()))?;
        }
    }
    // The working directory was resolved before the mounts; resolve it
    // again so a command started inside `.git/hooks` sees them too.
    let cwd = std::env::current_dir().map_err(|error| format!("working directory: {error}"))?;
    std::env::set_current_dir(&cwd).map_err(|error| format!("working directory: {error}"))?;
    Ok(true)
}

fn exists(path: &Path) -> bool {
    rustix::fs::lstat(path).is_ok()
}

/// Root unshares the mount namespace directly; anyone else first enters
/// a user namespace that maps only their own ids.
fn enter_mount_namespace() -> io::Result<()> {
    use rustix::thread::UnshareFlags;
    let uid = rustix::process::geteuid();
    let gid = rustix::process::getegid();
    if uid.is_root() {
        unshare(UnshareFlags::NEWNS)?;
    } else {
        unshare(UnshareFlags::NEWUSER | UnshareFlags::NEWNS)?;
        write_proc("/proc/self/setgroups", "deny")?;
        write_proc("/proc/self/uid_map", &format!("{0} {0} 1", uid.as_raw()))?;
        write_proc("/proc/self/gid_map", &format!("{0} {0} 1", gid.as_raw()))?;
    }
    // Nothing mounted here may propagate back to the host.
    rustix::mount::mount_change(
        "/",
        MountPropagationFlags::PRIVATE | MountPropagationFlags::REC,
    )?;
    Ok(())
}

#[expect(
    deprecated,
    reason = "unshare is only unsafe with CLONE_FILES (fd tables across threads); namespaces are not"
)]
fn unshare(flags: rustix::thread::UnshareFlags) -> io::Result<()> {
    rustix::thread::unshare(flags).map_err(io::Error::from)
}

#[expect(
    clippy::disallowed_methods,
    reason = "the launcher's own id maps under /proc/self, not workspace files"
)]
fn write_proc(path: &str, text: &str) -> io::Result<()> {
    std::fs::write(path, text)
}

/// Binds `path` onto itself read-only, keeping the flags the kernel
/// locks on a mount from another user namespace.
fn read_only(path: &Path) -> io::Result<()> {
    rustix::mount::mount_bind(path, path)?;
    let kept = rustix::fs::statvfs(path)?.f_flag;
    let mut flags = MountFlags::BIND | MountFlags::RDONLY;
    for (statvfs, mount) in [
        (rustix::fs::StatVfsMountFlags::NOSUID, MountFlags::NOSUID),
        (rustix::fs::StatVfsMountFlags::NODEV, MountFlags::NODEV),
        (rustix::fs::StatVfsMountFlags::NOEXEC, MountFlags::NOEXEC),
        (rustix::fs::StatVfsMountFlags::NOATIME, MountFlags::NOATIME),
        (
            rustix::fs::StatVfsMountFlags::NODIRATIME,
            MountFlags::NODIRATIME,
        ),
        (
            rustix::fs::StatVfsMountFlags::RELATIME,
            MountFlags::RELATIME,
        ),
    ] {
        if kept.contains(statvfs) {
            flags |= mount;
        }
    }
    rustix::mount::mount_remount(path, flags, OsStr::new(""))?;
    Ok(())
}

/// Empties every capability set and the bounding set, and locks root out
/// of regaining them on `exec` — a root-run oy's children must not keep
/// CAP_SYS_PTRACE or CAP_SYS_ADMIN, with which they could read oy's
/// memory and environment whatever Landlock says.
fn drop_capabilities() -> io::Result<()> {
    let sets = rustix::thread::capabilities(None)?;
    if sets.permitted.contains(CapabilitySet::SETPCAP) {
        rustix::thread::set_capabilities_secure_bits(
            CapabilitiesSecureBits::NO_ROOT
                | CapabilitiesSecureBits::NO_ROOT_LOCKED
                | CapabilitiesSecureBits::NO_SETUID_FIXUP
                | CapabilitiesSecureBits::NO_SETUID_FIXUP_LOCKED
                | CapabilitiesSecureBits::NO_CAP_AMBIENT_RAISE
                | CapabilitiesSecureBits::NO_CAP_AMBIENT_RAISE_LOCKED,
        )?;
        for bit in 0..64 {
            let cap = CapabilitySet::from_bits_retain(1 << bit);
            match rustix::thread::remove_capability_from_bounding_set(cap) {
                // EINVAL: a capability this kernel does not have.
                Ok(()) | Err(rustix::io::Errno::INVAL) => {}
                Err(error) => return Err(error.into()),
            }
        }
    }
    let _ = rustix::thread::clear_ambient_capability_set();
    if !sets.permitted.is_empty() || !sets.inheritable.is_empty() {
        rustix::thread::set_capabilities(
            None,
            CapabilitySets {
                effective: CapabilitySet::empty(),
                permitted: CapabilitySet::empty(),
                inheritable: CapabilitySet::empty(),
            },
        )?;
    }
    Ok(())
}
