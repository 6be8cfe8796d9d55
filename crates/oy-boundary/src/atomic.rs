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
//! it to a hidden temp name and rename that over the target. Where
//! `O_TMPFILE` or procfs is missing, the hidden temp file is created by name
//! instead.
//!
//! Temp names are unique per write (`.NAME.oy-tmp.<pid>.<counter>`, hashed
//! when too long) and only ever created exclusively (`link` or `O_EXCL`),
//! so concurrent writes of one file never collide, and a file that already
//! has such a name — someone else's, or debris — is never removed or
//! reused: the next counter is tried instead. The only debris a `SIGKILL`
//! can leave is one such hidden, uniquely named file, in the microseconds
//! between linking and renaming (or, without `O_TMPFILE`, while the named
//! temp file is written). Nothing sweeps it, since a sweep could not tell
//! debris from a file another writer is about to rename.
//!
//! The temp inode is created with the final permission bits from the start
//! (then `fchmod`ed to exactly them, since the umask may have cleared some),
//! so content meant to be private is never readable by others, not even
//! while it is being written.

use std::cell::RefCell;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::fs::Dir;
use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, Mode, OFlags, RenameFlags};
use rustix::io::Errno;

/// What to do when the destination name already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Existing {
    Replace,
    Refuse,
}

/// Marks a hidden temp name; debris looks like `.NAME.oy-tmp.<pid>.<n>`.
pub(crate) const TEMP_MARK: &str = ".oy-tmp";
const NAME_MAX: usize = 255;
/// Names taken by other files are skipped; this many in a row means
/// something is wrong (or hostile), and the write fails instead.
const TEMP_ATTEMPTS: usize = 64;
/// Mode of a new file before the umask, as `open(2)` callers use.
const DEFAULT_MODE: u32 = 0o666;

/// Makes every temp name of this process distinct.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `contents` to `name` in `parent` atomically. `mode` is the final
/// permission bits (`None`: the umask default for a new file).
pub(crate) fn write_new_inode(
    parent: &Dir,
    name: &OsStr,
    contents: &[u8],
    mode: Option<u32>,
    existing: Existing,
) -> io::Result<()> {
    if let Some(file) = open_anonymous(parent, mode)? {
        fill(&file, contents)?;
        if link_anonymous(&file, parent, name, existing)? {
            sync_dir_after_commit(parent);
            return Ok(());
        }
    }
    let (temp, file) = create_named(parent, name, mode)?;
    let committed = fill(&file, contents).and_then(|()| commit(parent, &temp, name, existing));
    if committed.is_err() {
        // The name is this write's own (created exclusively above).
        let _ = rustix::fs::unlinkat(parent, &temp, AtFlags::empty());
    }
    committed?;
    sync_dir_after_commit(parent);
    Ok(())
}

/// `fsync` on the directory itself, so a new or removed name survives a
/// power cut. cap-std's `Dir` is an `O_PATH` handle, which `fsync` refuses,
/// so a readable handle to `.` is opened for it.
fn sync_dir(dir: &Dir) -> io::Result<()> {
    rustix::fs::fsync(open_readable(dir)?)?;
    Ok(())
}

/// [`sync_dir`] once the change is already committed (renamed, linked or
/// unlinked), ignoring failure. By then every reader sees the change, so
/// reporting an error — say `EACCES` opening `.` for reading in a
/// write-only (`0333`) directory — would call a completed operation failed
/// and invite a retry that does it twice. Only durability across a power
/// cut is lost, which the caller could not restore anyway.
pub(crate) fn sync_dir_after_commit(dir: &Dir) {
    let deferred = DEFERRED.with(|deferred| {
        let mut deferred = deferred.borrow_mut();
        let Some(dirs) = deferred.as_mut() else {
            return false;
        };
        // Each directory once: known by device and inode, held by a
        // readable handle until the batch ends.
        let Ok(stat) = rustix::fs::fstat(dir) else {
            return false;
        };
        let key = (stat.st_dev, stat.st_ino);
        if dirs.iter().any(|(known, _)| *known == key) {
            return true;
        }
        match open_readable(dir) {
            Ok(handle) => {
                dirs.push((key, handle));
                true
            }
            Err(_) => false,
        }
    });
    if !deferred {
        let _ = sync_dir(dir);
    }
}

/// A readable handle to `dir` itself, which `fsync` accepts.
fn open_readable(dir: &Dir) -> io::Result<OwnedFd> {
    Ok(rustix::fs::openat(
        dir,
        ".",
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?)
}

/// Directory handles a [`crate::Workspace::batch`] on this thread will
/// `fsync` at its end (`None` outside a batch), keyed by device and inode.
type Deferred = Option<Vec<((u64, u64), OwnedFd)>>;

thread_local! {
    static DEFERRED: RefCell<Deferred> = const { RefCell::new(None) };
}

/// Runs `changes` with the directory `fsync`s of every change it makes on
/// this thread held back, then does each directory's once. Every file's
/// own data is still made durable before it is renamed or linked into
/// place, so a crash never shows a torn file; only a name's move may be
/// lost across a power cut, until the batch's end (as before, until the
/// end of that one change). A nested batch joins the outer one.
pub(crate) fn batch<T>(changes: impl FnOnce() -> T) -> T {
    let outermost = DEFERRED.with(|deferred| {
        let mut deferred = deferred.borrow_mut();
        if deferred.is_some() {
            return false;
        }
        *deferred = Some(Vec::new());
        true
    });
    if !outermost {
        return changes();
    }
    /// Syncs and forgets the held directories also when `changes` panics.
    struct Flush;
    impl Drop for Flush {
        fn drop(&mut self) {
            let dirs = DEFERRED.with(|deferred| deferred.borrow_mut().take());
            let handles: Vec<OwnedFd> = dirs
                .unwrap_or_default()
                .into_iter()
                .map(|(_, handle)| handle)
                .collect();
            sync_all_at_once(&handles);
        }
    }
    let _flush = Flush;
    changes()
}

/// Threads that `fsync` at once, at most.
const SYNC_THREADS: usize = 8;

/// `fsync`s every handle, best effort, from up to [`SYNC_THREADS`]
/// threads at once: a journalling filesystem serves concurrent `fsync`s
/// with one journal commit where one after another would wait for one
/// commit each.
pub(crate) fn sync_all_at_once(handles: &[OwnedFd]) {
    if handles.len() < 2 {
        for handle in handles {
            let _ = rustix::fs::fsync(handle);
        }
        return;
    }
    let per_thread = handles.len().div_ceil(SYNC_THREADS);
    std::thread::scope(|scope| {
        for chunk in handles.chunks(per_thread) {
            scope.spawn(move || {
                for handle in chunk {
                    let _ = rustix::fs::fsync(handle);
                }
            });
        }
    });
}

/// A fresh hidden temp name for `name`: `.NAME.oy-tmp.<pid>.<counter>`, or
/// a hash of `NAME` in its place when that would exceed `NAME_MAX`.
fn temp_name(name: &OsStr) -> OsString {
    let mut temp = temp_prefix(name, std::process::id());
    temp.push(TEMP_COUNTER.fetch_add(1, Ordering::Relaxed).to_string());
    temp
}

/// What every temp name process `pid` gives `name` starts with, up to the
/// counter: `.NAME.oy-tmp.<pid>.` (or the hashed form, decided as for the
/// longest counter, so a name never changes form as the counter grows).
pub(crate) fn temp_prefix(name: &OsStr, pid: u32) -> OsString {
    let unique = format!("{TEMP_MARK}.{pid}.");
    let mut temp = OsString::from(".");
    temp.push(name);
    temp.push(&unique);
    if temp.len() + u64::MAX.to_string().len() <= NAME_MAX {
        return temp;
    }
    let mut hasher = std::hash::DefaultHasher::new();
    name.as_bytes().hash(&mut hasher);
    OsString::from(format!(".{:016x}{unique}", hasher.finish()))
}

/// Runs `create` with fresh temp names until one is not taken. An existing
/// file of that name is skipped, never removed.
fn with_fresh_temp<T>(
    name: &OsStr,
    mut create: impl FnMut(&OsStr) -> Result<T, Errno>,
) -> io::Result<(OsString, T)> {
    for _ in 0..TEMP_ATTEMPTS {
        let temp = temp_name(name);
        match create(&temp) {
            Ok(made) => return Ok((temp, made)),
            Err(Errno::EXIST) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "every temporary file name tried was taken",
    ))
}

fn initial_mode(mode: Option<u32>) -> Mode {
    Mode::from_raw_mode(mode.unwrap_or(DEFAULT_MODE) & 0o7777)
}

/// After creation with [`initial_mode`] (which the umask may have
/// narrowed), sets exactly the bits asked for.
fn set_exact_mode(file: &File, mode: Option<u32>) -> io::Result<()> {
    if let Some(mode) = mode {
        rustix::fs::fchmod(file, Mode::from_raw_mode(mode & 0o7777))?;
    }
    Ok(())
}

pub(crate) fn open_anonymous(parent: &Dir, mode: Option<u32>) -> io::Result<Option<File>> {
    let file = match rustix::fs::openat(
        parent,
        ".",
        OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC,
        initial_mode(mode),
    ) {
        Ok(fd) => File::from(fd),
        // Kernel or filesystem without O_TMPFILE.
        Err(Errno::OPNOTSUPP | Errno::ISDIR | Errno::NOENT | Errno::INVAL) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    set_exact_mode(&file, mode)?;
    Ok(Some(file))
}

fn fill(file: &File, contents: &[u8]) -> io::Result<()> {
    let mut writer = file;
    writer.write_all(contents)?;
    file.sync_all()
}

/// Gives the anonymous inode its name. `Ok(false)` when procfs is not
/// available, so the caller falls back to a named temp file.
pub(crate) fn link_anonymous(
    file: &File,
    parent: &Dir,
    name: &OsStr,
    existing: Existing,
) -> io::Result<bool> {
    let Ok(proc_fd) = rustix_linux_procfs::proc_self_fd() else {
        return Ok(false);
    };
    let fd_name = rustix::path::DecInt::from_fd(file);
    // `linkat` never replaces an existing name: it fails with EEXIST.
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
            let (temp, ()) = with_fresh_temp(name, link)?;
            if let Err(e) = rustix::fs::renameat(parent, &temp, parent, name) {
                let _ = rustix::fs::unlinkat(parent, &temp, AtFlags::empty());
                return Err(e.into());
            }
        }
    }
    Ok(true)
}

/// Creates a uniquely named hidden temp file with `O_EXCL`.
fn create_named(parent: &Dir, name: &OsStr, mode: Option<u32>) -> io::Result<(OsString, File)> {
    let (temp, fd) = with_fresh_temp(name, |temp| {
        rustix::fs::openat(
            parent,
            temp,
            OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW,
            initial_mode(mode),
        )
    })?;
    let file = File::from(fd);
    if let Err(e) = set_exact_mode(&file, mode) {
        let _ = rustix::fs::unlinkat(parent, &temp, AtFlags::empty());
        return Err(e);
    }
    Ok((temp, file))
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
