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
    if spec.mounts && !protect_git(spec)? {
        // The probe expected a namespace and the kernel refused one (a
        // container's policy, say): everything else still applies, and the
        // command's output says what is missing.
        say(
            "oy sandbox: warning: .git/config, hooks and .oy are not protected, and files outside the workspace can have their mode and times changed, for this command: the kernel refused a mount namespace",
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

/// Files that hold the machine's own secrets, readable by root: masked
/// with `/dev/null` (a root-run oy's commands read them empty).
const MASKED: &[&str] = &[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/security/opasswd",
];

/// Enters a private mount namespace and, in it: every mount read-only
/// (Landlock governs opening files, not `chmod`, `utimes` or `setxattr` of
/// one outside the workspace), the writable hierarchies bound back
/// read-write, each git directory bound onto itself, the protected paths
/// read-only, and the machine's secrets masked. `Ok(false)`: the kernel
/// refused the namespace itself; `Err`: a mount failed once inside it
/// (then nothing runs).
fn protect_git(spec: &Spec) -> Result<bool, String> {
    if enter_mount_namespace().is_err() {
        return Ok(false);
    }
    read_only_everywhere()?;
    for dir in &spec.write {
        if exists(dir) {
            read_write(dir).map_err(|error| format!("cannot bind {}: {error}", dir.display()))?;
        }
    }
    // Pins before protections: a later bind of `.git` would hide the
    // read-only mounts made inside it. Recursive, so a pin of a common git
    // directory keeps the read-write binds of its `objects/` or a
    // worktree's directory below it.
    for dir in &spec.pin {
        if exists(dir) {
            rustix::mount::mount_bind_recursive(dir, dir)
                .map_err(|error| format!("cannot pin {}: {error}", dir.display()))?;
        }
    }
    for path in &spec.protect {
        if exists(path) {
            read_only(path)
                .map_err(|error| format!("cannot protect {}: {error}", path.display()))?;
        }
    }
    for path in masked() {
        // Best effort: a file we cannot cover is one Landlock still rules.
        let _ = rustix::mount::mount_bind("/dev/null", &path);
    }
    // The working directory was resolved before the mounts; resolve it
    // again so a command started inside `.git/hooks` sees them too.
    let cwd = std::env::current_dir().map_err(|error| format!("working directory: {error}"))?;
    std::env::set_current_dir(&cwd).map_err(|error| format!("working directory: {error}"))?;
    Ok(true)
}

/// The existing regular files of [`MASKED`] and the SSH host keys.
fn masked() -> Vec<std::path::PathBuf> {
    let mut paths: Vec<std::path::PathBuf> = MASKED.iter().map(Into::into).collect();
    if let Ok(entries) = read_dir("/etc/ssh") {
        paths.extend(
            entries
                .into_iter()
                .filter(|name| name.starts_with("ssh_host_") && name.ends_with("_key"))
                .map(|name| Path::new("/etc/ssh").join(name)),
        );
    }
    paths.retain(|path| {
        rustix::fs::lstat(path).is_ok_and(|stat| {
            rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::RegularFile
        })
    });
    paths
}

#[expect(
    clippy::disallowed_methods,
    reason = "the system's /etc/ssh, listed to mask host keys, not workspace files"
)]
fn read_dir(path: &str) -> io::Result<Vec<String>> {
    Ok(std::fs::read_dir(path)?
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect())
}

/// Every mount of this (private) namespace, remounted read-only.
fn read_only_everywhere() -> Result<(), String> {
    let table =
        read_mountinfo().map_err(|error| format!("cannot read the mount table: {error}"))?;
    for mount_point in mount_points(&table) {
        if let Err(error) = remount(&mount_point, true) {
            // A mount we cannot even look at (an autofs trigger, a
            // namespace file) holds nothing to write; any other failure
            // would leave a writable hierarchy, so nothing runs.
            if !matches!(
                error.raw_os_error(),
                Some(libc::EACCES | libc::ENOENT | libc::ENOTDIR | libc::ELOOP)
            ) {
                return Err(format!(
                    "cannot make {} read-only: {error}",
                    mount_point.display()
                ));
            }
        }
    }
    Ok(())
}

#[expect(
    clippy::disallowed_methods,
    reason = "the launcher's own mount table under /proc, not workspace files"
)]
fn read_mountinfo() -> io::Result<String> {
    std::fs::read_to_string("/proc/self/mountinfo")
}

/// The mount points of a `/proc/self/mountinfo` text (field 5, with its
/// octal escapes for space, tab, newline and backslash undone).
fn mount_points(table: &str) -> Vec<std::path::PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    table
        .lines()
        .filter_map(|line| line.split(' ').nth(4))
        .map(|field| {
            let bytes = field.as_bytes();
            let mut out = Vec::with_capacity(bytes.len());
            let mut at = 0;
            while at < bytes.len() {
                let octal = bytes.get(at + 1..at + 4).filter(|digits| {
                    bytes[at] == b'\\' && digits.iter().all(|digit| (b'0'..=b'7').contains(digit))
                });
                match octal {
                    Some(digits) => {
                        let value = digits
                            .iter()
                            .fold(0_u32, |acc, digit| acc * 8 + u32::from(digit - b'0'));
                        out.push(u8::try_from(value).unwrap_or(b'?'));
                        at += 4;
                    }
                    None => {
                        out.push(bytes[at]);
                        at += 1;
                    }
                }
            }
            Path::new(std::ffi::OsStr::from_bytes(&out)).to_path_buf()
        })
        .collect()
}

/// Binds `dir` (and what is mounted below it) onto itself read-write.
fn read_write(dir: &Path) -> io::Result<()> {
    rustix::mount::mount_bind_recursive(dir, dir)?;
    remount(dir, false)
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

/// Binds `path` onto itself read-only.
fn read_only(path: &Path) -> io::Result<()> {
    rustix::mount::mount_bind(path, path)?;
    remount(path, true)
}

/// Remounts the mount at `path` read-only or read-write, keeping the
/// flags the kernel locks on a mount from another user namespace.
fn remount(path: &Path, read_only: bool) -> io::Result<()> {
    let kept = rustix::fs::statvfs(path)?.f_flag;
    let mut flags = MountFlags::BIND;
    if read_only {
        flags |= MountFlags::RDONLY;
    }
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
