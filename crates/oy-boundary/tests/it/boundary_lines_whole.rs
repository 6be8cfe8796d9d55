//! `read_lines_whole`: a line window and every byte of the file in one
//! read — the same window as `read_lines`, exactly the file's bytes, nothing
//! for a file over the cap, and the same refusals.

use std::fs;
use std::sync::Arc;

use oy_boundary::{BoundaryError, LineSlice, LineWindow, Workspace, WorkspacePath};

use crate::support::{Fixture, assert_symlink_escape, refused};

/// A file of several read buffers (64 KiB each) with CRLF and LF lines,
/// multi-byte characters, a line longer than the per-line cap and no
/// final newline.
fn awkward_text() -> String {
    let mut text = String::new();
    for n in 1..=3000 {
        match n % 7 {
            0 => text.push_str(&format!("crlf line {n}\r\n")),
            3 => text.push_str(&format!("ünïcödé {n} — ✓\n")),
            5 => text.push('\n'),
            _ => text.push_str(&format!("plain line {n} {}\n", "x".repeat(n % 90))),
        }
    }
    text.push_str(&"long".repeat(2000));
    text.push('\n');
    text.push_str("last line without an end");
    text
}

fn whole(
    ws: &Workspace,
    path: &WorkspacePath,
    window: LineWindow,
    max: u64,
) -> oy_boundary::Result<(LineSlice, bool, Vec<u8>)> {
    let mut seen = Vec::new();
    let (slice, complete) = ws.read_lines_whole(path, window, max, &mut |piece| {
        seen.extend_from_slice(piece)
    })?;
    Ok((slice, complete, seen))
}

#[test]
fn every_window_is_read_lines_window_and_the_sink_sees_exactly_the_file() {
    let fx = Fixture::new();
    let text = awkward_text();
    fx.file("a.txt", &text);
    let ws = &fx.ws;
    let p = ws.path("a.txt").unwrap();
    let total_lines = text.lines().count();
    for offset in [1, 2, 7, 1500, total_lines - 1, total_lines] {
        for limit in [0, 1, 3, 200, 5000] {
            for max_total_bytes in [0, 100, 64 * 1024] {
                let window = LineWindow {
                    offset,
                    limit,
                    max_line_bytes: 1600,
                    max_total_bytes,
                };
                let what = format!("offset {offset} limit {limit} cap {max_total_bytes}");
                let (slice, complete, seen) = whole(ws, &p, window, 1 << 20).unwrap();
                assert_eq!(slice, ws.read_lines(&p, window).unwrap(), "{what}");
                assert!(complete, "{what}");
                assert!(seen == text.as_bytes(), "{what}: the sink saw other bytes");
            }
        }
    }
}

#[test]
fn empty_files_and_files_at_the_cap_are_seen_whole() {
    let fx = Fixture::new();
    fx.file("empty.txt", "");
    fx.file("ten.txt", "0123456789");
    let ws = &fx.ws;
    let empty = ws.path("empty.txt").unwrap();
    let (slice, complete, seen) = whole(ws, &empty, LineWindow::default(), 0).unwrap();
    assert!(slice.lines.is_empty() && complete && seen.is_empty());
    let ten = ws.path("ten.txt").unwrap();
    let (slice, complete, seen) = whole(ws, &ten, LineWindow::default(), 10).unwrap();
    assert_eq!(slice.lines.len(), 1);
    assert!(complete);
    assert_eq!(seen, b"0123456789");
}

#[test]
fn a_file_over_the_cap_gets_its_window_and_the_sink_nothing() {
    let fx = Fixture::new();
    let text = awkward_text();
    fx.file("a.txt", &text);
    let ws = &fx.ws;
    let p = ws.path("a.txt").unwrap();
    let len = text.len() as u64;
    let window = LineWindow {
        offset: 10,
        limit: 5,
        ..LineWindow::default()
    };
    let (slice, complete, seen) = whole(ws, &p, window, len - 1).unwrap();
    assert_eq!(slice, ws.read_lines(&p, window).unwrap());
    assert!(!complete);
    assert!(seen.is_empty(), "{} bytes fed", seen.len());
    let (_, complete, seen) = whole(ws, &p, window, len).unwrap();
    assert!(complete);
    assert_eq!(seen.len() as u64, len);
}

#[test]
fn refusals_are_read_lines_refusals() {
    let fx = Fixture::new();
    fx.file("short.txt", "one\ntwo\n");
    fs::write(fx.root.join("bin.dat"), b"text\0more").unwrap();
    fx.link("out.txt", fx.outside.join("secret.txt"));
    let ws = &fx.ws;
    let past = LineWindow {
        offset: 5,
        ..LineWindow::default()
    };
    let short = ws.path("short.txt").unwrap();
    match refused(whole(ws, &short, past, 1 << 20)) {
        BoundaryError::OffsetPastEnd {
            offset: 5,
            total_lines: 2,
            ..
        } => {}
        other => panic!("expected OffsetPastEnd, got {other:?}"),
    }
    let binary = ws.path("bin.dat").unwrap();
    assert!(matches!(
        refused(whole(ws, &binary, LineWindow::default(), 1 << 20)),
        BoundaryError::Binary { .. }
    ));
    let missing = ws.path("missing.txt").unwrap();
    assert!(refused(whole(ws, &missing, LineWindow::default(), 1 << 20)).is_not_found());
}

#[test]
fn a_link_out_of_the_root_is_an_escape_and_nothing_outside_is_fed() {
    let fx = Fixture::new();
    fx.link("out.txt", fx.outside.join("secret.txt"));
    fx.link("dir/up.txt", "../../outside/secret.txt");
    let ws = &fx.ws;
    for name in ["out.txt", "dir/up.txt"] {
        let mut fed = 0;
        let p = ws.path(name).unwrap();
        let error =
            refused(
                ws.read_lines_whole(&p, LineWindow::default(), 1 << 20, &mut |piece| {
                    fed += piece.len();
                }),
            );
        assert_symlink_escape(&error, name);
        assert_eq!(fed, 0, "{name}: bytes from outside were fed");
    }
}

#[test]
fn a_link_inside_the_root_is_read_as_its_target() {
    let fx = Fixture::new();
    fx.file("dir/real.txt", "alpha\nbeta\n");
    fx.link("alias.txt", "dir/real.txt");
    let ws = Arc::new(Workspace::open(&fx.root).unwrap());
    let p = ws.path("alias.txt").unwrap();
    let (slice, complete, seen) = whole(&ws, &p, LineWindow::default(), 1 << 20).unwrap();
    assert_eq!(slice.lines.len(), 2);
    assert!(complete);
    assert_eq!(seen, b"alpha\nbeta\n");
}
