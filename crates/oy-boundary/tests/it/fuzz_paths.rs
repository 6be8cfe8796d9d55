//! Fuzz target `paths`: `Workspace::path` on arbitrary byte strings (paths
//! built from `..`, `.`, empty and over-long components, the root's own
//! spelling, NUL and non-UTF-8 bytes, plus mutated seeds) never panics,
//! agrees with an independent lexical model, and never yields a path
//! outside the root; an unrestricted workspace never panics either.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

use oy_boundary::{BoundaryError, EscapeRoute, InvalidPathReason, Workspace};
use proptest::prelude::*;
use proptest::sample::select;

use crate::fuzz::{Bytes, fuzz, mutated};

/// What the lexical rules say a path string is.
#[derive(Debug, PartialEq, Eq)]
enum Expected {
    /// Inside, at these root-relative components.
    Inside(Vec<Vec<u8>>),
    Invalid,
    Escape,
}

/// The rules of `docs/architecture.md` (`.` dropped, `..` popped, absolute
/// paths inside the root mapped to relative ones, everything else refused),
/// written again over raw bytes, without `std::path`.
fn model(root: &[u8], input: &[u8]) -> Expected {
    if input.is_empty() || input.contains(&0) || input.len() > 4096 {
        return Expected::Invalid;
    }
    let absolute = input.first() == Some(&b'/');
    let mut parts: Vec<Vec<u8>> = Vec::new();
    for part in input.split(|&b| b == b'/') {
        match part {
            b"" | b"." => {}
            b".." => {
                if parts.pop().is_none() && !absolute {
                    return Expected::Escape;
                }
            }
            name if name.len() > 255 => return Expected::Invalid,
            name => parts.push(name.to_vec()),
        }
    }
    if !absolute {
        return Expected::Inside(parts);
    }
    let root: Vec<&[u8]> = root
        .split(|&b| b == b'/')
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() >= root.len() && parts.iter().zip(&root).all(|(a, b)| a == b) {
        Expected::Inside(parts.split_off(root.len()))
    } else {
        Expected::Escape
    }
}

fn root_components(root: &Path) -> Vec<String> {
    root.components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect()
}

/// Path strings from a grammar of troublesome components.
fn grammar(root: &Path) -> impl Strategy<Value = Vec<u8>> {
    let mut pieces: Vec<Vec<u8>> = [
        "a", "b", "..", ".", "", "...", "a b", "-n", "~", "\u{e9}", "\u{202e}", "\\", "a\\..",
        ".git", "\0",
    ]
    .iter()
    .map(|p| p.as_bytes().to_vec())
    .collect();
    pieces.push(vec![b'x'; 255]);
    pieces.push(vec![b'y'; 256]);
    pieces.push(vec![0xff, 0xfe]);
    pieces.extend(root_components(root).into_iter().map(String::into_bytes));
    let root_bytes = root.as_os_str().as_bytes().to_vec();
    let start = prop_oneof![
        Just(Vec::new()),
        Just(b"/".to_vec()),
        Just(b"//".to_vec()),
        Just(root_bytes.clone()),
        Just([root_bytes.as_slice(), b"/"].concat()),
    ];
    let separator = select(vec![b"/".to_vec(), b"//".to_vec(), b"/./".to_vec()]);
    (
        start,
        prop::collection::vec((select(pieces), separator), 0..12),
        any::<bool>(),
    )
        .prop_map(|(start, parts, trailing)| {
            let mut out = start;
            for (index, (piece, separator)) in parts.iter().enumerate() {
                if index > 0 || (!out.is_empty() && !out.ends_with(b"/")) {
                    out.extend_from_slice(separator);
                }
                out.extend_from_slice(piece);
            }
            if trailing {
                out.push(b'/');
            }
            out
        })
}

fn inputs(root: &Path) -> impl Strategy<Value = Vec<u8>> {
    let root_bytes = root.as_os_str().as_bytes().to_vec();
    let seeds = vec![
        b"src/main.rs".to_vec(),
        b"../outside/secret.txt".to_vec(),
        [root_bytes.as_slice(), b"/a/../b/"].concat(),
        [root_bytes.as_slice(), b"/../outside"].concat(),
        b"/etc/passwd".to_vec(),
        b"a/b/../../..".to_vec(),
    ];
    prop_oneof![
        4 => grammar(root),
        2 => mutated(seeds, &["..", "/", ".", "\0", "//", "\u{ff}"], 8),
        1 => prop::collection::vec(any::<u8>(), 0..64),
    ]
}

fn check(ws: &Workspace, root: &Path, input: &[u8]) -> Result<(), TestCaseError> {
    let expected = model(root.as_os_str().as_bytes(), input);
    let got = ws.path(OsStr::from_bytes(input));
    match (&expected, &got) {
        (Expected::Inside(parts), Ok(path)) => {
            let shown: Vec<&[u8]> = path
                .as_path()
                .components()
                .filter_map(|c| match c {
                    Component::Normal(name) => Some(name.as_bytes()),
                    _ => None,
                })
                .collect();
            let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
            prop_assert_eq!(&shown, &parts);
            prop_assert_eq!(path.depth(), parts.len());
            prop_assert!(path.as_path().is_relative());
            let host = ws.host_path(path);
            prop_assert!(
                host.starts_with(root),
                "{} is not under the root",
                host.display()
            );
            prop_assert!(
                !host
                    .components()
                    .any(|c| matches!(c, Component::ParentDir | Component::CurDir)),
                "{} is not lexically normal",
                host.display()
            );
            // What the path shows parses back to the same path.
            let again = ws.path(path.as_path());
            prop_assert!(
                again.as_ref().is_ok_and(|again| again == path),
                "{:?} re-parsed as {:?}",
                path,
                again
            );
        }
        (Expected::Invalid, Err(BoundaryError::InvalidPath { reason, .. })) => {
            prop_assert!(!matches!(reason, InvalidPathReason::UnsupportedPrefix));
        }
        (Expected::Escape, Err(BoundaryError::Escape { route, .. })) => {
            prop_assert!(matches!(
                route,
                EscapeRoute::ParentTraversal | EscapeRoute::AbsolutePath
            ));
        }
        _ => prop_assert!(false, "model says {:?}, parse gave {:?}", expected, got),
    }
    Ok(())
}

#[test]
fn fuzz_workspace_path() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap().join("ws");
    std::fs::create_dir(&root).unwrap();
    let ws = Workspace::open(&root).unwrap();
    let open = Workspace::open_unrestricted_host_filesystem(&root).unwrap();
    let strategy = inputs(&root).prop_map(Bytes);
    fuzz("paths", 2000, strategy, |Bytes(input)| {
        check(&ws, &root, &input)?;
        // Unrestricted: any answer, but no panic, and the root maps home.
        if let Ok(path) = open.path(OsStr::from_bytes(&input)) {
            let host = open.host_path(&path);
            prop_assert!(host.is_absolute());
        }
        Ok(())
    });
}

/// The model's corners, checked on every run whatever the seeds draw: the
/// root spelled absolutely (with `..` into and out of it), `..` at the
/// filesystem root, a climb out of a relative path, a bare `./`, and a
/// non-UTF-8 name.
#[test]
fn fuzz_paths_corners() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap().join("ws");
    std::fs::create_dir(&root).unwrap();
    let ws = Workspace::open(&root).unwrap();
    let root_text = root.to_string_lossy().into_owned();
    let cases: Vec<Vec<u8>> = vec![
        format!("{root_text}/..").into_bytes(),
        format!("{root_text}/../ws/a").into_bytes(),
        format!("/..{root_text}").into_bytes(),
        b"a/../..".to_vec(),
        b"./".to_vec(),
        vec![0xff, b'/', b'.', b'.'],
    ];
    for input in cases {
        check(&ws, &root, &input).unwrap();
    }
}
