//! Lexical path parsing: normalisation, absolute mapping, rejections.

use oy_boundary::{BoundaryError, EscapeRoute, InvalidPathReason};

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
    for input in ["..", "../x", "a/../../x", "a/b/../../../x", "./../root/x"] {
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
    let roundabout = fx.root.join("../root/src/./main.rs");
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
