//! The way from the workspace root to each protected path (oy's own
//! config and data directories when the workspace holds them, `.oy/`, git's
//! parts): bound read-only, a protected directory cannot be written, but
//! the directories above it lie in the writable workspace, so a command
//! could rename one aside (`mv .local .local.moved`) and put a link to a
//! directory it filled in its place, redirecting what oy reads at its next
//! start. Every real directory on that way is pinned (bound onto itself:
//! renaming or removing a mount point fails with `EBUSY`), along the path
//! as named and along where it really leads; a link on the way is watched
//! and put back after the command.

use std::path::{Path, PathBuf};

/// Directories to pin and links to watch (with their targets) between
/// `root` and each of `protected`.
pub(crate) fn guarded_ways(
    root: &Path,
    protected: &[PathBuf],
) -> (Vec<PathBuf>, Vec<(PathBuf, PathBuf)>) {
    let mut pins = Vec::new();
    let mut links = Vec::new();
    for path in protected {
        // As named: real directories pinned, links watched.
        if let Ok(rel) = path.strip_prefix(root) {
            let mut at = root.to_path_buf();
            let names: Vec<_> = rel.components().collect();
            for name in names.iter().take(names.len().saturating_sub(1)) {
                at.push(name);
                match rustix::fs::lstat(&at)
                    .map(|stat| rustix::fs::FileType::from_raw_mode(stat.st_mode))
                {
                    Ok(rustix::fs::FileType::Directory) => pins.push(at.clone()),
                    Ok(rustix::fs::FileType::Symlink) => {
                        if let Some(target) = super::git_dirs::read_link(&at) {
                            links.push((at.clone(), target));
                        }
                        break;
                    }
                    _ => break,
                }
            }
        }
        // Where it really leads (through links), when that is inside.
        if let Some(real) = deepest_existing(path)
            && let Ok(rel) = real.strip_prefix(root)
        {
            let mut at = root.to_path_buf();
            for name in rel.components() {
                at.push(name);
                // The protected directory itself is bound read-only.
                let itself = at == *path || (at == real && real.file_name() == path.file_name());
                if !itself && is_directory(&at) {
                    pins.push(at.clone());
                }
            }
        }
    }
    pins.sort_by_key(|dir| dir.as_os_str().len());
    pins.dedup();
    links.dedup();
    (pins, links)
}

/// The canonical path of `path`, or of its deepest ancestor that exists.
fn deepest_existing(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .find_map(|at| rustix::fs::lstat(at).ok().and(canonical(at)))
}

#[expect(
    clippy::disallowed_methods,
    reason = "oy's own directories as the kernel resolves them, not workspace files"
)]
fn canonical(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

fn is_directory(path: &Path) -> bool {
    rustix::fs::lstat(path).is_ok_and(|stat| {
        rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::Directory
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[expect(clippy::disallowed_methods, reason = "test fixture")]
    fn every_directory_on_the_way_is_pinned_and_links_are_watched() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::create_dir_all(root.join(".local/share/oy")).unwrap();
        std::fs::create_dir_all(root.join("dotfiles/config/oy")).unwrap();
        std::os::unix::fs::symlink("dotfiles/config", root.join(".config")).unwrap();
        let protected = [
            root.join(".local/share/oy"),
            root.join(".config/oy"),
            root.join(".oy"),
        ];
        let (pins, links) = guarded_ways(&root, &protected);
        assert_eq!(
            pins,
            [
                root.join(".local"),
                root.join("dotfiles"),
                root.join(".local/share"),
                root.join("dotfiles/config"),
            ]
        );
        assert_eq!(
            links,
            [(root.join(".config"), PathBuf::from("dotfiles/config"))]
        );
        // A protected directory not made yet: its existing ancestors.
        let (pins, _) = guarded_ways(&root, &[root.join(".cache/a/oy")]);
        assert!(pins.is_empty(), "{pins:?}");
        std::fs::create_dir_all(root.join(".cache/a")).unwrap();
        let (pins, _) = guarded_ways(&root, &[root.join(".cache/a/oy")]);
        assert_eq!(pins, [root.join(".cache"), root.join(".cache/a")]);
    }
}
