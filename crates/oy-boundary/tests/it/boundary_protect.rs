//! Protected paths: what `Workspace::protect` names is refused by every
//! change, under other spellings, through links, with the parent moved,
//! and while a racing thread swaps a directory for a link into it.

use std::fs;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use oy_boundary::{BoundaryError, Protection};

use crate::support::{Fixture, exchange};

const CONFIG: &str = "[core]\n";

fn protected_repo() -> Fixture {
    let fx = Fixture::new();
    fx.file(".git/config", CONFIG)
        .file("src/lib.rs", "fn f() {}\n");
    fx.ws
        .protect(Protection::new().name(".git", "git's own directory"));
    fx
}

fn assert_protected<T: std::fmt::Debug>(result: oy_boundary::Result<T>) {
    match result {
        Err(error) => assert!(error.is_protected(), "{error:?}"),
        Ok(value) => panic!("expected a refusal, got {value:?}"),
    }
}

#[test]
fn every_change_to_a_protected_name_is_refused() {
    let fx = protected_repo();
    let ws = &fx.ws;
    let config = ws.path(".git/config").unwrap();
    let hook = ws.path(".GIT/hooks/pre-commit").unwrap();
    let src = ws.path("src/lib.rs").unwrap();
    assert_protected(ws.write(&config, b"x"));
    assert_protected(ws.append(&config, b"x"));
    assert_protected(ws.write_private(&config, b"x"));
    assert_protected(ws.create_new(&hook, b"x"));
    assert_protected(ws.create_dir_all(&ws.path("sub/.git/hooks").unwrap()));
    assert_protected(ws.rename(&config, &src, true));
    assert_protected(ws.rename(&src, &config, true));
    assert_protected(ws.rename(&ws.path(".git").unwrap(), &ws.path("g").unwrap(), false));
    assert_protected(ws.remove(&config, false));
    assert_protected(ws.remove(&ws.path(".git").unwrap(), true));
    assert_eq!(fx.read(".git/config"), CONFIG);
    assert_eq!(fx.read("src/lib.rs"), "fn f() {}\n");
    // Reading stays allowed.
    assert_eq!(ws.read_text(&config, 1024).unwrap(), CONFIG);
}

#[test]
fn links_to_protected_places_and_directories_holding_them_are_refused() {
    let fx = protected_repo();
    fx.link("cfg", ".git/config").link("g", ".git");
    fx.file("vendor/x/.git/HEAD", "ref\n");
    let ws = &fx.ws;
    assert_protected(ws.write(&ws.path("cfg").unwrap(), b"x"));
    assert_protected(ws.write(&ws.path("g/config").unwrap(), b"x"));
    assert_protected(ws.remove(&ws.path("vendor").unwrap(), true));
    assert!(fx.root.join("vendor/x/.git/HEAD").exists());
    // Protected directories by path: their ancestors cannot move.
    ws.protect(Protection::new().dir(fx.root.join("data/oy"), "oy's data"));
    fx.file("data/oy/sessions.json", "{}");
    let data = ws.path("data").unwrap();
    assert_protected(ws.rename(&data, &ws.path("moved").unwrap(), false));
    assert_protected(ws.remove(&data, true));
    assert_protected(ws.write(&ws.path("data/oy/sessions.json").unwrap(), b"x"));
    // The link itself may go.
    ws.remove(&ws.path("cfg").unwrap(), false).unwrap();
    assert_eq!(fx.read(".git/config"), CONFIG);
}

#[test]
fn protection_only_grows() {
    let fx = protected_repo();
    fx.ws.protect(Protection::new());
    fx.ws.protect(Protection::new().name(".oy", "oy settings"));
    let ws = &fx.ws;
    assert_protected(ws.write(&ws.path(".git/config").unwrap(), b"x"));
    assert_protected(ws.write(&ws.path(".oy/config.toml").unwrap(), b"x"));
}

#[test]
fn a_directory_swapped_for_a_link_into_git_never_redirects_a_write() {
    // `d` flips between a real directory and a link to `.git` (as a
    // confined command racing oy's file tools could make it). Writes to
    // `d/config` land in the real `d` or are refused; `.git/config` never
    // changes.
    let fx = protected_repo();
    fx.file("d/config", "plain\n")
        .file(".git/victim", "keep\n")
        .link("swap", ".git");
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let swapper = {
        let (stop, swaps, root) = (stop.clone(), swaps.clone(), fx.root.clone());
        std::thread::spawn(move || {
            let (d, swap) = (root.join("d"), root.join("swap"));
            while !stop.load(Ordering::Relaxed) {
                exchange(&d, &swap).unwrap();
                std::thread::sleep(Duration::from_micros(300));
                exchange(&d, &swap).unwrap();
                swaps.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    let ws = &fx.ws;
    let target = ws.path("d/config").unwrap();
    let victim = ws.path("d/victim").unwrap();
    let (mut written, mut refused) = (0, 0);
    // Two seconds of racing, longer (up to 20) until both outcomes were
    // seen: a busy machine can starve the swapper for a while.
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(2)
        || ((written == 0 || refused == 0) && started.elapsed() < Duration::from_secs(20))
    {
        match ws.write(&target, b"model\n") {
            Ok(_) => written += 1,
            Err(error) if error.is_protected() || error.is_not_found() => refused += 1,
            // The race seen as such: a link where a directory was.
            Err(BoundaryError::Io { .. } | BoundaryError::NotADirectory { .. }) => refused += 1,
            Err(error) => panic!("unexpected {error:?}"),
        }
        // Removal goes through the same race: `d/victim` made, then removed.
        if ws.write(&victim, b"mine\n").is_ok() {
            let _ = ws.remove(&victim, false);
        }
        assert_eq!(
            fs::read_to_string(fx.root.join(".git/config")).unwrap(),
            CONFIG
        );
        assert!(
            fx.root.join(".git/victim").exists(),
            "removed through the link"
        );
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    assert!(swaps.load(Ordering::Relaxed) > 0, "the swapper never ran");
    assert!(
        written > 0 && refused > 0,
        "race not exercised: {written} written, {refused} refused"
    );
    assert_eq!(fx.read(".git/config"), CONFIG);
}
