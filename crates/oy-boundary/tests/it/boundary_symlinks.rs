//! Symlinks: final, ancestor, dangling, chained, looping and racing links,
//! and hard links, checked against the outside tree after every refusal.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use oy_boundary::{BoundaryError, EscapeRoute, FileKind, LineWindow, WalkOptions, Workspace};

use crate::support::{Fixture, SECRET, assert_symlink_escape, exchange, files_containing, refused};

/// Runs every operation that follows `path` and asserts each is an escape
/// through `link`, that nothing leaks, and that nothing outside changed.
fn assert_every_following_operation_escapes(fx: &Fixture, path: &str, link: &str) {
    let before = fx.outside_snapshot();
    let ws = &fx.ws;
    let p = ws.path(path).unwrap();
    let check = |what: &str, err: BoundaryError| {
        assert!(err.is_escape(), "{what} {path}: {err:?}");
        assert_symlink_escape(&err, link);
    };
    check("read_bytes", refused(ws.read_bytes(&p, 1 << 20)));
    check("read_text", refused(ws.read_text(&p, 1 << 20)));
    check(
        "read_lines",
        refused(ws.read_lines(&p, LineWindow::default())),
    );
    check("is_text", refused(ws.is_text(&p)));
    check("open_file", refused(ws.open_file(&p)));
    check("metadata", refused(ws.metadata(&p)));
    check("write", refused(ws.write(&p, b"PWNED")));
    check("append", refused(ws.append(&p, b"PWNED")));
    check("create_dir_all", refused(ws.create_dir_all(&p)));
    check("walk", refused(ws.walk(&WalkOptions::new(p.clone()))));
    assert_eq!(
        fx.outside_snapshot(),
        before,
        "{path}: the outside tree changed"
    );
}

#[test]
fn follows_relative_final_symlink_to_file_inside() {
    let fx = Fixture::new();
    fx.file("target.txt", "inside")
        .link("link.txt", "target.txt");
    fx.file("sub/deep.txt", "deep")
        .link("sub/up.txt", "../target.txt");
    let ws = &fx.ws;
    let link = ws.path("link.txt").unwrap();
    assert_eq!(ws.read_text(&link, 100).unwrap(), "inside");
    assert_eq!(ws.metadata(&link).unwrap().kind, FileKind::File);
    assert_eq!(ws.symlink_metadata(&link).unwrap().kind, FileKind::Symlink);
    assert!(ws.is_text(&link).unwrap());
    let up = ws.path("sub/up.txt").unwrap();
    assert_eq!(ws.read_bytes(&up, 100).unwrap(), b"inside");
    let lines = ws.read_lines(&up, LineWindow::default()).unwrap();
    assert_eq!(lines.lines[0].text, "inside");
}

#[test]
fn follows_absolute_symlinks_that_point_inside() {
    let fx = Fixture::new();
    fx.file("real/file.txt", "absolute-ok");
    fx.link("abs_file", fx.root.join("real/file.txt"));
    fx.link("abs_dir", fx.root.join("real"));
    fx.link("nested/abs_root", &fx.root);
    let ws = &fx.ws;
    for path in [
        "abs_file",
        "abs_dir/file.txt",
        "nested/abs_root/real/file.txt",
    ] {
        let p = ws.path(path).unwrap();
        assert_eq!(ws.read_text(&p, 100).unwrap(), "absolute-ok", "{path}");
    }
    ws.write(&ws.path("abs_dir/new.txt").unwrap(), b"via abs link")
        .unwrap();
    assert_eq!(fx.read("real/new.txt"), "via abs link");
    assert!(
        fs::symlink_metadata(fx.root.join("abs_dir"))
            .unwrap()
            .is_symlink()
    );
}

#[test]
fn absolute_link_spelled_with_the_symlinked_root_the_workspace_was_opened_by_works() {
    let fx = Fixture::new();
    let alias = fx.root.parent().unwrap().join("root-alias");
    symlink(&fx.root, &alias).unwrap();
    let ws = Workspace::open(&alias).unwrap();
    fx.file("t.txt", "aliased");
    fx.link("via_alias", alias.join("t.txt"));
    fx.link("alias_out", alias.join("../outside/secret.txt"));
    let p = ws.path("via_alias").unwrap();
    assert_eq!(ws.read_text(&p, 100).unwrap(), "aliased");
    let err = refused(ws.read_text(&ws.path("alias_out").unwrap(), 100));
    assert_symlink_escape(&err, "alias_out");
}

#[test]
fn rejects_final_symlink_to_file_outside() {
    let fx = Fixture::new();
    fx.link("abs.txt", fx.outside.join("secret.txt"));
    fx.link("rel.txt", "../outside/secret.txt");
    fx.link("sub/rel.txt", "../../outside/dir/inner.txt");
    assert_every_following_operation_escapes(&fx, "abs.txt", "abs.txt");
    assert_every_following_operation_escapes(&fx, "rel.txt", "rel.txt");
    assert_every_following_operation_escapes(&fx, "sub/rel.txt", "sub/rel.txt");
}

#[test]
fn rejects_symlink_escape_in_ancestor() {
    let fx = Fixture::new();
    fx.link("out_abs", &fx.outside);
    fx.link("a/b/out_rel", "../../../outside");
    for path in [
        "out_abs/secret.txt",
        "out_abs/dir/inner.txt",
        "out_abs/dir",
        "out_abs/new/deeper.txt",
    ] {
        assert_every_following_operation_escapes(&fx, path, "out_abs");
    }
    for path in ["a/b/out_rel/secret.txt", "a/b/out_rel/dir/new.txt"] {
        assert_every_following_operation_escapes(&fx, path, "a/b/out_rel");
    }
    // Operations on the last component without following it still need a
    // safe ancestor chain.
    let before = fx.outside_snapshot();
    let ws = &fx.ws;
    let p = ws.path("out_abs/secret.txt").unwrap();
    assert!(refused(ws.symlink_metadata(&p)).is_escape());
    assert!(refused(ws.create_new(&p, b"PWNED")).is_escape());
    assert!(refused(ws.remove(&p, false)).is_escape());
    assert!(refused(ws.remove(&ws.path("out_abs/dir").unwrap(), true)).is_escape());
    let here = ws.path("here.txt").unwrap();
    assert!(refused(ws.rename(&p, &here, true)).is_escape());
    assert!(!fx.root.join("here.txt").exists());
    assert_eq!(fx.outside_snapshot(), before);
}

#[test]
fn escape_error_names_the_link_and_its_stored_target() {
    let fx = Fixture::new();
    let target = fx.outside.join("dir");
    fx.link("a/b/out", &target);
    let path = fx.ws.path("a/b/out/inner.txt").unwrap();
    match refused(fx.ws.read_text(&path, 100)) {
        BoundaryError::Escape {
            path,
            route: EscapeRoute::Symlink { link, target: t },
        } => {
            assert_eq!(path, "a/b/out/inner.txt");
            assert_eq!(link, Path::new("a/b/out"));
            assert_eq!(t, target);
        }
        other => panic!("expected a symlink escape, got {other:?}"),
    }
}

#[test]
fn rejects_dotdot_in_link_target_that_climbs_out() {
    let fx = Fixture::new();
    fx.file("a/b/c/keep.txt", "x");
    fx.link("a/b/c/climb", "../../../../outside/secret.txt");
    fx.link("a/b/c/climb_dir", "../../../..");
    fx.link("a/up_then_out", "./../../outside");
    assert_every_following_operation_escapes(&fx, "a/b/c/climb", "a/b/c/climb");
    assert_every_following_operation_escapes(
        &fx,
        "a/b/c/climb_dir/outside/secret.txt",
        "a/b/c/climb_dir",
    );
    assert_every_following_operation_escapes(&fx, "a/up_then_out/secret.txt", "a/up_then_out");
}

#[test]
fn dangling_symlink_pointing_inside_reads_not_found_and_write_creates_target() {
    let fx = Fixture::new();
    fx.link("dangling", "sub/new.txt");
    fx.link("dangling_abs", fx.root.join("other.txt"));
    let ws = &fx.ws;
    let p = ws.path("dangling").unwrap();
    assert!(refused(ws.read_text(&p, 100)).is_not_found());
    assert!(refused(ws.read_lines(&p, LineWindow::default())).is_not_found());
    assert!(refused(ws.metadata(&p)).is_not_found());
    assert_eq!(ws.symlink_metadata(&p).unwrap().kind, FileKind::Symlink);

    let outcome = ws.write(&p, b"made through link").unwrap();
    assert!(outcome.created);
    assert_eq!(fx.read("sub/new.txt"), "made through link");
    assert!(
        fs::symlink_metadata(fx.root.join("dangling"))
            .unwrap()
            .is_symlink()
    );
    assert_eq!(ws.read_text(&p, 100).unwrap(), "made through link");

    let abs = ws.path("dangling_abs").unwrap();
    assert!(ws.append(&abs, b"appended").unwrap().created);
    assert_eq!(fx.read("other.txt"), "appended");
}

#[test]
fn dangling_symlink_pointing_outside_is_an_escape_and_creates_nothing() {
    let fx = Fixture::new();
    fx.link("abs_missing", fx.outside.join("planted.txt"));
    fx.link("rel_missing", "../outside/planted.txt");
    fx.link("dir_missing", fx.outside.join("newdir"));
    assert_every_following_operation_escapes(&fx, "abs_missing", "abs_missing");
    assert_every_following_operation_escapes(&fx, "rel_missing", "rel_missing");
    assert_every_following_operation_escapes(&fx, "dir_missing/x.txt", "dir_missing");
    assert!(!fx.outside.join("planted.txt").exists());
    assert!(!fx.outside.join("newdir").exists());
}

#[test]
fn symlink_chain_that_stays_inside_resolves() {
    let fx = Fixture::new();
    fx.file("data/file.txt", "end of chain");
    fx.link("c", "data/file.txt");
    fx.link("links/b", "../c");
    fx.link("a", fx.root.join("links/b"));
    fx.link("d1", "data");
    fx.link("d2", "d1");
    let ws = &fx.ws;
    assert_eq!(
        ws.read_text(&ws.path("a").unwrap(), 100).unwrap(),
        "end of chain"
    );
    assert_eq!(
        ws.read_text(&ws.path("d2/file.txt").unwrap(), 100).unwrap(),
        "end of chain"
    );
    ws.write(&ws.path("a").unwrap(), b"rewritten").unwrap();
    assert_eq!(fx.read("data/file.txt"), "rewritten");
    for link in ["a", "links/b", "c"] {
        assert!(
            fs::symlink_metadata(fx.root.join(link))
                .unwrap()
                .is_symlink()
        );
    }
    // A long chain that stays under the kernel's 40-hop limit still works.
    fx.link("hop0", "data/file.txt");
    for i in 1..20 {
        fx.link(&format!("hop{i}"), format!("hop{}", i - 1));
    }
    assert_eq!(
        ws.read_text(&ws.path("hop19").unwrap(), 100).unwrap(),
        "rewritten"
    );
}

#[test]
fn symlink_chain_inside_to_inside_to_outside_is_refused() {
    let fx = Fixture::new();
    fx.link("c", "../outside/secret.txt");
    fx.link("links/b", "../c");
    fx.link("a", "links/b");
    fx.link("dc", fx.outside.join("dir"));
    fx.link("db", "dc");
    fx.link("da", fx.root.join("db"));
    assert_every_following_operation_escapes(&fx, "a", "c");
    assert_every_following_operation_escapes(&fx, "da/inner.txt", "dc");
}

#[test]
fn symlink_loops_are_reported_as_symlink_loop() {
    let fx = Fixture::new();
    fx.link("self", "self");
    fx.link("ping", "pong");
    fx.link("pong", fx.root.join("ping"));
    fx.link("dirloop", "dirloop/x");
    for i in 0..50 {
        fx.link(&format!("long{i}"), format!("long{}", i + 1));
    }
    fx.link("long50", "long0");
    let before = fx.outside_snapshot();
    let ws = &fx.ws;
    for path in ["self", "ping", "pong/child.txt", "dirloop/y", "long0"] {
        let p = ws.path(path).unwrap();
        let is_loop = |err: BoundaryError| matches!(err, BoundaryError::SymlinkLoop { .. });
        assert!(is_loop(refused(ws.read_text(&p, 100))), "{path}");
        assert!(is_loop(refused(ws.metadata(&p))), "{path}");
        assert!(is_loop(refused(ws.write(&p, b"x"))), "{path}");
        assert!(is_loop(refused(ws.create_dir_all(&p))), "{path}");
    }
    // The link itself can still be looked at and removed.
    let p = ws.path("self").unwrap();
    assert_eq!(ws.symlink_metadata(&p).unwrap().kind, FileKind::Symlink);
    assert_eq!(ws.remove(&p, false).unwrap(), FileKind::Symlink);
    assert_eq!(fx.outside_snapshot(), before);
}

#[test]
fn symlink_to_the_root_itself_stays_inside() {
    let fx = Fixture::new();
    fx.file("file.txt", "at root");
    fx.link("dot", ".");
    fx.link("abs_root", &fx.root);
    fx.link("sub/up", "..");
    let ws = &fx.ws;
    for path in [
        "dot/file.txt",
        "abs_root/file.txt",
        "sub/up/file.txt",
        "dot/abs_root/sub/up/dot/file.txt",
    ] {
        let p = ws.path(path).unwrap();
        assert_eq!(ws.read_text(&p, 100).unwrap(), "at root", "{path}");
    }
    ws.write(&ws.path("sub/up/new.txt").unwrap(), b"n").unwrap();
    assert_eq!(fx.read("new.txt"), "n");
    let dot = ws.path("dot").unwrap();
    assert_eq!(ws.metadata(&dot).unwrap().kind, FileKind::Directory);
    assert!(matches!(
        refused(ws.read_text(&dot, 100)),
        BoundaryError::NotAFile {
            kind: FileKind::Directory,
            ..
        }
    ));
    // Writing "to the root" through the link must not replace it.
    refused(ws.write(&ws.path("abs_root").unwrap(), b"x"));
    // Removing the link removes the link only.
    assert_eq!(ws.remove(&dot, true).unwrap(), FileKind::Symlink);
    assert!(fx.root.join("file.txt").exists());
    assert!(fx.root.is_dir());
}

#[test]
fn symlink_to_the_parent_of_the_root_is_an_escape() {
    let fx = Fixture::new();
    fx.link("parent", "..");
    fx.link("parent_abs", fx.root.parent().unwrap());
    assert_every_following_operation_escapes(&fx, "parent", "parent");
    assert_every_following_operation_escapes(&fx, "parent/outside/secret.txt", "parent");
    assert_every_following_operation_escapes(&fx, "parent/wsroot/x.txt", "parent");
    assert_every_following_operation_escapes(&fx, "parent_abs/outside/secret.txt", "parent_abs");
}

#[test]
fn symlink_metadata_reports_an_outside_link_without_following_it() {
    let fx = Fixture::new();
    let target = fx.outside.join("secret.txt");
    fx.link("leak", &target);
    let meta = fx
        .ws
        .symlink_metadata(&fx.ws.path("leak").unwrap())
        .unwrap();
    assert_eq!(meta.kind, FileKind::Symlink);
    assert_eq!(meta.len, target.as_os_str().len() as u64);
    assert_ne!(meta.len, SECRET.len() as u64);
}

/// Swaps `a` and `b` atomically (both always exist).

#[test]
fn racing_swap_of_a_directory_for_an_outside_symlink_never_leaks_or_writes_outside() {
    let fx = Fixture::new();
    fx.file("sw/secret.txt", "inside")
        .file("sw/dir/inner.txt", "inside");
    fx.link("link_abs", &fx.outside);
    fx.link("link_rel", "../outside");
    let before = fx.outside_snapshot();

    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let swapper = {
        let (stop, swaps, root) = (stop.clone(), swaps.clone(), fx.root.clone());
        std::thread::spawn(move || {
            let sw = root.join("sw");
            let links = [root.join("link_abs"), root.join("link_rel")];
            let mut i = 0usize;
            while !stop.load(Ordering::Relaxed) {
                let link = &links[i % 2];
                // Directory out, link in; then back.
                exchange(&sw, link).unwrap();
                std::thread::yield_now();
                exchange(&sw, link).unwrap();
                std::thread::yield_now();
                i += 1;
                swaps.store(i, Ordering::Relaxed);
            }
        })
    };

    let ws = &fx.ws;
    let secret = ws.path("sw/secret.txt").unwrap();
    let inner = ws.path("sw/dir/inner.txt").unwrap();
    let fresh = ws.path("sw/planted.txt").unwrap();
    let fresh_dir = ws.path("sw/planted_dir/x").unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut reads_ok = 0;
    // At least 3000 rounds, and on until some reads went through: on a
    // loaded machine the swapper can sit in the link state for a long time.
    for i in 0.. {
        if Instant::now() > deadline || (i >= 3000 && reads_ok > 0) {
            break;
        }
        for p in [&secret, &inner] {
            if let Ok(text) = ws.read_text(p, 1024) {
                assert!(!text.contains(SECRET), "iteration {i}: read the secret");
                reads_ok += 1;
            }
            if let Ok(bytes) = ws.read_bytes(p, 1024) {
                assert!(!String::from_utf8_lossy(&bytes).contains(SECRET));
            }
        }
        if let Ok(slice) = ws.read_lines(&inner, LineWindow::default()) {
            assert!(slice.lines.iter().all(|l| !l.text.contains(SECRET)));
        }
        let _ = ws.write(&secret, b"inside");
        if i % 8 == 0 {
            let _ = ws.append(&inner, b"+");
            let _ = ws.write(&fresh, b"planted");
            let _ = ws.create_dir_all(&fresh_dir);
            let _ = ws.remove(&fresh, false);
            let _ = ws.rename(&inner, &ws.path("sw/dir/moved.txt").unwrap(), true);
            let _ = ws.rename(&ws.path("sw/dir/moved.txt").unwrap(), &inner, true);
        }
        if i % 50 == 0 {
            let _ = ws.remove(&ws.path("sw/dir").unwrap(), true);
            let _ = ws.remove(&secret, false);
            let _ = ws.write(&inner, b"inside");
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(swaps.load(Ordering::Relaxed) > 0, "the swapper never ran");
    assert!(
        reads_ok > 0,
        "no read ever went through: the race was not exercised"
    );
    assert_eq!(fx.outside_snapshot(), before, "the outside tree changed");
    assert_eq!(
        files_containing(&fx.root, SECRET),
        Vec::<std::path::PathBuf>::new(),
        "secret content was copied inside"
    );
}

#[test]
fn hardlink_to_an_outside_file_is_readable_but_write_and_append_do_not_modify_it() {
    // Documented limitation: a hard link is the same inode, so neither
    // cap-std nor the kernel can tell it "points outside"; reads see the
    // outside bytes. Writes replace the inode, so the outside file survives.
    let fx = Fixture::new();
    fs::hard_link(fx.outside.join("secret.txt"), fx.root.join("hard.txt")).unwrap();
    fs::hard_link(fx.outside.join("dir/inner.txt"), fx.root.join("hard2.txt")).unwrap();
    let before = fx.outside_snapshot();
    let ws = &fx.ws;
    let hard = ws.path("hard.txt").unwrap();
    assert_eq!(ws.read_text(&hard, 100).unwrap(), SECRET);
    assert_eq!(ws.metadata(&hard).unwrap().hard_links, 2);

    let outcome = ws.write(&hard, b"replaced").unwrap();
    assert!(!outcome.created);
    assert_eq!(fx.read("hard.txt"), "replaced");
    assert_eq!(ws.metadata(&hard).unwrap().hard_links, 1);

    let hard2 = ws.path("hard2.txt").unwrap();
    ws.append(&hard2, b"-appended").unwrap();
    assert_eq!(fx.read("hard2.txt"), format!("{SECRET}-appended"));
    assert_eq!(ws.metadata(&hard2).unwrap().hard_links, 1);

    assert_eq!(
        fx.outside_snapshot(),
        before,
        "the outside inode was modified"
    );
}

#[test]
fn dotdot_in_a_link_target_after_a_missing_component_is_not_found() {
    // The kernel fails `nope/../real.txt` with ENOENT at `nope`: the `..`
    // must not be applied lexically.
    let fx = Fixture::new();
    fx.file("real.txt", "REAL").file("sub/keep.txt", "k");
    fx.link("l1", "nope/../real.txt");
    fx.link("l3", "nope/../sub/deeper");
    let ws = &fx.ws;
    let l1 = ws.path("l1").unwrap();
    assert!(refused(ws.read_text(&l1, 100)).is_not_found());
    assert!(refused(ws.metadata(&l1)).is_not_found());
    assert!(refused(ws.write(&l1, b"CLOBBERED")).is_not_found());
    assert!(refused(ws.append(&l1, b"CLOBBERED")).is_not_found());
    let below = ws.path("l3/new.txt").unwrap();
    assert!(refused(ws.write(&below, b"X")).is_not_found());
    assert!(refused(ws.create_dir_all(&ws.path("l3/d").unwrap())).is_not_found());
    assert_eq!(fx.read("real.txt"), "REAL");
    assert!(!fx.root.join("sub/deeper").exists());
    assert!(!fx.root.join("nope").exists());
}

#[test]
fn dotdot_in_a_link_target_after_a_file_is_not_found() {
    // `file.txt/..` is ENOTDIR for the kernel.
    let fx = Fixture::new();
    fx.file("real.txt", "REAL").file("file.txt", "F");
    fx.link("l2", "file.txt/../real.txt");
    let ws = &fx.ws;
    let l2 = ws.path("l2").unwrap();
    assert!(refused(ws.read_text(&l2, 100)).is_not_found());
    assert!(refused(ws.read_bytes(&l2, 100)).is_not_found());
    assert!(refused(ws.metadata(&l2)).is_not_found());
    assert!(refused(ws.write(&l2, b"CLOBBERED")).is_not_found());
    // `file.txt/.` and `file.txt/` need a directory too.
    fx.link("l4", "file.txt/.").link("l5", "file.txt/");
    for name in ["l4", "l5"] {
        let p = ws.path(name).unwrap();
        assert!(refused(ws.read_text(&p, 100)).is_not_found(), "{name}");
    }
    // ... which a real directory is.
    fx.file("sub/keep.txt", "K");
    fx.link("l6", "sub/").link("l7", "sub/./keep.txt");
    let l6 = ws.path("l6").unwrap();
    assert_eq!(ws.metadata(&l6).unwrap().kind, FileKind::Directory);
    assert_eq!(ws.read_text(&ws.path("l7").unwrap(), 100).unwrap(), "K");
    assert_eq!(fx.read("real.txt"), "REAL");
    assert_eq!(fx.read("file.txt"), "F");
}

#[test]
fn dotdot_after_a_missing_component_never_reaches_an_escaping_link() {
    let fx = Fixture::new();
    fx.link("abs", &fx.outside);
    fx.link("rel", "../outside");
    fx.link("h1", "nope/../abs/secret.txt");
    fx.link("h2", "nope/../rel/secret.txt");
    fx.link("h3", "nope/../abs");
    let before = fx.outside_snapshot();
    let ws = &fx.ws;
    for name in ["h1", "h2"] {
        let p = ws.path(name).unwrap();
        assert!(refused(ws.read_text(&p, 100)).is_not_found(), "{name}");
        assert!(refused(ws.metadata(&p)).is_not_found(), "{name}");
        assert!(refused(ws.write(&p, b"PWN")).is_not_found(), "{name}");
        assert!(refused(ws.append(&p, b"PWN")).is_not_found(), "{name}");
    }
    let p = ws.path("h3/secret.txt").unwrap();
    assert!(refused(ws.remove(&p, false)).is_not_found());
    assert!(refused(ws.rename(&p, &ws.path("moved").unwrap(), false)).is_not_found());
    assert!(refused(ws.symlink_metadata(&p)).is_not_found());
    let walk = WalkOptions::new(ws.path("h3").unwrap());
    assert!(refused(ws.walk(&walk)).is_not_found());
    assert_eq!(fx.outside_snapshot(), before, "the outside tree changed");
}

#[test]
fn kernel_refusal_after_a_race_is_reported_as_an_escape() {
    // A directory is swapped for an escaping link and stays a link for a
    // while, then comes back. An operation that resolved the path before
    // the swap is refused by the kernel (cap-std's `PermissionDenied`);
    // re-resolving then sees the link, so the error must be the typed
    // escape, never a bare OS error. Deep paths make the window between
    // resolving and acting wide (a write checks every parent again).
    let fx = Fixture::new();
    let deep = (0..24)
        .map(|i| format!("d{i}"))
        .collect::<Vec<_>>()
        .join("/");
    fx.file(&format!("sw/{deep}/secret.txt"), "inside");
    fx.link("link_abs", &fx.outside);
    let before = fx.outside_snapshot();
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let swapper = {
        let (stop, swaps, root) = (stop.clone(), swaps.clone(), fx.root.clone());
        std::thread::spawn(move || {
            let (sw, link) = (root.join("sw"), root.join("link_abs"));
            while !stop.load(Ordering::Relaxed) {
                exchange(&sw, &link).unwrap();
                // Long enough that a refusal's re-check still sees the link.
                std::thread::sleep(Duration::from_millis(10));
                exchange(&sw, &link).unwrap();
                std::thread::sleep(Duration::from_millis(1));
                swaps.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let ws = &fx.ws;
    let secret = ws.path(format!("sw/{deep}/secret.txt")).unwrap();
    let fresh = ws.path(format!("sw/{deep}/new/fresh.txt")).unwrap();
    let moved = ws.path(format!("sw/{deep}/new/moved.txt")).unwrap();
    let mut untyped = Vec::new();
    let (mut escapes, mut oks) = (0, 0);
    let mut note = |what: &str, result: Result<(), BoundaryError>| match result {
        Ok(()) => oks += 1,
        Err(err) if err.is_escape() => escapes += 1,
        // The rename or remove finds nothing when the write before it was
        // refused.
        Err(BoundaryError::NotFound { .. }) if what != "read" => {}
        Err(err) => untyped.push(format!("{what}: {err:?}")),
    };
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        note("read", ws.read_text(&secret, 1024).map(drop));
        note("metadata", ws.metadata(&secret).map(drop));
        note("write", ws.write(&fresh, b"inside").map(drop));
        note("rename", ws.rename(&fresh, &moved, true));
        note("remove", ws.remove(&moved, false).map(drop));
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(swaps.load(Ordering::Relaxed) > 0, "the swapper never ran");
    assert!(
        oks > 0 && escapes > 0,
        "race not exercised: {oks} ok, {escapes} escapes"
    );
    assert!(
        untyped.is_empty(),
        "{} refusals were not typed as escapes (of {escapes} escapes), e.g. {:?}",
        untyped.len(),
        &untyped[..untyped.len().min(5)]
    );
    assert_eq!(fx.outside_snapshot(), before, "the outside tree changed");
}
