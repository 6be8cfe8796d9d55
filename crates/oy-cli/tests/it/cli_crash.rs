//! Crash safety, measured: `oy` is SIGKILLed at random moments while it
//! writes a file, lands a multi-file patch, or saves a session — over 200
//! trials — and after each one every file is wholly old or wholly new,
//! every patch is all or nothing once oy has started again (its journal
//! completes or undoes it: docs/crash-safety.md), and
//! every saved session still loads.
//!
//! The moments come from a generator seeded by the clock (printed; set
//! `OY_CRASH_SEED` to replay one run). Half the patch trials wait until
//! the first file has changed and kill then, so the middle of a commit is
//! hit on any machine, fast or slow.
#![allow(
    clippy::print_stderr,
    reason = "the trials' seed and counts are the measurement"
)]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::mock_model::{self, Wire, text};
use crate::support::Oy;

/// Files one patch changes.
const PATCH_FILES: usize = 40;

/// A small deterministic generator (xorshift64*), enough for timings.
struct Moments(u64);

impl Moments {
    fn new() -> Self {
        let seed = std::env::var("OY_CRASH_SEED")
            .ok()
            .and_then(|seed| seed.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
                    | 1
            });
        eprintln!("crash trials: OY_CRASH_SEED={seed}");
        Self(seed)
    }

    /// A moment in `0..=within`.
    fn within(&mut self, within: Duration) -> Duration {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let unit = (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
        within.mul_f64(unit)
    }
}

/// Runs `cmd` to its end and returns how long it took.
fn timed(mut cmd: Command) -> Duration {
    let started = Instant::now();
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    started.elapsed()
}

fn spawn(mut cmd: Command) -> Child {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn kill(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// The names directly in the workspace (temporary files would show).
fn names(oy: &Oy) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(&oy.root)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_write_killed_at_any_moment_leaves_the_old_file_or_the_new_one() {
    let oy = Oy::new();
    // Below the kernel's 128 KiB limit on one argument.
    let old = "old line\n".repeat(9_000);
    let new = "new text\n".repeat(13_000);
    let write = |content: &str| {
        let mut cmd = oy.command();
        let args = serde_json::json!({"path": "f.txt", "content": content}).to_string();
        cmd.args(["tool", "write", &args, "--mode", "edit"]);
        cmd
    };
    oy.file("f.txt", &old);
    let took = timed(write(&new));
    let mut moments = Moments::new();
    let mut debris = 0;
    for trial in 0..70 {
        oy.file("f.txt", &old);
        let child = spawn(write(&new));
        std::thread::sleep(moments.within(took.mul_f64(1.3)));
        kill(child);
        let now = oy.read("f.txt");
        assert!(
            now == old || now == new,
            "trial {trial}: a torn file of {} bytes",
            now.len()
        );
        // A write killed between linking its new file under a hidden
        // temp name and renaming it leaves that one file (docs/tools.md):
        // never anything else.
        for name in names(&oy).iter().filter(|name| *name != "f.txt") {
            assert!(
                name.starts_with(".f.txt.oy-tmp."),
                "trial {trial}: {name} left"
            );
            std::fs::remove_file(oy.root.join(name)).unwrap();
            debris += 1;
        }
    }
    eprintln!("write trials: 70 killed, {debris} left a hidden temp file");
}

/// A patch changing every `fN.txt`, and each file's old and new text.
fn patch_case(oy: &Oy) -> (String, Vec<(String, String, String)>) {
    let mut patch = String::from("*** Begin Patch\n");
    let mut files = Vec::new();
    for n in 0..PATCH_FILES {
        let name = format!("f{n}.txt");
        let body: String = (0..60)
            .map(|line| format!("line {line} of {n}\n"))
            .collect();
        let old = format!("{body}old {n}\n{body}");
        let new = format!("{body}new {n}\n{body}");
        patch.push_str(&format!(
            "*** Update File: {name}\n@@\n line 59 of {n}\n-old {n}\n+new {n}\n line 0 of {n}\n"
        ));
        files.push((name, old, new));
    }
    patch.push_str("*** End Patch\n");
    let args = serde_json::json!({ "patch": patch }).to_string();
    for (name, old, _) in &files {
        oy.file(name, old);
    }
    (args, files)
}

/// Which files hold their new text; panics on one that is neither.
fn landed(oy: &Oy, files: &[(String, String, String)], trial: usize) -> Vec<bool> {
    files
        .iter()
        .map(|(name, old, new)| {
            let now = oy.read(name);
            assert!(
                &now == old || &now == new,
                "trial {trial}: {name} is torn ({} bytes)",
                now.len()
            );
            &now == new
        })
        .collect()
}

#[test]
fn a_patch_killed_at_any_moment_is_whole_or_absent_after_the_next_start() {
    let oy = Oy::new();
    let (args, files) = patch_case(&oy);
    let patch = || {
        let mut cmd = oy.command();
        cmd.args(["tool", "patch", &args, "--mode", "edit"]);
        cmd
    };
    let took = timed(patch());
    let mut moments = Moments::new();
    let (mut half, mut whole, mut none) = (0, 0, 0);
    for trial in 0..70 {
        for (name, old, _) in &files {
            oy.file(name, old);
        }
        let child = spawn(patch());
        if trial % 2 == 0 {
            std::thread::sleep(moments.within(took.mul_f64(1.3)));
        } else {
            // Kill as soon as the first file has changed: mid-commit.
            let (first, old, _) = files.first().unwrap();
            let path = oy.root.join(first);
            let deadline = Instant::now() + Duration::from_secs(20);
            while std::fs::read_to_string(&path).is_ok_and(|now| &now == old)
                && Instant::now() < deadline
            {
                std::hint::spin_loop();
            }
        }
        kill(child);
        let before = landed(&oy, &files, trial);
        let mixed = before.iter().any(|n| *n) && before.iter().any(|n| !*n);
        // The next start of oy in the workspace finishes it.
        let next = oy.run(&["tool", "read", r#"{"path":"f0.txt","limit":1}"#]);
        assert_eq!(next.code, 0, "trial {trial}: {}", next.stderr);
        let after = landed(&oy, &files, trial);
        let all_new = after.iter().all(|n| *n);
        let all_old = after.iter().all(|n| !*n);
        assert!(
            all_new || all_old,
            "trial {trial}: half applied after the next start: {after:?}\n{}",
            next.stderr
        );
        if mixed {
            half += 1;
            assert!(
                next.stderr.contains("undone"),
                "trial {trial}: {}",
                next.stderr
            );
        } else if all_new {
            whole += 1;
        } else {
            none += 1;
        }
        let mut expected: Vec<String> = files.iter().map(|(name, ..)| name.clone()).collect();
        expected.sort();
        assert_eq!(names(&oy), expected, "trial {trial}: debris left");
    }
    eprintln!("patch trials: {half} killed half way (undone), {whole} landed, {none} not started");
    assert!(half > 0, "no trial stopped a patch half way");
    // No record is left behind once every change is finished.
    let journal = oy.data.join("oy").join(oy_tools::JOURNAL_DIR);
    let left: Vec<_> = std::fs::read_dir(&journal)
        .into_iter()
        .flatten()
        .flat_map(|dir| std::fs::read_dir(dir.unwrap().path()).unwrap())
        .map(|entry| entry.unwrap().file_name())
        // The workspace's lock file stays; it holds nothing.
        .filter(|name| name != "lock")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_session_save_killed_at_any_moment_leaves_sessions_that_load() {
    let oy = Oy::new();
    // A known window: no probe of the model server slows each run.
    oy.global_config("context_window = 32000\n");
    // Five at a time (each waits on the model server more than it
    // works), killed at five moments.
    let (trials, at_once) = (60, 5);
    let mock = mock_model::start(
        Wire::Chat,
        (0..trials * 3 + 8).map(|_| text("ok")).collect(),
    );
    let run = || {
        let mut cmd = mock_model::run_command(&oy, &mock);
        cmd.args(["--json", "hello"]);
        cmd
    };
    let took = timed(run());
    eprintln!("one run: {took:?}");
    let mut moments = Moments::new();
    for _ in 0..trials / at_once {
        let started = Instant::now();
        let mut children: Vec<(Duration, Child)> = (0..at_once)
            .map(|_| (moments.within(took.mul_f64(1.3)), spawn(run())))
            .collect();
        children.sort_by_key(|(at, _)| *at);
        for (at, child) in children {
            std::thread::sleep(at.saturating_sub(started.elapsed()));
            kill(child);
        }
    }
    let listed = oy.run(&["sessions", "--json"]);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let sessions: serde_json::Value = serde_json::from_str(&listed.stdout).unwrap();
    let sessions = sessions.as_array().unwrap();
    assert!(!sessions.is_empty(), "{}", listed.stdout);
    // Every session file loads whole, read as oy reads them; and the
    // latest one can be resumed.
    let store = oy_agent::SessionStore::open(&oy.data.join("oy").join("sessions")).unwrap();
    for session in sessions {
        let id = session["id"].as_str().unwrap();
        if let Err(error) = store.load(id) {
            panic!("{id} does not load: {error}");
        }
    }
    let ran = mock_model::run(&oy, &mock, &["--continue", "again"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    eprintln!(
        "session trials: {trials} killed, {} sessions saved and loaded",
        sessions.len()
    );
}
