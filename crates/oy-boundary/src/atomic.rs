//! The atomic-write primitive: put new bytes in a fresh inode inside the
//! destination directory, make them durable, then swap the name over in one
//! `rename` (or `link`, for create-only), and make the directory durable.
//!
//! Every call here takes a directory handle and a single file name, so no
//! path traversal happens at this level: the caller already opened the
//! parent through the capability.
//!
//! Preferred route (Linux): an unnamed `O_TMPFILE` inode, linked into the
//! directory through `/proc/self/fd` only once it is complete. Create-only
//! writes link it straight to the final name, so they leave nothing behind
//! and cannot replace a file that appeared meanwhile. Replacing writes link
//! it to a fixed hidden name (`.NAME.oy-tmp`) and rename that over the
//! target; if the process dies in the microseconds between the two, the
//! hidden file is the only debris, and the next write of the same name
//! removes it. Where `O_TMPFILE` or procfs is missing, the hidden temp file
//! is created by name instead.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;

use cap_std::fs::Dir;
use rustix::fs::{AtFlags, Mode, OFlags, RenameFlags};
use rustix::io::Errno;

/// What to do when the destination name already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Existing {
    Replace,
    Refuse,
}

/// Suffix of the hidden temp name; also what debris looks like.
pub(crate) const TEMP_SUFFIX: &str = ".oy-tmp";
const NAME_MAX: usize = 255;

/// Writes `contents` to `name` in `parent` atomically.
pub(crate) fn write_new_inode(
    parent: &Dir,
    name: &OsStr,
    contents: &[u8],
    mode: Option<u32>,
    existing: Existing,
) -> io::Result<()> {
    if let Some(file) = open_anonymous(parent)? {
        fill(&file, contents, mode)?;
        if link_anonymous(&file, parent, name, existing)? {
            return sync_dir(parent);
        }
    }
    let temp = temp_name(name);
    let file = create_named(parent, &temp)?;
    let committed =
        fill(&file, contents, mode).and_then(|()| commit(parent, &temp, name, existing));
    if committed.is_err() {
        let _ = rustix::fs::unlinkat(parent, &temp, AtFlags::empty());
    }
    committed?;
    sync_dir(parent)
}

/// `fsync` on the directory itself, so the new name survives a power cut.
/// cap-std's `Dir` is an `O_PATH` handle, which `fsync` refuses, so a
/// readable handle to `.` is opened for it.
pub(crate) fn sync_dir(dir: &Dir) -> io::Result<()> {
    let readable = rustix::fs::openat(
        dir,
        ".",
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    rustix::fs::fsync(&readable)?;
    Ok(())
}

/// The fixed hidden temp name for `name` (hashed when it would be too long).
pub(crate) fn temp_name(name: &OsStr) -> OsString {
    let mut temp = OsString::from(".");
    temp.push(name);
    temp.push(TEMP_SUFFIX);
    if temp.len() <= NAME_MAX {
        return temp;
    }
    let mut hasher = std::hash::DefaultHasher::new();
    name.as_bytes().hash(&mut hasher);
    OsString::from(format!(".{:016x}{TEMP_SUFFIX}", hasher.finish()))
}

fn open_anonymous(parent: &Dir) -> io::Result<Option<File>> {
    match rustix::fs::openat(
        parent,
        ".",
        OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o666),
    ) {
        Ok(fd) => Ok(Some(File::from(fd))),
        // Kernel or filesystem without O_TMPFILE.
        Err(Errno::OPNOTSUPP | Errno::ISDIR | Errno::NOENT | Errno::INVAL) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

fn fill(file: &File, contents: &[u8], mode: Option<u32>) -> io::Result<()> {
    let mut writer = file;
    writer.write_all(contents)?;
    if let Some(mode) = mode {
        rustix::fs::fchmod(file, Mode::from_raw_mode(mode))?;
    }
    file.sync_all()
}

/// Gives the anonymous inode its name. `Ok(false)` when procfs is not
/// available, so the caller falls back to a named temp file.
fn link_anonymous(file: &File, parent: &Dir, name: &OsStr, existing: Existing) -> io::Result<bool> {
    let Ok(proc_fd) = rustix_linux_procfs::proc_self_fd() else {
        return Ok(false);
    };
    let fd_name = rustix::path::DecInt::from_fd(file);
    let link = |to: &OsStr| {
        rustix::fs::linkat(
            proc_fd,
            fd_name.as_c_str(),
            parent,
            to,
            AtFlags::SYMLINK_FOLLOW,
        )
    };
    match existing {
        Existing::Refuse => link(name)?,
        Existing::Replace => {
            let temp = temp_name(name);
            match link(&temp) {
                Err(Errno::EXIST) => {
                    // Debris of an earlier interrupted write of this name.
                    rustix::fs::unlinkat(parent, &temp, AtFlags::empty())?;
                    link(&temp)?;
                }
                other => other?,
            }
            if let Err(e) = rustix::fs::renameat(parent, &temp, parent, name) {
                let _ = rustix::fs::unlinkat(parent, &temp, AtFlags::empty());
                return Err(e.into());
            }
        }
    }
    Ok(true)
}

fn create_named(parent: &Dir, temp: &OsStr) -> io::Result<File> {
    let open = || {
        rustix::fs::openat(
            parent,
            temp,
            OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW,
            Mode::from_raw_mode(0o666),
        )
    };
    let fd = match open() {
        Err(Errno::EXIST) => {
            rustix::fs::unlinkat(parent, temp, AtFlags::empty())?;
            open()?
        }
        other => other?,
    };
    Ok(File::from(fd))
}

fn commit(parent: &Dir, temp: &OsStr, name: &OsStr, existing: Existing) -> io::Result<()> {
    match existing {
        Existing::Replace => rustix::fs::renameat(parent, temp, parent, name)?,
        Existing::Refuse => rename_no_replace(parent, temp, parent, name)?,
    }
    Ok(())
}

/// `renameat2(RENAME_NOREPLACE)`, falling back to check-then-rename on
/// filesystems that do not support the flag.
pub(crate) fn rename_no_replace(
    from_dir: &Dir,
    from: &OsStr,
    to_dir: &Dir,
    to: &OsStr,
) -> io::Result<()> {
    match rustix::fs::renameat_with(from_dir, from, to_dir, to, RenameFlags::NOREPLACE) {
        Err(Errno::INVAL | Errno::NOSYS) => {
            match rustix::fs::statat(to_dir, to, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(_) => return Err(io::Error::from(io::ErrorKind::AlreadyExists)),
                Err(Errno::NOENT) => {}
                Err(e) => return Err(e.into()),
            }
            rustix::fs::renameat(from_dir, from, to_dir, to)?;
            Ok(())
        }
        other => Ok(other?),
    }
}
