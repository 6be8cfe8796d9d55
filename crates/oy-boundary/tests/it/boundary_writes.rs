//! Writes, appends, directory creation, renames and removals: through
//! links, over links, of the root, with trailing slashes, in directories
//! that cannot be synced, and the permission bits they keep (also while
//! the data is being written).

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use oy_boundary::{BoundaryError, FileKind, InvalidPathReason, LineWindow, WalkOptions};

use crate::support::{Fixture, SECRET, assert_symlink_escape, refused};

fn mode_of(path: &std::path::Path) -> u32 {
    fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
}

fn is_link(path: &std::path::Path) -> bool {
    fs::symlink_metadata(path).unwrap().is_symlink()
}

/// Names directly in `dir`, sorted.
fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn write_through_symlink_to_inside_file_updates_target_and_keeps_link() {
    let fx = Fixture::new();
    fx.file("real/target.txt", "old")
        .link("link.txt", "real/target.txt");
    let ws = &fx.ws;
    let outcome = ws
        .write(&ws.path("link.txt").unwrap(), b"new content")
        .unwrap();
    assert!(!outcome.created);
    assert_eq!(outcome.bytes_written, 11);
    assert!(is_link(&fx.root.join("link.txt")));
    assert_eq!(fx.read("real/target.txt"), "new content");
    ws.append(&ws.path("link.txt").unwrap(), b"+more").unwrap();
    assert!(is_link(&fx.root.join("link.txt")));
    assert_eq!(fx.read("real/target.txt"), "new content+more");
    assert_eq!(names_in(&fx.root.join("real")), ["target.txt"]);
}

#[test]
fn write_through_symlink_to_outside_file_is_refused() {
    let fx = Fixture::new();
    fx.link("leak.txt", fx.outside.join("secret.txt"));
    fx.link("leak_rel.txt", "../outside/dir/inner.txt");
    let before = fx.outside_snapshot();
    let ws = &fx.ws;
    for (path, link) in [("leak.txt", "leak.txt"), ("leak_rel.txt", "leak_rel.txt")] {
        let p = ws.path(path).unwrap();
        assert_symlink_escape(&refused(ws.write(&p, b"PWNED")), link);
        assert_symlink_escape(&refused(ws.append(&p, b"PWNED")), link);
        // create_new does not follow the final link: the link exists.
        assert!(refused(ws.create_new(&p, b"PWNED")).is_already_exists());
        assert!(is_link(&fx.root.join(path)));
    }
    assert_eq!(fx.outside_snapshot(), before);
}

#[test]
fn create_new_on_dangling_link_to_outside_creates_nothing() {
    let fx = Fixture::new();
    fx.link("dangling", fx.outside.join("planted.txt"));
    let before = fx.outside_snapshot();
    let p = fx.ws.path("dangling").unwrap();
    let err = refused(fx.ws.create_new(&p, b"PWNED"));
    assert!(err.is_already_exists() || err.is_escape(), "{err:?}");
    assert!(!fx.outside.join("planted.txt").exists());
    assert_eq!(fx.outside_snapshot(), before);
}

#[test]
fn write_creates_parents_through_ancestor_link_to_inside_dir() {
    let fx = Fixture::new();
    fs::create_dir_all(fx.root.join("real")).unwrap();
    fx.link("alias", "real");
    let ws = &fx.ws;
    let outcome = ws
        .write(&ws.path("alias/a/b/c.txt").unwrap(), b"deep")
        .unwrap();
    assert!(outcome.created);
    assert_eq!(fx.read("real/a/b/c.txt"), "deep");
    ws.create_dir_all(&ws.path("alias/x/y").unwrap()).unwrap();
    assert!(fx.root.join("real/x/y").is_dir());
    assert!(is_link(&fx.root.join("alias")));
}

#[test]
fn creating_parents_through_ancestor_link_to_outside_is_refused() {
    let fx = Fixture::new();
    fx.link("out", &fx.outside);
    fx.link("out_rel", "../outside/dir");
    let before = fx.outside_snapshot();
    let ws = &fx.ws;
    for (path, link) in [
        ("out/new/deep/file.txt", "out"),
        ("out_rel/new/file.txt", "out_rel"),
    ] {
        let p = ws.path(path).unwrap();
        assert_symlink_escape(&refused(ws.write(&p, b"PWNED")), link);
        assert_symlink_escape(&refused(ws.append(&p, b"PWNED")), link);
        assert_symlink_escape(&refused(ws.create_new(&p, b"PWNED")), link);
        assert_symlink_escape(&refused(ws.create_dir_all(&p)), link);
    }
    fx.file("mine.txt", "mine");
    let from = ws.path("mine.txt").unwrap();
    let to = ws.path("out/new/moved.txt").unwrap();
    assert_symlink_escape(&refused(ws.rename(&from, &to, true)), "out");
    assert_eq!(fx.read("mine.txt"), "mine");
    assert!(!fx.outside.join("new").exists());
    assert_eq!(fx.outside_snapshot(), before);
}

#[test]
fn rename_over_a_symlink_replaces_the_link_not_its_target() {
    let fx = Fixture::new();
    fx.file("src.txt", "moved in")
        .file("target.txt", "untouched")
        .link("link_in", "target.txt");
    fx.file("src2.txt", "moved in 2")
        .link("link_out", fx.outside.join("secret.txt"));
    let before = fx.outside_snapshot();
    let ws = &fx.ws;
    ws.rename(
        &ws.path("src.txt").unwrap(),
        &ws.path("link_in").unwrap(),
        true,
    )
    .unwrap();
    assert!(!is_link(&fx.root.join("link_in")));
    assert_eq!(fx.read("link_in"), "moved in");
    assert_eq!(fx.read("target.txt"), "untouched");
    ws.rename(
        &ws.path("src2.txt").unwrap(),
        &ws.path("link_out").unwrap(),
        true,
    )
    .unwrap();
    assert!(!is_link(&fx.root.join("link_out")));
    assert_eq!(fx.read("link_out"), "moved in 2");
    assert_eq!(fx.outside_snapshot(), before);
}

#[test]
fn rename_of_a_symlink_moves_the_link_itself() {
    let fx = Fixture::new();
    fx.file("target.txt", "t")
        .link("link", fx.root.join("target.txt"));
    fx.link("out_link", fx.outside.join("dir"));
    let before = fx.outside_snapshot();
    let ws = &fx.ws;
    ws.rename(
        &ws.path("link").unwrap(),
        &ws.path("moved/link2").unwrap(),
        false,
    )
    .unwrap();
    assert!(!fx.root.join("link").exists());
    assert!(is_link(&fx.root.join("moved/link2")));
    assert_eq!(fx.read("target.txt"), "t");
    assert_eq!(
        ws.read_text(&ws.path("moved/link2").unwrap(), 10).unwrap(),
        "t"
    );
    // Moving a link that points outside moves the link; its target stays put.
    ws.rename(
        &ws.path("out_link").unwrap(),
        &ws.path("renamed_out").unwrap(),
        false,
    )
    .unwrap();
    assert!(is_link(&fx.root.join("renamed_out")));
    assert!(fx.outside.join("dir/inner.txt").is_file());
    assert_eq!(fx.outside_snapshot(), before);
}

#[test]
fn rename_without_overwrite_onto_existing_file_is_already_exists() {
    let fx = Fixture::new();
    fx.file("a.txt", "a").file("b.txt", "b");
    fx.link("dangling", "nowhere");
    fs::create_dir_all(fx.root.join("empty_dir")).unwrap();
    let ws = &fx.ws;
    let a = ws.path("a.txt").unwrap();
    for dest in ["b.txt", "dangling", "empty_dir"] {
        let err = refused(ws.rename(&a, &ws.path(dest).unwrap(), false));
        assert!(err.is_already_exists(), "{dest}: {err:?}");
    }
    assert_eq!(fx.read("a.txt"), "a");
    assert_eq!(fx.read("b.txt"), "b");
    assert!(is_link(&fx.root.join("dangling")));
    // With overwrite it goes through.
    ws.rename(&a, &ws.path("b.txt").unwrap(), true).unwrap();
    assert_eq!(fx.read("b.txt"), "a");
    assert!(!fx.root.join("a.txt").exists());
}

#[test]
fn rename_of_missing_source_is_not_found() {
    let fx = Fixture::new();
    let ws = &fx.ws;
    let err = refused(ws.rename(
        &ws.path("ghost.txt").unwrap(),
        &ws.path("x/y.txt").unwrap(),
        true,
    ));
    assert!(err.is_not_found(), "{err:?}");
    assert!(!fx.root.join("x").exists());
}

#[test]
fn rename_into_own_subdirectory_is_refused() {
    let fx = Fixture::new();
    fx.file("a/b/keep.txt", "keep");
    fx.link("alias_of_a", "a");
    let ws = &fx.ws;
    let a = ws.path("a").unwrap();
    for dest in ["a/b/c", "a/inside", "alias_of_a/b/c"] {
        let err = refused(ws.rename(&a, &ws.path(dest).unwrap(), true));
        assert!(
            !matches!(err, BoundaryError::NotFound { .. }),
            "{dest}: {err:?}"
        );
    }
    assert_eq!(fx.read("a/b/keep.txt"), "keep");
    assert!(!fx.root.join("a/b/c").exists());
    assert!(!fx.root.join("a/inside").exists());
}

#[test]
fn rename_and_remove_of_the_root_are_root_protected() {
    let fx = Fixture::new();
    fx.file("keep.txt", "keep");
    let ws = &fx.ws;
    let is_protected = |err: BoundaryError| matches!(err, BoundaryError::RootProtected { .. });
    for root in [
        ws.path(".").unwrap(),
        ws.path("a/..").unwrap(),
        ws.path(&fx.root).unwrap(),
        ws.root_path(),
    ] {
        assert!(is_protected(refused(ws.remove(&root, true))));
        assert!(is_protected(refused(ws.remove(&root, false))));
        let elsewhere = ws.path("elsewhere").unwrap();
        assert!(is_protected(refused(ws.rename(&root, &elsewhere, true))));
        let keep = ws.path("keep.txt").unwrap();
        assert!(is_protected(refused(ws.rename(&keep, &root, true))));
    }
    assert!(fx.root.is_dir());
    assert_eq!(fx.read("keep.txt"), "keep");
    assert!(!fx.root.join("elsewhere").exists());
}

#[test]
fn remove_of_symlink_to_outside_directory_removes_only_the_link() {
    let fx = Fixture::new();
    fx.link("out_nr", &fx.outside);
    fx.link("out_r", "../outside");
    fx.link("out_file", fx.outside.join("secret.txt"));
    let before = fx.outside_snapshot();
    let ws = &fx.ws;
    for (path, recursive) in [("out_nr", false), ("out_r", true), ("out_file", true)] {
        let kind = ws.remove(&ws.path(path).unwrap(), recursive).unwrap();
        assert_eq!(kind, FileKind::Symlink, "{path}");
        assert!(fs::symlink_metadata(fx.root.join(path)).is_err(), "{path}");
    }
    assert_eq!(fx.outside_snapshot(), before);
}

#[test]
fn recursive_remove_of_directory_with_links_to_outside_leaves_outside_intact() {
    let fx = Fixture::new();
    fx.file("keep.txt", "keep");
    fx.file("doomed/a.txt", "a").file("doomed/sub/b.txt", "b");
    fx.link("doomed/out_abs", &fx.outside);
    fx.link("doomed/sub/out_rel", "../../../outside/dir");
    fx.link("doomed/sub/secret_link", fx.outside.join("secret.txt"));
    fx.link("doomed/sub/root_link", "../..");
    fx.link("doomed/abs_root_link", &fx.root);
    let before = fx.outside_snapshot();
    let ws = &fx.ws;
    let kind = ws.remove(&ws.path("doomed").unwrap(), true).unwrap();
    assert_eq!(kind, FileKind::Directory);
    assert!(fs::symlink_metadata(fx.root.join("doomed")).is_err());
    assert_eq!(fx.read("keep.txt"), "keep");
    assert_eq!(fx.outside_snapshot(), before);
}

#[test]
fn non_recursive_remove_of_non_empty_directory_is_directory_not_empty() {
    let fx = Fixture::new();
    fx.file("full/child.txt", "c");
    fs::create_dir_all(fx.root.join("empty")).unwrap();
    let ws = &fx.ws;
    let err = refused(ws.remove(&ws.path("full").unwrap(), false));
    assert!(
        matches!(err, BoundaryError::DirectoryNotEmpty { .. }),
        "{err:?}"
    );
    assert_eq!(fx.read("full/child.txt"), "c");
    assert_eq!(
        ws.remove(&ws.path("empty").unwrap(), false).unwrap(),
        FileKind::Directory
    );
    assert!(!fx.root.join("empty").exists());
}

#[test]
fn remove_reports_what_it_removed_and_not_found_for_missing() {
    let fx = Fixture::new();
    fx.file("f.txt", "f").link("dangling", "missing");
    fx.file("real/x.txt", "x").link("alias", "real");
    let ws = &fx.ws;
    assert_eq!(
        ws.remove(&ws.path("f.txt").unwrap(), false).unwrap(),
        FileKind::File
    );
    assert_eq!(
        ws.remove(&ws.path("dangling").unwrap(), false).unwrap(),
        FileKind::Symlink
    );
    // Through an inside ancestor link: the target's entry goes.
    assert_eq!(
        ws.remove(&ws.path("alias/x.txt").unwrap(), false).unwrap(),
        FileKind::File
    );
    assert!(!fx.root.join("real/x.txt").exists());
    assert!(is_link(&fx.root.join("alias")));
    let err = refused(ws.remove(&ws.path("f.txt").unwrap(), false));
    assert!(err.is_not_found(), "{err:?}");
}

#[test]
fn write_preserves_existing_permission_bits() {
    let fx = Fixture::new();
    let ws = &fx.ws;
    for (name, mode) in [
        ("exec.sh", 0o755),
        ("private.txt", 0o600),
        ("odd.txt", 0o640),
    ] {
        fx.file(name, "old");
        fs::set_permissions(fx.root.join(name), fs::Permissions::from_mode(mode)).unwrap();
        let p = ws.path(name).unwrap();
        let outcome = ws.write(&p, b"new").unwrap();
        assert!(!outcome.created, "{name}");
        assert_eq!(fx.read(name), "new");
        assert_eq!(mode_of(&fx.root.join(name)), mode, "{name} after write");
        ws.append(&p, b"+").unwrap();
        assert_eq!(mode_of(&fx.root.join(name)), mode, "{name} after append");
        assert_eq!(ws.metadata(&p).unwrap().mode, mode);
    }
}

#[test]
fn write_of_a_new_file_reports_created_with_default_permissions() {
    let fx = Fixture::new();
    let ws = &fx.ws;
    let outcome = ws.write(&ws.path("fresh.txt").unwrap(), b"hello").unwrap();
    assert!(outcome.created);
    assert_eq!(outcome.bytes_written, 5);
    assert_eq!(fx.read("fresh.txt"), "hello");
    // A file made the ordinary way (0o666 minus the umask) is the reference.
    fs::File::create(fx.root.join("reference.txt")).unwrap();
    assert_eq!(
        mode_of(&fx.root.join("fresh.txt")),
        mode_of(&fx.root.join("reference.txt"))
    );
    let again = ws.write(&ws.path("fresh.txt").unwrap(), b"again").unwrap();
    assert!(!again.created);
    // No temporary files are left next to the result.
    assert_eq!(names_in(&fx.root), ["fresh.txt", "reference.txt"]);
}

#[test]
fn create_new_on_existing_path_is_already_exists() {
    let fx = Fixture::new();
    fx.file("taken.txt", "original");
    fs::create_dir_all(fx.root.join("dir")).unwrap();
    let ws = &fx.ws;
    for path in ["taken.txt", "dir"] {
        let err = refused(ws.create_new(&ws.path(path).unwrap(), b"clobber"));
        assert!(err.is_already_exists(), "{path}: {err:?}");
    }
    assert_eq!(fx.read("taken.txt"), "original");
    let outcome = ws
        .create_new(&ws.path("new/fresh.txt").unwrap(), b"fresh")
        .unwrap();
    assert!(outcome.created);
    assert_eq!(fx.read("new/fresh.txt"), "fresh");
}

#[test]
fn append_creates_a_missing_file_then_appends() {
    let fx = Fixture::new();
    let ws = &fx.ws;
    let p = ws.path("log/out.txt").unwrap();
    let first = ws.append(&p, b"one\n").unwrap();
    assert!(first.created);
    assert_eq!(first.bytes_written, 4);
    let second = ws.append(&p, b"two\n").unwrap();
    assert!(!second.created);
    assert_eq!(second.bytes_written, 4);
    assert_eq!(fx.read("log/out.txt"), "one\ntwo\n");
}

/// A "not a directory" failure: the typed variant naming a file, or at
/// least the OS error of that kind (never NotFound, never success).
fn is_not_a_directory(err: &BoundaryError) -> bool {
    match err {
        BoundaryError::NotADirectory { kind, .. } => *kind == FileKind::File,
        BoundaryError::Io { source, .. } => source.kind() == std::io::ErrorKind::NotADirectory,
        _ => false,
    }
}

#[test]
fn write_where_a_parent_is_a_file_is_not_a_directory() {
    let fx = Fixture::new();
    fx.file("plain.txt", "plain");
    let ws = &fx.ws;
    let p = ws.path("plain.txt/child.txt").unwrap();
    let err = refused(ws.write(&p, b"x"));
    assert!(
        matches!(
            err,
            BoundaryError::NotADirectory {
                kind: FileKind::File,
                ..
            }
        ),
        "{err:?}"
    );
    for path in ["plain.txt/child.txt", "plain.txt/a/b.txt"] {
        let p = ws.path(path).unwrap();
        for (op, err) in [
            ("write", refused(ws.write(&p, b"x"))),
            ("create_new", refused(ws.create_new(&p, b"x"))),
            ("append", refused(ws.append(&p, b"x"))),
            ("create_dir_all", refused(ws.create_dir_all(&p))),
        ] {
            assert!(is_not_a_directory(&err), "{op} {path}: {err:?}");
        }
    }
    assert_eq!(fx.read("plain.txt"), "plain");
}

#[test]
fn write_onto_a_directory_is_not_a_file() {
    let fx = Fixture::new();
    fx.file("dir/child.txt", "child").link("dir_link", "dir");
    let ws = &fx.ws;
    for path in ["dir", "dir_link"] {
        let p = ws.path(path).unwrap();
        for err in [refused(ws.write(&p, b"x")), refused(ws.append(&p, b"x"))] {
            assert!(
                matches!(
                    err,
                    BoundaryError::NotAFile {
                        kind: FileKind::Directory,
                        ..
                    }
                ),
                "{path}: {err:?}"
            );
        }
    }
    assert_eq!(fx.read("dir/child.txt"), "child");
    assert!(is_link(&fx.root.join("dir_link")));
}

#[test]
fn create_dir_all_on_an_existing_file_is_not_a_directory() {
    let fx = Fixture::new();
    fx.file("file", "f");
    let ws = &fx.ws;
    let err = refused(ws.create_dir_all(&ws.path("file").unwrap()));
    assert!(
        matches!(
            err,
            BoundaryError::NotADirectory {
                kind: FileKind::File,
                ..
            }
        ),
        "{err:?}"
    );
    ws.create_dir_all(&ws.path("made/here").unwrap()).unwrap();
    ws.create_dir_all(&ws.path("made/here").unwrap()).unwrap();
    assert!(fx.root.join("made/here").is_dir());
}

#[test]
fn hardlink_to_outside_survives_rename_over_and_remove() {
    let fx = Fixture::new();
    fs::hard_link(fx.outside.join("secret.txt"), fx.root.join("hard.txt")).unwrap();
    fx.file("replacement.txt", "replacement");
    let before = fx.outside_snapshot();
    let ws = &fx.ws;
    ws.rename(
        &ws.path("replacement.txt").unwrap(),
        &ws.path("hard.txt").unwrap(),
        true,
    )
    .unwrap();
    assert_eq!(fx.read("hard.txt"), "replacement");
    fs::hard_link(fx.outside.join("dir/inner.txt"), fx.root.join("hard2.txt")).unwrap();
    ws.remove(&ws.path("hard2.txt").unwrap(), false).unwrap();
    assert_eq!(fx.outside_snapshot(), before);
    assert_eq!(
        fs::read_to_string(fx.outside.join("secret.txt")).unwrap(),
        SECRET
    );
}

#[test]
fn write_keeps_a_symlinked_parent_directory_a_symlink() {
    let fx = Fixture::new();
    fs::create_dir_all(fx.root.join("real")).unwrap();
    symlink("real", fx.root.join("alias")).unwrap();
    fx.file("real/f.txt", "1");
    let ws = &fx.ws;
    ws.write(&ws.path("alias/f.txt").unwrap(), b"2").unwrap();
    assert!(is_link(&fx.root.join("alias")));
    assert_eq!(fx.read("real/f.txt"), "2");
    assert_eq!(names_in(&fx.root.join("real")), ["f.txt"]);
}

#[test]
fn write_private_creates_and_forces_owner_only_permissions() {
    let fx = Fixture::new();
    let mode = |rel: &str| {
        fs::metadata(fx.root.join(rel))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    let fresh = fx.ws.path("state/session.json").unwrap();
    fx.ws.write_private(&fresh, b"{}").unwrap();
    assert_eq!(mode("state/session.json"), 0o600);
    fx.file("open.json", "{}");
    fs::set_permissions(fx.root.join("open.json"), fs::Permissions::from_mode(0o644)).unwrap();
    fx.ws
        .write_private(&fx.ws.path("open.json").unwrap(), b"{\"a\":1}")
        .unwrap();
    assert_eq!(mode("open.json"), 0o600);
    assert_eq!(fx.read("open.json"), "{\"a\":1}");
}

#[test]
fn writing_a_file_at_a_path_with_a_trailing_slash_is_refused() {
    let fx = Fixture::new();
    fx.file("file.txt", "F");
    let ws = &fx.ws;
    for name in ["newdir/", "file.txt/", "newdir/.", "sub/newdir/"] {
        let p = ws.path(name).unwrap();
        let results = [
            ("write", ws.write(&p, b"x")),
            ("create_new", ws.create_new(&p, b"x")),
            ("append", ws.append(&p, b"x")),
            ("write_private", ws.write_private(&p, b"x")),
        ];
        for (op, result) in results {
            match refused(result) {
                BoundaryError::InvalidPath {
                    reason: InvalidPathReason::TrailingSlashOnFile,
                    ..
                } => {}
                other => panic!("{op} {name}: {other:?}"),
            }
        }
    }
    assert_eq!(names_in(&fx.root), ["file.txt"]);
    assert_eq!(fx.read("file.txt"), "F");
}

#[test]
fn a_file_named_with_a_trailing_slash_is_not_a_directory() {
    let fx = Fixture::new();
    fx.file("file.txt", "F").link("flink", "file.txt");
    let ws = &fx.ws;
    let is_file_not_dir = |what: &str, err: BoundaryError| match err {
        BoundaryError::NotADirectory {
            kind: FileKind::File,
            ..
        } => {}
        other => panic!("{what}: expected NotADirectory (file), got {other:?}"),
    };
    for name in ["file.txt/", "flink/"] {
        let p = ws.path(name).unwrap();
        is_file_not_dir("read_text", refused(ws.read_text(&p, 100)));
        is_file_not_dir("read_bytes", refused(ws.read_bytes(&p, 100)));
        is_file_not_dir(
            "read_lines",
            refused(ws.read_lines(&p, LineWindow::default())),
        );
        is_file_not_dir("open_file", refused(ws.open_file(&p)));
        is_file_not_dir("is_text", refused(ws.is_text(&p)));
        is_file_not_dir("metadata", refused(ws.metadata(&p)));
        is_file_not_dir("symlink_metadata", refused(ws.symlink_metadata(&p)));
        is_file_not_dir("walk", refused(ws.walk(&WalkOptions::new(p.clone()))));
    }
    is_file_not_dir(
        "remove",
        refused(ws.remove(&ws.path("file.txt/").unwrap(), false)),
    );
    let to = ws.path("moved").unwrap();
    is_file_not_dir(
        "rename",
        refused(ws.rename(&ws.path("file.txt/").unwrap(), &to, false)),
    );
    assert_eq!(names_in(&fx.root), ["file.txt", "flink"]);
    assert_eq!(fx.read("file.txt"), "F");
}

#[test]
fn directory_operations_accept_a_trailing_slash() {
    let fx = Fixture::new();
    let ws = &fx.ws;
    let dir = ws.path("newdir/").unwrap();
    ws.create_dir_all(&dir).unwrap();
    ws.write(&ws.path("newdir/x.txt").unwrap(), b"x").unwrap();
    assert_eq!(ws.metadata(&dir).unwrap().kind, FileKind::Directory);
    let walk = ws.walk(&WalkOptions::new(dir.clone())).unwrap();
    let names: Vec<String> = walk.entries.iter().map(|e| e.path.to_text()).collect();
    assert_eq!(names, ["newdir/x.txt"]);
    // `link/` follows the link to its directory, as `lstat` does; removing
    // it fails like `rmdir("link/")`, leaving the link alone.
    fx.link("dlink", "newdir");
    let link = ws.path("dlink/").unwrap();
    assert_eq!(
        ws.symlink_metadata(&link).unwrap().kind,
        FileKind::Directory
    );
    match refused(ws.remove(&link, true)) {
        BoundaryError::NotADirectory {
            kind: FileKind::Symlink,
            ..
        } => {}
        other => panic!("remove dlink/: {other:?}"),
    }
    assert!(is_link(&fx.root.join("dlink")));
    assert_eq!(fx.read("newdir/x.txt"), "x");
    let moved = ws.path("moved/").unwrap();
    ws.rename(&dir, &moved, false).unwrap();
    assert_eq!(fx.read("moved/x.txt"), "x");
    assert_eq!(ws.remove(&moved, true).unwrap(), FileKind::Directory);
    assert_eq!(names_in(&fx.root), ["dlink"]);
}

/// Runs `op` on a thread without `CAP_DAC_OVERRIDE` and
/// `CAP_DAC_READ_SEARCH` (capabilities belong to a thread on Linux), so
/// permission bits apply to it even when the tests run as root.
fn as_unprivileged<T: Send>(op: impl FnOnce() -> T + Send) -> T {
    use rustix::thread::{CapabilitySet, capabilities, set_capabilities};
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let mut caps = capabilities(None).unwrap();
                caps.effective -= CapabilitySet::DAC_OVERRIDE | CapabilitySet::DAC_READ_SEARCH;
                set_capabilities(None, caps).unwrap();
                op()
            })
            .join()
            .unwrap()
    })
}

#[test]
fn operations_in_a_write_only_directory_succeed_though_it_cannot_be_synced() {
    write_only_directory_case(false);
}

#[test]
fn a_batch_in_a_write_only_directory_succeeds_though_it_cannot_be_synced() {
    write_only_directory_case(true);
}

fn write_only_directory_case(batched: bool) {
    // A `0333` directory can be written and searched but not opened for
    // reading, so its post-commit fsync fails with EACCES: the change is
    // done by then, and must be reported as done (also when the fsync is
    // held back to the end of a batch).
    let fx = Fixture::new();
    fx.file("wo/old.txt", "old")
        .file("wo/gone.txt", "g")
        .file("wo/from.txt", "m");
    let dir = fx.root.join("wo");
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o333)).unwrap();
    let ws = &fx.ws;
    let p = |name: &str| ws.path(name).unwrap();
    let results = as_unprivileged(|| {
        // The condition under test: the directory really is unreadable.
        let listing = fs::read_dir(&dir).map(drop);
        let changes = || {
            (
                listing,
                ws.write(&p("wo/old.txt"), b"new"),
                ws.create_new(&p("wo/created.txt"), b"c"),
                ws.append(&p("wo/old.txt"), b"+"),
                ws.remove(&p("wo/gone.txt"), false),
                ws.rename(&p("wo/from.txt"), &p("wo/to.txt"), false),
            )
        };
        if batched {
            ws.batch(changes)
        } else {
            changes()
        }
    });
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    let (listing, write, create, append, remove, rename) = results;
    assert!(
        listing.is_err(),
        "the directory was readable: the test proves nothing"
    );
    write.unwrap();
    create.unwrap();
    append.unwrap();
    assert_eq!(remove.unwrap(), FileKind::File);
    rename.unwrap();
    assert_eq!(fx.read("wo/old.txt"), "new+");
    assert_eq!(fx.read("wo/created.txt"), "c");
    assert_eq!(fx.read("wo/to.txt"), "m");
    assert_eq!(names_in(&dir), ["created.txt", "old.txt", "to.txt"]);
}

#[test]
fn private_content_is_never_in_a_file_others_can_read() {
    // The temp inode must carry the final mode from its creation on, not
    // get it after the data is written.
    let fx = Fixture::new();
    fx.file("private.txt", "old");
    fs::set_permissions(
        fx.root.join("private.txt"),
        fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let big = vec![b's'; 32 << 20];
    let stop = AtomicBool::new(false);
    let observed = AtomicUsize::new(0);
    let exposed = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        scope.spawn(|| {
            // Every open file of this process that lives in the root.
            while !stop.load(Ordering::Relaxed) {
                let Ok(fds) = fs::read_dir("/proc/self/fd") else {
                    return;
                };
                for fd in fds.flatten() {
                    // Other tests of this process open and close files at
                    // the same time: an fd number read here may be reused
                    // before it is looked at. The same inode before and
                    // after the link is read means the link was its own.
                    let Ok(first) = fs::metadata(fd.path()) else {
                        continue;
                    };
                    let Ok(target) = fs::read_link(fd.path()) else {
                        continue;
                    };
                    let Ok(meta) = fs::metadata(fd.path()) else {
                        continue;
                    };
                    if (first.dev(), first.ino()) != (meta.dev(), meta.ino()) {
                        continue;
                    }
                    if !target.starts_with(&fx.root) {
                        continue;
                    }
                    if meta.is_file() {
                        observed.fetch_add(1, Ordering::Relaxed);
                        let mode = meta.permissions().mode() & 0o777;
                        if mode & 0o077 != 0 {
                            exposed.lock().unwrap().push((target, mode));
                        }
                    }
                }
            }
        });
        let ws = &fx.ws;
        for round in 0..4 {
            ws.write(&ws.path("private.txt").unwrap(), &big).unwrap();
            let fresh = ws.path(format!("fresh{round}.txt")).unwrap();
            ws.write_private(&fresh, &big).unwrap();
        }
        stop.store(true, Ordering::Relaxed);
    });
    assert!(
        observed.load(Ordering::Relaxed) > 0,
        "never saw a file being written: the test proves nothing"
    );
    let exposed = exposed.into_inner().unwrap();
    assert!(
        exposed.is_empty(),
        "readable by others while written: {exposed:?}"
    );
    assert_eq!(mode_of(&fx.root.join("private.txt")), 0o600);
    assert_eq!(mode_of(&fx.root.join("fresh0.txt")), 0o600);
}

#[test]
fn a_batch_lands_every_change_and_nests() {
    let fx = Fixture::new();
    fx.file("a/one.txt", "1")
        .file("a/two.txt", "2")
        .file("b/gone.txt", "g");
    let ws = &fx.ws;
    let p = |name: &str| ws.path(name).unwrap();
    let value = ws.batch(|| {
        ws.write(&p("a/one.txt"), b"one").unwrap();
        ws.write(&p("a/two.txt"), b"two").unwrap();
        let inner = ws.batch(|| {
            ws.create_new(&p("c/new.txt"), b"new").unwrap();
            ws.rename(&p("a/two.txt"), &p("c/two.txt"), false).unwrap();
            7
        });
        ws.remove(&p("b/gone.txt"), false).unwrap();
        // Refusals inside a batch are the same as outside.
        assert!(matches!(
            ws.create_new(&p("a/one.txt"), b"x"),
            Err(BoundaryError::AlreadyExists { .. })
        ));
        inner + 1
    });
    assert_eq!(value, 8);
    assert_eq!(fx.read("a/one.txt"), "one");
    assert_eq!(fx.read("c/new.txt"), "new");
    assert_eq!(fx.read("c/two.txt"), "two");
    assert!(!fx.root.join("a/two.txt").exists());
    assert!(!fx.root.join("b/gone.txt").exists());
    // A batch that panics ends like any other; later writes still work.
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ws.batch(|| {
            ws.write(&p("a/one.txt"), b"before the panic").unwrap();
            panic!("mid-batch");
        })
    }));
    assert!(panicked.is_err());
    assert_eq!(fx.read("a/one.txt"), "before the panic");
    ws.write(&p("a/one.txt"), b"after").unwrap();
    assert_eq!(fx.read("a/one.txt"), "after");
}

#[test]
fn restoring_never_follows_a_link_anywhere_in_the_path() {
    // `x` is a link to a directory inside the root: an ordinary write may
    // go through it, putting back a saved state must not.
    let fx = Fixture::new();
    fx.file("hooks/pre-commit", "original\n");
    symlink("hooks", fx.root.join("x")).unwrap();
    let ws = &fx.ws;
    let through = ws.path("x/pre-commit").unwrap();
    for result in [
        ws.restore_file(&through, b"payload\n", 0o755).map(drop),
        ws.remove_exactly(&through, false).map(drop),
        ws.restore_dir(&ws.path("x/sub").unwrap(), 0o700),
    ] {
        match result {
            Err(BoundaryError::Protected { why, .. }) => assert!(why.contains("symbolic link")),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        fs::read_to_string(fx.root.join("hooks/pre-commit")).unwrap(),
        "original\n"
    );
    assert!(!fx.root.join("hooks/sub").exists());
    // A link as the final component is refused too, never followed.
    assert!(
        ws.restore_file(&ws.path("x").unwrap(), b"a file now\n", 0o600)
            .is_err()
    );
    assert!(is_link(&fx.root.join("x")));
    assert_eq!(
        fs::read_to_string(fx.root.join("hooks/pre-commit")).unwrap(),
        "original\n"
    );
}
