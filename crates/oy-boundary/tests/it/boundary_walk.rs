//! The walker and suggestions: ignore files, hidden entries, limits,
//! symlinks (never entered, never leaking outside names), a panicking
//! visitor, opening walked files by handle, and typo matching.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oy_boundary::{FileKind, WalkControl, WalkOptions, Workspace};

use crate::support::{Fixture, assert_symlink_escape, finishes_in_time, mkfifo, refused, walked};

fn walk_root(fx: &Fixture, configure: impl FnOnce(&mut WalkOptions)) -> oy_boundary::Walk {
    let mut options = WalkOptions::new(fx.ws.root_path());
    configure(&mut options);
    fx.ws.walk(&options).unwrap()
}

fn walk_all(fx: &Fixture) -> Vec<String> {
    walked(&walk_root(fx, |_| {}))
}

/// Names of everything under `outside/`, which must never show up in a walk.
const OUTSIDE_NAMES: [&str; 3] = ["secret.txt", "dir", "inner.txt"];

fn assert_no_outside_names(walk: &oy_boundary::Walk) {
    for entry in &walk.entries {
        let name = entry.path.file_name().unwrap().to_string_lossy();
        assert!(
            !OUTSIDE_NAMES.contains(&name.as_ref()),
            "an outside name was listed: {}",
            entry.path
        );
    }
}

#[test]
fn honours_gitignore_without_a_git_repository() {
    let fx = Fixture::new();
    fx.file(".gitignore", "*.log\nbuild/\n")
        .file("keep.txt", "k")
        .file("noise.log", "n")
        .file("build/out.o", "o")
        .file("src/deep.log", "d")
        .file("src/main.rs", "m")
        .file("src/.gitignore", "generated.rs\n")
        .file("src/generated.rs", "g");
    assert!(!fx.root.join(".git").exists());
    assert_eq!(walk_all(&fx), ["keep.txt", "src", "src/main.rs"]);
}

#[test]
fn honours_dot_ignore_file() {
    let fx = Fixture::new();
    fx.file(".ignore", "secret_stuff/\n*.tmp\n")
        .file("a.txt", "a")
        .file("b.tmp", "b")
        .file("secret_stuff/x.txt", "x");
    assert_eq!(walk_all(&fx), ["a.txt"]);
}

#[test]
fn root_gitignore_applies_when_the_walk_starts_in_a_subdirectory() {
    let fx = Fixture::new();
    fx.file(".gitignore", "*.log\n")
        .file("sub/a.txt", "a")
        .file("sub/b.log", "b");
    let ws = &fx.ws;
    let walk = ws.walk(&WalkOptions::new(ws.path("sub").unwrap())).unwrap();
    assert_eq!(walked(&walk), ["sub/a.txt"]);
}

#[test]
fn ignore_files_are_not_honoured_when_turned_off() {
    let fx = Fixture::new();
    fx.file(".gitignore", "*.log\n")
        .file(".ignore", "*.tmp\n")
        .file("a.log", "a")
        .file("b.tmp", "b")
        .file("c.txt", "c");
    let walk = walk_root(&fx, |o| o.respect_ignore_files = false);
    assert_eq!(walked(&walk), ["a.log", "b.tmp", "c.txt"]);
}

#[test]
fn skips_hidden_entries_unless_asked() {
    let fx = Fixture::new();
    fx.file(".env", "e")
        .file(".config/settings.toml", "s")
        .file("visible.txt", "v")
        .file("dir/.hidden", "h");
    assert_eq!(walk_all(&fx), ["dir", "visible.txt"]);
    let walk = walk_root(&fx, |o| o.include_hidden = true);
    assert_eq!(
        walked(&walk),
        [
            ".config",
            ".config/settings.toml",
            ".env",
            "dir",
            "dir/.hidden",
            "visible.txt"
        ]
    );
}

#[test]
fn always_skips_dot_git_even_when_hidden_files_are_included() {
    let fx = Fixture::new();
    fx.file(".git/HEAD", "ref: refs/heads/main\n")
        .file(".git/objects/ab/cdef", "blob")
        .file("sub/.git/config", "c")
        .file("tracked.txt", "t");
    for respect in [true, false] {
        let walk = walk_root(&fx, |o| {
            o.include_hidden = true;
            o.respect_ignore_files = respect;
        });
        assert_eq!(walked(&walk), ["sub", "tracked.txt"], "respect={respect}");
    }
}

#[test]
fn max_depth_limits_descent() {
    let fx = Fixture::new();
    fx.file("a.txt", "a")
        .file("d1/b.txt", "b")
        .file("d1/d2/c.txt", "c");
    let walk = walk_root(&fx, |o| o.max_depth = Some(1));
    assert_eq!(walked(&walk), ["a.txt", "d1"]);
    let walk = walk_root(&fx, |o| o.max_depth = Some(2));
    assert_eq!(walked(&walk), ["a.txt", "d1", "d1/b.txt", "d1/d2"]);
    let depths: Vec<usize> = walk_root(&fx, |_| {})
        .entries
        .iter()
        .map(|e| e.depth)
        .collect();
    assert_eq!(depths, [1, 1, 2, 2, 3]);
}

#[test]
fn max_entries_truncates_and_sets_the_flag() {
    let fx = Fixture::new();
    for i in 0..40 {
        fx.file(&format!("d{}/f{i}.txt", i % 4), "x");
    }
    let full = walk_root(&fx, |_| {});
    assert_eq!(full.entries.len(), 44);
    assert!(!full.truncated);
    let exact = walk_root(&fx, |o| o.max_entries = Some(44));
    assert_eq!(exact.entries.len(), 44);
    assert!(!exact.truncated);
    let cut = walk_root(&fx, |o| o.max_entries = Some(10));
    assert!(cut.truncated);
    assert!(cut.entries.len() <= 10, "{} entries", cut.entries.len());
    assert!(!cut.entries.is_empty());
}

#[test]
fn reports_symlinks_as_symlinks_and_never_descends_into_them() {
    let fx = Fixture::new();
    fx.file("real/inside.txt", "i");
    fx.link("to_outside_dir", &fx.outside);
    fx.link("to_outside_rel", "../outside/dir");
    fx.link("to_outside_file", fx.outside.join("secret.txt"));
    fx.link("to_inside_dir", "real");
    fx.link("to_root", ".");
    fx.link("dangling", "nowhere");
    let walk = walk_root(&fx, |o| {
        o.include_hidden = true;
        o.respect_ignore_files = false;
    });
    assert_eq!(
        walked(&walk),
        [
            "dangling",
            "real",
            "real/inside.txt",
            "to_inside_dir",
            "to_outside_dir",
            "to_outside_file",
            "to_outside_rel",
            "to_root"
        ]
    );
    for entry in &walk.entries {
        let expected = if entry.path.to_text().starts_with("real") {
            entry.kind != FileKind::Symlink
        } else {
            entry.kind == FileKind::Symlink
        };
        assert!(expected, "{entry:?}");
    }
    assert_no_outside_names(&walk);
}

#[test]
fn walk_started_at_a_symlink_to_an_inside_directory_lists_its_contents() {
    let fx = Fixture::new();
    fx.file("real/a.txt", "a").file("real/sub/b.txt", "b");
    fx.link("alias", "real");
    fx.link("alias_abs", fx.root.join("real"));
    let ws = &fx.ws;
    for start in ["alias", "alias_abs"] {
        let walk = ws.walk(&WalkOptions::new(ws.path(start).unwrap())).unwrap();
        let names: Vec<String> = walk
            .entries
            .iter()
            .map(|e| e.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.txt", "sub", "b.txt"], "{start}");
        // Every yielded path can be used with the workspace.
        let a = &walk.entries[0].path;
        assert_eq!(ws.read_text(a, 10).unwrap(), "a");
    }
}

#[test]
fn walk_started_at_a_symlink_to_an_outside_directory_is_an_escape() {
    let fx = Fixture::new();
    fx.link("out", &fx.outside);
    fx.link("out_rel", "../outside/dir");
    let ws = &fx.ws;
    let seen = AtomicUsize::new(0);
    for (start, link) in [("out", "out"), ("out_rel", "out_rel"), ("out/dir", "out")] {
        let options = WalkOptions::new(ws.path(start).unwrap());
        assert_symlink_escape(&refused(ws.walk(&options)), link);
        let err = refused(ws.walk_parallel(&options, |_| {
            seen.fetch_add(1, Ordering::Relaxed);
            WalkControl::Continue
        }));
        assert!(err.is_escape());
    }
    assert_eq!(seen.load(Ordering::Relaxed), 0);
}

#[test]
fn walk_of_a_missing_start_is_not_found() {
    let fx = Fixture::new();
    let ws = &fx.ws;
    let err = refused(ws.walk(&WalkOptions::new(ws.path("nope").unwrap())));
    assert!(err.is_not_found(), "{err:?}");
}

#[test]
fn walk_started_at_a_file_yields_only_that_file() {
    let fx = Fixture::new();
    fx.file("dir/only.txt", "o").file("dir/other.txt", "x");
    fx.link("file_link", "dir/only.txt");
    let ws = &fx.ws;
    for start in ["dir/only.txt", "file_link"] {
        let walk = ws.walk(&WalkOptions::new(ws.path(start).unwrap())).unwrap();
        assert_eq!(walk.entries.len(), 1, "{start}");
        let entry = &walk.entries[0];
        assert_eq!(entry.kind, FileKind::File);
        assert_eq!(entry.depth, 0);
        // Entries are named as the caller spelled the start.
        assert_eq!(entry.path.to_text(), start);
        assert!(!walk.truncated);
    }
}

#[test]
fn walk_output_is_sorted_by_path() {
    let fx = Fixture::new();
    for name in ["zeta/a", "alpha/z", "alpha/b/c", "Mid", "beta", "alpha/a"] {
        fx.file(name, "x");
    }
    let paths = walk_all(&fx);
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
    assert_eq!(paths.len(), 9);
    // Stable across repeated (parallel) walks.
    for _ in 0..5 {
        assert_eq!(walk_all(&fx), paths);
    }
}

#[test]
fn detect_executables_marks_only_executable_regular_files() {
    let fx = Fixture::new();
    fx.file("run.sh", "#!/bin/sh\n")
        .file("data.txt", "d")
        .file("group_exec", "g")
        .file("bin/tool", "t");
    fx.link("exec_link", "run.sh");
    let set = |name: &str, mode| {
        fs::set_permissions(fx.root.join(name), fs::Permissions::from_mode(mode)).unwrap();
    };
    set("run.sh", 0o755);
    set("group_exec", 0o610);
    set("bin/tool", 0o700);
    set("bin", 0o755);
    let walk = walk_root(&fx, |o| o.detect_executables = true);
    let executable: Vec<String> = walk
        .entries
        .iter()
        .filter(|e| e.executable)
        .map(|e| e.path.to_text())
        .collect();
    assert_eq!(executable, ["bin/tool", "group_exec", "run.sh"]);
    let plain = walk_root(&fx, |_| {});
    assert!(plain.entries.iter().all(|e| !e.executable));
    let single = fx
        .ws
        .walk(&WalkOptions {
            detect_executables: true,
            ..WalkOptions::new(fx.ws.path("run.sh").unwrap())
        })
        .unwrap();
    assert!(single.entries[0].executable);
}

#[test]
fn walk_parallel_stop_ends_the_walk_early() {
    let fx = Fixture::new();
    for i in 0..300 {
        fx.file(&format!("d{}/f{i}.txt", i % 10), "x");
    }
    let seen = Mutex::new(Vec::new());
    let summary = fx
        .ws
        .walk_parallel(&WalkOptions::new(fx.ws.root_path()), |entry| {
            let mut seen = seen.lock().unwrap();
            seen.push(entry.path);
            if seen.len() >= 5 {
                WalkControl::Stop
            } else {
                WalkControl::Continue
            }
        })
        .unwrap();
    assert!(summary.entries.is_empty());
    let seen = seen.into_inner().unwrap().len();
    assert!((5..310).contains(&seen), "{seen} entries after Stop");
}

#[test]
fn walk_parallel_skip_children_prunes_a_directory_but_not_its_siblings() {
    let fx = Fixture::new();
    fx.file("keep/a.txt", "x");
    fx.file("prune/b.txt", "x");
    fx.file("prune/deeper/c.txt", "x");
    fx.file("top.txt", "x");
    let seen = Mutex::new(Vec::new());
    fx.ws
        .walk_parallel(&WalkOptions::new(fx.ws.root_path()), |entry| {
            let path = entry.path.to_text();
            let control = if path == "prune" || path == "top.txt" {
                // On a file it changes nothing.
                WalkControl::SkipChildren
            } else {
                WalkControl::Continue
            };
            seen.lock().unwrap().push(path);
            control
        })
        .unwrap();
    let mut seen = seen.into_inner().unwrap();
    seen.sort();
    assert_eq!(seen, ["keep", "keep/a.txt", "prune", "top.txt"]);
}

#[test]
fn special_files_are_listed_by_kind_without_being_opened() {
    let fx = Fixture::new();
    mkfifo(&fx.root.join("pipe"));
    let _listener = UnixListener::bind(fx.root.join("sock")).unwrap();
    fx.file("plain.txt", "p");
    let ws = Workspace::open(&fx.root).unwrap();
    let fifo = fx.root.join("pipe");
    let walk = finishes_in_time("walk with a FIFO", Some(&fifo), move || {
        ws.walk(&WalkOptions {
            detect_executables: true,
            ..WalkOptions::new(ws.root_path())
        })
        .unwrap()
    });
    let kinds: Vec<(String, FileKind)> = walk
        .entries
        .iter()
        .map(|e| (e.path.to_text(), e.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("pipe".to_owned(), FileKind::Fifo),
            ("plain.txt".to_owned(), FileKind::File),
            ("sock".to_owned(), FileKind::Socket)
        ]
    );
}

#[test]
fn ignore_files_symlinked_outside_the_root_are_not_followed() {
    // Ignore files are read by the walker; one that is a link out of the
    // root must not be read (its patterns would leak outside content into
    // what the walk shows, and the link itself is a way out).
    let fx = Fixture::new();
    fs::write(fx.outside.join("patterns"), "*.txt\n").unwrap();
    fx.link(".gitignore", fx.outside.join("patterns"));
    fx.link("sub/.ignore", "../../outside/patterns");
    fx.file("visible.txt", "v")
        .file("sub/also_visible.txt", "a");
    assert_eq!(
        walk_all(&fx),
        ["sub", "sub/also_visible.txt", "visible.txt"]
    );
}

#[test]
fn fifo_named_gitignore_does_not_block_the_walk() {
    let fx = Fixture::new();
    fx.file("sub/a.txt", "a").file("b.txt", "b");
    let fifo = fx.root.join("sub/.gitignore");
    mkfifo(&fifo);
    let ws = Workspace::open(&fx.root).unwrap();
    let walk = finishes_in_time("walk past a FIFO .gitignore", Some(&fifo), move || {
        ws.walk(&WalkOptions::new(ws.root_path())).unwrap()
    });
    assert_eq!(walked(&walk), ["b.txt", "sub", "sub/a.txt"]);
}

/// Swaps `a` and `b` atomically (both always exist).
fn exchange(a: &std::path::Path, b: &std::path::Path) {
    rustix::fs::renameat_with(
        rustix::fs::CWD,
        a,
        rustix::fs::CWD,
        b,
        rustix::fs::RenameFlags::EXCHANGE,
    )
    .unwrap();
}

#[test]
fn walk_never_lists_outside_names_while_a_directory_is_swapped_for_an_outside_link() {
    let fx = Fixture::new();
    fx.file("sw/inside.txt", "i").file("other/x.txt", "x");
    fx.link("link_abs", &fx.outside);
    fx.link("link_rel", "../outside");
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, root) = (stop.clone(), fx.root.clone());
        std::thread::spawn(move || {
            let sw = root.join("sw");
            let links = [root.join("link_abs"), root.join("link_rel")];
            let mut i = 0usize;
            while !stop.load(Ordering::Relaxed) {
                exchange(&sw, &links[i % 2]);
                std::thread::yield_now();
                exchange(&sw, &links[i % 2]);
                i += 1;
            }
            i
        })
    };
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut walks = 0;
    let mut leaked = Vec::new();
    while walks < 400 && Instant::now() < deadline {
        let walk = walk_root(&fx, |_| {});
        walks += 1;
        for entry in &walk.entries {
            let name = entry.path.file_name().unwrap().to_string_lossy();
            if OUTSIDE_NAMES.contains(&name.as_ref()) {
                leaked.push(entry.path.to_text());
            }
        }
        if !leaked.is_empty() {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    assert!(swaps > 0, "the swapper never ran");
    assert!(
        leaked.is_empty(),
        "after {walks} walks the walker listed outside names: {leaked:?}"
    );
}

#[test]
fn suggest_finds_a_typo_in_the_file_name() {
    let fx = Fixture::new();
    fx.file("src/main.rs", "m")
        .file("src/lib.rs", "l")
        .file("README.md", "r");
    let ws = &fx.ws;
    let got = ws.suggest(&ws.path("src/mian.rs").unwrap(), 3);
    assert_eq!(
        got.first().map(|p| p.to_text()).as_deref(),
        Some("src/main.rs")
    );
    let got = ws.suggest(&ws.path("readme.md").unwrap(), 3);
    assert_eq!(
        got.first().map(|p| p.to_text()).as_deref(),
        Some("README.md")
    );
    assert!(ws.suggest(&ws.path("zzzzzz.qq").unwrap(), 3).is_empty());
}

#[test]
fn suggest_finds_the_same_name_in_another_directory() {
    let fx = Fixture::new();
    fx.file("crates/core/src/util.rs", "u")
        .file("crates/core/src/other.rs", "o");
    let ws = &fx.ws;
    let got = ws.suggest(&ws.path("src/util.rs").unwrap(), 5);
    assert_eq!(
        got.first().map(|p| p.to_text()).as_deref(),
        Some("crates/core/src/util.rs")
    );
    assert!(ws.suggest(&ws.path("x/util.rs").unwrap(), 0).is_empty());
}

#[test]
fn suggest_names_an_unreadable_file_without_error() {
    let fx = Fixture::new();
    fx.file("locked/config.toml", "c");
    fs::set_permissions(
        fx.root.join("locked/config.toml"),
        fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    let ws = &fx.ws;
    let got = ws.suggest(&ws.path("locked/confg.toml").unwrap(), 3);
    assert_eq!(
        got.iter().map(|p| p.to_text()).collect::<Vec<_>>(),
        ["locked/config.toml"]
    );
}

#[test]
fn suggest_never_offers_outside_files_through_links() {
    let fx = Fixture::new();
    fx.link("out", &fx.outside);
    fx.link("secret_link.txt", fx.outside.join("secret.txt"));
    fx.file("notes.txt", "n");
    let ws = &fx.ws;
    for missing in [
        "out/secret.txt",
        "out/dir/inner.txt",
        "secret.txt",
        "inner.txt",
    ] {
        let got = ws.suggest(&ws.path(missing).unwrap(), 10);
        for p in &got {
            let text = p.to_text();
            assert!(
                !text.starts_with("out") && !text.contains("inner"),
                "{missing}: suggested {text}"
            );
            assert_eq!(ws.metadata(p).unwrap().kind, FileKind::File);
        }
    }
}

#[test]
fn suggest_does_not_open_files() {
    // A FIFO blocks whoever opens it: suggest must finish and never offer it.
    let fx = Fixture::new();
    let fifo = fx.root.join("notes.txt");
    mkfifo(&fifo);
    fx.file("notez.md", "n");
    let ws = Workspace::open(&fx.root).unwrap();
    let got = finishes_in_time("suggest next to a FIFO", Some(&fifo), move || {
        let missing = ws.path("note.txt").unwrap();
        ws.suggest(&missing, 5)
            .iter()
            .map(|p| p.to_text())
            .collect::<Vec<_>>()
    });
    assert!(!got.contains(&"notes.txt".to_owned()), "{got:?}");
}

#[test]
fn walk_parallel_propagates_a_visitor_panic_instead_of_hanging() {
    let fx = Fixture::new();
    for i in 0..20 {
        fx.file(&format!("d{}/f{i}.txt", i % 4), "x");
    }
    let ws = Workspace::open(&fx.root).unwrap();
    let panicked = finishes_in_time("walk with a panicking visitor", None, move || {
        let options = WalkOptions::new(ws.root_path());
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ws.walk_parallel(&options, |_| -> WalkControl {
                // Give the other walker threads time to wait for work.
                std::thread::sleep(Duration::from_millis(50));
                panic!("visitor bug")
            })
        }))
        .is_err()
    });
    assert!(panicked, "the visitor's panic did not reach the caller");
}

#[test]
fn max_depth_zero_lists_nothing_below_the_start() {
    let fx = Fixture::new();
    fx.file("a.txt", "a").file("d1/b.txt", "b");
    assert!(walk_root(&fx, |o| o.max_depth = Some(0)).entries.is_empty());
    let ws = &fx.ws;
    let sub = WalkOptions {
        max_depth: Some(0),
        ..WalkOptions::new(ws.path("d1").unwrap())
    };
    assert!(ws.walk(&sub).unwrap().entries.is_empty());
    // A file start is the walk's depth-0 entry itself, so it stays.
    let file = WalkOptions {
        max_depth: Some(0),
        ..WalkOptions::new(ws.path("a.txt").unwrap())
    };
    assert_eq!(walked(&ws.walk(&file).unwrap()), ["a.txt"]);
}

#[test]
fn gitignore_that_is_not_utf8_still_applies() {
    let fx = Fixture::new();
    fx.file("target/big.o", "o").file("keep.txt", "k");
    fs::write(fx.root.join(".gitignore"), b"# caf\xe9\ntarget/\n").unwrap();
    fs::create_dir_all(fx.root.join("sub")).unwrap();
    fs::write(fx.root.join("sub/.ignore"), b"\xff\xfe*.log\n*.log\n").unwrap();
    fx.file("sub/x.log", "l").file("sub/y.txt", "y");
    assert_eq!(walk_all(&fx), ["keep.txt", "sub", "sub/y.txt"]);
}

#[test]
fn ignore_files_symlinked_inside_the_root_are_followed() {
    let fx = Fixture::new();
    fx.file("rules/common", "*.log\n")
        .file("a.log", "a")
        .file("a.txt", "a")
        .file("sub/b.log", "b")
        .file("sub/b.tmp", "b");
    fx.link(".gitignore", "rules/common");
    fx.link("sub/.ignore", fx.root.join("rules/tmp"));
    fx.file("rules/tmp", "*.tmp\n");
    assert_eq!(
        walk_all(&fx),
        ["a.txt", "rules", "rules/common", "rules/tmp", "sub"]
    );
}

#[test]
fn ignore_files_of_the_directories_above_the_start_apply() {
    let fx = Fixture::new();
    fx.file(".gitignore", "*.log\n")
        .file("a/.ignore", "*.tmp\n")
        .file("a/b/keep.txt", "k")
        .file("a/b/x.log", "x")
        .file("a/b/y.tmp", "y");
    let ws = &fx.ws;
    let walk = ws.walk(&WalkOptions::new(ws.path("a/b").unwrap())).unwrap();
    assert_eq!(walked(&walk), ["a/b/keep.txt"]);
}

/// Walks `start` with `walk_parallel` and returns, for each regular file,
/// what `open_walked` made of it.
fn open_each_walked(
    ws: &Workspace,
    start: &str,
    between: impl Fn() + Sync,
) -> Vec<(String, Result<String, oy_boundary::BoundaryError>)> {
    let opened = Mutex::new(Vec::new());
    let options = WalkOptions::new(ws.path(start).unwrap());
    ws.walk_parallel(&options, |entry| {
        if matches!(entry.kind, FileKind::File | FileKind::Fifo) {
            between();
            let result = ws.open_walked(&entry).map(|mut file| {
                let mut text = String::new();
                std::io::Read::read_to_string(&mut file, &mut text).unwrap();
                text
            });
            opened.lock().unwrap().push((entry.path.to_text(), result));
        }
        WalkControl::Continue
    })
    .unwrap();
    let mut opened = opened.into_inner().unwrap();
    opened.sort_by(|a, b| a.0.cmp(&b.0));
    opened
}

#[test]
fn open_walked_opens_files_relative_to_their_directory() {
    let fx = Fixture::new();
    fx.file("a.txt", "A")
        .file("d/b.txt", "B")
        .file("d/e/c.txt", "C");
    let opened = open_each_walked(&fx.ws, ".", || {});
    let texts: Vec<(String, String)> = opened
        .into_iter()
        .map(|(path, result)| (path, result.unwrap()))
        .collect();
    assert_eq!(
        texts,
        [
            ("a.txt".to_owned(), "A".to_owned()),
            ("d/b.txt".to_owned(), "B".to_owned()),
            ("d/e/c.txt".to_owned(), "C".to_owned())
        ]
    );
    // Entries without a handle (collected by `walk`, or a file start) and
    // entries of inside links fall back to `open_file`.
    let ws = &fx.ws;
    fx.link("link.txt", "d/b.txt");
    let walk = walk_root(&fx, |_| {});
    for entry in &walk.entries {
        if matches!(entry.kind, FileKind::File | FileKind::Symlink) {
            assert!(ws.open_walked(entry).is_ok(), "{entry:?}");
        }
    }
    let single = ws
        .walk(&WalkOptions::new(ws.path("d/b.txt").unwrap()))
        .unwrap();
    assert!(ws.open_walked(&single.entries[0]).is_ok());
    let dir = walk.entries.iter().find(|e| e.kind == FileKind::Directory);
    let err = refused(ws.open_walked(dir.unwrap()));
    assert!(
        matches!(err, oy_boundary::BoundaryError::NotAFile { .. }),
        "{err:?}"
    );
}

#[test]
fn open_walked_refuses_a_fifo_without_blocking() {
    let fx = Fixture::new();
    let fifo = fx.root.join("d/pipe");
    mkfifo(&fifo);
    fx.file("d/plain.txt", "p");
    let ws = Workspace::open(&fx.root).unwrap();
    let swapped = fx.root.join("d/plain.txt");
    let swap = swapped.clone();
    // Only the swapped-in FIFO is ever opened (the walked FIFO is refused
    // by its listed kind), so that is the one to release on a timeout.
    let opened = finishes_in_time("open_walked on FIFOs", Some(&swapped), move || {
        // Between the walk and the open, the regular file becomes a FIFO too.
        let once = std::sync::Once::new();
        open_each_walked(&ws, "d", || {
            once.call_once(|| {
                fs::remove_file(&swap).unwrap();
                mkfifo(&swap);
            });
        })
    });
    assert_eq!(opened.len(), 2, "{opened:?}");
    for (path, result) in opened {
        match result {
            Err(oy_boundary::BoundaryError::NotAFile {
                kind: FileKind::Fifo,
                ..
            }) => {}
            other => panic!("{path}: expected NotAFile FIFO, got {other:?}"),
        }
    }
}

#[test]
fn open_walked_refuses_a_file_swapped_for_an_outside_link() {
    let fx = Fixture::new();
    fx.file("d/victim.txt", "inside");
    let victim = fx.root.join("d/victim.txt");
    let outside = fx.outside.join("secret.txt");
    let opened = open_each_walked(&fx.ws, "d", || {
        fs::remove_file(&victim).unwrap();
        std::os::unix::fs::symlink(&outside, &victim).unwrap();
    });
    assert_eq!(opened.len(), 1);
    let (_, result) = opened.into_iter().next().unwrap();
    let err = refused(result);
    assert_symlink_escape(&err, "d/victim.txt");
}

#[test]
fn open_walked_refuses_an_entry_of_another_workspace() {
    let fx = Fixture::new();
    fx.file("a.txt", "A");
    let other = Workspace::open(&fx.root).unwrap();
    let mut seen = Vec::new();
    let walk = other.walk(&WalkOptions::new(other.root_path())).unwrap();
    for entry in &walk.entries {
        seen.push(refused(fx.ws.open_walked(entry)));
    }
    assert_eq!(seen.len(), 1);
    assert!(
        matches!(seen[0], oy_boundary::BoundaryError::ForeignPath { .. }),
        "{:?}",
        seen[0]
    );
}

#[test]
fn are_executable_stats_each_file_in_its_directory_and_follows_no_link_out() {
    let fx = Fixture::new();
    fx.file("d/run.sh", "x")
        .file("d/plain.txt", "x")
        .file("e/run.sh", "x");
    for rel in ["d/run.sh", "e/run.sh"] {
        fs::set_permissions(fx.root.join(rel), fs::Permissions::from_mode(0o755)).unwrap();
    }
    fs::set_permissions(
        fx.outside.join("secret.txt"),
        fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    fx.link("out", &fx.outside)
        .link("d/link.sh", "run.sh")
        .link("inside", "d");
    let ws = &fx.ws;
    let paths: Vec<_> = [
        "d/run.sh",
        "d/plain.txt",
        "d/link.sh",
        "d/missing.sh",
        "e/run.sh",
        "out/secret.txt",
        "inside/run.sh",
        "d",
    ]
    .iter()
    .map(|rel| ws.path(rel).unwrap())
    .collect();
    let refs: Vec<_> = paths.iter().collect();
    assert_eq!(
        ws.are_executable(&refs),
        [true, false, false, false, true, false, true, false]
    );
}
