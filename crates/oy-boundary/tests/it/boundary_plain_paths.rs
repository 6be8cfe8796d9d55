//! Paths with no link in them are resolved in one `openat2` that may
//! follow no link; anything else takes the component-by-component walk.
//! These tests change a tree between (and during) operations on the same
//! paths, so that a path is plain for one call and holds a link for the
//! next: a parent or a final name replaced by a link, hard links, and a
//! batch of changes raced by a swapper.

use std::fs;
use std::os::unix::fs::symlink;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use oy_boundary::{BoundaryError, FileKind};

use crate::support::{Fixture, SECRET, exchange, files_containing, refused};

#[test]
fn a_parent_replaced_by_a_link_is_followed_only_while_it_stays_inside() {
    let fx = Fixture::new();
    fx.file("deep/a/f.txt", "one").file("other/f.txt", "other");
    let ws = &fx.ws;
    let f = ws.path("deep/a/f.txt").unwrap();
    let inner = ws.path("deep/a/inner.txt").unwrap();
    assert_eq!(ws.read_bytes(&f, 64).unwrap(), b"one");
    ws.write(&f, b"two").unwrap();
    let before = fx.outside_snapshot();

    // The parent becomes a link out of the root.
    fs::rename(fx.root.join("deep/a"), fx.root.join("deep/was_a")).unwrap();
    symlink(fx.outside.join("dir"), fx.root.join("deep/a")).unwrap();
    assert!(refused(ws.read_bytes(&inner, 64)).is_escape());
    assert!(refused(ws.metadata(&inner)).is_escape());
    assert!(refused(ws.resolved(&inner, true)).is_escape());
    assert!(refused(ws.write(&f, b"three")).is_escape());
    assert!(refused(ws.write(&inner, b"three")).is_escape());
    assert!(refused(ws.create_new(&ws.path("deep/a/new.txt").unwrap(), b"x")).is_escape());
    assert_eq!(fx.outside_snapshot(), before, "the outside tree changed");

    // A link that stays inside is followed, to where it points.
    fs::remove_file(fx.root.join("deep/a")).unwrap();
    symlink("../other", fx.root.join("deep/a")).unwrap();
    assert_eq!(ws.read_bytes(&f, 64).unwrap(), b"other");
    assert_eq!(ws.resolved(&f, true).unwrap().to_text(), "other/f.txt");
    ws.write(&f, b"through").unwrap();
    assert_eq!(fx.read("other/f.txt"), "through");
    assert_eq!(fx.read("deep/was_a/f.txt"), "two");
}

#[test]
fn a_final_name_replaced_by_a_link_is_followed_only_inside_and_removed_itself() {
    let fx = Fixture::new();
    fx.file("f.txt", "mine").file("g.txt", "g");
    let ws = &fx.ws;
    let f = ws.path("f.txt").unwrap();
    assert_eq!(ws.read_bytes(&f, 64).unwrap(), b"mine");
    let before = fx.outside_snapshot();

    fs::remove_file(fx.root.join("f.txt")).unwrap();
    symlink(fx.outside.join("secret.txt"), fx.root.join("f.txt")).unwrap();
    assert!(refused(ws.read_bytes(&f, 64)).is_escape());
    assert!(refused(ws.write(&f, b"overwritten")).is_escape());
    assert!(refused(ws.append(&f, b"more")).is_escape());
    assert_eq!(ws.symlink_metadata(&f).unwrap().kind, FileKind::Symlink);
    assert_eq!(ws.resolved(&f, false).unwrap().to_text(), "f.txt");
    // Not following the link: a restore refuses it, a removal removes it.
    assert!(matches!(
        refused(ws.restore_file(&f, b"restored", 0o644)),
        BoundaryError::NotAFile { .. }
    ));
    ws.remove(&f, false).unwrap();
    assert_eq!(fx.outside_snapshot(), before, "the outside tree changed");

    // A final link inside is followed.
    symlink("g.txt", fx.root.join("f.txt")).unwrap();
    assert_eq!(ws.read_bytes(&f, 64).unwrap(), b"g");
    assert_eq!(ws.resolved(&f, true).unwrap().to_text(), "g.txt");
}

#[test]
fn plain_paths_through_a_file_or_onto_the_wrong_kind_keep_their_errors() {
    let fx = Fixture::new();
    fx.file("file.txt", "x").file("dir/y.txt", "y");
    let ws = &fx.ws;
    assert!(refused(ws.read_bytes(&ws.path("file.txt/x").unwrap(), 64)).is_not_found());
    assert!(matches!(
        refused(ws.metadata(&ws.path("file.txt/").unwrap())),
        BoundaryError::NotADirectory { .. }
    ));
    assert!(matches!(
        refused(ws.read_bytes(&ws.path("dir").unwrap(), 64)),
        BoundaryError::NotAFile { .. }
    ));
    assert!(refused(ws.read_bytes(&ws.path("missing/x").unwrap(), 64)).is_not_found());
    assert!(
        refused(ws.write(&ws.path("file.txt/x").unwrap(), b"x"))
            .to_string()
            .contains("file.txt")
    );
    // A missing name in a plain directory is created there.
    ws.write(&ws.path("dir/new.txt").unwrap(), b"new").unwrap();
    assert_eq!(fx.read("dir/new.txt"), "new");
    ws.write(&ws.path("made/deeper/new.txt").unwrap(), b"deep")
        .unwrap();
    assert_eq!(fx.read("made/deeper/new.txt"), "deep");
}

#[test]
fn hard_links_inside_are_one_file_and_a_write_replaces_only_its_name() {
    let fx = Fixture::new();
    fx.file("a.txt", "shared");
    fs::hard_link(fx.root.join("a.txt"), fx.root.join("b.txt")).unwrap();
    fs::hard_link(fx.outside.join("secret.txt"), fx.root.join("c.txt")).unwrap();
    let ws = &fx.ws;
    let (a, b, c) = (
        ws.path("a.txt").unwrap(),
        ws.path("b.txt").unwrap(),
        ws.path("c.txt").unwrap(),
    );
    assert_eq!(
        ws.metadata(&a).unwrap().file_id,
        ws.metadata(&b).unwrap().file_id
    );
    ws.write(&a, b"changed").unwrap();
    assert_eq!(fx.read("b.txt"), "shared");
    let before = fx.outside_snapshot();
    ws.write(&c, b"not the secret").unwrap();
    ws.append(&c, b"!").unwrap();
    assert_eq!(fx.outside_snapshot(), before, "the outside file changed");
}

/// The calls a patch makes for each file (resolve, stat, read, write),
/// inside one batch, while a parent directory keeps being swapped for a
/// link out of the root: nothing outside is read or changed.
#[test]
fn a_batch_of_changes_raced_by_a_parent_swapped_for_an_outside_link_stays_inside() {
    let fx = Fixture::new();
    for i in 0..4 {
        fx.file(&format!("sw/f{i}.txt"), "inside");
    }
    fs::write(fx.outside.join("f0.txt"), SECRET).unwrap();
    fx.link("link_out", &fx.outside);
    let before = fx.outside_snapshot();
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let swapper = {
        let (stop, swaps, root) = (stop.clone(), swaps.clone(), fx.root.clone());
        std::thread::spawn(move || {
            let (sw, link) = (root.join("sw"), root.join("link_out"));
            while !stop.load(Ordering::Relaxed) {
                exchange(&sw, &link).unwrap();
                std::thread::yield_now();
                exchange(&sw, &link).unwrap();
                swaps.fetch_add(1, Ordering::Relaxed);
                std::thread::yield_now();
            }
        })
    };
    let ws = &fx.ws;
    let paths: Vec<_> = (0..4)
        .map(|i| ws.path(format!("sw/f{i}.txt")).unwrap())
        .collect();
    let deadline = Instant::now() + Duration::from_secs(15);
    let (mut rounds, mut landed) = (0, 0);
    while Instant::now() < deadline && (rounds < 2000 || landed == 0) {
        rounds += 1;
        ws.batch(|| {
            for path in &paths {
                let _ = ws.resolved(path, true);
                let _ = ws.metadata(path);
                if let Ok(bytes) = ws.read_bytes(path, 1024) {
                    assert!(!String::from_utf8_lossy(&bytes).contains(SECRET));
                }
                if ws.write(path, b"inside").is_ok() {
                    landed += 1;
                }
            }
        });
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(swaps.load(Ordering::Relaxed) > 0, "the swapper never ran");
    assert!(
        landed > 0,
        "no write went through: the race was not exercised"
    );
    assert_eq!(fx.outside_snapshot(), before, "the outside tree changed");
    assert_eq!(
        files_containing(&fx.root, SECRET),
        Vec::<std::path::PathBuf>::new(),
        "secret content was copied inside"
    );
}
