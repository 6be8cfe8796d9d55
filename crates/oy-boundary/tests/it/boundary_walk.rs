//! The walker and suggestions: ignore files, hidden entries, limits,
//! symlinks (never entered, never leaking outside names) and typo matching.

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
