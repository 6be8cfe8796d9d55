//! Lexical path parsing: normalisation, absolute mapping, rejections,
//! trailing slashes, depth, and paths used with a workspace that did not
//! make them.

use oy_boundary::{BoundaryError, EscapeRoute, InvalidPathReason, WalkOptions, Workspace};

use crate::support::Fixture;

#[test]
fn normalises_dot_and_inner_parent() {
    let fx = Fixture::new();
    let p = fx.ws.path("./a/./b/../c.txt").unwrap();
    assert_eq!(p.to_text(), "a/c.txt");
    assert_eq!(fx.ws.path(".").unwrap().to_text(), ".");
    assert!(fx.ws.path("a/..").unwrap().is_root());
}

#[test]
fn rejects_parent_traversal_at_every_depth() {
    let fx = Fixture::new();
    for input in ["..", "../x", "a/../../x", "a/b/../../../x", "./../wsroot/x"] {
        let err = fx.ws.path(input).unwrap_err();
        assert!(err.is_escape(), "{input}: {err}");
        assert!(matches!(
            err,
            BoundaryError::Escape {
                route: EscapeRoute::ParentTraversal,
                ..
            }
        ));
    }
}

#[test]
fn maps_absolute_paths_inside_the_root() {
    let fx = Fixture::new();
    let abs = fx.root.join("src/main.rs");
    assert_eq!(fx.ws.path(&abs).unwrap().to_text(), "src/main.rs");
    let roundabout = fx.root.join("../wsroot/src/./main.rs");
    assert_eq!(fx.ws.path(&roundabout).unwrap().to_text(), "src/main.rs");
    assert!(fx.ws.path(&fx.root).unwrap().is_root());
}

#[test]
fn rejects_absolute_paths_elsewhere() {
    let fx = Fixture::new();
    for input in [
        fx.outside.join("secret.txt"),
        "/etc/passwd".into(),
        "/".into(),
        fx.root.join("../outside"),
    ] {
        let err = fx.ws.path(&input).unwrap_err();
        assert!(
            matches!(
                err,
                BoundaryError::Escape {
                    route: EscapeRoute::AbsolutePath,
                    ..
                }
            ),
            "{}: {err}",
            input.display()
        );
    }
}

#[test]
fn rejects_empty_nul_and_overlong_paths() {
    let fx = Fixture::new();
    let reason = |input: &str| match fx.ws.path(input).unwrap_err() {
        BoundaryError::InvalidPath { reason, .. } => reason,
        other => panic!("{input:?}: {other}"),
    };
    assert_eq!(reason(""), InvalidPathReason::Empty);
    assert_eq!(reason("a\0b"), InvalidPathReason::NulByte);
    assert_eq!(reason(&"a/".repeat(2100)), InvalidPathReason::TooLong);
    assert_eq!(
        reason(&"x".repeat(256)),
        InvalidPathReason::ComponentTooLong
    );
}

#[test]
fn path_made_by_another_workspace_is_refused_as_foreign() {
    let a = Fixture::new();
    let b = Fixture::new();
    a.file("secret.txt", "MINE");
    b.file("secret.txt", "OTHER");
    let from_b = b.ws.path(b.root.join("secret.txt")).unwrap();
    let check = |err: BoundaryError| {
        assert!(matches!(err, BoundaryError::ForeignPath { .. }), "{err:?}");
        assert!(!err.is_escape() && !err.is_not_found(), "{err:?}");
        assert!(err.path().is_some(), "{err:?}");
    };
    check(a.ws.read_text(&from_b, 100).unwrap_err());
    check(a.ws.metadata(&from_b).unwrap_err());
    check(a.ws.write(&from_b, b"x").unwrap_err());
    check(a.ws.remove(&from_b, false).unwrap_err());
    let mine = a.ws.path("moved.txt").unwrap();
    check(a.ws.rename(&from_b, &mine, false).unwrap_err());
    check(a.ws.walk(&WalkOptions::new(b.ws.root_path())).unwrap_err());
    // Even a second workspace on the same root has its own paths.
    let again = Workspace::open(&a.root).unwrap();
    check(
        again
            .read_text(&a.ws.path("secret.txt").unwrap(), 100)
            .unwrap_err(),
    );
    assert_eq!(
        std::fs::read_to_string(b.root.join("secret.txt")).unwrap(),
        "OTHER"
    );
    assert!(!a.root.join("moved.txt").exists());
}

#[test]
fn unrestricted_path_is_refused_by_a_restricted_workspace() {
    let fx = Fixture::new();
    fx.file("etc/hostname", "INSIDE");
    let unrestricted = Workspace::open_unrestricted_host_filesystem(&fx.outside).unwrap();
    let host = unrestricted.path("/etc/hostname").unwrap();
    let err = fx.ws.read_text(&host, 100).unwrap_err();
    assert!(matches!(err, BoundaryError::ForeignPath { .. }), "{err:?}");
}

#[test]
fn depth_counts_only_named_components() {
    let fx = Fixture::new();
    assert_eq!(fx.ws.root_path().depth(), 0);
    assert_eq!(fx.ws.path("src/main.rs").unwrap().depth(), 2);
    assert_eq!(fx.ws.path("src/").unwrap().depth(), 1);
    let unrestricted = Workspace::open_unrestricted_host_filesystem(&fx.root).unwrap();
    let host = unrestricted.path("/etc/hostname").unwrap();
    assert_eq!(host.to_text(), "/etc/hostname");
    assert_eq!(host.depth(), 2);
}

#[test]
fn trailing_slash_is_kept_and_means_a_directory() {
    let fx = Fixture::new();
    let ws = &fx.ws;
    for (input, shown) in [
        ("dir/", "dir/"),
        ("dir/.", "dir/"),
        ("dir/sub/..", "dir/"),
        ("./dir//", "dir/"),
    ] {
        let p = ws.path(input).unwrap();
        assert!(p.names_directory(), "{input}");
        assert_eq!(p.to_text(), shown, "{input}");
        assert_eq!(p.file_name().unwrap(), "dir", "{input}");
        assert_eq!(ws.path(p.to_text()).unwrap(), p, "{input} reparsed");
    }
    let plain = ws.path("dir").unwrap();
    assert!(!plain.names_directory());
    assert_ne!(plain, ws.path("dir/").unwrap());
    for root in ["./", "a/../", "/"] {
        let input = if root == "/" {
            format!("{}/", fx.root.display())
        } else {
            root.to_owned()
        };
        let p = ws.path(&input).unwrap();
        assert!(p.is_root() && !p.names_directory(), "{input}");
    }
}
