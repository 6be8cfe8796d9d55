//! Crash safety of writes: a writer killed by SIGKILL mid-write leaves the old or the new content (never a torn file, at most hidden, uniquely named `.NAME.oy-tmp.<pid>.<n>` temp files), a failed write leaves the old file intact, writes never touch a user's file that merely looks like a temp name, and concurrent writes of one file all succeed.

use std::fs;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use oy_boundary::{BoundaryError, FileKind, InvalidPathReason, Workspace};

use crate::support::Fixture;

/// Set on the child `Command` only: `<mode>\t<workspace root>`.
const WORKER_ENV: &str = "OY_BOUNDARY_CRASH_WORKER";
/// The test the child runs; its name inside this test binary.
const WORKER_TEST: &str = "boundary_crash::writer_worker";
/// Printed by the worker after each completed operation.
const WROTE: &str = "OY-CRASH-WORKER-WROTE";
/// How long the parent waits for the worker to report, at most.
const WORKER_REPORT_TIMEOUT: Duration = Duration::from_secs(60);
/// A worker that was never killed stops on its own after this long.
const WORKER_LIFETIME: Duration = Duration::from_secs(60);

const VICTIM: &str = "victim.bin";
const INITIAL: &[u8] = b"initial content, before any worker ran\n";
const VICTIM_MODE: u32 = 0o640;
const APPEND_CHUNK_BYTES: usize = 64 * 1024;
const MAX_WORKER_APPENDS: usize = 1024;

/// Content A: 3 MiB of one pattern.
fn content_a() -> Vec<u8> {
    (0..3 << 20).map(|i: usize| (i % 251) as u8).collect()
}

/// Content B: a little over 1 MiB of another pattern, so neither is a
/// prefix of the other and any mix of the two is recognisable.
fn content_b() -> Vec<u8> {
    (0..(1 << 20) + 4099)
        .map(|i: usize| 255 - (i % 241) as u8)
        .collect()
}

fn append_chunk() -> Vec<u8> {
    (0..APPEND_CHUNK_BYTES)
        .map(|i| b'a' + (i % 26) as u8)
        .collect()
}

/// What the victim file holds, as one of the contents a correct writer can leave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    Initial,
    A,
    B,
    /// `INITIAL` followed by this many whole append chunks.
    Appended(usize),
}

fn classify_write(bytes: &[u8], a: &[u8], b: &[u8]) -> Option<Seen> {
    if bytes == INITIAL {
        Some(Seen::Initial)
    } else if bytes == a {
        Some(Seen::A)
    } else if bytes == b {
        Some(Seen::B)
    } else {
        None
    }
}

fn classify_append(bytes: &[u8], chunk: &[u8]) -> Option<Seen> {
    let rest = bytes.strip_prefix(INITIAL)?;
    if !rest.len().is_multiple_of(chunk.len()) || !rest.chunks(chunk.len()).all(|c| c == chunk) {
        return None;
    }
    Some(Seen::Appended(rest.len() / chunk.len()))
}

/// Describes bytes that matched nothing, for the failure message.
fn describe_torn(bytes: &[u8]) -> String {
    let head: Vec<u8> = bytes.iter().copied().take(16).collect();
    format!("{} bytes, starting {head:?}", bytes.len())
}

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn mode_of(path: &Path) -> u32 {
    fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
}

fn set_mode(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// A fresh workspace holding only the victim file with its initial content.
fn victim_fixture() -> Fixture {
    let fx = Fixture::new();
    fx.file(VICTIM, std::str::from_utf8(INITIAL).unwrap());
    set_mode(&fx.root.join(VICTIM), VICTIM_MODE);
    fx
}

/// A pseudo-random number below `n`, different on each call.
fn random_below(n: u64, salt: u64) -> u64 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(salt);
    hasher.finish() % n
}

/// In child mode, hammers the victim file until killed. Without the
/// environment variable (a normal test run) it performs the same writes a
/// few times in-process and checks each result.
#[test]
fn writer_worker() {
    match std::env::var(WORKER_ENV) {
        Ok(spec) => run_worker(&spec),
        Err(_) => in_process_alternation(),
    }
}

#[expect(
    clippy::print_stdout,
    reason = "the worker reports progress to the parent test on stdout"
)]
fn run_worker(spec: &str) {
    let (mode, root) = spec
        .split_once('\t')
        .unwrap_or_else(|| panic!("bad {WORKER_ENV}: {spec:?}"));
    let ws = Workspace::open(root).unwrap();
    let path = ws.path(VICTIM).unwrap();
    let (a, b, chunk) = (content_a(), content_b(), append_chunk());
    let deadline = Instant::now() + WORKER_LIFETIME;
    let mut done = 0usize;
    while Instant::now() < deadline {
        // The outcome is not judged here: the parent judges what is on disk.
        // (A write can fail after it has replaced the file, see
        // `in_process_alternation`.) Only a vanished workspace ends the loop.
        let result = match mode {
            "write" => {
                let contents = if done.is_multiple_of(2) { &a } else { &b };
                ws.write(&path, contents)
            }
            "append" if done < MAX_WORKER_APPENDS => ws.append(&path, &chunk),
            "append" => panic!("appended {done} times without being killed"),
            other => panic!("unknown worker mode {other:?}"),
        };
        assert!(Path::new(root).is_dir(), "the workspace is gone");
        done += 1;
        match result {
            Ok(_) => println!("{WROTE} {done}"),
            Err(err) => println!("{WROTE} {done} with error: {err}"),
        }
    }
    panic!("worker was not killed within {WORKER_LIFETIME:?}");
}

fn in_process_alternation() {
    let fx = victim_fixture();
    let path = fx.ws.path(VICTIM).unwrap();
    let (a, b, chunk) = (content_a(), content_b(), append_chunk());
    for round in 0..4_u32 {
        let contents = if round.is_multiple_of(2) { &a } else { &b };
        let outcome = fx.ws.write(&path, contents).unwrap();
        assert!(!outcome.created, "round {round}: the victim existed");
        assert_eq!(outcome.bytes_written, contents.len() as u64);
        let on_disk = fs::read(fx.root.join(VICTIM)).unwrap();
        assert!(
            on_disk == *contents,
            "round {round}: {}",
            describe_torn(&on_disk)
        );
        assert_eq!(mode_of(&fx.root.join(VICTIM)), VICTIM_MODE, "round {round}");
        assert_eq!(names_in(&fx.root), [VICTIM], "round {round}: debris");
    }
    let log = fx.ws.path("log.txt").unwrap();
    fs::write(fx.root.join("log.txt"), INITIAL).unwrap();
    for round in 1..=3 {
        fx.ws.append(&log, &chunk).unwrap();
        let on_disk = fs::read(fx.root.join("log.txt")).unwrap();
        assert_eq!(
            classify_append(&on_disk, &chunk),
            Some(Seen::Appended(round)),
            "{}",
            describe_torn(&on_disk)
        );
    }
    assert_eq!(names_in(&fx.root), ["log.txt", VICTIM]);
}

/// A worker child process, killed (if still running) when dropped.
struct Worker {
    child: Child,
    lines: Receiver<String>,
    stderr: Option<JoinHandle<String>>,
}

impl Worker {
    fn spawn(mode: &str, root: &Path) -> Self {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", WORKER_TEST, "--nocapture", "--test-threads=1"])
            .env(WORKER_ENV, format!("{mode}\t{}", root.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Self {
            child,
            lines,
            stderr: Some(stderr),
        }
    }

    /// Waits until the worker reports a completed write, and returns the report.
    fn wait_for_first_write(&mut self) -> String {
        let deadline = Instant::now() + WORKER_REPORT_TIMEOUT;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(WROTE) => return line,
                Ok(line) => seen.push(line),
                Err(RecvTimeoutError::Timeout) => {
                    let stderr = self.kill();
                    panic!(
                        "worker reported no write within {WORKER_REPORT_TIMEOUT:?}; \
                         stdout {seen:?}, stderr {stderr}"
                    );
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let stderr = self.kill();
                    panic!(
                        "worker exited before writing (is {WORKER_TEST} the right name?); \
                         stdout {seen:?}, stderr {stderr}"
                    );
                }
            }
        }
    }

    /// SIGKILLs the worker, reaps it, and returns what it printed on stderr.
    fn kill(&mut self) -> String {
        let _ = self.child.kill();
        let status = self.child.wait().unwrap();
        let stderr = self
            .stderr
            .take()
            .map(|handle| handle.join().unwrap_or_default())
            .unwrap_or_default();
        // A worker that died on its own (panic) exits with a code, not a signal.
        assert!(
            status.code().is_none(),
            "worker exited by itself ({status}) instead of being killed; stderr {stderr}"
        );
        stderr
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What one kill left behind.
struct Aftermath {
    /// The victim's bytes.
    bytes: Vec<u8>,
    /// The worker's first report (it had finished one operation by then).
    first_report: String,
    /// Hidden temp files of the victim (`.victim.bin.oy-tmp.*`) the kill
    /// left; expected now and then, and removed so each round starts clean.
    temps: usize,
    /// Any other name found beside the victim (then removed too).
    debris: Vec<String>,
}

/// True for the hidden temp names a write of the victim uses.
fn is_victim_temp(name: &str) -> bool {
    name.starts_with(&format!(".{VICTIM}.oy-tmp."))
}

/// Starts a worker, lets it run for a random 5–60 ms after its first
/// completed operation, SIGKILLs it, and collects what it left.
fn kill_mid_write(mode: &str, root: &Path, salt: u64) -> Aftermath {
    let mut worker = Worker::spawn(mode, root);
    let first_report = worker.wait_for_first_write();
    std::thread::sleep(Duration::from_millis(5 + random_below(56, salt)));
    worker.kill();
    let bytes = fs::read(root.join(VICTIM)).unwrap();
    // A kill between linking the finished temp inode to its unique hidden
    // name and the rename leaves that name behind; nothing sweeps it (a
    // sweep could not tell it from a concurrent writer's temp file).
    // Anything else is debris.
    let mut temps = 0;
    let mut debris = Vec::new();
    for name in names_in(root) {
        if name == VICTIM {
            continue;
        }
        if is_victim_temp(&name) {
            temps += 1;
        } else {
            debris.push(name.clone());
        }
        fs::remove_file(root.join(name)).unwrap();
    }
    Aftermath {
        bytes,
        first_report,
        temps,
        debris,
    }
}

/// Fails listing every round that left something other than the victim's
/// own hidden temp files behind (whose count is reported alongside).
/// Checked after all rounds so that the content checks of every round run
/// first.
fn assert_no_debris(rounds: usize, temps: usize, debris: &[(u64, Vec<String>)]) {
    assert!(
        debris.is_empty(),
        "{} of {rounds} kills left debris beside the victim: {debris:?} \
         (besides {temps} expected `.{VICTIM}.oy-tmp.*` temp files)",
        debris.len()
    );
}

#[test]
fn sigkill_during_write_leaves_old_or_new_content() {
    const ROUNDS: u64 = 30;
    let fx = victim_fixture();
    let (a, b) = (content_a(), content_b());
    let (mut debris, mut temps) = (Vec::new(), 0);
    for round in 0..ROUNDS {
        let after = kill_mid_write("write", &fx.root, round);
        temps += after.temps;
        match classify_write(&after.bytes, &a, &b) {
            Some(Seen::A | Seen::B) => {}
            // The worker had replaced the file at least once.
            Some(other) => panic!(
                "round {round}: the file holds {other:?} after the worker reported {:?}",
                after.first_report
            ),
            None => panic!("round {round}: torn file: {}", describe_torn(&after.bytes)),
        }
        assert_eq!(
            mode_of(&fx.root.join(VICTIM)),
            VICTIM_MODE,
            "round {round}: permission bits not kept"
        );
        if !after.debris.is_empty() {
            debris.push((round, after.debris));
        }
    }
    assert_no_debris(ROUNDS as usize, temps, &debris);
}

#[test]
fn sigkill_during_append_leaves_whole_chunks() {
    const ROUNDS: u64 = 10;
    let fx = victim_fixture();
    let chunk = append_chunk();
    let mut last = 0;
    let (mut debris, mut temps) = (Vec::new(), 0);
    for round in 0..ROUNDS {
        let after = kill_mid_write("append", &fx.root, 1000 + round);
        temps += after.temps;
        match classify_append(&after.bytes, &chunk) {
            Some(Seen::Appended(n)) => {
                assert!(
                    n > last,
                    "round {round}: {n} chunks after {last}, although the worker reported {:?}",
                    after.first_report
                );
                last = n;
            }
            _ => panic!("round {round}: torn file: {}", describe_torn(&after.bytes)),
        }
        if !after.debris.is_empty() {
            debris.push((round, after.debris));
        }
    }
    assert_no_debris(ROUNDS as usize, temps, &debris);
}

const OLD: &str = "old content that must survive\n";

/// Everything in the root (recursively, links by target), to compare
/// before and after a failed write.
fn root_snapshot(fx: &Fixture) -> Vec<(PathBuf, Option<Vec<u8>>)> {
    let mut out = Vec::new();
    let mut stack = vec![fx.root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                let target = fs::read_link(&path).unwrap();
                out.push((path, Some(target.into_os_string().into_encoded_bytes())));
            } else if meta.is_dir() {
                stack.push(path.clone());
                out.push((path, None));
            } else {
                let bytes = fs::read(&path).unwrap();
                out.push((path, Some(bytes)));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn failed_write_onto_a_directory_changes_nothing() {
    let fx = Fixture::new();
    fx.file("target/keep.txt", OLD);
    let before = root_snapshot(&fx);
    let p = fx.ws.path("target").unwrap();
    match fx.ws.write(&p, b"new").unwrap_err() {
        BoundaryError::NotAFile {
            kind: FileKind::Directory,
            ..
        } => {}
        other => panic!("write onto a directory: {other}"),
    }
    assert!(fx.ws.append(&p, b"new").is_err());
    assert!(
        fx.ws
            .create_new(&p, b"new")
            .unwrap_err()
            .is_already_exists()
    );
    assert_eq!(root_snapshot(&fx), before);
}

#[test]
fn create_new_onto_an_existing_file_keeps_it() {
    let fx = Fixture::new();
    fx.file("old.txt", OLD).link("link", "old.txt");
    set_mode(&fx.root.join("old.txt"), VICTIM_MODE);
    let before = root_snapshot(&fx);
    for name in ["old.txt", "link", "./old.txt"] {
        let p = fx.ws.path(name).unwrap();
        let err = fx.ws.create_new(&p, b"new").unwrap_err();
        assert!(err.is_already_exists(), "{name}: {err}");
    }
    // `link/` names a directory: no file is ever created there.
    let p = fx.ws.path("link/").unwrap();
    match fx.ws.create_new(&p, b"new").unwrap_err() {
        BoundaryError::InvalidPath {
            reason: InvalidPathReason::TrailingSlashOnFile,
            ..
        } => {}
        other => panic!("create_new link/: {other:?}"),
    }
    assert_eq!(root_snapshot(&fx), before);
    assert_eq!(mode_of(&fx.root.join("old.txt")), VICTIM_MODE);
}

#[test]
fn write_below_a_file_fails_and_keeps_the_file() {
    let fx = Fixture::new();
    fx.file("f.txt", OLD);
    let before = root_snapshot(&fx);
    for name in ["f.txt/child.txt", "f.txt/deeper/child.txt"] {
        let p = fx.ws.path(name).unwrap();
        assert!(fx.ws.write(&p, b"new").is_err(), "write {name}");
        assert!(fx.ws.append(&p, b"new").is_err(), "append {name}");
        assert!(fx.ws.create_new(&p, b"new").is_err(), "create_new {name}");
    }
    assert_eq!(root_snapshot(&fx), before);
}

#[test]
fn write_through_an_escaping_link_fails_and_changes_nothing() {
    let fx = Fixture::new();
    fx.link("esc", fx.outside.join("secret.txt"))
        .link("up", "../outside/secret.txt");
    let inside = root_snapshot(&fx);
    let outside = fx.outside_snapshot();
    for name in ["esc", "up"] {
        let p = fx.ws.path(name).unwrap();
        let err = fx.ws.write(&p, b"new").unwrap_err();
        assert!(err.is_escape(), "write {name}: {err}");
        let err = fx.ws.append(&p, b"new").unwrap_err();
        assert!(err.is_escape(), "append {name}: {err}");
        // The link itself is in the way: create_new refuses to replace it.
        let err = fx.ws.create_new(&p, b"new").unwrap_err();
        assert!(err.is_already_exists(), "create_new {name}: {err}");
    }
    assert_eq!(root_snapshot(&fx), inside);
    assert_eq!(fx.outside_snapshot(), outside);
}

/// Without privileges a read-only directory blocks the write, which must
/// then leave the old file as it was; with them (CI as root) the write goes
/// through and must then be complete. Either way no debris is left.
#[test]
fn write_into_a_read_only_directory_fails_cleanly_or_succeeds_whole() {
    let fx = Fixture::new();
    fx.file("ro/file.txt", OLD);
    let dir = fx.root.join("ro");
    set_mode(&dir, 0o555);
    let privileged = match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(dir.join(".probe"))
    {
        Ok(_) => {
            fs::remove_file(dir.join(".probe")).unwrap();
            true
        }
        Err(_) => false,
    };
    let p = fx.ws.path("ro/file.txt").unwrap();
    let result = fx.ws.write(&p, b"new content\n");
    let after = fs::read(dir.join("file.txt")).unwrap();
    let names = names_in(&dir);
    set_mode(&dir, 0o755);
    match result {
        Err(err) => {
            assert!(
                !privileged,
                "write failed although the directory is writable: {err}"
            );
            assert_eq!(after, OLD.as_bytes(), "failed write changed the file");
        }
        Ok(_) => {
            assert!(privileged, "write succeeded in a read-only directory");
            assert_eq!(after, b"new content\n");
        }
    }
    assert_eq!(names, ["file.txt"], "debris after the write");
}

#[test]
fn writes_never_touch_a_user_file_named_like_a_temp_file() {
    let fx = victim_fixture();
    // The old fixed temp name, and names of the current pattern that this
    // process could generate (its pid, low counters).
    let pid = std::process::id();
    let lookalikes = [
        format!(".{VICTIM}.oy-tmp"),
        format!(".{VICTIM}.oy-tmp.{pid}.0"),
        format!(".{VICTIM}.oy-tmp.{pid}.1"),
        format!(".{VICTIM}.oy-tmp.{pid}.2"),
    ];
    for name in &lookalikes {
        fs::write(fx.root.join(name), format!("user data in {name}")).unwrap();
    }
    let ws = Workspace::open(&fx.root).unwrap();
    let p = ws.path(VICTIM).unwrap();
    for round in 0..6 {
        let contents = format!("fresh {round}");
        ws.write(&p, contents.as_bytes()).unwrap();
        assert_eq!(fs::read(fx.root.join(VICTIM)).unwrap(), contents.as_bytes());
    }
    ws.append(&p, b"+").unwrap();
    ws.write_private(&p, b"private").unwrap();
    for name in &lookalikes {
        assert_eq!(
            fs::read_to_string(fx.root.join(name)).unwrap(),
            format!("user data in {name}"),
            "{name} was changed"
        );
    }
    let mut expected: Vec<String> = lookalikes.to_vec();
    expected.push(VICTIM.to_owned());
    expected.sort();
    assert_eq!(names_in(&fx.root), expected, "debris after the writes");
}

#[test]
fn concurrent_writes_of_one_path_all_succeed_and_leave_one_whole_content() {
    const WRITERS: usize = 6;
    const ROUNDS: usize = 40;
    let fx = victim_fixture();
    let p = fx.ws.path(VICTIM).unwrap();
    // Distinct lengths and patterns, so any mix is recognisable.
    let contents: Vec<Vec<u8>> = (0..WRITERS)
        .map(|w| vec![b'a' + w as u8; 64 * 1024 + w * 4099])
        .collect();
    for round in 0..ROUNDS {
        let barrier = std::sync::Barrier::new(WRITERS);
        let results: Vec<_> = std::thread::scope(|scope| {
            let handles: Vec<_> = contents
                .iter()
                .map(|bytes| {
                    let (ws, p, barrier) = (&fx.ws, &p, &barrier);
                    scope.spawn(move || {
                        barrier.wait();
                        ws.write(p, bytes)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (writer, result) in results.iter().enumerate() {
            assert!(result.is_ok(), "round {round}, writer {writer}: {result:?}");
        }
        let on_disk = fs::read(fx.root.join(VICTIM)).unwrap();
        assert!(
            contents.contains(&on_disk),
            "round {round}: the file holds none of the contents: {}",
            describe_torn(&on_disk)
        );
        assert_eq!(
            mode_of(&fx.root.join(VICTIM)),
            VICTIM_MODE,
            "round {round}: permission bits not kept"
        );
        assert_eq!(names_in(&fx.root), [VICTIM], "round {round}: debris");
    }
}
