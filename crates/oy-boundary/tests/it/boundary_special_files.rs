//! Special and awkward files: FIFOs, sockets, devices, huge, sparse,
//! non-UTF-8 and very long lines, non-UTF-8 names and very long paths.

use std::ffi::OsStr;
use std::fs;
use std::io::{BufWriter, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, symlink};
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use oy_boundary::{BoundaryError, FileKind, InvalidPathReason, LineWindow, WalkOptions, Workspace};

use crate::support::{Fixture, assert_symlink_escape, finishes_in_time, mkfifo, refused};

fn window(offset: usize, limit: usize) -> LineWindow {
    LineWindow {
        offset,
        limit,
        ..LineWindow::default()
    }
}

/// Runs every reading operation on `path` in `ws`, each on its own thread
/// with a timeout, and asserts each is `NotAFile` of `kind`.
fn assert_reads_refused_without_blocking(
    ws: &Arc<Workspace>,
    path: &str,
    kind: FileKind,
    fifo: Option<&Path>,
) {
    type Op = fn(&Workspace, &oy_boundary::WorkspacePath) -> Option<BoundaryError>;
    let ops: [(&str, Op); 9] = [
        ("read_text", |ws, p| ws.read_text(p, 1 << 20).err()),
        ("file_equals", |ws, p| ws.file_equals(p, b"").err()),
        ("read_bytes", |ws, p| ws.read_bytes(p, 1 << 20).err()),
        ("read_lines", |ws, p| {
            ws.read_lines(p, LineWindow::default()).err()
        }),
        ("read_lines_whole", |ws, p| {
            ws.read_lines_whole(p, LineWindow::default(), 1 << 20, &mut |_| {})
                .err()
        }),
        ("is_text", |ws, p| ws.is_text(p).err()),
        ("open_file", |ws, p| ws.open_file(p).err()),
        ("write", |ws, p| ws.write(p, b"x").err()),
        ("append", |ws, p| ws.append(p, b"x").err()),
    ];
    for (name, op) in ops {
        let ws = Arc::clone(ws);
        let p = ws.path(path).unwrap();
        let what = format!("{name} {path}");
        let err = finishes_in_time(&what, fifo, move || op(&ws, &p));
        match err {
            Some(BoundaryError::NotAFile { kind: got, .. }) => assert_eq!(got, kind, "{what}"),
            other => panic!("{what}: expected NotAFile {kind}, got {other:?}"),
        }
    }
}

#[test]
fn fifo_is_not_a_file_and_never_blocks() {
    let fx = Fixture::new();
    let fifo = fx.root.join("pipe");
    mkfifo(&fifo);
    fx.link("pipe_link", "pipe");
    let ws = Arc::new(Workspace::open(&fx.root).unwrap());
    assert_reads_refused_without_blocking(&ws, "pipe", FileKind::Fifo, Some(&fifo));
    assert_reads_refused_without_blocking(&ws, "pipe_link", FileKind::Fifo, Some(&fifo));
    let p = ws.path("pipe").unwrap();
    assert_eq!(ws.metadata(&p).unwrap().kind, FileKind::Fifo);
    // The FIFO was neither replaced nor written to.
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(ws.remove(&p, false).unwrap(), FileKind::Fifo);
    assert!(fs::symlink_metadata(&fifo).is_err());
}

#[test]
fn unix_socket_is_not_a_file() {
    let fx = Fixture::new();
    let _listener = UnixListener::bind(fx.root.join("sock")).unwrap();
    let ws = Arc::new(Workspace::open(&fx.root).unwrap());
    assert_reads_refused_without_blocking(&ws, "sock", FileKind::Socket, None);
    let p = ws.path("sock").unwrap();
    assert_eq!(ws.metadata(&p).unwrap().kind, FileKind::Socket);
}

#[test]
fn dev_zero_through_a_symlink_is_an_escape_when_restricted() {
    let fx = Fixture::new();
    fx.link("zero", "/dev/zero");
    let ws = &fx.ws;
    let p = ws.path("zero").unwrap();
    assert_symlink_escape(&refused(ws.read_text(&p, 1 << 20)), "zero");
    assert_symlink_escape(&refused(ws.read_bytes(&p, 1 << 20)), "zero");
    assert_symlink_escape(&refused(ws.read_lines(&p, LineWindow::default())), "zero");
    assert_symlink_escape(
        &refused(ws.read_lines_whole(&p, LineWindow::default(), 1 << 20, &mut |_| {})),
        "zero",
    );
    assert_symlink_escape(&refused(ws.is_text(&p)), "zero");
    assert_symlink_escape(&refused(ws.open_file(&p)), "zero");
    assert!(refused(ws.path("/dev/zero")).is_escape());
}

#[test]
fn dev_zero_is_a_char_device_in_an_unrestricted_workspace() {
    let fx = Fixture::new();
    fx.link("zero", "/dev/zero");
    let ws = Arc::new(Workspace::open_unrestricted_host_filesystem(&fx.root).unwrap());
    assert!(ws.is_unrestricted());
    assert_eq!(
        ws.metadata(&ws.path("/dev/zero").unwrap()).unwrap().kind,
        FileKind::CharDevice
    );
    assert_reads_refused_without_blocking(&ws, "/dev/zero", FileKind::CharDevice, None);
    assert_reads_refused_without_blocking(&ws, "zero", FileKind::CharDevice, None);
}

#[test]
fn reading_while_a_file_is_swapped_for_a_fifo_never_blocks() {
    let fx = Fixture::new();
    fx.file("target.txt", "regular");
    let pipe = fx.root.join("pipe");
    mkfifo(&pipe);
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, root) = (stop.clone(), fx.root.clone());
        std::thread::spawn(move || {
            let (a, b) = (root.join("target.txt"), root.join("pipe"));
            let mut swaps = 0usize;
            while !stop.load(Ordering::Relaxed) {
                rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    &a,
                    rustix::fs::CWD,
                    &b,
                    rustix::fs::RenameFlags::EXCHANGE,
                )
                .unwrap();
                swaps += 1;
            }
            swaps
        })
    };
    let ws = Workspace::open(&fx.root).unwrap();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        finishes_in_time("reads during a FIFO swap", Some(&pipe), move || {
            let p = ws.path("target.txt").unwrap();
            let deadline = Instant::now() + Duration::from_secs(4);
            let (mut ok, mut refused_fifo) = (0, 0);
            // At least 3000 rounds, and on until both states were seen: a
            // loaded machine can starve the swapper thread for a while.
            for round in 0.. {
                if Instant::now() > deadline || (round >= 3000 && ok > 0 && refused_fifo > 0) {
                    break;
                }
                for result in [
                    ws.read_text(&p, 100).map(drop),
                    ws.read_lines(&p, LineWindow::default()).map(drop),
                    ws.is_text(&p).map(drop),
                    ws.open_file(&p).map(drop),
                ] {
                    match result {
                        Ok(()) => ok += 1,
                        Err(BoundaryError::NotAFile {
                            kind: FileKind::Fifo,
                            ..
                        }) => refused_fifo += 1,
                        Err(other) => assert!(other.is_not_found(), "{other:?}"),
                    }
                }
            }
            (ok, refused_fifo)
        })
    }));
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    let (ok, refused_fifo) = outcome.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    assert!(swaps > 0);
    assert!(ok > 0 && refused_fifo > 0, "ok={ok} fifo={refused_fifo}");
}

/// Writes `count` lines of exactly 100 bytes: `line 000000001 xxx…\n`.
fn write_fixed_lines(path: &Path, count: usize) {
    let mut out = BufWriter::with_capacity(1 << 20, fs::File::create(path).unwrap());
    let pad = "x".repeat(84);
    for n in 1..=count {
        writeln!(out, "line {n:09} {pad}").unwrap();
    }
    out.flush().unwrap();
}

fn fixed_line(n: usize) -> String {
    format!("line {n:09} {}", "x".repeat(84))
}

#[test]
fn hundred_megabyte_file_is_refused_by_read_text_and_sliced_by_read_lines() {
    const LINES: usize = 1024 * 1024;
    const SIZE: u64 = 100 * 1024 * 1024;
    let fx = Fixture::new();
    write_fixed_lines(&fx.root.join("big.txt"), LINES);
    assert_eq!(fs::metadata(fx.root.join("big.txt")).unwrap().len(), SIZE);
    let ws = &fx.ws;
    let p = ws.path("big.txt").unwrap();

    match refused(ws.read_text(&p, 1 << 20)) {
        // The size comes from the stat, not from a partial read.
        BoundaryError::TooLarge { size, limit, .. } => {
            assert_eq!(size, SIZE);
            assert_eq!(limit, 1 << 20);
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    assert!(matches!(
        refused(ws.read_bytes(&p, 1 << 20)),
        BoundaryError::TooLarge { .. }
    ));
    assert!(ws.is_text(&p).unwrap());

    let head = ws.read_lines(&p, window(1, 10)).unwrap();
    let texts: Vec<String> = head.lines.iter().map(|l| l.text.clone()).collect();
    let expected: Vec<String> = (1..=10).map(fixed_line).collect();
    assert_eq!(texts, expected);
    assert_eq!(head.lines[0].number, 1);
    assert!(head.more);
    assert_eq!(head.next_offset(), Some(11));

    let middle = LINES / 2 + 7;
    let mid = ws.read_lines(&p, window(middle, 3)).unwrap();
    let numbers: Vec<usize> = mid.lines.iter().map(|l| l.number).collect();
    assert_eq!(numbers, [middle, middle + 1, middle + 2]);
    assert_eq!(mid.lines[0].text, fixed_line(middle));
    assert!(mid.more);

    let last = ws.read_lines(&p, window(LINES, 10)).unwrap();
    assert_eq!(last.lines.len(), 1);
    assert_eq!(last.lines[0].text, fixed_line(LINES));
    assert!(!last.more);
    assert_eq!(last.next_offset(), None);

    match refused(ws.read_lines(&p, window(LINES + 1, 10))) {
        BoundaryError::OffsetPastEnd {
            offset,
            total_lines,
            ..
        } => {
            assert_eq!(offset, LINES + 1);
            assert_eq!(total_lines, LINES);
        }
        other => panic!("expected OffsetPastEnd, got {other:?}"),
    }
}

#[test]
fn sparse_file_of_zeros_is_binary() {
    let fx = Fixture::new();
    let file = fs::File::create(fx.root.join("sparse.bin")).unwrap();
    file.set_len(100 * 1024 * 1024).unwrap();
    drop(file);
    let ws = &fx.ws;
    let p = ws.path("sparse.bin").unwrap();
    assert!(!ws.is_text(&p).unwrap());
    assert!(matches!(
        refused(ws.read_lines(&p, LineWindow::default())),
        BoundaryError::Binary { .. }
    ));
    assert!(matches!(
        refused(ws.read_text(&p, 128 * 1024 * 1024)),
        BoundaryError::Binary { .. }
    ));
    assert!(matches!(
        refused(ws.read_text(&p, 1 << 20)),
        BoundaryError::TooLarge { .. }
    ));
}

#[test]
fn invalid_utf8_contents_report_the_first_bad_byte_offset() {
    let fx = Fixture::new();
    fs::write(
        fx.root.join("bad.txt"),
        b"good line\r\nalso ok\nab\xffcd\nafter\n",
    )
    .unwrap();
    fs::write(fx.root.join("cut.txt"), b"caf\xc3").unwrap();
    let ws = &fx.ws;
    let p = ws.path("bad.txt").unwrap();
    let offset_of = |err: BoundaryError| match err {
        BoundaryError::NotUtf8 { byte_offset, .. } => byte_offset,
        other => panic!("expected NotUtf8, got {other:?}"),
    };
    // "good line\r\n" is 11 bytes, "also ok\n" 8, then "ab": the bad byte is at 21.
    assert_eq!(offset_of(refused(ws.read_text(&p, 1024))), 21);
    assert_eq!(
        offset_of(refused(ws.read_lines(&p, LineWindow::default()))),
        21
    );
    assert_eq!(offset_of(refused(ws.read_lines(&p, window(3, 1)))), 21);
    assert!(!ws.is_text(&p).unwrap());
    // Lines before the bad one can still be read.
    let ok = ws.read_lines(&p, window(1, 2)).unwrap();
    assert_eq!(ok.lines[0].text, "good line");
    assert_eq!(ok.lines[1].text, "also ok");
    // A multi-byte character cut by the end of the file.
    let cut = ws.path("cut.txt").unwrap();
    assert_eq!(offset_of(refused(ws.read_text(&cut, 1024))), 3);
}

#[test]
fn crlf_line_endings_are_stripped_by_read_lines() {
    let fx = Fixture::new();
    fs::write(
        fx.root.join("crlf.txt"),
        b"one\r\ntwo\r\n\r\nin\rside\r\nlast",
    )
    .unwrap();
    let ws = &fx.ws;
    let slice = ws
        .read_lines(&ws.path("crlf.txt").unwrap(), LineWindow::default())
        .unwrap();
    let texts: Vec<&str> = slice.lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["one", "two", "", "in\rside", "last"]);
    assert!(slice.lines.iter().all(|l| l.omitted_bytes == 0));
    assert!(!slice.more);
}

#[test]
fn crlf_terminator_is_not_counted_as_omitted_line_bytes() {
    // `Line` is the line without its `\r\n`: a line exactly
    // `max_line_bytes` long was not cut, and a cut line's omitted count is
    // the line's bytes beyond the cap, not its terminator.
    let fx = Fixture::new();
    fs::write(fx.root.join("crlf.txt"), b"abc\r\ndefg\r\nhi\r\n").unwrap();
    let ws = &fx.ws;
    let slice = ws
        .read_lines(
            &ws.path("crlf.txt").unwrap(),
            LineWindow {
                max_line_bytes: 3,
                ..LineWindow::default()
            },
        )
        .unwrap();
    let got: Vec<(&str, u64)> = slice
        .lines
        .iter()
        .map(|l| (l.text.as_str(), l.omitted_bytes))
        .collect();
    assert_eq!(got, [("abc", 0), ("def", 1), ("hi", 0)]);
}

#[test]
fn empty_file_reads_no_lines_and_offset_two_is_past_the_end() {
    let fx = Fixture::new();
    fx.file("empty.txt", "");
    let ws = &fx.ws;
    let p = ws.path("empty.txt").unwrap();
    let slice = ws.read_lines(&p, LineWindow::default()).unwrap();
    assert!(slice.lines.is_empty());
    assert!(!slice.more);
    assert!(ws.is_text(&p).unwrap());
    assert_eq!(ws.read_text(&p, 10).unwrap(), "");
    match refused(ws.read_lines(&p, window(2, 10))) {
        BoundaryError::OffsetPastEnd { total_lines, .. } => assert_eq!(total_lines, 0),
        other => panic!("expected OffsetPastEnd, got {other:?}"),
    }
}

#[test]
fn single_ten_megabyte_line_keeps_max_line_bytes_and_counts_the_rest() {
    const LONG: usize = 10 * 1024 * 1024;
    let fx = Fixture::new();
    let mut contents = Vec::with_capacity(LONG + 32);
    contents.extend_from_slice(b"first\n");
    contents.extend(std::iter::repeat_n(b'a', LONG));
    contents.extend_from_slice(b"\nlast\n");
    fs::write(fx.root.join("long.txt"), &contents).unwrap();
    let ws = &fx.ws;
    let slice = ws
        .read_lines(
            &ws.path("long.txt").unwrap(),
            LineWindow {
                max_line_bytes: 100,
                ..LineWindow::default()
            },
        )
        .unwrap();
    assert_eq!(slice.lines.len(), 3);
    assert_eq!(slice.lines[0].text, "first");
    assert_eq!(slice.lines[0].omitted_bytes, 0);
    assert_eq!(slice.lines[1].text, "a".repeat(100));
    assert_eq!(slice.lines[1].omitted_bytes, (LONG - 100) as u64);
    assert_eq!(slice.lines[2].text, "last");
    assert_eq!(slice.lines[2].number, 3);
}

#[test]
fn non_utf8_file_name_can_be_written_read_walked_and_removed() {
    let fx = Fixture::new();
    let name = OsStr::from_bytes(b"caf\xe9.txt");
    let ws = &fx.ws;
    let p = ws.path(Path::new("dir").join(name)).unwrap();
    assert!(ws.write(&p, b"latin-1 name").unwrap().created);
    assert_eq!(
        fs::read(fx.root.join("dir").join(name)).unwrap(),
        b"latin-1 name"
    );
    assert_eq!(ws.read_text(&p, 100).unwrap(), "latin-1 name");
    ws.append(&p, b"!").unwrap();
    let walk = ws.walk(&WalkOptions::new(ws.root_path())).unwrap();
    let found: Vec<_> = walk
        .entries
        .iter()
        .filter(|e| e.path.file_name() == Some(name))
        .collect();
    assert_eq!(found.len(), 1, "{:?}", walk.entries);
    assert_eq!(found[0].kind, FileKind::File);
    assert_eq!(ws.read_text(&found[0].path, 100).unwrap(), "latin-1 name!");
    let moved = ws.path(OsStr::from_bytes(b"\xff\xfe")).unwrap();
    ws.rename(&found[0].path, &moved, false).unwrap();
    assert_eq!(ws.remove(&moved, false).unwrap(), FileKind::File);
    assert!(!fx.root.join("dir").join(name).exists());
    assert!(fs::read_dir(fx.root.join("dir")).unwrap().next().is_none());
}

#[test]
fn component_of_255_bytes_works() {
    let fx = Fixture::new();
    let name = "n".repeat(255);
    let ws = &fx.ws;
    let p = ws.path(format!("{name}/{name}")).unwrap();
    ws.write(&p, b"long name").unwrap();
    assert_eq!(ws.read_text(&p, 100).unwrap(), "long name");
    let walk = ws.walk(&WalkOptions::new(ws.root_path())).unwrap();
    assert_eq!(walk.entries.len(), 2);
    assert_eq!(
        ws.remove(&ws.path(&name).unwrap(), true).unwrap(),
        FileKind::Directory
    );
    let err = refused(ws.path(format!("{name}x")));
    assert!(matches!(
        err,
        BoundaryError::InvalidPath {
            reason: InvalidPathReason::ComponentTooLong,
            ..
        }
    ));
}

#[test]
fn path_longer_than_path_max_is_invalid_path_too_long() {
    let fx = Fixture::new();
    let part = "d".repeat(200);
    let long = vec![part.as_str(); 21].join("/"); // 4220 bytes
    let ws = &fx.ws;
    let err = refused(ws.path(&long));
    assert!(
        matches!(
            err,
            BoundaryError::InvalidPath {
                reason: InvalidPathReason::TooLong,
                ..
            }
        ),
        "{err:?}"
    );
    let abs = fx.root.join(&long);
    assert!(matches!(
        refused(ws.path(&abs)),
        BoundaryError::InvalidPath {
            reason: InvalidPathReason::TooLong,
            ..
        }
    ));
}

#[test]
fn deep_tree_whose_host_path_exceeds_path_max_is_usable_or_fails_cleanly() {
    let fx = Fixture::new();
    // 16 components of 250 bytes plus a file name: 4080 bytes relative to
    // the root, so the host's absolute path is longer than PATH_MAX.
    let dir = vec!["d".repeat(250); 16].join("/");
    let rel = format!("{dir}/{}", "f".repeat(64));
    assert_eq!(rel.len(), 4080);
    let ws = &fx.ws;
    let p = ws.path(&rel).unwrap();
    assert!(fx.root.join(&rel).as_os_str().len() > 4096);
    ws.write(&p, b"deep").unwrap();
    assert_eq!(ws.read_text(&p, 10).unwrap(), "deep");
    assert_eq!(ws.metadata(&p).unwrap().kind, FileKind::File);
    // The walk must not panic, and must not silently lose the file.
    let walk = ws.walk(&WalkOptions::new(ws.root_path())).unwrap();
    let listed = walk.entries.iter().any(|e| e.path == p);
    assert!(
        listed || walk.unreadable > 0,
        "the deep file vanished from the walk without a trace: {walk:?}"
    );
    // A link that expands the path past PATH_MAX fails cleanly.
    symlink(fx.root.join(&dir), fx.root.join("deep")).unwrap();
    let via = ws.path(format!("deep/{}/x.txt", "e".repeat(200))).unwrap();
    match ws.write(&via, b"x") {
        Ok(_) => assert_eq!(ws.read_text(&via, 10).unwrap(), "x"),
        Err(err) => assert!(!err.is_escape(), "{err:?}"),
    }
    assert_eq!(
        ws.remove(&ws.path("d".repeat(250)).unwrap(), true).unwrap(),
        FileKind::Directory
    );
}

#[test]
fn read_lines_with_an_empty_window_reports_more_at_the_requested_offset() {
    let fx = Fixture::new();
    fx.file("five.txt", "1\n2\n3\n4\n5\n");
    let ws = &fx.ws;
    let p = ws.path("five.txt").unwrap();
    for offset in [1, 3, 5] {
        for window in [
            LineWindow {
                offset,
                limit: 0,
                ..LineWindow::default()
            },
            LineWindow {
                offset,
                max_total_bytes: 0,
                ..LineWindow::default()
            },
        ] {
            let slice = ws.read_lines(&p, window).unwrap();
            assert!(slice.lines.is_empty(), "{window:?}");
            assert!(slice.more, "{window:?}");
            assert_eq!(slice.next_offset(), Some(offset), "{window:?}");
        }
    }
    // Past the end stays an error, and a full window still points after it.
    assert!(matches!(
        refused(ws.read_lines(&p, window(6, 0))),
        BoundaryError::OffsetPastEnd { total_lines: 5, .. }
    ));
    let slice = ws.read_lines(&p, window(2, 2)).unwrap();
    assert_eq!(slice.next_offset(), Some(4));
    assert_eq!(ws.read_lines(&p, window(4, 2)).unwrap().next_offset(), None);
}

#[test]
fn read_lines_does_not_scan_the_line_after_the_window() {
    // Line 2 is text for its first 8 KiB (so the file is not binary), then
    // a 256 GiB hole with no newline: scanning it would take minutes.
    let fx = Fixture::new();
    let path = fx.root.join("huge_second_line.txt");
    let mut head = b"first\n".to_vec();
    head.extend(std::iter::repeat_n(b'x', 8192));
    fs::write(&path, &head).unwrap();
    fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(256 << 30)
        .unwrap();
    let ws = Arc::new(Workspace::open(&fx.root).unwrap());
    let slice = finishes_in_time("read_lines before a huge line", None, move || {
        let p = ws.path("huge_second_line.txt").unwrap();
        let one = ws.read_lines(&p, window(1, 1)).unwrap();
        let none = ws.read_lines(&p, window(2, 0)).unwrap();
        (one, none)
    });
    let (one, none) = slice;
    assert_eq!(one.lines.len(), 1);
    assert_eq!(one.lines[0].text, "first");
    assert!(one.more);
    assert_eq!(one.next_offset(), Some(2));
    assert!(none.lines.is_empty() && none.more);
    assert_eq!(none.next_offset(), Some(2));
}

#[test]
fn file_equals_compares_the_whole_file_and_follows_no_link_out() {
    let fx = Fixture::new();
    let big: String = (0..40_000).map(|n| format!("line {n}\n")).collect();
    fx.file("big.txt", &big).file("small.txt", "abc");
    fx.link("out", fx.outside.join("secret.txt"));
    let ws = &fx.ws;
    let path = |rel: &str| ws.path(rel).unwrap();
    assert!(ws.file_equals(&path("big.txt"), big.as_bytes()).unwrap());
    // A difference in the last block, in the first, and a length off by one.
    let mut last = big.clone().into_bytes();
    *last.last_mut().unwrap() = b'!';
    assert!(!ws.file_equals(&path("big.txt"), &last).unwrap());
    let mut first = big.clone().into_bytes();
    first[0] = b'L';
    assert!(!ws.file_equals(&path("big.txt"), &first).unwrap());
    assert!(
        !ws.file_equals(&path("big.txt"), &big.as_bytes()[1..])
            .unwrap()
    );
    assert!(ws.file_equals(&path("small.txt"), b"abc").unwrap());
    assert!(!ws.file_equals(&path("small.txt"), b"abcd").unwrap());
    assert!(!ws.file_equals(&path("small.txt"), b"").unwrap());
    assert!(
        ws.file_equals(&path("missing.txt"), b"")
            .unwrap_err()
            .is_not_found()
    );
    let err = refused(ws.file_equals(&path("out"), SECRET_BYTES));
    assert_symlink_escape(&err, "out");
}

const SECRET_BYTES: &[u8] = crate::support::SECRET.as_bytes();
