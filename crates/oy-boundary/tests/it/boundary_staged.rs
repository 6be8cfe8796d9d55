//! Staged writes: nothing is visible until the commit, the commit checks
//! the destination as a write does at that moment (a parent swapped for a
//! link out of the root, a file that appeared, a mode that changed), and
//! a staged write that is dropped leaves nothing behind.

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};

use crate::support::{Fixture, refused, snapshot};

fn names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn staged_bytes_are_invisible_until_committed_and_keep_the_mode() {
    let fx = Fixture::new();
    fx.file("d/a.txt", "old a").file("d/b.txt", "old b");
    fs::set_permissions(fx.root.join("d/a.txt"), fs::Permissions::from_mode(0o640)).unwrap();
    let ws = &fx.ws;
    let (a, b, c) = (
        ws.path("d/a.txt").unwrap(),
        ws.path("d/b.txt").unwrap(),
        ws.path("d/c.txt").unwrap(),
    );
    let mut staged = vec![
        ws.stage(&a, b"new a").unwrap(),
        ws.stage(&b, b"new b").unwrap(),
        ws.stage(&c, b"new c").unwrap(),
    ];
    let before = snapshot(&fx.root);
    ws.sync_staged(staged.iter_mut()).unwrap();
    assert_eq!(
        snapshot(&fx.root),
        before,
        "staging changed what is visible"
    );
    let mut staged = staged.into_iter();
    let outcome = ws.commit_staged(staged.next().unwrap(), true).unwrap();
    assert!(!outcome.created);
    ws.commit_staged(staged.next().unwrap(), true).unwrap();
    let outcome = ws.commit_staged(staged.next().unwrap(), false).unwrap();
    assert!(outcome.created);
    assert_eq!(fx.read("d/a.txt"), "new a");
    assert_eq!(fx.read("d/b.txt"), "new b");
    assert_eq!(fx.read("d/c.txt"), "new c");
    let mode = fs::metadata(fx.root.join("d/a.txt"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o640);
    assert_eq!(names(&fx.root.join("d")), ["a.txt", "b.txt", "c.txt"]);
}

#[test]
fn a_staged_write_dropped_or_committed_unsynced_is_still_whole() {
    let fx = Fixture::new();
    fx.file("a.txt", "old");
    let ws = &fx.ws;
    let a = ws.path("a.txt").unwrap();
    drop(ws.stage(&a, b"dropped").unwrap());
    assert_eq!(fx.read("a.txt"), "old");
    assert_eq!(names(&fx.root), ["a.txt"], "a dropped stage left debris");
    // Never synced: the commit syncs it itself.
    let staged = ws.stage(&a, b"unsynced").unwrap();
    ws.commit_staged(staged, true).unwrap();
    assert_eq!(fx.read("a.txt"), "unsynced");
    assert_eq!(names(&fx.root), ["a.txt"]);
}

#[test]
fn a_parent_swapped_for_an_outside_link_after_staging_is_refused_at_commit() {
    let fx = Fixture::new();
    fx.file("d/secret.txt", "inside");
    let ws = &fx.ws;
    let p = ws.path("d/secret.txt").unwrap();
    let mut staged = vec![ws.stage(&p, b"planted").unwrap()];
    ws.sync_staged(staged.iter_mut()).unwrap();
    let before = fx.outside_snapshot();
    fs::rename(fx.root.join("d"), fx.root.join("was_d")).unwrap();
    symlink(&fx.outside, fx.root.join("d")).unwrap();
    let error = refused(ws.commit_staged(staged.pop().unwrap(), true));
    assert!(error.is_escape(), "{error}");
    assert_eq!(fx.outside_snapshot(), before, "the outside tree changed");
    assert_eq!(fx.read("was_d/secret.txt"), "inside");
}

#[test]
fn what_changed_since_staging_is_judged_at_commit() {
    let fx = Fixture::new();
    fx.file("a.txt", "old");
    let ws = &fx.ws;
    let (a, new) = (ws.path("a.txt").unwrap(), ws.path("new.txt").unwrap());
    let staged_a = ws.stage(&a, b"replaced").unwrap();
    let staged_new = ws.stage(&new, b"created").unwrap();
    // The mode changed: the new bytes get the mode the file has now.
    fs::set_permissions(fx.root.join("a.txt"), fs::Permissions::from_mode(0o600)).unwrap();
    ws.commit_staged(staged_a, true).unwrap();
    assert_eq!(fx.read("a.txt"), "replaced");
    let mode = fs::metadata(fx.root.join("a.txt"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    // Something appeared where a file is created: refused, left alone.
    fx.file("new.txt", "someone else's");
    assert!(refused(ws.commit_staged(staged_new, false)).is_already_exists());
    assert_eq!(fx.read("new.txt"), "someone else's");
    // A directory where a file was staged: refused as a write refuses it.
    let staged = ws.stage(&ws.path("gone.txt").unwrap(), b"x").unwrap();
    fs::create_dir(fx.root.join("gone.txt")).unwrap();
    assert!(ws.commit_staged(staged, true).is_err());
    assert!(fx.root.join("gone.txt").is_dir());
}
